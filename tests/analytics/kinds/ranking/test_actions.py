"""analytics.actions for ranking campaigns: the recompute stores exactly what the pure
statistics give; untrusted workers are marked and left out of the default scores; the
auto-takedown pauses once with its reason; the requester's decisions stick."""

from __future__ import annotations

from dataclasses import asdict
from decimal import Decimal
from unittest import mock

import numpy as np
import pytest

from analytics import actions
from analytics.kinds.ranking import actions as ranking_actions
from analytics.kinds.ranking import store as ranking_store
from analytics.kinds.ranking.loading import load_ranking_judgments
from analytics.models import (
    RankingMethod,
    RankingReference,
    RankingResult,
    RankingScore,
    RankingWorkerStat,
)
from analytics.stats.ranking import (
    RankingConfig,
    analyse_ranking,
    bootstrap_scores,
    gold_trust,
    spearman,
)
from campaigns.models import Campaign, CampaignStatus, RankingSettings, TaskKind
from judgments import actions as judgment_actions
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.analytics.kinds.ranking.test_loading import build_ranking_campaign
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

M = RankingMethod


@pytest.fixture
def ranking():
    built = build_ranking_campaign()
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


def config(**overrides) -> RankingConfig:
    """The hand-worked campaign's settings as the statistics see them."""
    return RankingConfig(
        gold_scheme="best_only", trust_min_gold=2, trust_min_accuracy=0.7, **overrides
    )


def stored(campaign, method, include_untrusted=False):
    return list(
        RankingScore.objects.filter(
            campaign=campaign, method=method, include_untrusted=include_untrusted
        )
        .order_by("position")
        .values_list("system__name", "score", "n", "wins", "ties", "losses")
    )


def status_of(campaign) -> dict[str, str]:
    return dict(
        RankingWorkerStat.objects.filter(campaign=campaign).values_list(
            "worker__external_id", "status"
        )
    )


# --- Exact figures -----------------------------------------------------------------------------


def test_the_win_ratios_and_expected_wins_of_the_trusted_workers_worked_by_hand(ranking):
    actions.recompute_campaign(ranking.campaign)
    # Only careful and ties count (reversed is untrusted, excluded excluded, rejected
    # rejected). careful: A>B>C in four sets, A>C and B>C in the gold sets. ties: A=B>C in
    # four sets, A>C and B=C in the gold sets. A: 14 wins, 4 ties, 0 losses of 18; B: 9, 5, 4
    # of 18; C: 0, 1, 19 of 20.
    assert stored(ranking.campaign, M.WIN_RATIO_GEQ) == [
        ("A", 1.0, 18, 14, 4, 0),
        ("B", pytest.approx(14 / 18), 18, 9, 5, 4),
        ("C", pytest.approx(1 / 20), 20, 0, 1, 19),
    ]
    assert stored(ranking.campaign, M.WIN_RATIO_GT) == [
        ("A", pytest.approx(14 / 18), 18, 14, 4, 0),
        ("B", pytest.approx(9 / 18), 18, 9, 5, 4),
        ("C", 0.0, 20, 0, 1, 19),
    ]
    # Expected Wins: mean over the two opponents of the decisive share won.
    assert stored(ranking.campaign, M.EXPECTED_WINS) == [
        ("A", 1.0, 18, 14, 4, 0),
        ("B", 0.5, 18, 9, 5, 4),
        ("C", 0.0, 20, 0, 1, 19),
    ]
    assert [row[0] for row in stored(ranking.campaign, M.BRADLEY_TERRY)] == ["A", "B", "C"]
    assert [row[0] for row in stored(ranking.campaign, M.TRUESKILL)] == ["A", "B", "C"]
    result = RankingResult.objects.get(campaign=ranking.campaign)
    assert result.variant(False)["n_comparisons"] == 28


