"""WMT direct-assessment files: the rows an import builds and the statistics computed from them,
checked against figures worked by hand; every problem reported with its line, nothing written.
"""

import io
import math
import statistics

import pytest

from analytics.actions import stale_campaigns
from analytics.models import CampaignResult, SystemScore, WorkerStat
from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Hit,
    HitSlot,
    Output,
    Segment,
    SlotRole,
    System,
    TaskKind,
)
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment, Worker
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW, da_file, da_row
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

# Each worker's 22 scores take two values, 11 each (W1: 75 and 25; W2: 90 and 60), so the
# worker's mean is the midpoint and every score is d = 25 (W1) or 15 (W2) away from it. The
# sample sd is sqrt(22 d^2 / 21) = d sqrt(22/21), so every z-score is +-sqrt(21/22).
Z = math.sqrt(21 / 22)  # 0.97700842...


def upload(text: str, name: str = "ad-csen.tsv") -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8"))
    data.name = name
    return data


def run(text: str, file: str = "ad-csen.tsv", **options):
    options.setdefault("name", "WMT21 cs-en")
    return import_judgments([upload(text, file)], ImportOptions("wmt-da", **options))


def written() -> tuple[int, ...]:
    return tuple(
        model.objects.count()
        for model in (Campaign, System, Segment, Output, Hit, HitSlot, Assignment, Judgment)
    )


def test_raw_file_builds_the_rows_of_a_collected_campaign():
    summary = run(WMT_DA_RAW)

    campaign = Campaign.objects.get()
    assert summary.message == (
        "Imported 44 judgments (2 workers, 2 assignments, 2 HITs, 2 systems, 5 segments) from "
        'ad-csen.tsv into new campaign "WMT21 cs-en" (direct assessment, raw 0-100 scores).'
    )
    assert summary.campaign_id == campaign.pk
    assert summary.counts == {
        "judgments": 44,
        "workers": 2,
        "assignments": 2,
        "hits": 2,
        "systems": 2,
        "segments": 5,
        "new_workers": 2,
        "new_systems": 2,
        "new_segments": 5,
    }
    assert (campaign.name, campaign.kind, campaign.status, campaign.imported_from) == (
        "WMT21 cs-en",
        TaskKind.DIRECT_ASSESSMENT,
        CampaignStatus.FINISHED,
        "wmt-da",
    )
    assert (campaign.source_language, campaign.target_language) == ("cs", "en")
    assert (campaign.da_settings.assessment_mode, campaign.redundancy) == ("adequacy", 1)
    assert written() == (1, 2, 5, 10, 2, 44, 2, 44)
    assert sorted(Segment.objects.values_list("external_id", "position")) == [
        (str(n), n) for n in range(1, 6)
    ]
    assert set(Worker.objects.values_list("platform", "external_id")) == {
        ("imported", "W1"),
        ("imported", "W2"),
    }
    assert CampaignWorker.objects.filter(campaign=campaign).count() == 2
    assert set(
        Assignment.objects.values_list("worker__external_id", "platform_hit_id", "status")
    ) == {
        ("W1", "H1", AssignmentStatus.SUBMITTED),
        ("W2", "H2", AssignmentStatus.SUBMITTED),
    }
    hit = Hit.objects.get(assignments__worker__external_id="W1")
    roles = sorted(hit.slots.values_list("role", flat=True))
    assert roles.count(SlotRole.SYSTEM) == 10
    assert roles.count(SlotRole.BAD_REFERENCE) == 5
    assert roles.count(SlotRole.REFERENCE) == 5
    assert roles.count(SlotRole.REPEAT) == 2
    # Every control slot checks the system slot of the same HIT, system and segment.
    for slot in hit.slots.exclude(role=SlotRole.SYSTEM).select_related("controls"):
        assert slot.controls.hit_id == hit.pk
        assert slot.controls.role == SlotRole.SYSTEM
        assert slot.controls.output_id == slot.output_id
    bad_a3 = hit.slots.get(
        role=SlotRole.BAD_REFERENCE, output__system__name="A", segment__external_id="3"
    )
    assert Judgment.objects.get(slot=bad_a3).score == 25.0
    # The HIT's 220 seconds spread over its 22 judgments; 110 over W2's 22.
    assert set(
        Judgment.objects.filter(worker__external_id="W1").values_list(
            "client_duration_ms", flat=True
        )
    ) == {10_000}
    assert set(
        Judgment.objects.filter(worker__external_id="W2").values_list(
            "client_duration_ms", flat=True
        )
    ) == {5_000}
    assert Judgment.objects.filter(given_z__isnull=False).count() == 0


