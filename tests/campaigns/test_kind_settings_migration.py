"""Campaigns made before the task kinds became modules read the same afterwards.

tests/fixtures/pre_kinds/ holds two campaigns (direct assessment and ranking, with judgments,
workers and stored results) dumped by the code before the change (old schema: every kind's
settings on Campaign), and what the analysts' API and the admin's results panels answered for
them then (README.md there says how it was recorded). This test loads the dump into the
schema of that time, runs the migrations (campaigns 0008 moves the settings into each kind's
settings model), and asks the same URLs: every body must be identical, and every setting must
have arrived in the kind's settings row.
"""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from rest_framework.test import APIClient

from campaigns.models import DirectAssessmentSettings, RankingSettings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "pre_kinds"
# The newest migration of each app when the recording was made.
BEFORE = [
    ("campaigns", "0007_campaign_imported_from"),
    ("judgments", "0005_judgment_given_z"),
    ("analytics", "0004_systemscore_mean_score_null"),
]
DA_FIELDS = (
    "assessment_mode",
    "items_per_hit",
    "degradation",
    "reliability_test",
    "reliability_alpha",
)
RANKING_FIELDS = (
    "outputs_per_set",
    "sets_per_hit",
    "gold_rate",
    "gold_scheme",
    "trust_min_gold",
    "trust_min_accuracy",
    "takedown_untrusted_share",
    "takedown_min_workers",
    "qualification_sets",
    "gold_count",
    "ranking_combination",
    "gold_best_system",
    "gold_worst_system",
)


def _load_into_old_schema(apps, rows: list[dict]) -> None:
    """Insert the dumped rows with the historical models of the old schema (loaddata would
    use today's models). Foreign keys are deferred to the commit, so the order is free."""
    by_model: dict[str, list] = {}
    for label in {row["model"] for row in rows}:
        for field in apps.get_model(label)._meta.concrete_fields:
            # Keep the recorded created_at/updated_at (these historical models are throwaway).
            field.auto_now = field.auto_now_add = False
    for row in rows:
        model = apps.get_model(row["model"])
        values = {}
        for name, value in row["fields"].items():
            field = model._meta.get_field(name)
            if field.many_to_many:
                continue  # no many-to-many rows in the dump (users' groups are empty)
            if field.is_relation:
                values[field.attname] = value
            else:
                values[name] = field.to_python(value)
        by_model.setdefault(row["model"], []).append(model(pk=row["pk"], **values))
    with transaction.atomic():
        for label, instances in by_model.items():
            apps.get_model(label).objects.bulk_create(instances)


def _reset_sequences() -> None:
    """After inserting explicit pks, let PostgreSQL's sequences continue after them."""
    if connection.vendor != "postgresql":
        return
    from django.apps import apps
    from django.core.management.color import no_style

    models = [m for label in ("auth", "campaigns", "judgments", "analytics")
              for m in apps.get_app_config(label).get_models()]  # fmt: skip
    with connection.cursor() as cursor:
        for statement in connection.ops.sequence_reset_sql(no_style(), models):
            cursor.execute(statement)


def _panel(html: str, section_id: str) -> str:
    start = html.index(f'<section id="{section_id}"')
    end = html.index("</section>", start) + len("</section>")
    return re.sub(r'(name="csrfmiddlewaretoken" value=")[^"]*"', r'\1"', html[start:end])


@pytest.fixture
def migrated_recording(transactional_db):
    """The recording loaded at the old schema and migrated to today's. Afterwards the
    database is back at the newest migrations whatever happened."""
    rows = json.loads((FIXTURES / "db.json").read_text())
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    try:
        executor.migrate(BEFORE)
        executor.loader.build_graph()
        _load_into_old_schema(executor.loader.project_state(BEFORE).apps, rows)
        executor = MigrationExecutor(connection)
        executor.migrate(latest)
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    _reset_sequences()
    return {row["pk"]: row["fields"] for row in rows if row["model"] == "campaigns.campaign"}


def _superuser():
    return get_user_model().objects.create_superuser("checker", "", "x")