def test_recompute_stores_exactly_what_the_pure_statistics_give(ranking):
    result = actions.recompute_campaign(ranking.campaign)

    cfg = config(include_untrusted=True)
    names = {pk: name for name, pk in ranking.systems.items()}
    for include, workers in ((False, ["careful", "ties"]), (True, ["careful", "ties", "reversed"])):
        j = ranking.judgments(workers)
        report = analyse_ranking(j, cfg)
        # Each counting score's bootstrap is what bootstrap_scores gives alone with the same
        # seed: the recompute draws the resamples once for the three of them.
        expected = {
            M.WIN_RATIO_GEQ: bootstrap_scores(
                j, "win_ratio", n_samples=1000, seed=0, systems=report.systems
            ),
            M.WIN_RATIO_GT: bootstrap_scores(
                j, "win_ratio", win_ties="better", n_samples=1000, seed=0, systems=report.systems
            ),
            M.EXPECTED_WINS: bootstrap_scores(
                j, "expected_wins", n_samples=1000, seed=0, systems=report.systems
            ),
            M.BRADLEY_TERRY: report.bradley_terry,
        }
        for method, boot in expected.items():
            rows = {
                row.system_id: row
                for row in RankingScore.objects.filter(
                    campaign=ranking.campaign, method=method, include_untrusted=include
                )
            }
            assert sorted(rows) == report.systems.tolist()
            for i, system in enumerate(report.systems.tolist()):
                row = rows[system]
                assert row.score == pytest.approx(boot.score[i], abs=1e-12), (method, names[system])
                assert row.ci_low == pytest.approx(boot.ci_low[i], abs=1e-12)
                assert row.ci_high == pytest.approx(boot.ci_high[i], abs=1e-12)
                assert (row.rank_best, row.rank_worst, row.cluster) == (
                    boot.rank_low[i],
                    boot.rank_high[i],
                    boot.clusters[i],
                )
                assert row.n == boot.scores.comparisons[i]
                assert row.sigma is None
        for method, scores in (
            (M.WIN_RATIO_GEQ, report.win_ratio_better_or_equal),
            (M.WIN_RATIO_GT, report.win_ratio_better),
        ):
            rows = {
                row.system_id: row
                for row in RankingScore.objects.filter(
                    campaign=ranking.campaign, method=method, include_untrusted=include
                )
            }
            for i, system in enumerate(scores.systems.tolist()):
                row = rows[system]
                assert row.score == pytest.approx(scores.score[i], abs=1e-12)
                assert (row.n, row.wins, row.ties, row.losses) == (
                    scores.comparisons[i],
                    scores.wins[i],
                    scores.ties[i],
                    scores.losses[i],
                )
                assert row.sigma is None
        ts = report.trueskill
        rows = {
            row.system_id: row
            for row in RankingScore.objects.filter(
                campaign=ranking.campaign, method=M.TRUESKILL, include_untrusted=include
            )
        }
        for i, system in enumerate(ts.systems.tolist()):
            assert rows[system].score == pytest.approx(ts.mu[i], abs=1e-12)
            assert rows[system].sigma == pytest.approx(ts.sigma[i], abs=1e-12)
            assert rows[system].rank_best == rows[system].rank_worst == ts.rank[i]
            assert (rows[system].ci_low, rows[system].cluster) == (None, None)

        details = result.variant(include)
        agreement = details["agreement"]
        assert agreement["intra"] == _json(asdict(report.intra_included))
        assert agreement["inter"] == _json(asdict(report.inter_included.pairwise))
        assert agreement["fleiss"] == _json(asdict(report.inter_included.fleiss))
        assert agreement["oracle"] is None
        assert details["spearman"] == {}
        assert details["n_comparisons"] == report.n_comparisons
        assert details["n_workers_included"] == len(workers)
        assert details["p_greater"]["bradley_terry"][0][1] == pytest.approx(
            report.bradley_terry.p_greater[0, 1]
        )
        assert set(details["p_greater"]) == {
            "win_ratio_geq",
            "win_ratio_gt",
            "win_ratio_wmt12",
            "expected_wins",
            "bradley_terry",
        }
    assert result.details["trueskill"]["mu"] == 0.0  # WMT14 settings
    assert result.details["trueskill"]["draw_probability"] == 0.25


def _json(values: dict) -> dict:
    """NaN as stored (null), tuples as lists."""
    return {
        key: None
        if isinstance(value, float) and np.isnan(value)
        else list(value)
        if isinstance(value, tuple)
        else value
        for key, value in values.items()
    }