def test_raw_file_gets_the_statistics_worked_by_hand():
    run(WMT_DA_RAW)
    campaign = Campaign.objects.get()

    # Reliability (one-sided Wilcoxon signed-rank on output - bad reference):
    # W1: five differences of 50, all positive: the exact p is P(T+ >= 15) = 1/32.
    # W2: differences 30, 30, 0, 0, 0; zeros are dropped, two positive ties remain (ranks
    # 1.5 each): P(T+ >= 3) over the 4 sign patterns = 1/4.
    stats = {
        stat.worker.external_id: stat
        for stat in WorkerStat.objects.filter(campaign=campaign).select_related("worker")
    }
    assert stats["W1"].p_value == pytest.approx(1 / 32)
    assert stats["W1"].reliable is True
    assert stats["W2"].p_value == pytest.approx(1 / 4)
    assert stats["W2"].reliable is False
    assert [(s.n_judgments, s.n_bad_ref_pairs, s.n_repeat_pairs) for s in stats.values()] == [
        (22, 5, 2),
        (22, 5, 2),
    ]
    assert (stats["W1"].mean_seconds, stats["W2"].mean_seconds) == (10.0, 5.0)
    # W2 is unreliable but not fast (5 s is not below half of W1's 10 s): pay, leave out.
    assert (stats["W1"].recommendation, stats["W2"].recommendation) == ("approve", "pay")

    # System scores: outputs and repeats count (6 per worker and system), QC items do not.
    # Reliable workers (W1): A raw 75, z +sqrt(21/22); B raw 25, z -sqrt(21/22).
    # Everyone: A raw (6*75 + 6*90)/12 = 82.5, B (6*25 + 6*60)/12 = 42.5; z unchanged, since
    # standardising removed W2's leniency.
    rows = {
        (score.include_unreliable, score.system.name): (
            score.n,
            score.mean_score,
            score.mean_z,
            score.cluster,
        )
        for score in SystemScore.objects.filter(campaign=campaign).select_related("system")
    }
    assert rows == {
        (False, "A"): (6, 75.0, pytest.approx(Z), 1),
        (False, "B"): (6, 25.0, pytest.approx(-Z), 2),
        (True, "A"): (12, 82.5, pytest.approx(Z), 1),
        (True, "B"): (12, 42.5, pytest.approx(-Z), 2),
    }

    # Significance, reliable variant, WMT's test on segment means: A's five segment-mean
    # z-scores (all +Z) all beat B's five (all -Z), U = 25; with the two tie groups of 5 the
    # normal approximation has mean 12.5 and variance 25/12 * (11 - 2 * (5^3 - 5) / (10 * 9))
    # = 17.3611, sd 4.16667, so z = (25 - 12.5 - 0.5) / 4.16667 = 2.88 and p = 0.001988: "**".
    # The reverse test: z = -3.12, p = 0.99910. (On the six per-judgment z-scores, the old
    # default, it was U = 36, z = 3.22450, p = 0.000631, "***".)
    result = CampaignResult.objects.get(campaign=campaign)
    reliable = result.details["reliable"]
    names = dict(System.objects.values_list("pk", "name"))
    assert [names[pk] for pk in reliable["systems"]] == ["A", "B"]
    assert reliable["p_greater"][0][1] == pytest.approx(0.0019884, abs=5e-8)
    assert reliable["p_greater"][1][0] == pytest.approx(0.9990957, abs=5e-8)
    assert reliable["marks"][0][1] == "**"
    assert reliable["clusters"] == [1, 2]
    assert (result.n_judgments, result.n_workers, result.n_unmatched_controls) == (44, 2, 0)
    assert not stale_campaigns().filter(pk=campaign.pk).exists()  # the sweep leaves it alone

    # Agreement, every worker: the two workers scored the same 10 outputs; |differences|
    # are 15 (A) five times and 35 (B) five times: mean 25, sd sqrt(10 * 10^2 / 9) = 10.541.
    # Five equal bins: 75|90 fall in [60, 80)|[80, 100], 25|60 in [20, 40)|[60, 80): no
    # agreement, kappa (0 - 1/5) / (1 - 1/5) = -0.25. Two bins: A agrees, B not: kappa 0.
    # Repeats: four pairs of equal scores.
    agreement = result.details["all"]["agreement"]
    distinct = agreement["distinct_judges"]
    assert (distinct["n_pairs"], distinct["mean_abs_diff"]) == (10, 25.0)
    assert distinct["sd_abs_diff"] == pytest.approx(math.sqrt(1000 / 9))
    kappas = {(k["binning"], k["categories"]): k["kappa"] for k in distinct["kappas"]}
    assert kappas[("equal_width", 5)] == pytest.approx(-0.25)
    assert kappas[("equal_width", 2)] == pytest.approx(0.0)
    same = agreement["same_judge"]
    assert (same["n_pairs"], same["mean_abs_diff"], same["sd_abs_diff"]) == (4, 0.0, 0.0)


