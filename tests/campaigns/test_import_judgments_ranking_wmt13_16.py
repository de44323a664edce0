"""WMT13-16's relative-ranking files as published (issue 12): the 5-way layout with WMT's
"_ref", the pairwise layout of WMT15-16 (rows of one rankingID), files of several language
pairs with and without the option language_pair, and a reference named with the import.

The same three rankings in every layout (segment: system rank; 1 = best), systems A, B, C, D
and the human reference R:

    J1, segment 1: A 1, B 2, C 3, D 5, R 1
    J2, segment 1: A 2, B 2, C 1, D 5, R 1
    J1, segment 2: A 1, B 3, C 2, D 5, R 2

With R left out (WMT's tables): D loses every comparison; among A, B, C:
    J1 s1: A>B, A>C, B>C      J2 s1: A=B, C>A, C>B      J1 s2: A>B, A>C, C>B
A: 4 + 3 (over D) wins, 1 tie, 1 loss = 9 comparisons; B: 1 + 3, 1, 4 = 9; C: 3 + 3, 0, 3 = 9;
D: 0, 0, 9 = 9. Win ratios (wins + ties)/n, wins/n, wins/(wins + losses):
    A 8/9, 7/9, 7/8;  B 5/9, 4/9, 4/8;  C 6/9, 6/9, 6/9;  D 0, 0, 0.
Expected Wins (3 opponents): A (1 + 2/3 + 1)/3 = 8/9; B (0 + 1/3 + 1)/3 = 4/9;
C (1/3 + 2/3 + 1)/3 = 2/3; D 0.
With R kept: A also ties R (J1 s1), loses to it (J2 s1), beats it (J1 s2): 8 wins, 2 ties,
2 losses = 12, ratios 10/12, 8/12, 8/10; R's Expected Wins (1/2 + 1 + 1 + 1)/4 = 7/8.
"""

import io

import pytest

from analytics.models import RankingScore
from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
from campaigns.models import Campaign, Hit, HitSlot, RankingSettings
from judgments.models import Judgment

pytestmark = pytest.mark.django_db

RANKINGS = [
    ("J1", "1", {"A": 1, "B": 2, "C": 3, "D": 5, "R": 1}),
    ("J2", "1", {"A": 2, "B": 2, "C": 1, "D": 5, "R": 1}),
    ("J1", "2", {"A": 1, "B": 3, "C": 2, "D": 5, "R": 2}),
]
# WMT13-14's 5-way header (the WMT14 README; keisks/wmt-trueskill's WMT13 sample).
FIVE_WAY_HEADER = (
    "srclang,trglang,srcIndex,documentId,segmentId,judgeId,system1Number,system1Id,"
    "system2Number,system2Id,system3Number,system3Id,system4Number,system4Id,system5Number,"
    "system5Id,system1rank,system2rank,system3rank,system4rank,system5rank"
)
# WMT15-16's pairwise header, as in github.com/cfedermann/wmt16 data/wmt16.deu-eng.csv.
PAIRWISE_HEADER = (
    "srclang,trglang,srcIndex,segmentId,judgeID,system1Id,system1rank,system2Id,system2rank,"
    "rankingID"
)
PREFIX = "newstest2013.fr-en."

# (wins, ties, losses, n, score) per system and method, R left out (module docstring).
EXCLUDED = {
    "win_ratio_geq": {"A": (7, 1, 1, 9, 8 / 9), "B": (4, 1, 4, 9, 5 / 9), "C": (6, 0, 3, 9, 6 / 9)},
    "win_ratio_gt": {"A": (7, 1, 1, 9, 7 / 9), "B": (4, 1, 4, 9, 4 / 9), "C": (6, 0, 3, 9, 6 / 9)},
    "win_ratio_wmt12": {
        "A": (7, 1, 1, 9, 7 / 8),
        "B": (4, 1, 4, 9, 4 / 8),
        "C": (6, 0, 3, 9, 6 / 9),
    },
    "expected_wins": {"A": (7, 1, 1, 9, 8 / 9), "B": (4, 1, 4, 9, 4 / 9), "C": (6, 0, 3, 9, 2 / 3)},
}


def upload(text: str, name: str) -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8"))
    data.name = name
    return data


def run(text: str, file: str = "wmt-judgments.csv", **options):
    options.setdefault("name", "WMT fr-en")
    return import_judgments([upload(text, file)], ImportOptions("wmt10-rr", **options))


def five_way(names: dict[str, str], languages=("French", "English"), rankings=RANKINGS) -> str:
    """WMT13-14's 5-way rows: systems in the order A, B, C, D, R (WMT's ids: a test-set
    prefix), their numbers -1 as in WMT14."""
    rows = [FIVE_WAY_HEADER]
    for judge, segment, ranks in rankings:
        systems = [names.get(system, PREFIX + system) for system in ranks]
        fields = [*languages, segment, "-1", segment, judge]
        for system in systems:
            fields += ["-1", system]
        fields += [str(rank) for rank in ranks.values()]
        rows.append(",".join(fields))
    return "\n".join(rows) + "\n"


