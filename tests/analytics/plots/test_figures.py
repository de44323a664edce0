"""The pure plot functions on hand data: exactly the elements and labels expected in the SVG
(each artist carries an id), the "nothing yet" figures, escaping, and the rendering."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from analytics.plots import (
    ForestPanel,
    ForestRow,
    ForestSeries,
    box_figure,
    countries_figure,
    forest_figure,
    message_figure,
    progress_figure,
    rank_share_figure,
    reliability_figure,
    render,
    voters_figure,
)
from tests.analytics.plots.svg import ids, points_in, svg_of, texts

H = dt.datetime(2026, 11, 20, 8)


def test_forest_one_point_per_system_with_intervals_ranks_and_clusters() -> None:
    rows = [
        ForestRow("Lindenbaum", "1", 412, 1),
        ForestRow("<b>&co", "2–3", 398, 2),
        ForestRow("Rule $x$", "2–3", 380, 2),
        ForestRow("Silent", "4", 0, 3),
    ]
    series = ForestSeries(
        "", [0.4, 0.05, -0.02, None], [0.3, -0.05, None, None], [0.5, 0.15, None, None]
    )
    text, root = svg_of(
        forest_figure(
            rows,
            [ForestPanel("Ave z", [series], zero_line=0.0)],
            title="Scores",
            n_label="judgments",
        )
    )
    assert ids(root, "point-") == ["point-0-0-0", "point-0-0-1", "point-0-0-2"]
    # Only rows with both bounds get an interval.
    assert ids(root, "interval-") == ["interval-0-0-0", "interval-0-0-1"]
    # Clusters 1 | 2 2 | 3: two dashed lines.
    assert ids(root, "cluster-break-") == ["cluster-break-1", "cluster-break-3"]
    shown = texts(root)
    for label in ("Lindenbaum", "<b>&co", "Rule $x$", "Silent", "no score", "Scores"):
        assert label in shown
    assert "rank 2–3, judgments = 398" in shown
    # Escaped in the file, not markup: no <b> element, and the dollar signs stay text.
    assert "&lt;b&gt;&amp;co" in text and "<b>" not in text
    assert {"Ave z", "(higher is better →)"} <= set(shown)


def test_forest_two_panels_and_series_per_test_set() -> None:
    rows = [ForestRow("A", n=10), ForestRow("B", n=8)]
    panels = [
        ForestPanel(
            "BLEU",
            [ForestSeries("professional", [30.0, 25.0]), ForestSeries("crowd", [28.0, None])],
        ),
        ForestPanel(
            "chrF",
            [ForestSeries("professional", [55.0, 50.0]), ForestSeries("crowd", [54.0, 49.0])],
        ),
    ]
    _, root = svg_of(forest_figure(rows, panels, title="Translation"))
    assert len(ids(root, "point-0-")) == 3  # BLEU: B has no crowd score
    assert len(ids(root, "point-1-")) == 4
    assert ids(root, "interval-") == []
    assert {"professional", "crowd", "A", "B"} <= set(texts(root))


def test_forest_without_rows_says_so() -> None:
    _, root = svg_of(forest_figure([], [], title="System scores"))
    assert ids(root, "point-") == []
    assert ids(root, "message") == ["message"]
    assert any("No system scores yet" in t for t in texts(root))


def test_progress_bars_every_hour_including_empty_ones() -> None:
    hours = [H, H + dt.timedelta(hours=1), H + dt.timedelta(hours=3)]
    _, root = svg_of(progress_figure(hours, [3, 4, 5], planned=30, campaign="c<1>"))
    assert ids(root, "per-hour-") == [f"per-hour-{i}" for i in range(4)]  # 8, 9, 10 (empty), 11
    assert ids(root, "cumulative") == ["cumulative"] and ids(root, "planned") == ["planned"]
    shown = texts(root)
    assert "Progress: c<1> (40% of planned)" in shown
    assert "received (12)" in shown and "planned for the HITs built (30)" in shown
    assert "Judgments per hour" in shown and "Time (UTC)" in shown


def test_progress_counts_an_hours_judgments_from_its_start() -> None:
    """The judgments of the hour under way are counted from its start: drawn at its end (a
    time still to come), a campaign under an hour old showed a flat line at 0."""
    from matplotlib import dates

    figure = progress_figure([H, H + dt.timedelta(hours=2)], [12, 3])
    (line,) = [line for line in figure.axes[0].get_lines() if line.get_gid() == "cumulative"]
    hours = [H + dt.timedelta(hours=n) for n in range(4)]  # 8:00 to 11:00
    x = dates.date2num(np.array(hours, dtype="datetime64[s]"))

    assert line.get_path().vertices.tolist() == [
        [x[0], 0.0],
        [x[0], 12.0],
        [x[1], 12.0],
        [x[1], 12.0],  # 9:00-10:00: no judgment
        [x[2], 12.0],
        [x[2], 15.0],
        [x[3], 15.0],
    ]


def test_progress_counts_per_day_past_two_weeks() -> None:
    aware = dt.datetime(2026, 11, 1, 23, tzinfo=dt.UTC)
    hours = [aware, aware + dt.timedelta(hours=2), aware + dt.timedelta(days=20)]
    _, root = svg_of(progress_figure(hours, [1, 2, 3]))
    # Nov 1, Nov 2 (the second hour crosses midnight), ..., Nov 21: 21 days.
    assert len(ids(root, "per-day-")) == 21
    assert ids(root, "planned") == []
    assert "Judgments per day" in texts(root)


def test_progress_without_judgments_is_a_message() -> None:
    _, root = svg_of(progress_figure([], [], planned=500))
    assert ids(root, "cumulative") == []
    assert "No judgments yet (500 planned)." in texts(root)


def test_reliability_one_point_per_placed_worker_by_group() -> None:
    seconds = [2.0, 12.0, 15.0, None, 20.0]
    p_values = [0.9, 0.01, 0.2, 0.5, None]
    groups = ["Reject", "Approve", "Pay", "Approve", "Wait"]
    _, root = svg_of(
        reliability_figure(
            seconds,
            p_values,
            groups,
            alpha=0.05,
            test="Welch",
            group_order=("Approve", "Pay", "Reject", "Wait"),
        )
    )
    # Legend order follows group_order; Wait's only worker has no p-value: no group.
    assert ids(root, "group-") == ["group-0", "group-1", "group-2"]
    assert [points_in(root, f"group-{i}") for i in range(3)] == [1, 1, 1]
    shown = texts(root)
    assert {"Approve (1)", "Pay (1)", "Reject (1)"} <= set(shown)
    assert "p = 0.05: reliable below" in shown
    assert "p-value of the reliability test (low: reliable)" in shown
    assert "Mean seconds per judgment" in shown  # 2 to 15 s: a linear axis
    assert any(t.startswith("Test: Welch. 3 worker(s) shown. 2 not shown") for t in shown)


def test_reliability_log_axis_for_a_wide_spread_and_message_when_nobody_fits() -> None:
    _, root = svg_of(reliability_figure([0.5, 30.0], [0.9, 0.01], ["a", "b"]))
    assert "Mean seconds per judgment (log scale)" in texts(root)
    _, root = svg_of(reliability_figure([None], [0.3], ["a"]))
    assert ids(root, "group-") == [] and ids(root, "message") == ["message"]
    _, root = svg_of(reliability_figure([], [], []))
    assert "No judgments yet: no worker to show." in texts(root)


def test_voters_one_line_per_weighting_with_chance_and_target() -> None:
    curves = {"Unweighted": [0.41, 0.45, 0.5, 0.53], "Weighted": [0.41, 0.48, 0.54, None]}
    _, root = svg_of(
        voters_figure(
            [1, 2, 3, 4], curves, against="the oracle", target=0.58, target_label="experts"
        )
    )
    assert ids(root, "curve-") == ["curve-0", "curve-1"]
    assert points_in(root, "curve-0") == 4 and points_in(root, "curve-1") == 3
    assert ids(root, "chance") == ["chance"] and ids(root, "target") == ["target"]
    shown = texts(root)
    assert {"chance (33%)", "experts", "Unweighted", "Weighted", "1", "4"} <= set(shown)
    assert "Agreement with the oracle (% of pairwise labels)" in shown
    _, root = svg_of(voters_figure([], {}, against="x", empty_message="none yet"))
    assert ids(root, "curve-") == [] and "none yet" in texts(root)


def test_box_per_system_with_counts_skipping_empty_systems() -> None:
    _, root = svg_of(
        box_figure(
            ["A", "B&C", "empty"],
            [[0.1, 0.2, 0.3, 0.4], np.array([-0.5, 0.0, np.nan]), []],
            xlabel="Segment mean z",
            title="Distributions",
            n_label="segments",
        )
    )
    assert ids(root, "box-") == ["box-0", "box-1"] and ids(root, "mean-") == ["mean-0", "mean-1"]
    shown = texts(root)
    assert "A (segments = 4)" in shown and "B&C (segments = 2)" in shown
    assert not any(t.startswith("empty") for t in shown)
    _, root = svg_of(box_figure(["A"], [[]], xlabel="x", title="T"))
    assert ids(root, "box-") == [] and ids(root, "message") == ["message"]


def test_rank_shares_one_segment_per_system_and_rank() -> None:
    counts = [[5, 3, 2], [1, 1, 8], [0, 0, 0]]
    _, root = svg_of(rank_share_figure(["A", "B", "C"], counts, title="Ranks"))
    assert len(ids(root, "share-")) == 6  # C has no ranked output: left out
    assert {"A (n = 10)", "B (n = 10)", "rank 1", "rank 3"} <= set(texts(root))
    assert "C (n = 0)" not in texts(root)


def test_countries_bars_top_twenty_then_others_and_unknown() -> None:
    names = [f"Country {i:02d}" for i in range(25)]
    counts = list(range(25, 0, -1))  # Country 00 has the most
    _, root = svg_of(countries_figure(names, counts, unknown=4, campaign="c"))
    assert len(ids(root, "country-")) == 22
    shown = texts(root)
    assert "5 other countries" in shown and "Country not known" in shown
    assert "15" in shown  # the five smallest: 5 + 4 + 3 + 2 + 1
    assert f"Workers per country: c ({sum(counts) + 4:,} workers)" in shown
    _, root = svg_of(countries_figure([], []))
    assert "No judgments yet: no worker to count." in texts(root)


def test_render_png_and_svg_are_deterministic_and_formats_are_checked() -> None:
    figure = message_figure("T", "nothing")
    png = render(figure, "png")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert render(figure, "png") == png
    assert render(figure, "svg") == render(figure, "svg")
    with pytest.raises(ValueError, match="format must be one of svg, png"):
        render(figure, "pdf")


def test_reliability_points_inside_the_axes_legend_beside_them_and_the_speed_floor() -> None:
    """Session 16's walkthrough: the axis ended at the slowest worker (cut in half), the
    legend's marker sat among the workers, and the 2 s floor the recommendations use was not
    drawn."""
    figure = reliability_figure(
        [0.43, 0.2, 0.3], [0.9, 0.01, 1.0], ["Reject", "Approve", "Approve"], speed_floor=2.0
    )
    axes = figure.axes[0]
    # The floor is beyond the slowest worker: the axis reaches it, with room to spare.
    assert axes.get_xlim() == pytest.approx((0.0, 2.0 * 1.06))
    render(figure, "png")  # lays the figure out
    legend = axes.get_legend().get_window_extent()
    assert legend.x0 >= axes.get_window_extent().x1
    _, root = svg_of(figure)
    assert ids(root, "speed-floor") == ["speed-floor"]
    assert "2 s: too fast left of it" in texts(root)

    figure = reliability_figure([2.0, 12.0, 15.0], [0.9, 0.01, 0.2], ["a", "b", "c"])
    assert figure.axes[0].get_xlim() == pytest.approx((0.0, 15.0 * 1.06))
    _, root = svg_of(figure)
    assert ids(root, "speed-floor") == []
    figure = reliability_figure([0.5, 30.0], [0.9, 0.01], ["a", "b"], speed_floor=2.0)
    assert figure.axes[0].get_xlim() == pytest.approx((0.5 / 1.25, 30.0 * 1.25))
    # The log axis's labels are plain numbers at 1, 2 and 5 of each decade (they were raw
    # mathtext, "$\\mathdefault{10^{0}}$", which the house style does not parse).
    _, root = svg_of(figure)
    shown = texts(root)
    assert not any("mathdefault" in text for text in shown)
    assert {"0.5", "1", "2", "5", "10", "20"} <= set(shown)