def test_every_campaign_keeps_its_kind_settings(migrated_recording):
    old = migrated_recording
    da = DirectAssessmentSettings.objects.get(campaign_id=1)
    assert {name: getattr(da, name) for name in DA_FIELDS} == {
        name: Decimal(old[1][name]) if name == "reliability_alpha" else old[1][name]
        for name in DA_FIELDS
    }
    ranking = RankingSettings.objects.get(campaign_id=2)
    decimals = {"gold_rate", "trust_min_accuracy", "takedown_untrusted_share"}
    stored = {
        name: getattr(ranking, f"{name}_id" if name.startswith("gold_") and "system" in name
                      else name)
        for name in RANKING_FIELDS
    }  # fmt: skip
    assert stored == {
        name: Decimal(old[2][name]) if name in decimals else old[2][name] for name in RANKING_FIELDS
    }
    # The values are the recording's non-defaults, so a lost one would show.
    assert (da.degradation, da.reliability_test, da.reliability_alpha) == (
        "replace",
        "paired_t",
        Decimal("0.100"),
    )
    assert (ranking.outputs_per_set, ranking.gold_scheme, ranking.ranking_combination) == (
        3,
        "best_worst",
        "schulze_peers",
    )
    # Only each campaign's own kind has settings.
    assert not RankingSettings.objects.filter(campaign_id=1).exists()
    assert not DirectAssessmentSettings.objects.filter(campaign_id=2).exists()


def _without_ranking_issue_12(url: str, got, client: APIClient):
    """What issue 12 added to these answers since the recording, checked and then taken out,
    so that everything else must still be exactly as recorded: every campaign's ``rank_by``
    and ``reference_system`` ("" for other kinds; the ranking campaign ranks by Expected Wins
    and names no reference), and the counts of each system's comparisons in the ranking
    campaign's TSV (Wins, Ties, Losses after n) and LaTeX (the win ratios' last four columns)
    exports, which must be the stored counts the CSV export gives."""
    if isinstance(got, dict):
        listed = got.get("results") if "rank_by" not in got else None
        for campaign in listed if isinstance(listed, list) else [got]:
            if isinstance(campaign, dict) and "rank_by" in campaign:
                ranking = campaign["kind"] == "ranking"
                assert campaign.pop("rank_by") == ("expected_wins" if ranking else ""), url
                assert campaign.pop("reference_system") == "", url
        return got
    if not url.startswith("/api/campaigns/2/export/systems.") or url.startswith(
        "/api/campaigns/2/export/systems.csv"
    ):
        return got
    csv_url = url.replace("systems.tsv", "systems.csv").replace("systems.tex", "systems.csv")
    response = client.get(csv_url)
    csv_text = (
        b"".join(response.streaming_content) if response.streaming else response.content
    ).decode()
    counts = [line.split(",") for line in csv_text.splitlines()[1:]]
    # A system's counts are its comparisons, the same whatever the method: wins, ties,
    # losses, n.
    systems = {row[3]: [row[9], row[10], row[11], row[8]] for row in counts}
    if "systems.tsv" in url:
        lines = got.split("\n")
        header = lines[0].split("\t")
        assert header[8:11] == ["Wins", "Ties", "Losses"], url
        kept = ["\t".join(header[:8] + header[11:])]
        for line in lines[1:]:
            cells = line.split("\t")
            if len(cells) > 1:
                assert cells[8:11] == systems[cells[6]][:3], (url, line)
                cells = cells[:8] + cells[11:]
            kept.append("\t".join(cells))
        return "\n".join(kept)
    # The caption of the score the campaign ranks by (Expected Wins) says so.
    chosen = " The campaign ranks its systems by this score."
    (caption,) = [line for line in got.split("\n") if chosen in line]
    assert caption.startswith(r"\caption{pre-kinds ranking (de-en, ranking), Expected Wins"), url
    got = got.replace(chosen, "")
    kept, counted = [], False
    for line in got.split("\n"):
        if line == r"\begin{tabular}{rrclrrrr}":
            line, counted = r"\begin{tabular}{rrcl}", True
        elif line.startswith(r"\begin{tabular}"):
            counted = False
        elif counted and line.endswith(r" \\") and " & " in line:
            cells = line[: -len(r" \\")].split(" & ")
            if cells[0] != r"\#":  # the header row's added cells are Wins, Ties, Losses, $n$
                assert cells[4:] == systems[cells[3].replace(r"\_", "_")], (url, line)
            else:
                assert cells[4:] == ["Wins", "Ties", "Losses", "$n$"], url
            line = " & ".join(cells[:4]) + r" \\"
        kept.append(line)
    return "\n".join(kept)


