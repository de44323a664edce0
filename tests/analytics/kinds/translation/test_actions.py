"""analytics.kinds.translation: the recompute on the hand-worked campaign of
tests/analytics/kinds/translation/campaign.py (its docstring has the texts and votes)."""

from __future__ import annotations

import pytest

from analytics import actions
from analytics.kinds import registry
from analytics.kinds.translation import actions as tr_actions
from analytics.kinds.translation import kept_translations, translation_flags
from analytics.kinds.translation.panel import translation_results_context
from analytics.models import (
    TranslationKeptSegment,
    TranslationResult,
    TranslationStat,
    TranslationSystemScore,
    TranslationWorkerStat,
)
from analytics.stats.translation import corpus_score, sentence_similarity
from campaigns.kinds.translation.models import TranslationChoice
from judgments.actions.membership import set_excluded
from judgments.models import AssignmentStatus, CampaignWorker
from tests.analytics.kinds.translation.campaign import (
    OUTPUTS,
    REFERENCES,
    TRANSLATIONS,
    build_tr_campaign,
    correct,
)

pytestmark = pytest.mark.django_db


class FakeStages:
    """Records the calls of the campaigns side's stages (the tests lay out their own HITs)."""

    def __init__(self):
        self.detect: list[int] = []
        self.correction: list[dict[int, int]] = []

    def build_detect_mt_hits(self, campaign):
        self.detect.append(campaign.pk)
        return 0

    def build_correction_hits(self, campaign, kept):
        self.correction.append(dict(kept))
        return 0


@pytest.fixture
def stages(monkeypatch):
    fake = FakeStages()
    monkeypatch.setattr(tr_actions, "_stages", lambda: fake)
    return fake


def recompute(built):
    result = tr_actions.recompute_translation(built.campaign)
    actions.clear_recompute_flag(built.campaign.pk)
    return result


def stat(built, translator, n):
    return TranslationStat.objects.get(judgment=built.translation(translator, n))


def consensus_winner(built, n):
    one, two = TRANSLATIONS["t1"][n], TRANSLATIONS["t2"][n]
    # Mean chrF to the other eligible translation; ties to the earliest (t1 translated first).
    return "t1" if sentence_similarity(one, two) >= sentence_similarity(two, one) else "t2"


def test_the_kind_is_registered():
    assert registry.get("translation").result_relation == "translation_result"


def test_flags_rates_and_exclusion(stages):
    built = build_tr_campaign()
    result = recompute(built)
    assert stages.detect == [built.campaign.pk]
    assert (result.n_translations, result.n_votes, result.n_corrections) == (9, 17, 0)
    # t3 pasted A: chrF 100 to A, flagged, decided.
    s = stat(built, "t3", 2)
    assert (s.mt_similarity, s.mt_system_id, s.similar, s.flagged, s.decided) == (
        pytest.approx(100.0),
        built.systems["A"],
        True,
        True,
        True,
    )
    # t2: sentence 1 flagged by 2 of 3 votes; 2 decided human; 3 pending.
    s1, s2, s3 = (stat(built, "t2", n) for n in (1, 2, 3))
    assert (s1.machine_votes, s1.human_votes, s1.vote_places, s1.detected) == (2, 1, 3, True)
    assert (s2.flagged, s2.decided, s2.eligible) == (False, True, True)
    assert (s3.flagged, s3.decided, s3.eligible) == (False, False, True)
    workers = {
        w.worker.external_id: w
        for w in TranslationWorkerStat.objects.filter(campaign=built.campaign).select_related(
            "worker"
        )
    }
    assert (workers["t2"].n_decided, workers["t2"].n_flagged, workers["t2"].flag_rate) == (
        2,
        1,
        0.5,
    )
    assert workers["t2"].excluded is False  # 50%, but 2 decided translations < 3
    assert (workers["t3"].n_decided, workers["t3"].n_flagged, workers["t3"].flag_rate) == (
        3,
        3,
        1.0,
    )
    assert workers["t3"].excluded and workers["t3"].auto_excluded
    assert workers["v1"].n_votes == 7
    membership = CampaignWorker.objects.get(campaign=built.campaign, worker=built.workers["t3"])
    assert membership.excluded
    assert "3 of 3 decided translations (100%)" in membership.excluded_reason
    assert "exclusion rate of 30%" in membership.excluded_reason
    assert result.n_excluded == 1 and result.details["newly_excluded"] == [built.workers["t3"].pk]