def test_every_problem_is_listed_with_its_line_and_nothing_is_written():
    text = da_file(
        da_row("H1", "W1", "A", "SYSTEM", "1", "50"),
        da_row("H1", "W1", "A", "SYSTEM", "2", "120"),
        da_row("H1", "W1", "A", "SYSTEM", "3", "good"),
        da_row("H1", "W1", "A", "GOLD", "4", "50"),
        da_row("H1", "W1", "A", "SYSTEM", "1", "60"),
        da_row("H1", "W1", "A", "SYSTEM", "5", "40", time="12.0"),
        da_row("H1", "", "A", "SYSTEM", "6", "40"),
        "H1\tW1\tcs\ten",
    )
    with pytest.raises(ImportFailed) as failure:
        run(text)
    assert failure.value.headline == "7 problems found; nothing was imported."
    assert failure.value.lines() == [
        'ad-csen.tsv line 3, field "score": score 120 is outside 0-100; raw scores are slider '
        "positions from 0 to 100 (if the file holds standardised z-scores, import it as "
        "standardised)",
        'ad-csen.tsv line 4, field "score": "good" is not a number; every judgment needs one',
        'ad-csen.tsv line 5, field "type": unknown type "GOLD"; WMT\'s types are SYSTEM, '
        "REPEAT, BAD_REF and REF",
        "ad-csen.tsv line 6: duplicate judgment: worker W1 already judged the output of "
        "system A on segment 1 in HIT H1 on line 2; a worker judges each item of a HIT once",
        'ad-csen.tsv line 7, field "time": time 12 differs from 10 on line 2 for the same '
        "worker and HIT; WMT's time is the seconds spent on the whole HIT, the same on each "
        "of its rows",
        'ad-csen.tsv line 8, field "WorkerId": empty WorkerId',
        "ad-csen.tsv line 9: 4 fields (separated by tabs or spaces), but the header has 12 columns",
    ]
    assert written() == (0, 0, 0, 0, 0, 0, 0, 0)
    assert Worker.objects.count() == 0


def test_missing_columns_are_named_with_the_columns_found():
    text = "HITId\tWorkerId\tsys_id\tsid\n" + "H1\tW1\tA\t1\n"
    with pytest.raises(ImportFailed) as failure:
        run(text)
    assert failure.value.lines() == [
        'ad-csen.tsv line 1: missing columns "type", "score"; the header has: HITId, '
        "WorkerId, sys_id, sid"
    ]
    assert written() == (0, 0, 0, 0, 0, 0, 0, 0)