OLD_DA_TEST = "one-sided Wilcoxon rank-sum (Mann-Whitney U) on z-scores"
OLD_DA_CAPTION = r"Ave \% is the mean raw score, \# the rank range; rules"
NEW_DA_CAPTION = (
    r"Ave \% is the mean raw score (flat means over judgments), \# the rank range (WMT's: 1 + "
    r"systems significantly better to n - systems significantly worse); rules"
)


def _without_da_issue_12(url: str, got):
    """What issue 12 added to the direct-assessment answers, checked and taken out: results
    stored before it are said to be flat means tested per judgment (the sweep recomputes them
    the WMT way, see test_results_stored_before_issue_12_are_stale), their systems'
    ``n_segments`` are 0 (not counted then), workers' ``recommendation_reason`` is empty, and
    the CSV and TSV tables end with the segments column."""
    if not url.startswith("/api/campaigns/1/"):
        return got
    if isinstance(got, dict):
        if (
            got.get("test")
            == "one-sided Wilcoxon rank-sum (Mann-Whitney U) on per-judgment z-scores"
        ):
            got["test"] = OLD_DA_TEST
        for row in got.get("results", [got]):
            score = row.get("direct_assessment") if isinstance(row, dict) else None
            if score:
                assert score.pop("n_segments") == 0, url
            reliability = row.get("reliability") if isinstance(row, dict) else None
            if reliability:
                assert reliability.pop("recommendation_reason") == "", url
        return got
    if "systems.csv" in url:
        lines = got.split("\r\n")
        assert lines[0].endswith(",n_segments"), url
        return "\r\n".join(line.rsplit(",", 1)[0] if line else line for line in lines)
    if "systems.tsv" in url:
        lines = got.split("\n")
        assert lines[0].endswith("\tSegments"), url
        return "\n".join(line.rsplit("\t", 1)[0] if line else line for line in lines)
    if "systems.tex" in url:
        assert got.count(NEW_DA_CAPTION) == 1, url
        return got.replace(NEW_DA_CAPTION, OLD_DA_CAPTION)
    return got


def test_results_stored_before_issue_12_are_stale(migrated_recording):
    # Stored as flat means with the per-judgment test and no effort checks: the sweep
    # recomputes them with the campaign's (WMT) settings.
    from analytics.kinds.direct_assessment.actions import stale_da_campaigns
    from analytics.models import CampaignResult

    result = CampaignResult.objects.get(campaign_id=1)
    assert (result.score_averaging, result.significance_unit) == ("judgments", "judgments")
    assert (result.min_score_sd, result.min_seconds_per_item) == (0, 0)
    assert list(stale_da_campaigns().values_list("pk", flat=True)) == [1]


def test_the_api_answers_exactly_as_before(migrated_recording):
    expected = json.loads((FIXTURES / "expected.json").read_text())
    client = APIClient()
    client.force_authenticate(_superuser())
    different = []
    for url, body in expected.items():
        response = client.get(url)
        assert response.status_code == 200, url
        if "/export/" in url:
            got = (
                b"".join(response.streaming_content).decode()
                if response.streaming
                else (response.content.decode())
            )
        else:
            got = response.json()
        got = _without_ranking_issue_12(url, got, client)
        got = _without_da_issue_12(url, got)
        got = _without_later_kinds(got)
        got = _without_progress_issue_17(got)
        got = _without_worker_statistics_issue_17(got)
        got = _without_worker_labels(url, got)
        got = _without_cost_split_issue_17(got)
        got, body = _without_judgment_task_columns(url, got, body)
        if got != body:
            different.append(url)
    assert different == []


# Session 15: a judgment of the API and the judgments export name its HIT's task and the
# judgment it is about (a grade's answer); on the recording's campaigns every task is the
# kind's one and nothing is about another judgment: checked, then taken out. The export files
# are compared as parsed rows, with the two columns taken out of the new file's.
JUDGMENT_TASKS = {"assess", "rank"}


def _without_judgment_task_columns(url: str, got, body):
    if url.endswith("/export/judgments.csv"):
        rows = list(csv.reader(io.StringIO(got, newline="")))
        task, about = rows[0].index("task"), rows[0].index("about_judgment")
        assert {row[task] for row in rows[1:]} <= JUDGMENT_TASKS
        assert {row[about] for row in rows[1:]} <= {""}
        got = [[v for i, v in enumerate(row) if i not in (task, about)] for row in rows]
        return got, list(csv.reader(io.StringIO(body, newline="")))
    if url.endswith("/export/judgments.jsonl"):
        lines = [json.loads(line) for line in got.splitlines()]
        for line in lines:
            if "judgment_id" in line:  # not the file's closing line
                assert line.pop("task") in JUDGMENT_TASKS and line.pop("about_judgment") is None
        return lines, [json.loads(line) for line in body.splitlines()]
    if "/judgments/" in url:
        for judgment in got["results"]:
            assert judgment.pop("task") in JUDGMENT_TASKS
            assert judgment.pop("about_judgment") is None
    return got, body