def pairwise_rows(names: dict[str, str], languages=("fre", "eng"), first_id=1) -> list[str]:
    """WMT15-16's pairwise rows: every pair of each ranking, one rankingID per ranking."""
    rows = []
    for number, (judge, segment, ranks) in enumerate(RANKINGS, first_id):
        items = [(names.get(system, system), rank) for system, rank in ranks.items()]
        for i, (first, rank1) in enumerate(items):
            for second, rank2 in items[i + 1 :]:
                rows.append(
                    f"{languages[0]},{languages[1]},{segment},{segment},{judge},{first},{rank1},"
                    f"{second},{rank2},{number}"
                )
    return rows


def scores(campaign: Campaign, method: str) -> dict[str, tuple]:
    return {
        row.system.name.removeprefix(PREFIX): (row.wins, row.ties, row.losses, row.n, row.score)
        for row in RankingScore.objects.filter(
            campaign=campaign, include_untrusted=False, method=method
        ).select_related("system")
    }


def assert_scores_without_reference(campaign: Campaign) -> None:
    for method, expected in EXCLUDED.items():
        got = scores(campaign, method)
        assert sorted(got) == ["A", "B", "C", "D"], method  # no reference row
        assert got["D"][:4] == (0, 0, 9, 9)
        for system, (wins, ties, losses, n, score) in expected.items():
            assert got[system][:4] == (wins, ties, losses, n), (method, system)
            assert got[system][4] == pytest.approx(score, abs=1e-12), (method, system)


def test_five_way_file_with_wmts_ref_leaves_the_reference_out():
    summary = run(five_way({"R": "_ref"}), source_language="fr", target_language="en")
    campaign = Campaign.objects.get()
    assert campaign.ranking_settings.reference_system == "_ref"
    assert campaign.ranking_settings.exclude_reference is True
    assert summary.counts["judgments"] == 15 and summary.counts["systems"] == 5
    assert summary.notes == (
        'system "_ref" is taken for the human reference (WMT\'s name for it) and left out of '
        "the scores, as WMT's tables do (settings: reference system)",
    )
    # The reference's rankings are imported (it was ranked), but it is in no score.
    assert Judgment.objects.filter(slot__output__system__name="_ref").count() == 3
    assert_scores_without_reference(campaign)


def test_the_reference_kept_when_the_setting_says_so():
    run(five_way({"R": "_ref"}), source_language="fr", target_language="en")
    campaign = Campaign.objects.get()
    RankingSettings.objects.filter(pk=campaign.pk).update(exclude_reference=False)
    from analytics.actions import recompute_campaign

    recompute_campaign(Campaign.objects.get())
    assert scores(campaign, "win_ratio_geq")["A"] == (8, 2, 2, 12, pytest.approx(10 / 12))
    assert scores(campaign, "win_ratio_gt")["A"] == (8, 2, 2, 12, pytest.approx(8 / 12))
    assert scores(campaign, "win_ratio_wmt12")["A"] == (8, 2, 2, 12, pytest.approx(8 / 10))
    assert scores(campaign, "expected_wins")["_ref"][4] == pytest.approx(7 / 8)


def test_pairwise_file_as_published_gives_the_same_sets_and_scores():
    text = "\n".join([PAIRWISE_HEADER, *pairwise_rows({"R": "ref"})]) + "\n"
    summary = run(text, file="wmt16.fre-eng.csv", language_pair="fr-en")
    campaign = Campaign.objects.get()
    assert (campaign.source_language, campaign.target_language) == ("fr", "en")
    assert campaign.ranking_settings.reference_system == "ref"
    # The 10 pairs of each rankingID are one ranking set again: 2 sets (segment 1 twice).
    assert summary.counts == {
        "judgments": 15,
        "workers": 2,
        "assignments": 3,
        "hits": 2,
        "systems": 5,
        "segments": 2,
        "new_workers": 2,
        "new_systems": 5,
        "new_segments": 2,
    }
    assert Hit.objects.count() == 2 and HitSlot.objects.count() == 10
    assert sorted(
        Judgment.objects.filter(worker__external_id="J2").values_list(
            "slot__output__system__name", "rank"
        )
    ) == [("A", 2), ("B", 2), ("C", 1), ("D", 5), ("ref", 1)]
    assert_scores_without_reference(campaign)


def test_the_header_names_are_matched_without_case():
    text = five_way({"R": "_ref"}).replace("judgeId", "judgeID", 1)
    run(text, source_language="fr", target_language="en")
    assert_scores_without_reference(Campaign.objects.get())


