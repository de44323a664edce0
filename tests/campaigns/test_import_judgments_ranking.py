"""WMT relative-ranking files (the WMT10-12 and WMT08 layouts): ranking sets become HITs, and
the stored scores are the win ratios and Expected Wins worked out by hand."""

import io

import pytest

from analytics.models import RankingResult, RankingScore, RankingWorkerStat
from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Document,
    Hit,
    HitSlot,
    RankingSettings,
    Segment,
    TaskKind,
)
from judgments.models import Assignment, Judgment
from tests.campaigns.test_import_judgments_data import (
    WMT08_HEADER,
    WMT08_RR,
    WMT08_TASK,
    WMT10_HEADER,
    WMT10_RR,
)

pytestmark = pytest.mark.django_db


def upload(text: str, name: str) -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8"))
    data.name = name
    return data


def run(fmt: str, text: str, file: str = "ranks.csv", **options):
    options.setdefault("name", "WMT12 cs-en")
    options.setdefault("source_language", "cs")
    options.setdefault("target_language", "en")
    return import_judgments([upload(text, file)], ImportOptions(fmt, **options))


# The pairwise comparisons of the four sets (000 section 4: each set of N gives N(N-1)/2):
#   set 1 (J1): X>Y, X>Z, Y>Z   set 2 (J1): X=Y, X>Z, Y>Z
#   set 3 (J2): Y>X, X>Z, Y>Z   set 4 (J2): Y>Z (X was not ranked)
# X: 4 wins (over Y once, Z three times), 1 tie, 1 loss: 6 comparisons.
# Y: 5 wins (X once, Z four times), 1 tie, 1 loss: 7.  Z: 7 losses.
# Win ratio, ties not counted (002): X 4/6, Y 5/7, Z 0; counted as wins (WMT08): X 5/6, Y 6/7.
# Expected Wins (ties ignored, each opponent equal): X (1/2 + 3/3)/2 = 0.75, Y (1/2 + 4/4)/2
# = 0.75, Z 0.
EXPECTED = {
    ("win_ratio_gt", "X"): (6, 4, 1, 1, pytest.approx(4 / 6)),
    ("win_ratio_gt", "Y"): (7, 5, 1, 1, pytest.approx(5 / 7)),
    ("win_ratio_gt", "Z"): (7, 0, 0, 7, pytest.approx(0.0)),
    ("win_ratio_geq", "X"): (6, 4, 1, 1, pytest.approx(5 / 6)),
    ("win_ratio_geq", "Y"): (7, 5, 1, 1, pytest.approx(6 / 7)),
    ("win_ratio_geq", "Z"): (7, 0, 0, 7, pytest.approx(0.0)),
    ("expected_wins", "X"): (6, 4, 1, 1, pytest.approx(0.75)),
    ("expected_wins", "Y"): (7, 5, 1, 1, pytest.approx(0.75)),
    ("expected_wins", "Z"): (7, 0, 0, 7, pytest.approx(0.0)),
}


def stored_scores(campaign: Campaign) -> dict:
    return {
        (score.method, score.system.name): (
            score.n,
            score.wins,
            score.ties,
            score.losses,
            score.score,
        )
        for score in RankingScore.objects.filter(
            campaign=campaign,
            include_untrusted=False,
            method__in=("win_ratio_gt", "win_ratio_geq", "expected_wins"),
        ).select_related("system")
    }


def test_wmt10_rankings_become_ranking_sets_with_the_scores_worked_by_hand():
    summary = run("wmt10-rr", WMT10_RR, file="wmt12.RNK_results.csv")
    campaign = Campaign.objects.get()
    assert summary.message == (
        "Imported 11 judgments (2 workers, 4 assignments, 2 HITs, 3 systems, 2 segments) from "
        'wmt12.RNK_results.csv into new campaign "WMT12 cs-en" (ranking). Skipped: 1 outputs '
        "left unranked (-1 or empty)."
    )
    assert (
        campaign.kind,
        campaign.status,
        campaign.imported_from,
        hasattr(campaign, "da_settings"),  # no direct-assessment mode: ranking settings
        RankingSettings.objects.filter(campaign=campaign).exists(),
        campaign.redundancy,
    ) == (TaskKind.RANKING, CampaignStatus.FINISHED, "wmt10-rr", False, True, 2)
    # One HIT per ranking set (segment and systems shown); both judges ranked both sets.
    assert Hit.objects.filter(campaign=campaign).count() == 2
    assert HitSlot.objects.filter(hit__campaign=campaign).count() == 6
    assert sorted(
        Assignment.objects.values_list(
            "hit__slots__segment__external_id", "worker__external_id"
        ).distinct()
    ) == [("1", "J1"), ("1", "J2"), ("2", "J1"), ("2", "J2")]
    assert sorted(
        Judgment.objects.filter(
            worker__external_id="J2", slot__segment__external_id="2"
        ).values_list("slot__output__system__name", "rank")
    ) == [("Y", 1), ("Z", 2)]
    assert stored_scores(campaign) == EXPECTED

    result = RankingResult.objects.get(campaign=campaign)
    assert (result.n_judgments, result.n_workers, result.n_ballots, result.n_sets) == (11, 2, 4, 2)
    # No gold units: every worker is undecided and counts in the default scores.
    assert sorted(
        RankingWorkerStat.objects.filter(campaign=campaign).values_list(
            "worker__external_id", "status", "in_scores"
        )
    ) == [("J1", "undecided", True), ("J2", "undecided", True)]
    # Inter-annotator agreement on the same pairs: segment 1, J1 and J2 agree on X>Z and Y>Z,
    # not on X-Y; segment 2, only Y>Z was labelled by both, and agrees: 3 of 4, Pr(a) 0.75,
    # kappa (0.75 - 1/3) / (1 - 1/3) = 0.625.
    inter = result.details["trusted"]["agreement"]["inter"]
    assert (inter["n"], inter["n_agree"]) == (4, 3)
    assert inter["kappa"] == pytest.approx(0.625)