# Fields the kinds added after the recording (issues 13 and 14: post-editing and reading
# comprehension), empty on the recording's direct-assessment and ranking campaigns: checked
# empty, then taken out. Every kind's fields appear on every campaign, system, segment and
# worker of the API, as ranking's did on direct assessment's.
LATER_KIND_FIELDS = {
    "post_editing_mode": "",
    "ter_signature": "",
    "grading_kappa": None,
    "reference_share_correct": None,
    "post_editing": None,
    "reading_comprehension": None,
    "hter": None,
    "n_passed": None,
    # Crowd translation (issue 15): a system's scores (an empty list) and a worker's
    # (None), for the recorded kinds. A tuple lists the empty values allowed.
    "translation": ([], None),
}


def _without_later_kinds(got):
    if isinstance(got, list):
        return [_without_later_kinds(item) for item in got]
    if not isinstance(got, dict):
        return got
    for key, empty in LATER_KIND_FIELDS.items():
        if key in got:
            assert got.pop(key) in (empty if isinstance(empty, tuple) else (empty,)), key
    return {key: _without_later_kinds(value) for key, value in got.items()}


# Issue 17: a campaign's progress says how many judgments it needs and counts (each HIT's own
# places, capped per HIT: analytics.progress); the recording has no work beyond the places.
PROGRESS_ISSUE_17 = ("places_done", "judgments_needed", "judgments_counted", "beyond_places")


def _without_progress_issue_17(got):
    if isinstance(got, list):
        return [_without_progress_issue_17(item) for item in got]
    if not isinstance(got, dict):
        return got
    progress = got.get("progress")
    if isinstance(progress, dict) and "beyond_places" in progress:
        assert progress["beyond_places"] == {"assignments": 0, "judgments": 0, "note": ""}
        assert progress["judgments_counted"] <= progress["judgments_needed"]
        got = {**got, "progress": {k: v for k, v in progress.items() if k not in PROGRESS_ISSUE_17}}
    return {key: _without_progress_issue_17(value) for key, value in got.items()}


def _without_cost_split_issue_17(got):
    """Issue 17: a campaign's cost keeps approved and awaiting-review assignments apart; and
    since the requester's check of session 17 it says what the campaign report says: "paid"
    is approved work and sent bonuses, "committed" adds the work awaiting review (the
    recording's "paid_assignments" and "total"), Prolific's fee is counted as the report
    counts it, "bonuses" is "bonuses_sent". Each new figure is checked against the recorded
    one it replaces, then the recording's names are put back."""
    if isinstance(got, list):
        return [_without_cost_split_issue_17(item) for item in got]
    if not isinstance(got, dict):
        return got
    cost = got.get("cost")
    if isinstance(cost, dict) and "committed_assignments" in cost:
        cost = dict(cost)
        split = cost.pop("approved_assignments") + cost.pop("awaiting_review_assignments")
        committed = cost.pop("committed_assignments")
        assert split == committed
        money = {
            name: Decimal(cost.pop(name))
            for name in ("rewards", "bonuses_sent", "mturk_fees", "prolific_fees")
        }
        paid, total = Decimal(cost.pop("paid")), Decimal(cost.pop("committed"))
        assert total == sum(money.values())
        # The recording has work awaiting review only: nothing approved, nothing sent.
        assert paid == money["bonuses_sent"] == 0
        cost = {
            "currency": cost.pop("currency"),
            "reward": cost.pop("reward"),
            "paid_assignments": committed,
            "rewards": f"{money['rewards']:.2f}",
            "bonuses": f"{money['bonuses_sent']:.2f}",
            "mturk_fees": f"{money['mturk_fees']:.2f}",
            "total": f"{total - money['prolific_fees']:.2f}",
            **cost,
        }
        got = {**got, "cost": cost}
    return {key: _without_cost_split_issue_17(value) for key, value in got.items()}