def test_several_language_pairs_or_modes_are_refused():
    text = da_file(
        da_row("H1", "W1", "A", "SYSTEM", "1", "50"),
        da_row("H2", "W2", "A", "SYSTEM", "1", "50", src="de", item="fl"),
    )
    with pytest.raises(ImportFailed) as failure:
        run(text)
    assert failure.value.lines() == [
        # Issue 12: the problem names the option that imports one pair of such a file.
        'field "language_pair": the file holds several language pairs: cs-en (1 row, first on '
        "ad-csen.tsv line 2); de-en (1 row, first on ad-csen.tsv line 3); a campaign is one "
        "language pair, so choose the pair to import with the option language_pair (e.g. "
        'language_pair=de-en; --language-pair in manage.py import_judgments, "Language pair" '
        "on the admin's import page) and import each pair into its own campaign",
        "the file mixes assessment modes: adequacy (first on ad-csen.tsv line 2), fluency "
        "(first on ad-csen.tsv line 3); fluency and adequacy are separate campaigns, so "
        "import their rows separately",
    ]
    assert written() == (0, 0, 0, 0, 0, 0, 0, 0)


def test_appending_adds_new_hits_and_refuses_hits_already_imported():
    run(WMT_DA_RAW)
    campaign = Campaign.objects.get()
    more = da_file(
        da_row("H3", "W1", "A", "SYSTEM", "6", "80"),
        da_row("H3", "W1", "C", "SYSTEM", "6", "20"),
    )
    summary = run(more, file="more.tsv")
    assert summary.created is False
    assert summary.message == (
        "Imported 2 judgments (1 worker, 1 assignment, 1 HIT, 2 systems, 1 segment) from "
        'more.tsv into campaign "WMT21 cs-en". The files hold no bad-reference item and '
        'campaign "WMT21 cs-en" counts reliable workers only: their workers cannot be tested '
        'and count in the every-worker table only (set the campaign\'s "Workers counted" to '
        "everyone if the files were filtered)."
    )
    assert (summary.counts["new_workers"], summary.counts["new_systems"]) == (0, 1)
    assert Judgment.objects.filter(campaign=campaign).count() == 46
    assert Segment.objects.get(external_id="6").position == 6
    # The stored results cover both imports.
    assert CampaignResult.objects.get(campaign=campaign).n_judgments == 46

    with pytest.raises(ImportFailed) as failure:
        run(more, file="more.tsv")
    assert failure.value.lines() == [
        'more.tsv line 2, field "HITId": worker W1\'s judgments in HIT H3 are already in '
        'campaign "WMT21 cs-en" (imported before); importing them again would count them twice'
    ]
    assert Judgment.objects.count() == 46
    # The whole first file again: each worker's HIT is named on its first line.
    with pytest.raises(ImportFailed) as failure:
        run(WMT_DA_RAW)
    assert failure.value.lines() == [
        f'ad-csen.tsv line {line}, field "HITId": worker {worker}\'s judgments in HIT {hit} are '
        'already in campaign "WMT21 cs-en" (imported before); importing them again would count '
        "them twice"
        for line, worker, hit in ((2, "W1", "H1"), (24, "W2", "H2"))
    ]
    assert Judgment.objects.count() == 46


def test_another_workers_judgments_of_a_hit_imported_before_are_new():
    # WMT publishes the judgments of good and of bad workers in separate files; their HITs
    # are the same MTurk HITs, so a HIT of the first file may come again with other workers.
    run(da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "80")))
    summary = run(da_file(da_row("H1", "W9", "A", "SYSTEM", "1", "30")), file="bad.tsv")
    assert summary.counts["judgments"] == 1
    assert sorted(
        Assignment.objects.values_list("worker__external_id", "platform_hit_id", "hit__number")
    ) == [("W1", "H1", 1), ("W9", "H1", 2)]