def test_pairwise_rows_of_one_ranking_must_agree():
    rows = pairwise_rows({"R": "ref"})
    rows[1] = rows[1].replace(",J1,A,1,", ",J1,A,2,")  # A ranked 1 on line 2, 2 on line 3
    rows[12] = rows[12].replace(",J2,", ",J3,")  # a second judge in rankingID 2
    text = "\n".join([PAIRWISE_HEADER, *rows, "fre,eng,5,5,J1,A,1,A,2,9"]) + "\n"
    with pytest.raises(ImportFailed) as failure:
        run(text, language_pair="fr-en")
    assert failure.value.lines() == [
        'wmt-judgments.csv line 3, field "system1Id": system "A" has rank 2 here and 1 on '
        "line 2 in the same ranking 1; a system has one rank in a ranking",
        'wmt-judgments.csv line 14, field "rankingID": ranking 2 is of judge J2, segment 1 and '
        "fre-eng on line 12, and here of judge J3, segment 1 and fre-eng; the rows of one "
        "ranking share them",
        'wmt-judgments.csv line 32, field "system2Id": system "A" is compared with itself; a '
        "pair compares two different systems",
    ]
    assert Campaign.objects.count() == 0


def test_a_file_of_several_pairs_needs_the_option_language_pair():
    rows = [PAIRWISE_HEADER, *pairwise_rows({"R": "ref"}, ("deu", "eng"))]
    rows += pairwise_rows({"R": "ref"}, ("cze", "eng"), first_id=4)[:10]
    text = "\n".join(rows) + "\n"
    with pytest.raises(ImportFailed) as failure:
        run(text, file="wmt16.all.csv")
    assert failure.value.lines() == [
        'field "language_pair": the file holds several language pairs: deu-eng (30 rows, '
        "first on wmt16.all.csv line 2); cze-eng (10 rows, first on wmt16.all.csv line 32); a "
        "campaign is one language pair, so choose the pair to import with the option "
        "language_pair (e.g. language_pair=de-en; --language-pair in manage.py "
        'import_judgments, "Language pair" on the admin\'s import page) and import each pair '
        "into its own campaign",
    ]
    summary = run(text, file="wmt16.all.csv", language_pair="de-en", name="WMT16 de-en")
    campaign = Campaign.objects.get()
    assert (campaign.name, campaign.source_language, campaign.target_language) == (
        "WMT16 de-en",
        "de",
        "en",
    )
    assert summary.ignored == {"rows of other language pairs than de-en": 10}
    assert_scores_without_reference(campaign)
    # The other pair into its own campaign: its one ranking of segment 1 (J1).
    summary = run(text, file="wmt16.all.csv", language_pair="cs-en", name="WMT16 cs-en")
    assert summary.ignored == {"rows of other language pairs than cs-en": 30}
    assert summary.counts["judgments"] == 5


def test_a_pair_the_file_does_not_hold_or_cannot_be_read():
    text = five_way({"R": "_ref"})
    with pytest.raises(ImportFailed) as failure:
        run(text, language_pair="de-en")
    assert failure.value.lines() == [
        'field "language_pair": no rows of the language pair de-en; the file holds '
        "French-English (3 rows, first on wmt-judgments.csv line 2)",
    ]
    with pytest.raises(ImportFailed) as failure:
        run(text, language_pair="French to English")
    assert failure.value.lines() == [
        'field "language_pair": "French to English" is not a language pair; give the source '
        "and target language joined by a hyphen, e.g. de-en",
    ]


def test_a_reference_named_with_the_import():
    names = {"R": "Human-translation"}
    run(five_way(names), language_pair="fr-en", reference_system="Human-translation")
    campaign = Campaign.objects.get()
    assert campaign.ranking_settings.reference_system == "Human-translation"
    assert_scores_without_reference(campaign)
    with pytest.raises(ImportFailed) as failure:
        run(five_way(names), language_pair="fr-en", reference_system="Humans", name="other")
    assert failure.value.lines() == [
        'field "reference_system": the files have no system named "Humans"; their systems '
        f"are: Human-translation, {PREFIX}A, {PREFIX}B, {PREFIX}C, {PREFIX}D",
    ]


def test_two_systems_named_like_the_reference_need_the_option():
    text = five_way({"R": "_ref", "D": "ref"})
    with pytest.raises(ImportFailed) as failure:
        run(text, language_pair="fr-en")
    assert failure.value.lines() == [
        'field "reference_system": several systems are named like the reference (_ref, ref); '
        "name the one that is the reference with the option reference_system",
    ]
    run(text, language_pair="fr-en", reference_system="ref")
    assert Campaign.objects.get().ranking_settings.reference_system == "ref"


def test_adding_to_a_campaign_keeps_one_reference():
    first = RANKINGS[:1]
    # "Human" is no name WMT gives the reference: without the option, no reference.
    run(five_way({"R": "Human"}, rankings=first), language_pair="fr-en")
    campaign = Campaign.objects.get()
    assert campaign.ranking_settings.reference_system == ""
    run(five_way({"R": "Human"}, rankings=RANKINGS[1:]), reference_system="Human")
    assert RankingSettings.objects.get(pk=campaign.pk).reference_system == "Human"
    assert_scores_without_reference(Campaign.objects.get())
    with pytest.raises(ImportFailed) as failure:
        run(five_way({"R": "_ref"}, rankings=first), name="WMT fr-en")
    assert failure.value.lines() == [
        'field "reference_system": campaign "WMT fr-en" names "Human" as its reference '
        'system, not "_ref"',
    ]