def test_the_trust_table_is_gold_trust_over_every_ranking_of_each_worker(ranking):
    result = actions.recompute_campaign(ranking.campaign)
    everything = ranking.judgments()  # rejected and excluded included
    trust = gold_trust(everything, "best_only", min_gold=2, min_accuracy=0.7)
    rows = {
        row.worker_id: row for row in RankingWorkerStat.objects.filter(campaign=ranking.campaign)
    }
    assert sorted(rows) == trust.workers.tolist()
    for i, worker in enumerate(trust.workers.tolist()):
        row = rows[worker]
        assert (row.gold_seen, row.gold_correct, row.status) == (
            trust.gold_seen[i],
            trust.gold_correct[i],
            trust.status[i],
        )
    assert status_of(ranking.campaign) == {
        "careful": "trusted",
        "ties": "trusted",
        "reversed": "untrusted",
        "excluded": "undecided",  # one gold unit of the two needed
        "rejected": "undecided",
    }
    by_name = {
        row.worker.external_id: row
        for row in RankingWorkerStat.objects.filter(campaign=ranking.campaign).select_related(
            "worker"
        )
    }
    assert (by_name["careful"].gold_seen, by_name["careful"].gold_correct) == (2, 2)
    assert by_name["careful"].accuracy == 1.0
    assert (by_name["reversed"].gold_seen, by_name["reversed"].accuracy) == (2, 0.0)
    assert (by_name["careful"].n_judgments, by_name["careful"].n_ballots) == (18, 6)
    assert by_name["rejected"].n_rejected_judgments == 9
    assert by_name["excluded"].excluded is True
    in_scores = {name: row.in_scores for name, row in by_name.items()}
    assert in_scores == {
        "careful": True,
        "ties": True,
        "reversed": False,
        "excluded": False,
        "rejected": True,  # the worker counts; their rejected assignment does not
    }
    assert (result.n_trusted, result.n_untrusted, result.n_undecided) == (2, 1, 2)
    assert (result.n_judgments, result.n_scored_judgments) == (75, 36)
    assert (result.n_rejected_judgments, result.n_qualification_judgments) == (9, 3)
    assert (result.n_workers, result.n_ballots, result.n_sets, result.n_gold_units) == (
        5,
        24,
        6,
        8,
    )
    assert (result.gold_scheme, result.trust_min_gold, result.trust_min_accuracy) == (
        "best_only",
        2,
        Decimal("0.700"),
    )


# --- The cut-off -------------------------------------------------------------------------------


def test_a_worker_who_fails_gold_is_marked_untrusted_once(ranking, monkeypatch):
    calls = []
    real = judgment_actions.set_untrusted

    def spy(*args, **kwargs):
        calls.append((args, kwargs))
        return real(*args, **kwargs)

    monkeypatch.setattr(judgment_actions, "set_untrusted", spy)
    actions.recompute_campaign(ranking.campaign)

    assert len(calls) == 1
    (campaign, worker_ids, reason), kwargs = calls[0]
    assert (campaign, worker_ids, kwargs) == (ranking.campaign, [ranking.workers["reversed"]], {})
    assert reason == (
        "Automatic: failed the gold units (fewer than 70% right after at least 2; 002 "
        "section 4). See the campaign's trust table."
    )
    membership = CampaignWorker.objects.get(
        campaign=ranking.campaign, worker_id=ranking.workers["reversed"]
    )
    assert (membership.untrusted, membership.untrusted_reason) == (True, reason)
    assert RankingWorkerStat.objects.get(worker_id=ranking.workers["reversed"]).flagged is True
    assert RankingResult.objects.get(campaign=ranking.campaign).details["newly_untrusted"] == [
        ranking.workers["reversed"]
    ]

    actions.recompute_campaign(ranking.campaign)  # idempotent: nobody new to mark
    assert len(calls) == 1


def test_the_untrusted_worker_gets_no_more_work(ranking):
    actions.recompute_campaign(ranking.campaign)
    hand_out = judgment_actions.next_assignment_for(
        Assignment.objects.get(pk=ranking.assignments[("reversed", 1)].pk).worker,
        ranking.campaign,
    )
    assert hand_out.assignment is None