def test_only_imported_campaigns_of_the_same_kind_and_scale_are_added_to():
    CampaignFactory(name="collected")
    CampaignFactory(name="rankings", kind=TaskKind.RANKING, imported_from="wmt10-rr")
    text = da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "50"))
    with pytest.raises(ImportFailed) as failure:
        run(text, name="collected")
    assert failure.value.lines() == [
        'field "name": campaign "collected" was run here, not imported: judgment files are '
        "imported into campaigns of imported judgments only; choose another name for a new "
        "campaign"
    ]
    with pytest.raises(ImportFailed) as failure:
        run(text, name="rankings")
    assert failure.value.lines() == [
        'field "name": campaign "rankings" holds ranking judgments and this file '
        "direct-assessment ones; choose another name for a new campaign"
    ]
    run(text, name="raw")
    with pytest.raises(ImportFailed) as failure:
        run(da_file(da_row("H2", "W1", "A", "SYSTEM", "1", "0.5")), name="raw", standardised=True)
    assert failure.value.lines() == [
        'field "standardised": campaign "raw" holds raw 0-100 scores and this file '
        "standardised ones; they cannot be standardised together, so import the file into a "
        "new campaign"
    ]
    assert Judgment.objects.count() == 1


def test_a_campaign_the_importer_may_not_change_is_never_added_to():
    other = CampaignFactory(name="someone else's", imported_from="wmt-da")
    text = da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "50"))
    # One the importer can see (read) is named as taken.
    with pytest.raises(ImportFailed) as failure:
        run(text, name="someone else's", appendable=Campaign.objects.exclude(pk=other.pk))
    assert failure.value.lines() == [
        'field "name": the name "someone else\'s" is taken by a campaign you cannot import '
        "into; choose another name for a new campaign"
    ]
    assert Judgment.objects.count() == 0


def test_languages_come_from_the_options_when_given():
    run(
        da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "50", src="", trg="")),
        source_language="cs",
        target_language="en",
    )
    assert Campaign.objects.values_list("source_language", "target_language").get() == ("cs", "en")
    with pytest.raises(ImportFailed) as failure:
        run(
            da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "50", src="", trg="")),
            name="no languages",
        )
    assert failure.value.lines() == [
        'field "source_language": give the source and target language codes (e.g. cs and en): '
        "the file does not name its languages"
    ]


# --- Whose judgments count: filtered files and files without bad references (issue 12) ------

# The raw file without its bad references: nothing for the reliability test to compare.
WMT_DA_NO_BAD_REF = (
    "\n".join(line for line in WMT_DA_RAW.splitlines() if "\tBAD_REF\t" not in line) + "\n"
)


def default_table(campaign) -> dict[str, tuple]:
    """The default (include_unreliable=False) system table: name -> (n, n_segments, raw, z)."""
    return {
        score.system.name: (score.n, score.n_segments, score.mean_score, score.mean_z)
        for score in SystemScore.objects.filter(
            campaign=campaign, include_unreliable=False
        ).select_related("system")
    }


def test_a_filtered_file_counts_every_worker_when_the_option_says_so():
    # WMT's "good" files were filtered by WMT: filtering again here (W2 fails our test with
    # p = 1/4) would drop a worker WMT counted. With workers counted "everyone" the default
    # table holds both workers: A's segments average 75 (W1) and 90 (W2), i.e. 82.5 (the
    # same figures as the every-worker table of test_raw_file_gets_the_statistics_...).
    run(WMT_DA_RAW, workers_counted="everyone")
    campaign = Campaign.objects.get()
    assert campaign.da_settings.workers_counted == "everyone"
    assert default_table(campaign) == {
        "A": (12, 5, 82.5, pytest.approx(Z)),
        "B": (12, 5, 42.5, pytest.approx(-Z)),
    }
    result = CampaignResult.objects.get(campaign=campaign)
    assert result.workers_counted == "everyone"
    assert result.details["reliable"]["n_workers_included"] == 2
    # The worker table still tests each worker (for the requester's review).
    assert WorkerStat.objects.get(worker__external_id="W2").reliable is False
    assert not stale_campaigns().filter(pk=campaign.pk).exists()