def test_wmt08_rankings_give_the_same_scores():
    summary = run("wmt08-rr", WMT08_RR, file="wmt08-judgments.csv")
    campaign = Campaign.objects.get()
    assert summary.ignored == {
        "CONSTITUENT rows (only RANK rows are imported)": 1,
        "outputs left unranked (-1 or empty)": 1,
    }
    assert summary.counts["judgments"] == 11
    assert stored_scores(campaign) == EXPECTED
    assert list(Document.objects.values_list("external_id", flat=True)) == [WMT08_TASK]
    assert sorted(Segment.objects.values_list("external_id", flat=True)) == ["0", "1"]
    # TIME is per set, spread over its ranked outputs: 30 s / 3 and 20 s / 2.
    assert sorted(
        set(
            Judgment.objects.filter(worker__external_id="1").values_list(
                "client_duration_ms", flat=True
            )
        )
    ) == [10_000, 15_000]
    assert set(
        Judgment.objects.filter(
            worker__external_id="2", slot__segment__external_id="1"
        ).values_list("client_duration_ms", flat=True)
    ) == {10_000}


def test_a_set_ranked_twice_by_one_judge_goes_to_a_second_hit():
    text = WMT10_RR + "Czech,English,1,doc1,1,J1,3,Z,2,Y,1,X,1,2,3\n"
    run("wmt10-rr", text)
    assert Hit.objects.count() == 3
    assert Assignment.objects.filter(worker__external_id="J1").count() == 3
    # Intra-annotator agreement: J1's two rankings of segment 1 disagree on all three pairs.
    intra = RankingResult.objects.get().details["trusted"]["agreement"]["intra"]
    assert (intra["n"], intra["n_agree"]) == (3, 0)


def test_ranking_problems_are_listed_with_their_lines():
    text = "\n".join(
        [
            WMT10_HEADER,
            "Czech,English,1,doc1,1,J1,1,X,2,Y,3,Z,1,0,3",
            "Czech,English,2,doc1,2,J1,1,X,2,X,3,Z,1,2,3",
            "Czech,English,3,doc1,3,J1,1,X,2,Y,3,Z,1,two,3",
            "Czech,English,4,doc1,4,,1,X,2,Y,3,Z,1,2,3",
            "Czech,English,5,doc1,5,J1,1,X,2,,3,Z,1,2,3",
            "German,English,6,doc1,6,J1,1,X,2,Y,3,Z,1,2,3",
            "Czech,English,7,doc1,7,J1,1,X",
        ]
    )
    with pytest.raises(ImportFailed) as failure:
        run("wmt10-rr", text)
    assert failure.value.lines() == [
        # Issue 12: the problem names the option that imports one pair of such a file.
        'field "language_pair": the file holds several language pairs: Czech-English (5 rows, '
        "first on ranks.csv line 2); German-English (1 row, first on ranks.csv line 7); a "
        "campaign is one language pair, so choose the pair to import with the option "
        "language_pair (e.g. language_pair=de-en; --language-pair in manage.py "
        'import_judgments, "Language pair" on the admin\'s import page) and import each pair '
        "into its own campaign",
        'ranks.csv line 2, field "system2rank": rank "0" is not a positive whole number; ranks '
        "go from 1 (best) to the number of outputs of the set, and -1 or an empty field marks "
        "an output left unranked",
        'ranks.csv line 3, field "system2Id": system "X" is also in system1Id; a ranking set '
        "compares different systems",
        'ranks.csv line 4, field "system2rank": rank "two" is not a positive whole number; '
        "ranks go from 1 (best) to the number of outputs of the set, and -1 or an empty field "
        "marks an output left unranked",
        'ranks.csv line 5, field "judgeId": empty judge (judgeId)',
        'ranks.csv line 6, field "system2Id": system2rank has a rank but no system',
        "ranks.csv line 8: 8 fields, but the header has 15; check for missing or extra commas",
    ]
    assert (Campaign.objects.count(), Judgment.objects.count()) == (0, 0)


def test_wmt08_without_a_header_and_with_unknown_columns():
    headerless = "\n".join(WMT08_RR.splitlines()[1:]) + "\n"
    summary = run("wmt08-rr", headerless, file="judgments.csv")
    assert summary.counts["judgments"] == 11
    assert stored_scores(Campaign.objects.get()) == EXPECTED

    with pytest.raises(ImportFailed) as failure:
        run("wmt08-rr", WMT08_HEADER + ",COMMENT\n", name="other")
    assert failure.value.lines() == [
        'ranks.csv line 1, field "COMMENT": unknown column "COMMENT"; WMT08\'s columns are '
        "TASK, TYPE, ITEM_ID, ANNOTATOR_ID, TIME and SYSTEM_i, SCORE_i_A, SCORE_i_B for each "
        "system i",
    ]
    with pytest.raises(ImportFailed) as failure:
        run("wmt08-rr", "TASK,TYPE,ITEM_ID\n", name="other")
    assert failure.value.lines() == [
        'ranks.csv line 1: missing columns "ANNOTATOR_ID", "SYSTEM_0", "SCORE_0_A"; the '
        "header has: TASK, TYPE, ITEM_ID"
    ]


def test_the_languages_of_a_ranking_file_must_be_given_as_codes():
    with pytest.raises(ImportFailed) as failure:
        run("wmt10-rr", WMT10_RR, source_language="", target_language="")
    assert failure.value.lines() == [
        'field "source_language": give the source and target language codes (e.g. cs and en): '
        'the file names its languages "Czech-English", which are not language codes'
    ]