def test_a_worker_trusted_again_is_not_marked_again_without_new_gold(ranking):
    actions.recompute_campaign(ranking.campaign)
    reversed_id = ranking.workers["reversed"]
    before = stored(ranking.campaign, M.WIN_RATIO_GEQ)

    assert actions.set_workers_trusted(ranking.campaign, [reversed_id], True) == 1
    row = RankingWorkerStat.objects.get(worker_id=reversed_id)
    assert (row.status, row.flagged, row.trust_override_gold_seen, row.in_scores) == (
        "untrusted",
        False,
        2,
        True,
    )
    assert not CampaignWorker.objects.get(worker_id=reversed_id).untrusted
    # The requester's trust counts: the reversed worker is in the default scores now.
    assert stored(ranking.campaign, M.WIN_RATIO_GEQ) != before
    assert stored(ranking.campaign, M.WIN_RATIO_GEQ) == stored(
        ranking.campaign, M.WIN_RATIO_GEQ, include_untrusted=True
    )
    actions.recompute_campaign(ranking.campaign)
    assert not CampaignWorker.objects.get(worker_id=reversed_id).untrusted

    # New gold units, failed again: marked again. (A fourth HIT repeating HIT 2's gold set.)
    gold_set = ranking.slots[(2, 1)]
    hit4 = type(ranking.hits[1]).objects.create(campaign=ranking.campaign, task="rank", number=4)
    assignment = Assignment.objects.create(
        campaign=ranking.campaign,
        hit=hit4,
        worker_id=reversed_id,
        expires_at=ranking.assignments[("reversed", 1)].expires_at,
    )
    for member, slot in gold_set:
        new_slot = type(slot).objects.create(
            hit=hit4,
            position=slot.position,
            group=0,
            role=slot.role,
            segment_id=slot.segment_id,
            output_id=slot.output_id,
            shown_text=slot.shown_text,
            expected_rank_min=slot.expected_rank_min,
            expected_rank_max=slot.expected_rank_max,
        )
        Judgment.objects.create(
            campaign=ranking.campaign,
            worker_id=reversed_id,
            assignment=assignment,
            slot=new_slot,
            rank={"G": 3, "B": 1, "C": 2}[member],
        )
    actions.recompute_campaign(ranking.campaign)
    membership = CampaignWorker.objects.get(worker_id=reversed_id)
    assert membership.untrusted is True
    row = RankingWorkerStat.objects.get(worker_id=reversed_id)
    assert (row.gold_seen, row.flagged, row.trust_override_gold_seen) == (3, True, None)


def test_marking_a_worker_untrusted_by_hand_leaves_them_out_of_the_scores(ranking):
    actions.recompute_campaign(ranking.campaign)
    ties = ranking.workers["ties"]
    assert actions.set_workers_trusted(ranking.campaign, [ties], False, "odd ties") == 1
    row = RankingWorkerStat.objects.get(worker_id=ties)
    assert (row.status, row.flagged, row.in_scores) == ("trusted", True, False)
    assert (
        RankingResult.objects.get(campaign=ranking.campaign).variant(False)["n_workers_included"]
        == 1
    )


# --- Auto-takedown -----------------------------------------------------------------------------

REASON = (
    "Paused automatically: 1 of 3 workers (33%) failed the gold units (threshold 30%). "
    "Review the trust table, then reactivate."
)


def takedown_campaign(**fields):
    return build_ranking_campaign(
        takedown_untrusted_share=Decimal("0.300"), takedown_min_workers=3, **fields
    )


