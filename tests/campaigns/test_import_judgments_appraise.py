"""Appraise score exports: the same judgments as the WMT file get the same statistics."""

import io
import math

import pytest

from analytics.models import SystemScore, WorkerStat
from campaigns.importers.judgments import ImportFailed, ImportOptions, import_judgments
from campaigns.models import Campaign, Hit, HitSlot, SlotRole
from judgments.models import Assignment, Judgment
from tests.campaigns.test_import_judgments_data import APPRAISE_SCORES

pytestmark = pytest.mark.django_db
Z = math.sqrt(21 / 22)  # see test_import_judgments_wmt_da


def upload(text: str, name: str = "scores.csv") -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8"))
    data.name = name
    return data


def run(text: str, **options):
    options.setdefault("name", "Appraise en-de")
    return import_judgments([upload(text)], ImportOptions("appraise", **options))


def test_appraise_export_gets_the_statistics_of_the_same_wmt_judgments():
    summary = run(APPRAISE_SCORES)
    campaign = Campaign.objects.get()
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
    assert (campaign.source_language, campaign.target_language, campaign.imported_from) == (
        "ces",
        "eng",
        "appraise",
    )
    # CHK items are repeats, BAD bad references, REF references, each controlling the TGT
    # slot of its system and segment.
    assert (
        sorted(HitSlot.objects.exclude(role=SlotRole.SYSTEM).values_list("role", flat=True))
        == ["bad_reference"] * 10 + ["reference"] * 10 + ["repeat"] * 4
    )
    assert not HitSlot.objects.exclude(role=SlotRole.SYSTEM).filter(controls=None).exists()
    assert set(Assignment.objects.values_list("worker__external_id", "hit__number")) == {
        ("u1", 1),
        ("u2", 2),
    }
    judgment = Judgment.objects.get(
        worker__external_id="u1",
        slot__role="system",
        slot__segment__external_id="1",
        slot__output__system__name="A",
    )
    assert (judgment.score, judgment.client_duration_ms) == (75.0, 10_000)
    assert judgment.client_started_at.timestamp() == 1_700_000_000

    stats = dict(
        WorkerStat.objects.filter(campaign=campaign).values_list("worker__external_id", "p_value")
    )
    assert stats == {"u1": pytest.approx(1 / 32), "u2": pytest.approx(1 / 4)}
    rows = {
        (score.include_unreliable, score.system.name): (score.n, score.mean_score, score.mean_z)
        for score in SystemScore.objects.filter(campaign=campaign).select_related("system")
    }
    assert rows == {
        (False, "A"): (6, 75.0, pytest.approx(Z)),
        (False, "B"): (6, 25.0, pytest.approx(-Z)),
        (True, "A"): (12, 82.5, pytest.approx(Z)),
        (True, "B"): (12, 42.5, pytest.approx(-Z)),
    }


def test_document_level_layout_skips_whole_document_scores_and_groups_by_annotator():
    text = (
        "user,systemID,itemID,itemType,src,tgt,score,documentID,isCompleteDocument,mqm,"
        "startTime,endTime\n"
        'u1,A,1,TGT,eng,deu,70,doc7,False,"[]",100,104\n'
        'u1,A,2,TGT,eng,deu,80,doc7,False,"[]",104,110\n'
        'u1,A,2,TGT,eng,deu,75,doc7,True,"[]",110,111\n'
        'u2,A,1,TGT,eng,deu,40,doc7,False,"[]",200,230\n'
    )
    summary = run(text)
    assert summary.ignored == {"whole-document scores (isCompleteDocument)": 1}
    assert summary.counts["judgments"] == 3
    # Without batch numbers each annotator's judgments are one HIT.
    assert Hit.objects.count() == 2
    assert sorted(
        Judgment.objects.values_list(
            "worker__external_id", "slot__segment__document__external_id", "client_duration_ms"
        )
    ) == [("u1", "doc7", 4_000), ("u1", "doc7", 6_000), ("u2", "doc7", 30_000)]


def test_appraise_problems_are_listed_with_their_lines():
    text = (
        "u1,A,1,TGT,eng,deu,70,100,104\n"
        "u1,A,2,XYZ,eng,deu,70,100,104\n"
        "u1,A,3,TGT,eng,deu,-5,100,104\n"
        "u1,A,4,TGT,eng,deu,70,110,104\n"
        "u1,A,5,TGT,eng,deu,70\n"
        "u1,A,1,TGT,eng,deu,71,100,104\n"
        "u1,A,6,TGT,eng,deu,70,100\n"
    )
    with pytest.raises(ImportFailed) as failure:
        run(text)
    assert failure.value.lines() == [
        'scores.csv line 2, field "itemType": unknown itemType "XYZ"; Appraise\'s types are '
        "TGT (a system output), CHK (a repeat), BAD (a bad reference) and REF (a reference)",
        'scores.csv line 3, field "score": score -5 is outside 0-100; raw scores are slider '
        "positions from 0 to 100 (if the file holds standardised z-scores, import it as "
        "standardised)",
        'scores.csv line 4, field "endTime": ends before its startTime',
        "scores.csv line 6: duplicate judgment: worker u1 already judged the output of system "
        "A on segment 1 in annotator u1's HIT on line 1; a worker judges each item of a HIT "
        "once",
        "scores.csv line 7: 8 fields; Appraise's score exports have 7, 9 or 11 fields "
        "(segment-level tasks) or 10, 12 or 14 (document-level tasks)",
    ]
    assert (Campaign.objects.count(), Judgment.objects.count()) == (0, 0)


def test_appraise_files_are_never_standardised():
    with pytest.raises(ImportFailed) as failure:
        run(APPRAISE_SCORES, standardised=True)
    assert failure.value.lines() == [
        'field "standardised": only WMT direct-assessment files come standardised; appraise '
        "files hold raw scores or ranks"
    ]


def test_times_too_long_to_store_are_dropped_and_said():
    month = 30 * 24 * 3600
    text = f"u1,A,1,TGT,eng,deu,70,100,{100 + month}\nu1,A,2,TGT,eng,deu,60,100,112\n"
    summary = run(text)
    assert summary.notes == (
        "1 judgment took longer than 24 days by the file's times; stored without a time",
        # Issue 12: a file without bad references makes a campaign that counts every worker.
        "the files hold no bad-reference item, so no worker can be tested for reliability: "
        'the new campaign counts every worker\'s judgments (workers counted "everyone", as for '
        "files filtered before import)",
    )
    assert sorted(
        Judgment.objects.values_list("score", "client_duration_ms"), key=lambda row: row[0]
    ) == [(60.0, 12_000), (70.0, None)]


def test_a_hit_too_large_for_its_slot_positions_is_refused():
    rows = [f"u1,A,{n},TGT,eng,deu,50" for n in range(1, 32_769)]
    with pytest.raises(ImportFailed) as failure:
        run("\n".join(rows) + "\n")
    assert failure.value.lines() == [
        "scores.csv line 1: annotator u1's HIT has 32,768 items; a HIT holds at most 32,767 "
        "(export with Appraise's --batch-info to split an annotator's judgments by batch)"
    ]
    assert Campaign.objects.count() == 0
