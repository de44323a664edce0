"""analytics.actions: recompute stores exactly what the pure statistics give; exclusions and
rejections are left out of the scores; stores replace a campaign's rows as a whole."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from datetime import timedelta
from decimal import Decimal

import numpy as np
import pytest
from django.core.cache import cache
from scipy import stats as scipy_stats

from analytics import actions
from analytics.kinds.direct_assessment import actions as da_actions
from analytics.kinds.direct_assessment.loading import load_da_judgments
from analytics.models import CampaignResult, Recommendation, SystemScore, WorkerStat
from analytics.stats.direct_assessment import DAConfig, DAJudgments, WorkerQC, analyse_campaign
from analytics.stats.direct_assessment.effort import ScoreSpread
from campaigns.models import Campaign, DirectAssessmentSettings, HitSlot, SlotRole, TaskKind
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    DocumentFactory,
    HitFactory,
    HitSlotFactory,
    OutputFactory,
    SegmentFactory,
    SystemFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

# --- A small hand-worked campaign: two systems, one HIT of 26 slots, two workers ------------
#
# Positions 1-6 are system A's outputs of segments 1-6, 7-12 system B's of segments 7-12;
# 13-18 bad references of positions 1, 2, 3, 7, 8, 9; 19-24 repeats of 4, 5, 6, 10, 11, 12;
# 25-26 references controlling positions 1 and 7.
ROLES = [SlotRole.SYSTEM] * 12 + [SlotRole.BAD_REFERENCE] * 6 + [SlotRole.REPEAT] * 6
ROLES += [SlotRole.REFERENCE] * 2
CONTROLS = [None] * 12 + [1, 2, 3, 7, 8, 9] + [4, 5, 6, 10, 11, 12] + [1, 7]
SYSTEM_OF = ["A"] * 6 + ["B"] * 6

# The careful worker: A around 80, B around 40, bad references 30 below their source, repeats
# within a point, references high. 8 seconds per judgment.
CAREFUL = [80, 84, 77, 82, 79, 85, 40, 45, 38, 42, 36, 44]
CAREFUL += [50, 55, 46, 12, 14, 9]  # bad references of 80, 84, 77, 40, 45, 38
CAREFUL += [83, 79, 86, 41, 37, 43]  # repeats of 82, 79, 85, 42, 36, 44
CAREFUL += [92, 90]
# The random clicker: uniform integers from a fixed seed, 1 second per judgment.
RANDOM = np.random.default_rng(0).integers(0, 101, 26).astype(float).tolist()
CAREFUL_MS, RANDOM_MS = 8000, 1000


@dataclass
class SmallCampaign:
    campaign: Campaign
    systems: dict[str, int]
    slots: list[HitSlot]
    careful: Assignment
    random: Assignment

    def arrays(self, which: list[Assignment]) -> DAJudgments:
        """The expected input of the statistics, written out from the plan (not loaded)."""
        columns: dict[str, list] = {k: [] for k in DAJudgments.__dataclass_fields__}
        columns.pop("scale_max")
        for assignment in which:
            scores = CAREFUL if assignment == self.careful else RANDOM
            ms = CAREFUL_MS if assignment == self.careful else RANDOM_MS
            for i, slot in enumerate(self.slots):
                role = ROLES[i]
                controlled = CONTROLS[i]
                output_index = i if controlled is None else controlled - 1
                columns["worker"].append(assignment.worker_id)
                columns["assignment"].append(assignment.pk)
                columns["slot"].append(slot.pk)
                columns["role"].append(str(role))
                columns["system"].append(
                    self.systems[SYSTEM_OF[output_index]]
                    if role in (SlotRole.SYSTEM, SlotRole.REPEAT)
                    else -1
                )
                columns["item"].append(slot.output_id)
                columns["pair_slot"].append(
                    -1 if controlled is None else self.slots[controlled - 1].pk
                )
                columns["score"].append(float(scores[i]))
                columns["seconds"].append(ms / 1000)
        return DAJudgments(**columns)


def build_small_campaign(suffix: str = "", **campaign_fields) -> SmallCampaign:
    """The hand-worked campaign; workers are "careful" and "random" plus ``suffix``."""
    campaign = CampaignFactory(**campaign_fields)
    actions.clear_recompute_flag(campaign.pk)  # a flag left in a shared cache by another run
    document = DocumentFactory(campaign=campaign)
    systems = {name: SystemFactory(campaign=campaign, name=name) for name in "AB"}
    outputs = [
        OutputFactory(
            segment=SegmentFactory(document=document, position=i + 1),
            system=systems[SYSTEM_OF[i]],
            text=f"Output {i + 1} of system {SYSTEM_OF[i]}, with several words.",
        )
        for i in range(12)
    ]
    hit = HitFactory(campaign=campaign, number=1)
    slots: list[HitSlot] = []
    for i, (role, controlled) in enumerate(zip(ROLES, CONTROLS, strict=True)):
        output = outputs[i if controlled is None else controlled - 1]
        slots.append(
            HitSlotFactory(
                hit=hit,
                position=i + 1,
                group=0,
                role=role,
                output=output,
                controls=None if controlled is None else slots[controlled - 1],
            )
        )
    careful = AssignmentFactory(hit=hit, worker=WorkerFactory(external_id=f"careful{suffix}"))
    random_ = AssignmentFactory(hit=hit, worker=WorkerFactory(external_id=f"random{suffix}"))
    for assignment, scores, ms in ((careful, CAREFUL, CAREFUL_MS), (random_, RANDOM, RANDOM_MS)):
        Judgment.objects.bulk_create(
            Judgment(
                campaign=campaign,
                worker_id=assignment.worker_id,
                assignment=assignment,
                slot=slot,
                score=float(score),
                client_duration_ms=ms,
            )
            for slot, score in zip(slots, scores, strict=True)
        )
    return SmallCampaign(
        campaign=campaign,
        systems={name: system.pk for name, system in systems.items()},
        slots=slots,
        careful=careful,
        random=random_,
    )


@pytest.fixture
def small() -> SmallCampaign:
    built = build_small_campaign()
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


def stored_systems(campaign, include_unreliable):
    return list(
        SystemScore.objects.filter(campaign=campaign, include_unreliable=include_unreliable)
        .order_by("position")
        .values_list("system_id", "n", "mean_score", "mean_z", "cluster", "rank_best")
    )


# --- Exact figures -----------------------------------------------------------------------------


def test_recompute_stores_the_figures_of_the_pure_statistics(small):
    result = actions.recompute_campaign(small.campaign)

    expected = {
        include: analyse_campaign(
            small.arrays([small.careful, small.random]),
            DAConfig(alpha=0.05, reliability_test="wilcoxon", include_unreliable=include),
        )
        for include in (False, True)
    }
    # The careful worker is reliable, the random clicker is not.
    flags = dict(WorkerStat.objects.values_list("worker__external_id", "reliable"))
    assert flags == {"careful": True, "random": False}
    qc = {r.worker: r for r in expected[True].reliability.records()}
    for stat in WorkerStat.objects.filter(campaign=small.campaign):
        want = qc[stat.worker_id]
        assert stat.p_value == pytest.approx(want.p_value, abs=1e-12)
        assert (stat.test, stat.n_pairs, stat.n_bad_ref_pairs, stat.n_repeat_pairs) == (
            "wilcoxon",
            6,
            6,
            6,
        )
        assert stat.n_judgments == 26
        assert stat.mean_seconds == pytest.approx(want.mean_seconds, abs=1e-12)
        assert stat.assumption_a_p == pytest.approx(want.assumption_a_p, abs=1e-12)
        assert (stat.excluded, stat.n_rejected_judgments) == (False, 0)
    careful = WorkerStat.objects.get(worker=small.careful.worker)
    assert careful.p_value == pytest.approx(1 / 64)  # 6 positive differences: 2**-6
    assert careful.mean_seconds == 8.0
    random_stat = WorkerStat.objects.get(worker=small.random.worker)
    assert random_stat.p_value == pytest.approx(0.953125)
    # Unreliable and fast (1 s < half of the reliable median 8 s): clear random clicking; 1 s
    # per item is also below the absolute floor of 2 s, which is the reason given first.
    assert (careful.recommendation, random_stat.recommendation) == ("approve", "reject")
    assert (careful.recommendation_reason, random_stat.recommendation_reason) == (
        "",
        "too fast: 1.0 s per item on average, below the floor of 2 s",
    )

    for include, report in expected.items():
        s = report.systems
        want = [
            (int(s.system[i]), int(s.n[i]), s.mean_score[i], s.mean_z[i], int(report.clusters[i]))
            for i in range(len(s))
        ]
        got = stored_systems(small.campaign, include)
        assert [row[:2] for row in got] == [row[:2] for row in want]
        for (_, _, raw, z, cluster, _), (_, _, raw_want, z_want, cluster_want) in zip(
            got, want, strict=True
        ):
            assert raw == pytest.approx(raw_want, abs=1e-9)
            assert z == pytest.approx(z_want, abs=1e-9)
            assert cluster == cluster_want

    assert result == CampaignResult.objects.get(campaign=small.campaign)
    assert (result.n_judgments, result.n_scored_judgments, result.n_rejected_judgments) == (
        52,
        52,
        0,
    )
    assert (result.n_workers, result.reliability_test, result.reliability_alpha) == (
        2,
        "wilcoxon",
        Decimal("0.050"),
    )
    details = result.details["reliable"]
    assert details["systems"] == [small.systems["A"], small.systems["B"]]
    # WMT's test on segment means: A's 6 segment means all lie above B's 6, so the exact
    # one-sided p is 1 / C(12, 6) = 1/924 = 0.00108: "**" (per judgment, 9 against 9, it
    # was 1 / C(18, 9) = 1/48620: "***", see the test below).
    assert details["marks"] == [["", "**"], ["", ""]]
    assert details["p_greater"][0][1] == pytest.approx(1 / 924, rel=1e-9)
    assert (details["averaging"], details["significance_unit"]) == ("segments", "segments")
    assert details["p_greater"][0][0] is None  # NaN diagonal stored as null
    assert details["p_greater"][0][1] == pytest.approx(expected[False].p_greater[0, 1])
    assert details["n_workers_included"] == 1
    assert result.details["all"]["n_workers_included"] == 2


def test_reliable_system_scores_are_the_careful_workers_segment_means_worked_by_hand(small):
    actions.recompute_campaign(small.campaign)

    # Only the careful worker is reliable. Outputs and repeats count; QC items do not. WMT's
    # Ave raw: segments 4-6 of A were judged twice (output and repeat), so their mean counts
    # once: A = (80 + 84 + 77 + (82+83)/2 + (79+79)/2 + (85+86)/2) / 6 = 488 / 6 = 81.333.
    a_segments = CAREFUL[0:3] + [(CAREFUL[3 + i] + CAREFUL[18 + i]) / 2 for i in range(3)]
    b_segments = CAREFUL[6:9] + [(CAREFUL[9 + i] + CAREFUL[21 + i]) / 2 for i in range(3)]
    mean, sd = statistics.mean(CAREFUL), statistics.stdev(CAREFUL)  # over all 26, n - 1

    def mean_z(scores):
        return statistics.mean((x - mean) / sd for x in scores)

    assert stored_systems(small.campaign, False) == [
        (small.systems["A"], 9, pytest.approx(statistics.mean(a_segments), abs=1e-9),
         pytest.approx(mean_z(a_segments), abs=1e-9), 1, 1),
        (small.systems["B"], 9, pytest.approx(statistics.mean(b_segments), abs=1e-9),
         pytest.approx(mean_z(b_segments), abs=1e-9), 2, 2),
    ]  # fmt: skip
    assert statistics.mean(a_segments) == pytest.approx(488 / 6, abs=1e-9)
    assert list(
        SystemScore.objects.filter(campaign=small.campaign).values_list("n_segments", flat=True)
    ) == [6, 6, 6, 6]


def test_the_flat_mean_over_judgments_stays_an_option(small):
    DirectAssessmentSettings.objects.filter(campaign=small.campaign).update(
        score_averaging="judgments", significance_unit="judgments"
    )
    small.campaign.refresh_from_db()
    result = actions.recompute_campaign(small.campaign)

    # The 2014 paper's flat mean over the 9 judgments (6 outputs and 3 repeats) per system.
    a_scores = CAREFUL[0:6] + CAREFUL[18:21]
    b_scores = CAREFUL[6:12] + CAREFUL[21:24]
    mean, sd = statistics.mean(CAREFUL), statistics.stdev(CAREFUL)  # over all 26, n - 1

    def mean_z(scores):
        return statistics.mean((x - mean) / sd for x in scores)

    # The per-judgment test: 9 against 9, all of A's above all of B's (U = 81), but A has 79
    # twice, so scipy uses the tie-corrected normal approximation: sigma^2 = 9*9/12 * (19 -
    # (2^3 - 2) / (18*17)), z = (81 - 40.5 - 0.5) / sigma = 3.534, p = 0.000205: "***".
    sigma = math.sqrt(81 / 12 * (19 - 6 / 306))
    assert result.details["reliable"]["marks"] == [["", "***"], ["", ""]]
    assert result.details["reliable"]["p_greater"][0][1] == pytest.approx(
        scipy_stats.norm.sf(40 / sigma), rel=1e-9
    )
    assert stored_systems(small.campaign, False) == [
        (small.systems["A"], 9, pytest.approx(statistics.mean(a_scores), abs=1e-9),
         pytest.approx(mean_z(a_scores), abs=1e-9), 1, 1),
        (small.systems["B"], 9, pytest.approx(statistics.mean(b_scores), abs=1e-9),
         pytest.approx(mean_z(b_scores), abs=1e-9), 2, 2),
    ]  # fmt: skip
    assert statistics.mean(a_scores) == pytest.approx(81.666666666666, abs=1e-9)


def test_scores_over_all_workers_include_the_random_clicker(small):
    actions.recompute_campaign(small.campaign)
    rows = stored_systems(small.campaign, True)
    assert [(system, n) for system, n, *_ in rows] in (
        [(small.systems["A"], 18), (small.systems["B"], 18)],
        [(small.systems["B"], 18), (small.systems["A"], 18)],
    )
    a_raw = {system: raw for system, _, raw, *_ in rows}[small.systems["A"]]
    # Segments 1-3 of A: two judgments each (one per worker); 4-6: four (each worker's output
    # and repeat). Each segment's mean counts once: 67.333 (the flat mean would be 65.278).
    a_segments = [(CAREFUL[i] + RANDOM[i]) / 2 for i in range(3)] + [
        (CAREFUL[i] + CAREFUL[i + 15] + RANDOM[i] + RANDOM[i + 15]) / 4 for i in range(3, 6)
    ]
    assert a_raw == pytest.approx(statistics.mean(a_segments), abs=1e-9)
    assert a_raw == pytest.approx(67.333333333333, abs=1e-9)


def test_excluded_workers_stay_in_the_worker_table_and_leave_every_score(small):
    CampaignWorker.objects.create(
        campaign=small.campaign, worker=small.careful.worker, excluded=True
    )
    result = actions.recompute_campaign(small.campaign)

    careful = WorkerStat.objects.get(worker=small.careful.worker)
    assert (careful.excluded, careful.reliable, careful.n_judgments) == (True, True, 26)
    assert stored_systems(small.campaign, False) == []  # no reliable worker left
    all_rows = stored_systems(small.campaign, True)
    assert sum(n for _, n, *_ in all_rows) == 18  # the random clicker's outputs and repeats
    assert (result.n_judgments, result.n_scored_judgments) == (52, 26)
    assert Judgment.objects.filter(worker=small.careful.worker).count() == 26  # still stored


def test_rejected_assignments_leave_every_score_but_not_the_worker_table(small):
    Assignment.objects.filter(pk=small.random.pk).update(status=AssignmentStatus.REJECTED)
    result = actions.recompute_campaign(small.campaign)

    random_stat = WorkerStat.objects.get(worker=small.random.worker)
    assert (random_stat.n_judgments, random_stat.n_rejected_judgments) == (26, 26)
    assert random_stat.excluded is False
    # Both variants now hold the careful worker's scores only.
    assert [row[:2] for row in stored_systems(small.campaign, True)] == [
        (small.systems["A"], 9),
        (small.systems["B"], 9),
    ]
    assert (result.n_scored_judgments, result.n_rejected_judgments) == (26, 26)


def test_set_workers_excluded_recomputes_and_readmitting_restores(small):
    actions.recompute_campaign(small.campaign)
    before = stored_systems(small.campaign, False)

    changed = actions.set_workers_excluded(
        small.campaign, [small.careful.worker_id], True, "too generous"
    )
    assert changed == 1
    membership = CampaignWorker.objects.get(campaign=small.campaign, worker=small.careful.worker)
    assert (membership.excluded, membership.excluded_reason) == (True, "too generous")
    assert stored_systems(small.campaign, False) == []
    assert WorkerStat.objects.get(worker=small.careful.worker).excluded is True

    assert actions.set_workers_excluded(small.campaign, [small.careful.worker_id], False) == 1
    assert stored_systems(small.campaign, False) == before
    assert WorkerStat.objects.get(worker=small.careful.worker).excluded is False


def test_campaign_settings_map_to_the_statistics_configuration(small):
    DirectAssessmentSettings.objects.filter(pk=small.campaign.pk).update(
        reliability_test="paired_t", reliability_alpha=Decimal("0.010")
    )
    small.campaign.refresh_from_db()
    config = da_actions.da_config_for(small.campaign)
    assert (config.reliability_test, config.alpha, config.include_unreliable) == (
        "paired_t",
        0.01,
        False,
    )
    assert isinstance(config.alpha, float)
    result = actions.recompute_campaign(small.campaign)
    assert (result.reliability_test, result.reliability_alpha) == ("paired_t", Decimal("0.010"))
    assert set(WorkerStat.objects.values_list("test", flat=True)) == {"paired_t"}


# --- Storing ---------------------------------------------------------------------------------


def test_recomputing_replaces_the_rows_instead_of_adding(small):
    actions.recompute_campaign(small.campaign)
    first = stored_systems(small.campaign, False)
    actions.recompute_campaign(small.campaign)
    assert WorkerStat.objects.count() == 2
    assert SystemScore.objects.count() == 4  # two systems x two variants
    assert CampaignResult.objects.count() == 1
    assert stored_systems(small.campaign, False) == first


def test_a_store_of_older_data_does_not_overwrite_newer_results(small):
    newer = actions.recompute_campaign(small.campaign)
    Judgment.objects.filter(worker=small.random.worker).delete()
    loaded = load_da_judgments(small.campaign.pk)
    analysis = da_actions.analyse_loaded(loaded, da_actions.da_config_for(small.campaign))

    kept = da_actions.store_results(
        small.campaign, loaded, analysis, newer.computed_at - timedelta(seconds=1)
    )
    assert kept.n_judgments == 52 and kept.computed_at == newer.computed_at
    assert WorkerStat.objects.count() == 2


def test_a_failing_store_leaves_the_previous_results_whole(small, monkeypatch):
    actions.recompute_campaign(small.campaign)
    before = (list(WorkerStat.objects.values()), list(SystemScore.objects.values()))

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(da_actions, "_system_rows", broken)
    with pytest.raises(RuntimeError):
        actions.recompute_campaign(small.campaign)
    assert (list(WorkerStat.objects.values()), list(SystemScore.objects.values())) == before


def test_a_campaign_without_judgments_gets_an_empty_result():
    campaign = CampaignFactory()
    result = actions.recompute_campaign(campaign)
    assert (result.n_judgments, result.n_workers) == (0, 0)
    assert not WorkerStat.objects.exists() and not SystemScore.objects.exists()


def test_other_task_kinds_are_not_computed():
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING)
    assert actions.recompute_campaign(campaign) is None
    assert not CampaignResult.objects.exists()


def test_recompute_clears_the_flag_before_loading(small, monkeypatch):
    key = actions.recompute_flag_key(small.campaign.pk)
    cache.set(key, "pending")
    seen = []
    real_load = da_actions.load_da_judgments

    def load(campaign_id):
        seen.append(cache.get(key))
        return real_load(campaign_id)

    monkeypatch.setattr(da_actions, "load_da_judgments", load)
    actions.recompute_campaign(small.campaign)
    assert seen == [None]


# --- Recommendations -----------------------------------------------------------------------


def qc(worker, reliable, mean_seconds, p_value=0.5, n_pairs=10):
    return WorkerQC(
        worker=worker,
        test="wilcoxon",
        p_value=p_value,
        reliable=reliable,
        reason="",
        n_pairs=n_pairs,
        n_bad_ref_pairs=n_pairs,
        n_repeat_pairs=n_pairs,
        n_judgments=100,
        mean_seconds=mean_seconds,
        assumption_a_p=None,
        assumption_a_holds=None,
    )


def test_only_unreliable_and_fast_workers_are_recommended_for_rejection():
    records = [
        qc(1, True, 10.0, p_value=0.001),
        qc(2, True, 14.0, p_value=0.01),
        qc(3, False, 5.9),  # below half the reliable median (12 s): random clicking
        qc(4, False, 6.0),  # not below: unreliable but paid
        qc(5, False, None),  # never timed: cannot tell it was fast
        qc(6, False, 1.0, p_value=None, n_pairs=3),  # too few pairs to tell
    ]
    assert da_actions.recommend(records, min_pairs=5) == [
        Recommendation.APPROVE,
        Recommendation.APPROVE,
        Recommendation.REJECT,
        Recommendation.PAY,
        Recommendation.PAY,
        Recommendation.WAIT,
    ]


def test_without_timed_reliable_workers_fast_means_under_three_seconds():
    records = [qc(1, False, 2.9), qc(2, False, 3.0)]
    assert da_actions.recommend(records, min_pairs=5) == ["reject", "pay"]


# --- Clearly not working: constant scores, too fast (issue 12, item 5) -------------------------


def spread(n, sd, mean):
    return ScoreSpread(
        n=np.array(n, dtype=np.int64),
        sd=np.array(sd, dtype=float),
        mean=np.array(mean, dtype=float),
    )


def test_constant_and_too_fast_workers_are_recommended_for_rejection_with_the_reason():
    records = [
        qc(1, True, 10.0, p_value=0.001),
        qc(2, False, 9.0),  # the same score everywhere: sd 0 over 100 items
        qc(3, False, 9.0),  # hardly varies: sd 0.8 < 1
        qc(4, False, 1.5),  # 1.5 s per item: below the 2 s floor
        qc(5, True, 1.9, p_value=0.001),  # too fast even though the test passed
        qc(6, False, 9.0, p_value=None, n_pairs=3),  # few pairs, but 20 identical scores
        qc(7, False, 9.0),  # sd 1.0 is not below 1: unreliable, paid
        qc(8, False, 9.0),  # only 9 scores: too few to judge their spread
    ]
    values, reasons = da_actions.recommendations(
        records,
        5,
        spread(
            [100, 100, 100, 100, 100, 20, 100, 9],
            [20.0, 0.0, 0.8, 25.0, 22.0, 0.0, 1.0, 0.0],
            [60.0, 70.0, 70.2, 50.0, 55.0, 100.0, 69.0, 40.0],
        ),
        DAConfig(),
    )
    assert values == ["approve", "reject", "reject", "reject", "reject", "reject", "pay", "pay"]
    assert reasons == [
        "",
        "the same score (70) on all 100 items",
        "scores hardly vary: sd 0.80 over 100 items, below 1",
        "too fast: 1.5 s per item on average, below the floor of 2 s",
        "too fast: 1.9 s per item on average, below the floor of 2 s",
        "the same score (100) on all 20 items",
        "",
        "",
    ]
    # Settings of 0 turn both checks off: the reliability test's recommendation alone.
    off = DAConfig(min_score_sd=0.0, min_seconds_per_item=0.0)
    values, _ = da_actions.recommendations(
        records, 5, spread([100] * 8, [0.0] * 8, [70.0] * 8), off
    )
    assert values == da_actions.recommend(records, min_pairs=5)
    assert values == ["approve", "pay", "pay", "reject", "approve", "wait", "pay", "pay"]


def test_a_worker_who_gives_70_to_every_item_is_recommended_for_rejection(small):
    # The random clicker becomes a worker who leaves the slider at 70 and takes 8 s per item,
    # as long as the careful worker: not fast by any rule. Before issue 12 such a worker was
    # "pay" (unreliable, but not clearly random); now "reject", with the reason.
    Judgment.objects.filter(assignment=small.random).update(score=70.0, client_duration_ms=8000)
    actions.recompute_campaign(small.campaign)
    stat = WorkerStat.objects.get(worker=small.random.worker)
    assert (stat.reliable, stat.p_value) == (False, 1.0)  # all differences zero: p = 1
    assert (stat.recommendation, stat.recommendation_reason) == (
        "reject",
        "the same score (70) on all 26 items",
    )
    assert da_actions.recommend([qc(1, True, 8.0, 0.01), qc(2, False, 8.0, 1.0)], 5) == [
        "approve",
        "pay",
    ]  # the reliability test's recommendation alone, as before


def test_the_absolute_speed_floor_is_a_campaign_setting(small):
    # Random clicks at 1 s per item; with a floor of 0.5 s the reason is the relative rule.
    actions.recompute_campaign(small.campaign)
    assert not da_actions.stale_da_campaigns().filter(pk=small.campaign.pk).exists()
    DirectAssessmentSettings.objects.filter(campaign=small.campaign).update(
        min_seconds_per_item=Decimal("0.5")
    )
    # Changed behind the admin's back: the sweep sees the stored result as stale.
    assert da_actions.stale_da_campaigns().filter(pk=small.campaign.pk).exists()
    small.campaign.refresh_from_db()
    actions.recompute_campaign(small.campaign)
    assert not da_actions.stale_da_campaigns().filter(pk=small.campaign.pk).exists()
    stat = WorkerStat.objects.get(worker=small.random.worker)
    assert (stat.recommendation, stat.recommendation_reason) == (
        "reject",
        "unreliable (p = 0.953) and fast: 1.0 s per item, under half the reliable workers' "
        "median of 8.0 s",
    )
    result = CampaignResult.objects.get(campaign=small.campaign)
    assert (result.min_seconds_per_item, result.min_score_sd) == (Decimal("0.5"), Decimal("1"))