def test_too_many_untrusted_workers_pause_the_campaign_with_the_reason():
    built = takedown_campaign()
    result = actions.recompute_campaign(built.campaign)

    campaign = Campaign.objects.get(pk=built.campaign.pk)
    assert (campaign.status, campaign.status_reason) == (CampaignStatus.PAUSED, REASON)
    assert built.campaign.status == CampaignStatus.PAUSED  # the caller's instance too
    result.refresh_from_db()
    assert result.auto_paused_untrusted == 1 and result.auto_paused_at is not None
    assert result.takedown_reason == (
        "1 of 3 workers with at least 2 gold units failed them (accuracy below 70%): 33% "
        "untrusted, above the 30% limit"
    )
    assert result.details["takedown"] == {
        "threshold": 0.3,
        "min_workers": 3,
        "untrusted": 1,
        "decided": 3,
        "reason": result.takedown_reason,
    }
    # Workers now get the polite "paused" page.
    careful = built.assignments[("careful", 1)].worker
    assert judgment_actions.next_assignment_for(careful, campaign).reason == "paused"


def test_below_the_threshold_or_too_few_workers_nothing_pauses():
    for fields in (
        {"takedown_untrusted_share": Decimal("0.340"), "takedown_min_workers": 3},
        {"takedown_untrusted_share": Decimal("0.300"), "takedown_min_workers": 4},
        {"takedown_untrusted_share": None},
    ):
        built = build_ranking_campaign(suffix=str(fields), **fields)
        result = actions.recompute_campaign(built.campaign)
        campaign = Campaign.objects.get(pk=built.campaign.pk)
        assert (campaign.status, campaign.status_reason) == (CampaignStatus.ACTIVE, "")
        assert result.auto_paused_at is None
        actions.clear_recompute_flag(built.campaign.pk)


def test_a_reactivated_campaign_is_not_paused_again_for_the_same_state():
    built = takedown_campaign()
    actions.recompute_campaign(built.campaign)
    Campaign.objects.filter(pk=built.campaign.pk).update(
        status=CampaignStatus.ACTIVE, status_reason=""
    )
    campaign = Campaign.objects.get(pk=built.campaign.pk)

    actions.recompute_campaign(campaign)
    campaign.refresh_from_db()
    assert (campaign.status, campaign.status_reason) == (CampaignStatus.ACTIVE, "")

    # A second worker fails gold after the reactivation: new evidence, paused again.
    Judgment.objects.filter(worker_id=built.workers["ties"], rank=1, slot__role="gold").update(
        rank=3
    )
    actions.recompute_campaign(campaign)
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.PAUSED
    assert campaign.status_reason == (
        "Paused automatically: 2 of 3 workers (67%) failed the gold units (threshold 30%). "
        "Review the trust table, then reactivate."
    )
    assert RankingResult.objects.get(campaign=campaign).auto_paused_untrusted == 2


def test_a_paused_or_finished_campaign_is_left_as_the_requester_set_it():
    built = takedown_campaign(status=CampaignStatus.PAUSED, status_reason="Lunch break.")
    result = actions.recompute_campaign(built.campaign)
    campaign = Campaign.objects.get(pk=built.campaign.pk)
    assert (campaign.status, campaign.status_reason) == (CampaignStatus.PAUSED, "Lunch break.")
    assert result.auto_paused_at is None
    # Reactivated by the requester later: the rule has not paused it yet, so it does now.
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE, status_reason="")
    actions.recompute_campaign(campaign)
    campaign.refresh_from_db()
    assert (campaign.status, campaign.status_reason) == (CampaignStatus.PAUSED, REASON)


def test_while_paused_automatically_the_reason_follows_the_counts():
    built = takedown_campaign()
    actions.recompute_campaign(built.campaign)
    Judgment.objects.filter(worker_id=built.workers["ties"], rank=1, slot__role="gold").update(
        rank=3
    )
    actions.recompute_campaign(built.campaign)
    campaign = Campaign.objects.get(pk=built.campaign.pk)
    assert campaign.status_reason.startswith("Paused automatically: 2 of 3 workers (67%)")
    # The requester saw 2 of 3 when reactivating: not paused again for it.
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.ACTIVE, status_reason="")
    actions.recompute_campaign(campaign)
    campaign.refresh_from_db()
    assert campaign.status == CampaignStatus.ACTIVE


# --- References --------------------------------------------------------------------------------