def test_readmission_by_the_requester_stands(stages):
    built = build_tr_campaign()
    recompute(built)
    memberships = CampaignWorker.objects.filter(campaign=built.campaign, worker=built.workers["t3"])
    set_excluded(memberships, False)
    recompute(built)
    assert not memberships.get().excluded
    worker = TranslationWorkerStat.objects.get(campaign=built.campaign, worker=built.workers["t3"])
    assert (worker.excluded, worker.auto_excluded) == (False, True)
    # Readmitted, t3's translations are still flagged: never kept automatically.
    assert not TranslationStat.objects.filter(
        judgment__worker=built.workers["t3"], eligible=True
    ).exists()


def test_kept_translations_and_finality(stages):
    built = build_tr_campaign(correction_pass=True)
    result = recompute(built)
    kept = {k.segment_id: k for k in TranslationKeptSegment.objects.filter(campaign=built.campaign)}
    one = kept[built.segments[1]]
    assert (one.judgment_id, one.how, one.final, one.n_translations, one.n_eligible) == (
        built.translation("t1", 1).pk,
        "consensus",
        True,
        3,
        1,
    )
    for n, final in ((2, True), (3, False)):
        winner = consensus_winner(built, n)
        assert kept[built.segments[n]].judgment_id == built.translation(winner, n).pk
        assert kept[built.segments[n]].final is final  # 3: t2's votes are pending
    assert (result.n_segments, result.n_kept, result.n_final) == (3, 3, 2)
    # The correction HITs are asked for the final ones only.
    assert stages.correction[-1] == {
        built.segments[1]: one.judgment_id,
        built.segments[2]: kept[built.segments[2]].judgment_id,
    }
    assert (result.n_to_correct, result.n_corrected) == (2, 0)


def test_kept_translations_in_words_for_the_choose_page(stages):
    built = build_tr_campaign()
    assert kept_translations(built.campaign) == {}  # before the first recompute
    recompute(built)
    kept = kept_translations(built.campaign)
    # Sentence 1: t1's is the only eligible translation (t2 flagged, t3 excluded).
    assert kept[built.segments[1]] == (
        built.translation("t1", 1).pk,
        "the only eligible translation (the others are flagged or excluded); final",
    )
    winner = consensus_winner(built, 2)
    chrf = stat(built, winner, 2).consensus
    assert kept[built.segments[2]] == (
        built.translation(winner, 2).pk,
        f"most similar to the other translations (mean chrF {chrf:.1f}); final",
    )
    winner = consensus_winner(built, 3)
    judgment, why = kept[built.segments[3]]
    assert judgment == built.translation(winner, 3).pk
    assert why.endswith("; provisional: translations or votes still to come")
    TranslationChoice.objects.create(
        campaign=built.campaign,
        segment_id=built.segments[3],
        judgment=built.translation("t2", 3),
    )
    recompute(built)
    assert kept_translations(built.campaign)[built.segments[3]] == (
        built.translation("t2", 3).pk,
        "your choice; final",
    )


def test_a_correction_is_the_test_sets_text(stages):
    built = build_tr_campaign(correction_pass=True)
    recompute(built)
    kept = built.translation("t1", 1)
    correction = correct(built, "c1", kept, "the cat sat on the mat !")
    result = recompute(built)
    row = TranslationKeptSegment.objects.get(segment_id=built.segments[1])
    assert (row.correction_id, row.text, row.raw_text) == (
        correction.pk,
        "the cat sat on the mat !",
        REFERENCES[1],
    )
    assert result.n_corrected == 1
    texts = {n: TranslationKeptSegment.objects.get(segment_id=built.segments[n]) for n in (1, 2, 3)}
    refs = [[REFERENCES[n]] for n in (1, 2, 3)]
    edited = corpus_score([texts[n].text for n in (1, 2, 3)], refs)
    raw = corpus_score([texts[n].raw_text for n in (1, 2, 3)], refs)
    assert result.testset_bleu == pytest.approx(edited.bleu)
    assert result.raw_bleu == pytest.approx(raw.bleu)
    assert result.testset_bleu < result.raw_bleu


def test_the_requesters_choice_overrides(stages):
    built = build_tr_campaign()
    TranslationChoice.objects.create(
        segment_id=built.segments[3], campaign=built.campaign, judgment=built.translation("t3", 3)
    )
    recompute(built)
    row = TranslationKeptSegment.objects.get(segment_id=built.segments[3])
    assert (row.judgment_id, row.how, row.final) == (
        built.translation("t3", 3).pk,
        "requester",
        True,
    )


def test_requester_method_keeps_nothing_automatically(stages):
    built = build_tr_campaign(selection_method="requester")
    result = recompute(built)
    assert result.n_kept == 0 and not TranslationKeptSegment.objects.exists()