def _without_worker_statistics_issue_17(got):
    """Issue 17: a worker of the API says when their stored statistics were computed and over
    how many of their judgments (``statistics``). The recording's results were computed over
    every judgment: checked, then taken out."""
    if isinstance(got, list):
        return [_without_worker_statistics_issue_17(item) for item in got]
    if not isinstance(got, dict):
        return got
    statistics = got.get("statistics")
    if isinstance(statistics, dict) and set(statistics) == {"computed_at", "n_judgments"}:
        assert statistics["computed_at"] is not None
        assert statistics["n_judgments"] == got["n_judgments"]
        got = {key: value for key, value in got.items() if key != "statistics"}
    return {key: _without_worker_statistics_issue_17(value) for key, value in got.items()}


def _without_worker_labels(url, got):
    """Session 17: a worker of the API has the label of their direct link (the requester's note
    on whom it was for). The recording's workers have none: checked, then taken out."""
    if "/workers/" not in url or not isinstance(got, dict):
        return got
    rows = got.get("results", [got])
    for row in rows:
        assert row.pop("label") == "", url
    return got


# Issue 12 in the ranking panel: the campaign's chosen score is marked, and WMT12's win ratio
# has a table of its own, without rows in results stored before it existed (the sweep
# recomputes such results: analytics.kinds.ranking.actions.stale_ranking_campaigns).
CHOSEN_MARK = (
    ' <span class="ranking-chosen">(ranks the systems: the campaign\'s chosen score)</span>'
)
WMT12_TABLE = (
    "    <h4>Win ratio, ties left out: wins / (wins + losses) (WMT12)</h4>\n"
    '    <p class="note">Wins / (wins + losses): ties left out of the comparisons (WMT12&#x27;s '
    "official &#x27;&gt; others&#x27;).</p>\n    \n    <p>No scores.</p>\n    \n    \n    \n"
)


def _da_panel_without_issue_12(panel: str) -> str:
    """Issue 12 in the DA panel: WMT's column names, a Segments column (0 for results stored
    before it), the scoring said in words, the test's unit and the rejection label."""
    scoring = (
        '    <p class="da-scoring">Mean z and mean raw score over all judgments (the 2014 '
        "paper&#x27;s flat mean); rank ranges: 1 + the systems that significantly beat the "
        "system to n - the systems it significantly beats (WMT).</p>\n"
    )
    assert panel.count(scoring) == 1
    panel = panel.replace(scoring, "")
    new_head = (
        '<th class="num">Ave z</th><th class="num">Ave raw</th>\n        <th class="num">'
        'Segments</th><th class="num">Judgments</th><th class="num">Cluster</th>'
    )
    old_head = (
        '<th class="num">Mean z</th><th class="num">Mean raw</th>\n        <th class="num">n'
        '</th><th class="num">Cluster</th>'
    )
    assert panel.count(new_head) == 1
    panel = panel.replace(new_head, old_head)
    panel = re.sub(
        r'<td class="num n-segments">0</td><td class="num n">(\d+)</td>\n\s+<td class="num '
        r'cluster">',
        r'<td class="num n">\1</td><td class="num cluster">',
        panel,
    )
    panel = panel.replace("rank-sum on per-judgment z-scores:", "rank-sum on z:")
    # Session 17: the count of judgments in the analysis says what it counts, and that the
    # systems' table counts fewer.
    panel = re.sub(
        r"(\d+) standardised: every judgment of the workers neither rejected nor excluded, "
        r"quality-control items included; the systems&#x27; table counts only its systems&#x27; "
        r"judgments( by reliable workers)?; test:",
        r"\1 counted in scores; test:",
        panel,
    )
    return panel.replace(
        "Consider rejecting (clearly not working)",
        "Consider rejecting (unreliable and fast: clear random clicking)",
    )


def _ranking_panel_without_issue_12(panel: str) -> str:
    assert panel.count(f"<h4>Expected Wins (WMT13){CHOSEN_MARK}</h4>") == 1
    assert panel.count(WMT12_TABLE) == 1
    return panel.replace(CHOSEN_MARK, "").replace(WMT12_TABLE, "")


def test_the_admin_results_panels_read_as_before(migrated_recording):
    expected = json.loads((FIXTURES / "admin_panels.json").read_text())
    client = Client()
    client.force_login(_superuser())
    for url, panel in expected.items():
        html = client.get(url).content.decode()
        section = "da-results" if "/campaign/1/" in url else "ranking-results"
        got = _panel(html, section)
        if section == "ranking-results":
            got = _ranking_panel_without_issue_12(got)
        else:
            got = _da_panel_without_issue_12(got)
        assert got == panel, url