def test_spearman_and_oracle_agreement_use_the_requesters_references(ranking):
    RankingReference.objects.create(
        campaign=ranking.campaign, reference_ranking="B\nA = C\n", oracle="A > C\nB > C"
    )
    result = actions.recompute_campaign(ranking.campaign)
    ids = ranking.systems
    j = ranking.judgments(["careful", "ties"])
    report = analyse_ranking(
        j,
        config(include_untrusted=True),
        oracle=[[ids["A"], ids["C"]], [ids["B"], ids["C"]]],
        reference_systems=[ids["B"], ids["A"], ids["C"]],
        reference_ranks=[1, 2, 2],
    )
    details = result.variant(False)
    assert details["agreement"]["oracle"] == _json(asdict(report.oracle))
    # careful and ties put A and B above C in all 20 of their pairs with C but one: ties'
    # B = C in the second gold set.
    assert (details["agreement"]["oracle"]["n"], details["agreement"]["oracle"]["pr_a"]) == (
        20,
        0.95,
    )
    geq = details["spearman"]["win_ratio_geq"]
    want = spearman(report.systems, report.win_ratio_better_or_equal.score, *(
        [ids["B"], ids["A"], ids["C"]], [1, 2, 2]))  # fmt: skip
    assert geq["rho"] == pytest.approx(want.rho)
    assert set(details["spearman"]) == {m.value for m in M}
    assert result.details["references"] == {
        "reference_ranking": True,
        "oracle": True,
        "problems": [],
    }


def test_a_reference_naming_a_renamed_system_is_reported_not_fatal(ranking):
    RankingReference.objects.create(campaign=ranking.campaign, reference_ranking="A\nB\nC")
    ranking.campaign.systems.filter(name="C").update(name="C-renamed")
    result = actions.recompute_campaign(ranking.campaign)
    assert result.variant(False)["spearman"] == {}
    assert result.details["references"]["problems"] == [
        "Reference ranking: Line 3: there is no system named 'C' in this campaign. The "
        "campaign's systems are: A, B, C-renamed."
    ]


# --- Storing and dispatch ---------------------------------------------------------------------


def test_recomputing_replaces_the_rows_instead_of_adding(ranking):
    actions.recompute_campaign(ranking.campaign)
    first = stored(ranking.campaign, M.BRADLEY_TERRY)
    actions.recompute_campaign(ranking.campaign)
    assert RankingResult.objects.count() == 1
    assert RankingWorkerStat.objects.count() == 5
    assert RankingScore.objects.count() == 2 * 6 * 3  # variants x methods x systems
    assert stored(ranking.campaign, M.BRADLEY_TERRY) == first


def test_a_store_of_older_data_does_not_overwrite_newer_results(ranking):
    newer = actions.recompute_campaign(ranking.campaign)
    loaded = load_ranking_judgments(ranking.campaign.pk)
    analysis = ranking_actions.analyse_loaded_ranking(
        loaded, ranking_actions.ranking_config_for(ranking.campaign)
    )
    older = newer.computed_at.replace(year=newer.computed_at.year - 1)
    kept, stored_ = ranking_actions.store_ranking_results(ranking.campaign, loaded, analysis, older)
    assert (stored_, kept.computed_at) == (False, newer.computed_at)


def test_without_untrusted_workers_both_variants_are_the_same(ranking):
    Judgment.objects.filter(worker_id=ranking.workers["reversed"]).delete()
    actions.recompute_campaign(ranking.campaign)
    for method in M:
        assert stored(ranking.campaign, method) == stored(
            ranking.campaign, method, include_untrusted=True
        )


def test_a_ranking_campaign_without_rankings_has_no_result():
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    assert actions.recompute_campaign(campaign) is None
    assert not RankingResult.objects.exists()


def test_the_live_path_recomputes_a_ranking_campaign(ranking, django_capture_on_commit_callbacks):
    from judgments.models import Judgment as JudgmentModel
    from judgments.signals import judgments_recorded

    with django_capture_on_commit_callbacks(execute=True):
        judgments_recorded.send(
            sender=JudgmentModel, campaign_id=ranking.campaign.pk, worker_id=1, judgment_ids=[1]
        )
    assert RankingResult.objects.get(campaign=ranking.campaign).n_judgments == 75