def test_bleu_of_translators_and_systems_with_percent_of_baseline(stages):
    built = build_tr_campaign()
    result = recompute(built)
    refs = [[REFERENCES[n]] for n in (1, 2, 3)]
    t2 = TranslationWorkerStat.objects.get(campaign=built.campaign, worker=built.workers["t2"])
    expected = corpus_score([TRANSLATIONS["t2"][n] for n in (1, 2, 3)], refs)
    assert t2.bleu == pytest.approx(expected.bleu) and t2.n_scored == 3
    t1 = TranslationWorkerStat.objects.get(campaign=built.campaign, worker=built.workers["t1"])
    assert t1.bleu == pytest.approx(100.0)
    assert "nrefs:1" in result.bleu_signature
    kept = [
        TranslationKeptSegment.objects.get(segment_id=built.segments[n]).text for n in (1, 2, 3)
    ]
    scores = {
        (s.system.name, s.test_set): s
        for s in TranslationSystemScore.objects.filter(campaign=built.campaign).select_related(
            "system"
        )
    }
    for name in "AB":
        outputs = [OUTPUTS[(name, n)] for n in (1, 2, 3)]
        assert scores[(name, "professional")].bleu == pytest.approx(
            corpus_score(outputs, refs).bleu
        )
        assert scores[(name, "crowd")].bleu == pytest.approx(
            corpus_score(outputs, [[k] for k in kept]).bleu
        )
    best = max("AB", key=lambda name: scores[(name, "professional")].bleu)
    other = "B" if best == "A" else "A"
    assert result.baseline_id == built.systems[best]
    for test_set in ("professional", "crowd", "crowd_raw"):
        assert scores[(best, test_set)].percent_of_baseline == pytest.approx(100.0)
        assert scores[(other, test_set)].percent_of_baseline == pytest.approx(
            100 * scores[(other, test_set)].bleu / scores[(best, test_set)].bleu
        )
    assert scores[(best, "professional")].position == 1


def test_drafts_and_rejected_translations_count_nowhere(stages):
    built = build_tr_campaign()
    from tests.analytics.kinds.translation.campaign import translate

    translate(built, "t4", {1: "draft of a cat"}, status=AssignmentStatus.STARTED)
    result = recompute(built)
    draft = stat(built, "t4", 1)
    assert (draft.counted, draft.flagged, draft.eligible) == (False, False, False)
    assert result.n_translations == 10 and result.n_scored_judgments == 26


def test_translation_flags_in_words(stages):
    built = build_tr_campaign()
    assert translation_flags(built.campaign) == {}
    recompute(built)
    flags = translation_flags(built.campaign)
    assert flags[built.translation("t2", 1).pk] == ["machine made (2 of 3 votes)"]
    assert flags[built.translation("t3", 1).pk] == ["100.0 chrF to system A"]
    assert flags[built.translation("t1", 1).pk] == []
    assert flags[built.translation("t2", 3).pk] == ["Detect-MT pending (1 of 2 votes machine made)"]


def test_the_sweep_finds_stale_results(stages):
    built = build_tr_campaign(votes=False)
    stale = tr_actions.stale_translation_campaigns
    assert list(stale()) == [built.campaign]
    recompute(built)
    assert list(stale()) == []
    from tests.analytics.kinds.translation.campaign import VOTES, vote

    vote(built, {("t1", 1): VOTES[("t1", 1)]})
    assert list(stale()) == [built.campaign]
    recompute(built)
    assert list(stale()) == []
    TranslationChoice.objects.create(
        segment_id=built.segments[2], campaign=built.campaign, judgment=built.translation("t2", 2)
    )
    assert list(stale()) == [built.campaign]


def test_no_judgment_no_result(stages):
    built = build_tr_campaign()
    recompute(built)
    assert TranslationResult.objects.filter(campaign=built.campaign).exists()
    from judgments.models import Judgment

    Judgment.objects.filter(campaign=built.campaign, slot__hit__task="detect_mt").delete()
    TranslationChoice.objects.all().delete()
    from campaigns.models import HitSlot

    HitSlot.objects.filter(hit__campaign=built.campaign, about_judgment__isnull=False).delete()
    Judgment.objects.filter(campaign=built.campaign).delete()
    assert recompute(built) is None
    assert not TranslationResult.objects.filter(campaign=built.campaign).exists()


def test_the_results_panel_names_the_workers_platform_as_the_other_kinds_do(stages):
    """The walkthrough saw "(direct)" here and "(Direct link)" on every other kind's panel."""
    built = build_tr_campaign()
    recompute(built)
    context = translation_results_context(built.campaign)
    platforms = {row["worker"]: row["platform"] for row in context["workers"]}
    assert set(platforms.values()) == {"Direct link"}
    assert len(platforms) == len(built.workers)