def test_without_the_option_a_file_with_bad_references_counts_reliable_workers():
    run(WMT_DA_RAW)
    campaign = Campaign.objects.get()
    assert campaign.da_settings.workers_counted == "reliable"
    assert default_table(campaign) == {
        "A": (6, 5, 75.0, pytest.approx(Z)),
        "B": (6, 5, 25.0, pytest.approx(-Z)),
    }


def test_a_file_without_bad_references_counts_everyone_and_says_so():
    # No bad reference: no worker can be tested, so "reliable only" would be an empty table.
    summary = run(WMT_DA_NO_BAD_REF)
    campaign = Campaign.objects.get()
    assert campaign.da_settings.workers_counted == "everyone"
    assert summary.notes == (
        "the files hold no bad-reference item, so no worker can be tested for reliability: the "
        'new campaign counts every worker\'s judgments (workers counted "everyone", as for '
        "files filtered before import)",
    )
    assert summary.message.endswith("as for files filtered before import).")
    # Without the bad references each worker is standardised over their 17 remaining scores
    # (statistics.stdev: n - 1); WMT's Ave z averages each segment's z over both workers,
    # then the 5 segments of the system.
    rows = [line.split("\t") for line in WMT_DA_NO_BAD_REF.splitlines()[1:]]
    by_worker: dict[str, list[float]] = {}
    for row in rows:
        by_worker.setdefault(row[1], []).append(float(row[10]))
    norm = {w: (statistics.mean(v), statistics.stdev(v)) for w, v in by_worker.items()}
    segments: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        if row[8] in ("SYSTEM", "REPEAT"):
            mean, sd = norm[row[1]]
            segments.setdefault((row[6], row[9]), []).append((float(row[10]) - mean) / sd)
    ave_z = {
        system: statistics.mean(
            statistics.mean(zs) for (s, _), zs in segments.items() if s == system
        )
        for system in "AB"
    }
    assert default_table(campaign) == {
        "A": (12, 5, 82.5, pytest.approx(ave_z["A"], abs=1e-12)),
        "B": (12, 5, 42.5, pytest.approx(ave_z["B"], abs=1e-12)),
    }
    assert set(WorkerStat.objects.values_list("recommendation", flat=True)) == {"wait"}


def test_reliable_only_is_refused_for_a_file_without_bad_references_naming_the_option():
    with pytest.raises(ImportFailed) as failure:
        run(WMT_DA_NO_BAD_REF, workers_counted="reliable")
    assert failure.value.lines() == [
        'field "workers_counted": workers counted "reliable" needs bad-reference items, which '
        "the reliability test compares with their outputs, and the files hold none: no worker "
        "could pass and the system table would be empty; import with workers counted "
        '"everyone" (the files were filtered or carry no quality control)'
    ]
    assert Campaign.objects.count() == 0
    with pytest.raises(ImportFailed) as failure:
        run(WMT_DA_RAW, workers_counted="some")
    assert failure.value.lines() == [
        'field "workers_counted": workers counted must be "reliable" or "everyone", not "some"'
    ]


def test_an_existing_campaign_keeps_its_own_setting():
    run(WMT_DA_RAW)
    more = da_file(da_row("H3", "W3", "A", "SYSTEM", "6", "80"))
    with pytest.raises(ImportFailed) as failure:
        run(more, file="more.tsv", workers_counted="everyone")
    assert failure.value.lines() == [
        'field "workers_counted": campaign "WMT21 cs-en" counts reliable workers only (the '
        'judgments carry quality-control items); change its setting "Workers counted" first, '
        'or import without workers counted "everyone"'
    ]
    assert Judgment.objects.count() == 44