def test_a_failing_store_leaves_the_previous_results_whole(ranking, monkeypatch):
    actions.recompute_campaign(ranking.campaign)
    before = (
        list(RankingWorkerStat.objects.values()),
        list(RankingScore.objects.values()),
    )
    monkeypatch.setattr(ranking_store, "_score_rows", mock.Mock(side_effect=RuntimeError))
    with pytest.raises(RuntimeError):
        actions.recompute_campaign(ranking.campaign)
    assert (
        list(RankingWorkerStat.objects.values()),
        list(RankingScore.objects.values()),
    ) == before


def test_campaign_settings_map_to_the_statistics_configuration(ranking):
    RankingSettings.objects.filter(pk=ranking.campaign.pk).update(
        gold_scheme="best_worst",
        trust_min_gold=5,
        trust_min_accuracy=Decimal("0.650"),
        takedown_untrusted_share=Decimal("0.250"),
        takedown_min_workers=7,
    )
    ranking.campaign.refresh_from_db()
    cfg = ranking_actions.ranking_config_for(ranking.campaign)
    assert (cfg.gold_scheme, cfg.trust_min_gold, cfg.trust_min_accuracy) == ("best_worst", 5, 0.65)
    assert (cfg.takedown_threshold, cfg.takedown_min_workers, cfg.include_untrusted) == (
        0.25,
        7,
        False,
    )
    assert isinstance(cfg.trust_min_accuracy, float)


def test_rejecting_the_untrusted_workers_assignment_keeps_their_trust(ranking):
    Assignment.objects.filter(worker_id=ranking.workers["reversed"]).update(
        status=AssignmentStatus.REJECTED
    )
    actions.recompute_campaign(ranking.campaign)
    assert status_of(ranking.campaign)["reversed"] == "untrusted"
    assert (
        RankingResult.objects.get(campaign=ranking.campaign).variant(True)["n_workers_included"]
        == 2
    )


def test_a_campaign_with_only_a_qualification_test_gets_an_empty_result(ranking):
    Judgment.objects.filter(campaign=ranking.campaign, slot__hit__is_qualification=False).delete()
    result = actions.recompute_campaign(ranking.campaign)
    assert (result.n_judgments, result.n_qualification_judgments, result.n_workers) == (3, 3, 0)
    assert not RankingScore.objects.exists() and not RankingWorkerStat.objects.exists()
    assert result.variant(False)["n_comparisons"] == 0


@pytest.mark.parametrize(
    ("combination", "weighting"),
    [("schulze", "none"), ("schulze_peers", "peers"), ("schulze_gold", "gold")],
)
def test_schulze_combination_scores_the_combined_set_rankings(ranking, combination, weighting):
    RankingSettings.objects.filter(pk=ranking.campaign.pk).update(ranking_combination=combination)
    ranking.campaign.refresh_from_db()
    cfg = ranking_actions.ranking_config_for(ranking.campaign)
    assert (cfg.combine, cfg.weighting) == (True, weighting)

    actions.recompute_campaign(ranking.campaign)

    # Every worker's ballots (the all-workers variant), combined per set by Schulze's method
    # (000 section 4) with the chosen weights, then scored: what the pure statistics give.
    j = ranking.judgments(["careful", "ties", "reversed"])
    report = analyse_ranking(j, config(include_untrusted=True, combine=True, weighting=weighting))
    names = {pk: name for name, pk in ranking.systems.items()}
    geq = report.win_ratio_better_or_equal
    assert stored(ranking.campaign, M.WIN_RATIO_GEQ, include_untrusted=True) == [
        (
            names[int(system)],
            pytest.approx(geq.score[i], abs=1e-12),
            int(geq.comparisons[i]),
            int(geq.wins[i]),
            int(geq.ties[i]),
            int(geq.losses[i]),
        )
        for i, system in sorted(
            enumerate(geq.systems), key=lambda pair: (-geq.score[pair[0]], pair[1])
        )
    ]
    expected_wins = bootstrap_scores(
        report.scored_pairs, "expected_wins", n_samples=1000, seed=0, systems=report.systems
    )
    rows = {
        row.system_id: row.score
        for row in RankingScore.objects.filter(
            campaign=ranking.campaign, method=M.EXPECTED_WINS, include_untrusted=True
        )
    }
    assert [rows[int(s)] for s in report.systems] == pytest.approx(
        expected_wins.score.tolist(), abs=1e-12
    )
    # Combining five-way redundancy into one ranking per set leaves fewer comparisons.
    uncombined = analyse_ranking(j, config(include_untrusted=True))
    assert report.n_comparisons < uncombined.n_comparisons


