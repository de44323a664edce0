"""analytics.kinds.post_editing: per-edit TER computed once and stored, then the recompute
aggregates the stored numbers; every figure worked by hand on the campaign of
tests/analytics/kinds/post_editing/campaign.py (its docstring has the texts and votes)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from analytics import actions
from analytics.kinds.post_editing import actions as pe_actions
from analytics.kinds.post_editing import scoring
from analytics.kinds.post_editing.loading import load_post_editing
from analytics.models import (
    PostEditingResult,
    PostEditingSystemScore,
    PostEditingWorkerStat,
    PostEditOutputScore,
    PostEditScore,
)
from analytics.stats.post_editing import SegmentHTER, edit_stats, system_hter
from campaigns.models import HitTask, TaskKind
from judgments.models import AssignmentStatus, Judgment
from tests.analytics.kinds.post_editing.campaign import (
    EDITS,
    OUTPUTS,
    REFERENCES,
    build_pe_campaign,
    edit_hit,
)
from tests.factories import AssignmentFactory, CampaignFactory

pytestmark = pytest.mark.django_db

TERCOM = "nrefs:1|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0"

# TER by hand (word edits / words of the reference; no shift helps in these sentences).
# Per edit: (edits MT -> edit, words of the edit, edits edit -> reference, words of reference).
EDIT_TER = {
    ("ed1", ("A", 1)): (2, 6, 0, 6),  # sits -> sat, + the; the edit is the reference
    ("ed1", ("B", 2)): (1, 6, 0, 6),  # + today
    ("ed1", ("A", 3)): (0, 4, 0, 4),
    ("ed2", ("A", 1)): (1, 5, 1, 6),  # sits -> sat; the reference has one more "the"
    ("ed2", ("B", 2)): (0, 5, 1, 6),  # unchanged; "today" missing
    ("ed2", ("A", 3)): (0, 4, 0, 4),
    ("ed3", ("B", 1)): (1, 6, 0, 6),  # a -> the
    ("ed3", ("A", 2)): (2, 6, 0, 6),  # goes -> went, + the
    ("ed3", ("B", 3)): (1, 4, 1, 4),  # - the; love / like
    ("ed4", ("B", 1)): (0, 6, 1, 6),
    ("ed4", ("A", 2)): (0, 5, 2, 6),
    ("ed4", ("B", 3)): (0, 5, 2, 4),  # love -> like, - the
}
# Per output, TER against the reference (the fallback, and 000's "0 editors").
OUTPUT_TER = {
    ("A", 1): (2, 6),
    ("B", 1): (1, 6),
    ("A", 2): (2, 6),
    ("B", 2): (1, 6),
    ("A", 3): (0, 4),
    ("B", 3): (2, 4),
}


def test_sacrebleu_counts_the_hand_worked_edits():
    texts = {(editor, key): text for editor, edits in EDITS.items() for key, text in edits.items()}
    for (editor, key), (edits, words, ref_edits, ref_words) in EDIT_TER.items():
        to_edit = edit_stats(OUTPUTS[key], texts[(editor, key)])
        to_reference = edit_stats(texts[(editor, key)], REFERENCES[key[1]])
        assert (to_edit.edits, to_edit.ref_length) == (edits, words), (editor, key)
        assert (to_reference.edits, to_reference.ref_length) == (ref_edits, ref_words)
    for key, (edits, words) in OUTPUT_TER.items():
        stats = edit_stats(OUTPUTS[key], REFERENCES[key[1]])
        assert (stats.edits, stats.ref_length, stats.signature) == (edits, words, TERCOM)


# --- Scoring once ------------------------------------------------------------------------------


def test_every_edit_and_edited_output_is_scored_once_and_stored():
    built = build_pe_campaign()
    assert scoring.score_pending_edits(built.campaign, processes=1) == 12
    stored = {
        row.judgment_id: (row.edits, row.ref_length, row.reference_edits, row.reference_length)
        for row in PostEditScore.objects.filter(campaign=built.campaign, signature=TERCOM)
    }
    assert stored == {built.edit(e, *key).pk: ter for (e, key), ter in EDIT_TER.items()}
    outputs = {
        row.output_id: (row.edits, row.ref_length)
        for row in PostEditOutputScore.objects.filter(campaign=built.campaign)
    }
    assert outputs == {built.outputs[key]: ter for key, ter in OUTPUT_TER.items()}
    # Nothing is left: a second call scores nothing.
    assert scoring.score_pending_edits(built.campaign, processes=1) == 0
    assert PostEditScore.objects.count() == 12


def test_a_second_recompute_computes_no_ter(monkeypatch):
    built = build_pe_campaign()
    pairs = []
    real = scoring.edit_stats_batch

    def counting(hypotheses, references, *args, **kwargs):
        pairs.append(len(hypotheses))
        return real(hypotheses, references, *args, **kwargs)

    monkeypatch.setattr(scoring, "edit_stats_batch", counting)
    first = actions.recompute_campaign(built.campaign)
    # 12 edits against the MT output, 12 against the reference, 6 outputs: one batch.
    assert pairs == [30]
    second = actions.recompute_campaign(built.campaign)
    assert pairs == [30]  # no TER at all: the numbers are read back
    assert second.computed_at > first.computed_at
    assert second.details == first.details
    # A new edit is scored alone (and its output already has its reference TER).
    edit_hit(built, "ed5", {("A", 3): "we like the green tea"})
    actions.recompute_campaign(built.campaign)
    assert pairs == [30, 2]


def test_changing_the_ter_settings_scores_every_edit_again():
    built = build_pe_campaign()
    actions.recompute_campaign(built.campaign)
    settings = built.campaign.post_editing_settings
    settings.ter_case_sensitive = True
    settings.save()
    assert actions.is_stale(built.campaign)
    result = actions.recompute_campaign(built.campaign)
    mixed = TERCOM.replace("case:lc", "case:mixed")
    assert result.ter_signature == mixed
    assert (result.ter_case_sensitive, result.ter_normalized) == (True, False)
    # Every edit and output scored under the new signature; the old numbers are gone.
    assert set(PostEditScore.objects.values_list("signature", flat=True)) == {mixed}
    assert PostEditScore.objects.count() == 12
    assert set(PostEditOutputScore.objects.values_list("signature", flat=True)) == {mixed}
    assert not actions.is_stale(built.campaign)
    # Lower-case texts: the same numbers.
    assert PostEditingSystemScore.objects.get(
        campaign=built.campaign, system__name="A", include_flagged=False
    ).corpus == pytest.approx(0.25)


def test_case_sensitive_ter_counts_a_capital_as_an_edit():
    built = build_pe_campaign(ter_case_sensitive=True)
    edit_hit(built, "ed5", {("A", 3): "We like green tea"})
    scoring.score_pending_edits(built.campaign, processes=1)
    row = PostEditScore.objects.get(judgment=built.edit("ed5", "A", 3))
    assert (row.edits, row.ref_length, row.signature) == (1, 4, TERCOM.replace("lc", "mixed"))


# --- The hand-worked figures -------------------------------------------------------------------


@pytest.fixture
def recomputed():
    built = build_pe_campaign()
    actions.recompute_campaign(built.campaign)
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


def scores(built, include_flagged=False):
    return {
        row.system.name: row
        for row in PostEditingSystemScore.objects.filter(
            campaign=built.campaign, include_flagged=include_flagged
        ).select_related("system")
    }


def test_system_hter_over_the_unflagged_editors(recomputed):
    # ed4 did nothing (3 of 3 edits unchanged): flagged, left out by default. Per output, the
    # smallest TER among passed edits (no vote: passed), else TER against the reference:
    #   A1: ed1 2/6 passed, ed2 1/5 failed (1-1)        -> 2/6
    #   A2: ed3 2/6 passed                              -> 2/6
    #   A3: ed1 0/4, ed2 0/4 unverified                 -> 0/4
    #   B1: ed3 1/6 failed (0-2)                        -> reference 1/6
    #   B2: ed1 1/6 failed (1-2), ed2 0/5 unverified    -> 0/5
    #   B3: ed3 1/4 passed                              -> 1/4
    got = scores(recomputed)
    a, b = got["A"], got["B"]
    assert (a.edits, a.ref_length, a.corpus) == (4, 16, 0.25)
    assert a.mean == pytest.approx(float((F(1, 3) + F(1, 3) + 0) / 3))  # 2/9
    assert (b.edits, b.ref_length) == (2, 15)
    assert b.corpus == pytest.approx(2 / 15)
    assert b.mean == pytest.approx(float((F(1, 6) + 0 + F(1, 4)) / 3))  # 5/36
    # B has the lower mean HTER: position 1. Three segments cannot separate them.
    assert (b.position, a.position) == (1, 2)
    assert [(s.cluster, s.rank_best, s.rank_worst) for s in (a, b)] == [(1, 1, 2), (1, 1, 2)]
    assert (a.n_outputs, a.n_from_reference, b.n_outputs, b.n_from_reference) == (3, 0, 3, 1)
    # Edits: A has ed1 A1 A3, ed2 A1 A3, ed3 A2 (4 passed, 3 with votes); B has ed1 B2, ed2 B2,
    # ed3 B1 B3 (2 passed, 3 with votes).
    assert (a.n_edits, a.n_passed, a.n_verified, a.verified_share) == (5, 4, 3, 0.6)
    assert (b.n_edits, b.n_passed, b.n_verified, b.verified_share) == (4, 2, 3, 0.75)


def test_system_hter_over_every_editor(recomputed):
    # ed4's unchanged edits have no vote, so they pass: A2 0/5, B1 0/6, B3 0/5.
    got = scores(recomputed, include_flagged=True)
    a, b = got["A"], got["B"]
    assert (a.edits, a.ref_length) == (2, 15)  # A1 2/6, A2 0/5, A3 0/4
    assert a.mean == pytest.approx(1 / 9)
    assert (b.edits, b.ref_length, b.corpus, b.mean) == (0, 16, 0.0, 0.0)
    assert (b.position, a.position) == (1, 2)
    assert (a.n_edits, b.n_edits) == (6, 6)


def test_p_values_are_the_exact_paired_wilcoxon(recomputed):
    result = PostEditingResult.objects.get(campaign=recomputed.campaign)
    variant = result.variant(False)
    a, b = recomputed.systems["A"], recomputed.systems["B"]
    assert variant["systems"] == [a, b]
    # Segment HTER A - B: 1/6, 1/3, -1/4; signed ranks +1, +3, -2: W+ = 4 for "A lower"
    # (P(W+ <= 4) = 6/8 of the 8 equally likely sign patterns), W+ = 2 for "B lower" (3/8).
    assert variant["p_better"] == [[None, 0.75], [0.375, None]]


def test_intervals_are_the_bootstrap_over_the_stored_segments(recomputed):
    a, b = recomputed.systems["A"], recomputed.systems["B"]
    s1, s2, s3 = (recomputed.segments[n] for n in (1, 2, 3))
    by_hand = SegmentHTER(
        system=np.array([a, a, a, b, b, b]),
        segment=np.array([s1, s2, s3, s1, s2, s3]),
        edits=np.array([2, 2, 0, 1, 0, 1]),
        ref_length=np.array([6.0, 6, 4, 6, 5, 4]),
        chosen=np.array([0, 1, 2, -1, 3, 4]),
        n_edits=np.array([2, 1, 2, 1, 2, 1]),
        n_passed=np.array([1, 1, 2, 0, 1, 1]),
    )
    want = system_hter(by_hand, n_samples=1000, seed=0)
    got = scores(recomputed)
    for i, name in enumerate("AB"):
        row = got[name]
        assert (row.corpus_ci_low, row.corpus_ci_high) == (
            want.corpus_ci_low[i],
            want.corpus_ci_high[i],
        )
        assert (row.mean_ci_low, row.mean_ci_high) == (want.mean_ci_low[i], want.mean_ci_high[i])


def test_verification_outcomes(recomputed):
    result = PostEditingResult.objects.get(campaign=recomputed.campaign)
    # Crowd edits (12): passed ed1 A1, ed3 A2, ed3 B3; failed ed2 A1 (tie), ed1 B2, ed3 B1;
    # the other six have no vote.
    assert (result.n_passed, result.n_failed, result.n_unverified) == (3, 3, 6)
    assert result.variant(False)["verification"] == {"passed": 3, "failed": 3, "unverified": 3}
    # 12 edits and 12 votes read; 9 unflagged edits and 12 votes counted.
    assert (result.n_edits, result.n_votes, result.n_judgments) == (12, 12, 24)
    assert result.n_scored_judgments == 21
    assert (result.n_workers, result.n_outputs, result.ter_signature) == (7, 6, TERCOM)


def test_the_subsampling_table_by_hand(recomputed):
    table = PostEditingResult.objects.get(campaign=recomputed.campaign).variant(False)[
        "subsampling"
    ]
    assert table["editors"] == [0, 1, 2]
    assert table["n_subsets"] == [1, 2, 1]
    a, b = table["corpus"]
    # 0 editors: TER against the reference, A (2+2+0)/16, B (1+1+2)/16.
    # 1 editor, first slots {ed1 A1, ed3 A2, ed1 A3 | ed3 B1 failed, ed1 B2 failed, ed3 B3}:
    #   A 4/16, B (1+1+1)/16; second slots {ed2 A1 failed, -, ed2 A3 | -, ed2 B2, -}:
    #   A (2+2+0)/16, B (1+0+2)/15; averaged: A 1/4, B (3/16 + 1/5) / 2 = 0.19375.
    # 2 editors: the table's HTER.
    assert a == [0.25, 0.25, 0.25]
    assert b == pytest.approx([0.25, 0.19375, 2 / 15])


def test_worker_profiles_and_flags(recomputed):
    stats = {
        row.worker.external_id: row
        for row in PostEditingWorkerStat.objects.filter(
            campaign=recomputed.campaign
        ).select_related("worker")
    }
    assert sorted(stats) == ["ed1", "ed2", "ed3", "ed4", "v1", "v2", "v3"]

    def profile(name):
        s = stats[name]
        return (
            s.n_edits,
            pytest.approx(s.mean_ter_to_mt),
            pytest.approx(s.mean_ter_to_reference),
            pytest.approx(s.share_unchanged),
            pytest.approx(s.share_copied),
            s.did_nothing,
            s.copied_reference,
            (s.n_passed, s.n_failed, s.n_unverified),
            s.in_scores,
        )

    # TER to the MT output: ed1 (2/6 + 1/6 + 0)/3; ed2 (1/5 + 0 + 0)/3; ed3 (1/6 + 2/6 +
    # 1/4)/3; ed4 0. Copied: within 0.1 of the reference where the MT output was not (ed1's
    # A3 is the reference, but so was the MT output).
    assert profile("ed1") == (3, 1 / 6, 0, 1 / 3, 2 / 3, False, False, (1, 1, 1), True)
    assert profile("ed2") == (3, 1 / 15, 1 / 9, 2 / 3, 0, False, False, (0, 1, 2), True)
    assert profile("ed3") == (3, 0.25, 1 / 12, 0, 2 / 3, False, False, (2, 1, 0), True)
    assert profile("ed4") == (3, 0, 1 / 3, 1, 0, True, False, (0, 0, 3), False)
    assert [stats[v].n_votes for v in ("v1", "v2", "v3")] == [5, 5, 2]
    assert stats["v1"].mean_ter_to_mt is None and stats["v1"].in_scores
    details = PostEditingResult.objects.get(campaign=recomputed.campaign).details
    assert details["flagged_workers"] == [recomputed.workers["ed4"].pk]


def test_copying_the_reference_is_flagged():
    built = build_pe_campaign()
    # ed5 pastes the reference of three outputs whose MT is not the reference.
    edit_hit(
        built,
        "ed5",
        {("A", 1): REFERENCES[1], ("B", 2): REFERENCES[2], ("B", 3): REFERENCES[3]},
    )
    actions.recompute_campaign(built.campaign)
    stat = PostEditingWorkerStat.objects.get(worker=built.workers["ed5"])
    assert (stat.share_copied, stat.copied_reference, stat.did_nothing, stat.in_scores) == (
        1.0,
        True,
        False,
        False,
    )


def test_the_worst_and_best_segments(recomputed):
    segments = PostEditingResult.objects.get(campaign=recomputed.campaign).variant(False)[
        "segments"
    ]
    key = {(recomputed.outputs[k]): f"{k[0]}{k[1]}" for k in OUTPUTS}  # output id -> "A1" ...
    # HTER desc; ties: more words first, then output id.
    assert [key[row["output"]] for row in segments["worst"]] == ["A1", "A2", "B3", "B1", "B2", "A3"]
    assert [key[row["output"]] for row in segments["best"]] == ["B2", "A3", "B1", "B3", "A1", "A2"]
    b1 = segments["worst"][3]
    assert (b1["hter"], b1["from_reference"], b1["judgment"], b1["n_edits"]) == (
        pytest.approx(1 / 6),
        True,
        None,
        1,
    )
    assert segments["worst"][0]["judgment"] == recomputed.edit("ed1", "A", 1).pk


# --- 003: gold edits ---------------------------------------------------------------------------


def test_gold_edits_weight_the_editors_and_rank_the_documents():
    built = build_pe_campaign(gold=True)
    result = actions.recompute_campaign(built.campaign)
    assert result.n_gold_edits == 6
    # The gold editor's edits are no crowd edits: the HTER is the one without them.
    assert scores(built)["A"].corpus == 0.25
    stats = {
        row.worker.external_id: row
        for row in PostEditingWorkerStat.objects.filter(campaign=built.campaign).select_related(
            "worker"
        )
    }
    # Gold TER per output: A1 2/6, B2 1/6, A3 0, B1 1/6, A2 2/6, B3 2/4. Distance d_w = mean
    # |TER_w - TER_gold|: ed1 0; ed2 (2/15 + 1/6 + 0)/3 = 0.1; ed3 (0 + 0 + 1/4)/3 = 1/12;
    # ed4 (1/6 + 1/3 + 1/2)/3 = 1/3. Weight 1 / (d_w + 0.05).
    assert [stats[e].gold_distance for e in ("ed1", "ed2", "ed3", "ed4")] == pytest.approx(
        [0, 0.1, 1 / 12, 1 / 3]
    )
    assert [stats[e].weight for e in ("ed1", "ed2", "ed3", "ed4")] == pytest.approx(
        [20, 1 / 0.15, 7.5, 1 / (1 / 3 + 0.05)]
    )
    assert (stats["pro"].gold, stats["pro"].weight, stats["pro"].in_scores) == (True, None, False)
    assert stats["pro"].copied_reference is False  # 5 of 6 edits are the reference: gold
    combined = result.variant(False)["combinations"]
    assert (combined["n_outputs"], combined["n_documents"]) == (6, 4)
    assert combined["gold_mean"] == pytest.approx(0.25)  # (2/6+2/6+0+1/6+1/6+2/4)/6
    methods = combined["methods"]
    # Per output (ed1, ed2 | ed3): A1 1/3, 1/5; B2 1/6, 0; A3 0, 0; B1 1/6; A2 1/3; B3 1/4.
    # Weighted A1 (20/3 + 6.67/5)/26.67 = 0.3, B2 (20/6)/26.67 = 0.125.
    assert [methods[m]["mean"] for m in ("minimum", "median", "mean", "weighted")] == (
        pytest.approx([0.95 / 6, 1.1 / 6, 1.1 / 6, 1.175 / 6])
    )
    # Documents (system, document): gold A-D1 1/3, B-D1 1/6, A-D2 0, B-D2 1/2, ranked
    # 3, 2, 1, 4; every crowd prediction ranks them 4, 2, 1, 3: sum d^2 = 2, rho = 1 - 12/60.
    # With 4 documents scipy's t-test gives p = 0.2 exactly. The TER against the reference
    # ranks them as gold does.
    for name in ("minimum", "median", "mean", "weighted"):
        assert (methods[name]["rho"], methods[name]["p_value"]) == pytest.approx((0.8, 0.2))
    assert methods["ter"]["rho"] == pytest.approx(1.0)
    gold_ranks = {
        (row["system"], row["document"]): row["gold_rank"] for row in combined["documents"]
    }
    d1, d2 = (built.campaign.documents.get(external_id=d).pk for d in ("D1", "D2"))
    a, b = built.systems["A"], built.systems["B"]
    assert gold_ranks == {(a, d1): 3, (b, d1): 2, (a, d2): 1, (b, d2): 4}


def test_no_combinations_without_gold(recomputed):
    result = PostEditingResult.objects.get(campaign=recomputed.campaign)
    assert result.variant(False)["combinations"] is None
    assert PostEditingWorkerStat.objects.filter(weight__isnull=False).count() == 0


# --- What counts -------------------------------------------------------------------------------


def test_without_votes_every_edit_counts_as_passed():
    built = build_pe_campaign(votes=False)
    actions.recompute_campaign(built.campaign)
    a = scores(built)["A"]
    # A1 min(2/6, 1/5) = 1/5, A2 2/6, A3 0/4: (1 + 2 + 0) / (5 + 6 + 4).
    assert (a.edits, a.ref_length, a.n_verified) == (3, 15, 0)


def test_an_excluded_verifiers_votes_are_left_out_and_kept():
    built = build_pe_campaign()
    actions.recompute_campaign(built.campaign)
    actions.set_workers_excluded(built.campaign, [built.workers["v1"].pk], True)
    # Without v1: ed2's A1 has v2's yes (passed), so A1 = min(2/6, 1/5) = 1/5; ed3's A2 has
    # no vote (passed). A: (1 + 2 + 0) / (5 + 6 + 4) = 0.2.
    a = scores(built)["A"]
    assert (a.edits, a.ref_length, a.corpus) == (3, 15, 0.2)
    assert a.mean == pytest.approx((0.2 + 1 / 3 + 0) / 3)
    stat = PostEditingWorkerStat.objects.get(worker=built.workers["v1"])
    assert (stat.excluded, stat.in_scores, stat.n_votes) == (True, False, 5)
    assert Judgment.objects.filter(worker=built.workers["v1"]).count() == 5
    result = PostEditingResult.objects.get(campaign=built.campaign)
    assert (result.n_votes, result.n_scored_judgments) == (12, 9 + 7)
    # Re-admitted: the figures come back.
    actions.set_workers_excluded(built.campaign, [built.workers["v1"].pk], False)
    assert scores(built)["A"].corpus == 0.25


def test_an_excluded_editors_edits_are_left_out():
    built = build_pe_campaign()
    actions.set_workers_excluded(built.campaign, [built.workers["ed3"].pk], True)
    # Without ed3 (and ed4, flagged), B1, A2 and B3 have no counted edit: not scored.
    got = scores(built)
    a, b = got["A"], got["B"]
    assert (a.n_outputs, a.edits, a.ref_length) == (2, 2, 10)  # A1 2/6, A3 0/4
    assert (b.n_outputs, b.edits, b.ref_length) == (1, 0, 5)  # B2 0/5
    assert PostEditingWorkerStat.objects.get(worker=built.workers["ed3"]).n_edits == 3


def test_rejected_assignments_count_nowhere():
    built = build_pe_campaign()
    assignment = built.edit("ed1", "A", 1).assignment
    assignment.status = AssignmentStatus.REJECTED
    assignment.save()
    result = actions.recompute_campaign(built.campaign)
    # ed1's A1 and B2 are out: A1 = ed2's 1/5 failed -> reference 2/6; B2 = ed2's 0/5.
    assert (scores(built)["A"].edits, scores(built)["A"].ref_length) == (4, 16)
    assert result.n_rejected_judgments == 2
    assert PostEditingWorkerStat.objects.get(worker=built.workers["ed1"]).n_rejected_judgments == 2


def test_an_output_without_reference_and_passed_edit_is_not_scored():
    built = build_pe_campaign()
    segment = built.campaign.segments.get(pk=built.segments[1])
    segment.references = []
    segment.save()
    actions.recompute_campaign(built.campaign)
    assert PostEditOutputScore.objects.get(output_id=built.outputs[("B", 1)]).edits is None
    # B1 (ed3 failed, no reference) is left out; A1 is scored by ed1's passed edit.
    b = scores(built)["B"]
    assert (b.n_outputs, b.edits, b.ref_length) == (2, 1, 9)
    ed3 = PostEditScore.objects.get(judgment=built.edit("ed3", "B", 1))
    assert (ed3.reference_edits, ed3.reference_length) == (None, None)


def test_a_campaign_without_edits_has_no_results():
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING)
    assert actions.recompute_campaign(campaign) is None
    assert not PostEditingResult.objects.filter(campaign=campaign).exists()
    assert not actions.is_stale(campaign)


# --- The sweep ---------------------------------------------------------------------------------


def test_the_sweep_finds_what_changed():
    built = build_pe_campaign()
    campaign = built.campaign
    assert actions.is_stale(campaign)  # judgments, no result
    actions.recompute_campaign(campaign)
    assert not actions.is_stale(campaign)
    # A new vote.
    slot = built.edit("ed2", "B", 2).follow_up_slots.get(hit__task=HitTask.VERIFY_EDIT)
    assignment = AssignmentFactory(
        hit=slot.hit, worker=built.workers["v3"], status=AssignmentStatus.SUBMITTED
    )
    Judgment.objects.create(
        campaign=campaign,
        worker=built.workers["v3"],
        assignment=assignment,
        slot=slot,
        yes_no=True,
        yes_no_second=True,
    )
    assert actions.is_stale(campaign)
    actions.recompute_campaign(campaign)
    assert not actions.is_stale(campaign)
    # Another gold editor.
    campaign.post_editing_settings.gold_editor = "pro"
    campaign.post_editing_settings.save()
    assert actions.is_stale(campaign)


# --- Spreading a backlog over Celery -------------------------------------------------------------


def test_a_backlog_goes_to_chunk_tasks_only_from_a_worker_with_a_broker(monkeypatch):
    from evalsite.celery import app

    monkeypatch.setattr(scoring, "FAN_OUT_MIN_EDITS", 5)
    # Set and restored by hand: monkeypatch's undo of a Celery setting ran after the autouse
    # fixture's restore and left tasks eager for the integration tests that followed.
    saved = app.conf.task_always_eager
    try:
        app.conf.task_always_eager = False
        monkeypatch.setattr(scoring, "default_processes", lambda: 1)  # a prefork worker's child
        assert scoring.should_fan_out(5)
        assert not scoring.should_fan_out(4)  # a few edits: scored in the recompute
        monkeypatch.setattr(scoring, "default_processes", lambda: 2)  # may start a pool
        assert not scoring.should_fan_out(5)
        monkeypatch.setattr(scoring, "default_processes", lambda: 1)
        app.conf.task_always_eager = True
        assert not scoring.should_fan_out(5)  # tasks run inline: nothing to spread over
    finally:
        app.conf.task_always_eager = saved


def test_chunk_tasks_score_everything_and_then_recompute(monkeypatch):
    built = build_pe_campaign()
    monkeypatch.setattr(scoring, "CHUNK_EDITS", 5)
    pending = scoring.pending_edit_ids(built.campaign.pk, TERCOM)
    assert len(pending) == 12
    # Tasks run inline in tests: three chunks of 5, 5 and 2 edits, then the recompute.
    assert scoring.fan_out_scoring(built.campaign, pending)
    assert PostEditScore.objects.count() == 12
    assert PostEditingResult.objects.get(campaign=built.campaign).n_edits == 12
    assert scoring.pending_edit_ids(built.campaign.pk, TERCOM) == []
    actions.clear_recompute_flag(built.campaign.pk)


def test_a_fan_out_in_flight_is_not_sent_twice(monkeypatch):
    built = build_pe_campaign()
    sent = []
    from celery import group  # what fan_out_scoring sends (imported there, on first use)

    monkeypatch.setattr(group, "apply_async", lambda self: sent.append(len(self.tasks)))
    pending = scoring.pending_edit_ids(built.campaign.pk, TERCOM)
    assert scoring.fan_out_scoring(built.campaign, pending)
    assert not scoring.fan_out_scoring(built.campaign, pending)
    assert sent == [1]
    scoring.cache_delete(scoring.fan_out_key(built.campaign.pk, TERCOM, "all"))


def test_a_recompute_in_a_worker_with_a_backlog_leaves_the_stored_result(monkeypatch):
    built = build_pe_campaign()
    monkeypatch.setattr(pe_actions, "should_fan_out", lambda n: n > 0)
    sent = []
    monkeypatch.setattr(pe_actions, "fan_out_scoring", lambda c, p: sent.append(list(p)))
    assert actions.recompute_campaign(built.campaign) is None
    assert len(sent[0]) == 12
    assert not PostEditingResult.objects.exists()


def test_loading_reads_one_query_per_table(django_assert_num_queries):
    built = build_pe_campaign(gold=True)
    scoring.score_pending_edits(built.campaign, processes=1)
    with django_assert_num_queries(8):
        loaded = load_post_editing(built.campaign.pk, TERCOM, "pro")
    assert (loaded.n_edits, loaded.n_votes, int(loaded.gold.sum())) == (18, 12, 6)
    assert np.array_equal(
        loaded.edit_id, sorted(Judgment.objects.filter(text__gt="").values_list("pk", flat=True))
    )


# --- A large backlog: the HTER first, the distances to the reference after ---------------------


def _stored_scores(campaign):
    edits = {
        row.judgment_id: (row.edits, row.ref_length, row.reference_edits, row.reference_length)
        for row in PostEditScore.objects.filter(campaign=campaign, signature=TERCOM)
    }
    outputs = {
        row.output_id: (row.edits, row.ref_length)
        for row in PostEditOutputScore.objects.filter(campaign=campaign)
    }
    return edits, outputs


def test_hter_first_then_the_reference_pairs_give_the_one_pass_numbers():
    built = build_pe_campaign()
    assert scoring.score_pending_edits(built.campaign, processes=1, references=False) == 12
    edits, outputs = _stored_scores(built.campaign)
    assert edits == {
        built.edit(e, *key).pk: (ed, words, None, None)
        for (e, key), (ed, words, _, _) in EDIT_TER.items()
    }
    assert outputs == {}
    waiting = scoring.pending_reference_ids(built.campaign.pk, TERCOM)
    assert waiting == sorted(built.edit(e, *key).pk for (e, key) in EDIT_TER)
    # 12 edits and 6 outputs against the reference.
    assert scoring.score_pending_references(built.campaign, processes=1) == 18
    edits, outputs = _stored_scores(built.campaign)
    assert edits == {built.edit(e, *key).pk: ter for (e, key), ter in EDIT_TER.items()}
    assert outputs == {built.outputs[key]: ter for key, ter in OUTPUT_TER.items()}
    assert scoring.pending_reference_ids(built.campaign.pk, TERCOM) == []
    assert scoring.score_pending_references(built.campaign, processes=1) == 0


def test_a_large_backlog_stores_the_hter_and_sends_the_reference_pairs_to_chunk_tasks(
    monkeypatch,
):
    built = build_pe_campaign()
    monkeypatch.setattr(pe_actions, "should_defer_references", lambda n: n > 0)
    sent = []
    monkeypatch.setattr(
        pe_actions, "fan_out_scoring", lambda c, p, part="all": sent.append((part, list(p)))
    )
    result = actions.recompute_campaign(built.campaign)
    # The HTER is there at once: system A's corpus HTER as the full recompute gives it.
    assert result.n_edits == 12
    assert PostEditingSystemScore.objects.get(
        campaign=built.campaign, system__name="A", include_flagged=False
    ).corpus == pytest.approx(0.25)
    assert sent == [("references", sorted(built.edit(e, *key).pk for (e, key) in EDIT_TER))]
    assert not PostEditOutputScore.objects.exists()
    # The chunk tasks' work, then the recompute they schedule: every number is there.
    monkeypatch.undo()
    scoring.score_pending_references(built.campaign, processes=1)
    actions.recompute_campaign(built.campaign)
    edits, outputs = _stored_scores(built.campaign)
    assert edits == {built.edit(e, *key).pk: ter for (e, key), ter in EDIT_TER.items()}
    assert len(outputs) == 6
    actions.clear_recompute_flag(built.campaign.pk)


def test_reference_chunk_tasks_score_the_waiting_pairs_and_then_recompute(monkeypatch):
    built = build_pe_campaign()
    scoring.score_pending_edits(built.campaign, processes=1, references=False)
    monkeypatch.setattr(scoring, "CHUNK_EDITS", 5)
    waiting = scoring.pending_reference_ids(built.campaign.pk, TERCOM)
    # Tasks run inline in tests: chunks of 5, 5 and 2 edits (with their outputs), then the
    # recompute.
    assert scoring.fan_out_scoring(built.campaign, waiting, part="references")
    edits, outputs = _stored_scores(built.campaign)
    assert edits == {built.edit(e, *key).pk: ter for (e, key), ter in EDIT_TER.items()}
    assert outputs == {built.outputs[key]: ter for key, ter in OUTPUT_TER.items()}
    assert PostEditingResult.objects.get(campaign=built.campaign).n_edits == 12
    assert scoring.pending_reference_ids(built.campaign.pk, TERCOM) == []
    actions.clear_recompute_flag(built.campaign.pk)