def test_kernel_warm_up_starts_only_for_a_large_campaign_before_numba_is_loaded(monkeypatch):
    # The thread loads the compiled kernels while the recompute waits for its queries; small
    # campaigns (the statistics run no kernel) and processes that have numba start nothing.
    loads = []
    monkeypatch.setattr(
        ranking_actions.KernelWarmUp, "_load", staticmethod(lambda: loads.append(1))
    )
    monkeypatch.delitem(ranking_actions.sys.modules, "numba", raising=False)
    small = ranking_actions.KernelWarmUp()
    small.start_if_large(ranking_actions.WARM_UP_FROM_JUDGMENTS - 1)
    assert small.thread is None
    small.join()
    large = ranking_actions.KernelWarmUp()
    large.start_if_large(ranking_actions.WARM_UP_FROM_JUDGMENTS)
    assert large.thread is not None
    large.join()
    assert loads == [1] and large.thread is None
    monkeypatch.setitem(ranking_actions.sys.modules, "numba", object())
    loaded_already = ranking_actions.KernelWarmUp()
    loaded_already.start_if_large(10**7)
    assert loaded_already.thread is None


def test_kernel_warm_up_loads_both_kernels_and_survives_a_failure(monkeypatch, caplog):
    from analytics.stats.ranking import bootstrap_kernel, trueskill_kernel

    ranking_actions.KernelWarmUp._load()  # the real kernels: no error, cache loaded
    monkeypatch.setattr(bootstrap_kernel, "warm_up", mock.Mock(side_effect=RuntimeError("x")))
    monkeypatch.setattr(trueskill_kernel, "warm_up", mock.Mock())
    with caplog.at_level("ERROR", logger=ranking_actions.logger.name):
        ranking_actions.KernelWarmUp._load()
    assert "Loading the ranking kernels ahead failed" in caplog.text
    trueskill_kernel.warm_up.assert_not_called()


def test_the_variants_computed_at_once_equal_the_variants_in_turn(ranking, monkeypatch):
    # A large campaign's "everyone" variant runs in a thread beside the trusted one; the
    # analysis is the same to the last bit as when they run one after the other.
    import threading

    loaded = load_ranking_judgments(ranking.campaign.pk)
    settings = ranking_actions.ranking_config_for(ranking.campaign)
    variant = ranking_actions._variant
    threads: list[str] = []

    def recorded(*args, **kwargs):
        threads.append(threading.current_thread().name)
        return variant(*args, **kwargs)

    monkeypatch.setattr(ranking_actions, "_variant", recorded)
    analyses = {}
    for threshold in (10**9, 0):
        monkeypatch.setattr(ranking_actions, "PARALLEL_VARIANTS_FROM_JUDGMENTS", threshold)
        analyses[threshold] = ranking_actions.analyse_loaded_ranking(loaded, settings)
    assert threads[:2] == ["MainThread", "MainThread"]
    assert threads[2].startswith("ranking-variant") or threads[3].startswith("ranking-variant")
    in_turn, at_once = analyses.values()
    for untrusted in (False, True):
        first, second = in_turn.variants[untrusted], at_once.variants[untrusted]
        np.testing.assert_array_equal(first.rows, second.rows)
        assert first.bootstrapped.keys() == second.bootstrapped.keys()
        for method, result in first.bootstrapped.items():
            np.testing.assert_array_equal(result.samples, second.bootstrapped[method].samples)
            np.testing.assert_array_equal(result.score, second.bootstrapped[method].score)
        np.testing.assert_array_equal(first.report.trueskill.mu, second.report.trueskill.mu)
        assert first.report.inter_all == second.report.inter_all
        assert first.report.intra_included == second.report.intra_included
    assert not np.array_equal(in_turn.variants[False].rows, in_turn.variants[True].rows)
