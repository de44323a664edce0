"""Importing the same judgments twice: every format's HITs have a natural key (stored as the
assignments' platform_hit_id), and a worker's judgments of a HIT already in the campaign are
refused with the file and line, also when the repeat is written between check and write."""

import hashlib
import io

import pytest

from campaigns.importers.judgments import (
    ImportFailed,
    ImportOptions,
    check_judgment_import,
    import_judgments,
    write_checked_judgments,
)
from campaigns.importers.judgments.records import natural_key
from campaigns.models import Campaign, Hit
from judgments.models import Assignment, Judgment
from tests.campaigns.test_import_judgments_data import (
    APPRAISE_SCORES,
    WMT08_RR,
    WMT08_TASK,
    WMT10_HEADER,
    WMT10_RR,
    WMT_DA_RAW,
    WMT_DA_STANDARDISED,
)
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db
AGAIN = "(imported before); importing them again would count them twice"


def upload(text: str, name: str) -> io.BytesIO:
    data = io.BytesIO(text.encode("utf-8"))
    data.name = name
    return data


def options(fmt: str, name: str, **more) -> ImportOptions:
    if fmt in ("wmt08-rr", "wmt10-rr"):
        more.setdefault("source_language", "cs")
        more.setdefault("target_language", "en")
    return ImportOptions(fmt, name=name, **more)


def run(fmt: str, text: str, file: str, name: str = "C", **more):
    return import_judgments([upload(text, file)], options(fmt, name, **more))


def refused(fmt: str, text: str, file: str, name: str = "C") -> list[str]:
    before = Judgment.objects.count()
    with pytest.raises(ImportFailed) as failure:
        run(fmt, text, file, name)
    assert Judgment.objects.count() == before  # nothing written
    return failure.value.lines()


def keys() -> list[tuple[str, str]]:
    return sorted(Assignment.objects.values_list("worker__external_id", "platform_hit_id"))


def test_an_appraise_export_with_batches_is_imported_once():
    run("appraise", APPRAISE_SCORES, "scores.csv")
    assert keys() == [("u1", "appraise batch 1"), ("u2", "appraise batch 2")]
    # u1's 22 judgments are lines 1-22, u2's lines 23-44.
    assert refused("appraise", APPRAISE_SCORES, "scores.csv") == [
        f'scores.csv line 1, field "batchNo": worker u1\'s judgments in batch 1 are already in '
        f'campaign "C" {AGAIN}',
        f'scores.csv line 23, field "batchNo": worker u2\'s judgments in batch 2 are already in '
        f'campaign "C" {AGAIN}',
    ]
    # Another annotator of batch 1, exported later, is new.
    summary = run("appraise", "u3,A,1,TGT,ces,eng,40,100,110,1,2000\n", "later.csv")
    assert (summary.created, summary.counts["judgments"]) == (False, 1)
    assert Judgment.objects.count() == 45


def test_an_appraise_export_without_batches_is_imported_once():
    text = "u1,A,1,TGT,ces,eng,70,100,104\nu1,B,1,TGT,ces,eng,30,104,110\n"
    run("appraise", text, "scores.csv")
    assert keys() == [("u1", "appraise user u1")]
    assert refused("appraise", text, "scores.csv") == [
        f"scores.csv line 1, field \"user\": worker u1's judgments in annotator u1's HIT are "
        f'already in campaign "C" {AGAIN}'
    ]


def test_a_wmt10_ranking_file_is_imported_once_and_other_judges_of_its_sets_are_new():
    j1 = [row for row in WMT10_RR.splitlines()[1:] if ",J1," in row]
    j2 = [row for row in WMT10_RR.splitlines()[1:] if ",J2," in row]
    run("wmt10-rr", "\n".join([WMT10_HEADER, *j1]) + "\n", "j1.csv")
    # J2 ranked the same two sets (segments 1 and 2 of X, Y, Z): new judgments of them.
    summary = run("wmt10-rr", "\n".join([WMT10_HEADER, *j2]) + "\n", "j2.csv")
    assert (summary.created, summary.counts["judgments"]) == (False, 5)
    assert keys() == [
        ("J1", "ranking set testset/1/X|Y|Z#1"),
        ("J1", "ranking set testset/2/X|Y|Z#1"),
        ("J2", "ranking set testset/1/X|Y|Z#1"),
        ("J2", "ranking set testset/2/X|Y|Z#1"),
    ]
    assert refused("wmt10-rr", WMT10_RR, "ranks.csv") == [
        f"ranks.csv line {line}: worker {judge}'s judgments in the ranking set of segment "
        f'{segment} on line {first} are already in campaign "C" {AGAIN}'
        for line, judge, segment, first in (
            (2, "J1", 1, 2),
            (3, "J1", 2, 3),
            (4, "J2", 1, 2),
            (5, "J2", 2, 3),
        )
    ]
    assert Judgment.objects.count() == 11


def test_a_wmt08_ranking_file_is_imported_once():
    run("wmt08-rr", WMT08_RR, "wmt08.csv")
    assert keys() == [
        ("1", f"ranking set {WMT08_TASK}/0/X|Y|Z#1"),
        ("1", f"ranking set {WMT08_TASK}/1/X|Y|Z#1"),
        ("2", f"ranking set {WMT08_TASK}/0/X|Y|Z#1"),
        ("2", f"ranking set {WMT08_TASK}/1/X|Y|Z#1"),
    ]
    # Line 4 is a CONSTITUENT row (skipped).
    assert refused("wmt08-rr", WMT08_RR, "wmt08.csv") == [
        f"wmt08.csv line {line}: worker {judge}'s judgments in the ranking set of segment "
        f'{segment} on line {first} are already in campaign "C" {AGAIN}'
        for line, judge, segment, first in (
            (2, "1", 0, 2),
            (3, "1", 1, 3),
            (5, "2", 0, 2),
            (6, "2", 1, 3),
        )
    ]


def test_a_natural_key_too_long_for_the_column_keeps_its_start_and_a_digest():
    text = "ranking set " + "x" * 300
    digest = hashlib.sha256(text.encode()).hexdigest()[:40]
    assert natural_key(text) == text[:149] + "... sha256:" + digest
    assert len(natural_key(text)) == 200
    assert natural_key("H1") == "H1"
    # A WMT08 task long enough for it: the repeat is still recognised.
    task = "WMT08 Czech-English " + "N" * 170  # 190 characters: an id may have 200
    rows = "".join(f"{task},RANK,0,{judge},30,X,1,,Y,2,,Z,3,\n" for judge in ("1", "2"))
    run("wmt08-rr", rows, "long.csv")
    assert {len(key) for _, key in keys()} == {200}
    assert [line.split(":")[0] for line in refused("wmt08-rr", rows, "long.csv")] == [
        "long.csv line 1",
        "long.csv line 2",
    ]


def test_a_repeat_written_between_check_and_write_is_refused_under_the_lock():
    u1 = "\n".join(APPRAISE_SCORES.splitlines()[:22]) + "\n"
    u2 = "\n".join(APPRAISE_SCORES.splitlines()[22:]) + "\n"
    run("appraise", u1, "u1.csv")
    checked = check_judgment_import([upload(u2, "u2.csv")], options("appraise", "C"))
    run("appraise", u2, "u2.csv")  # another import of the same file, meanwhile
    with pytest.raises(ImportFailed) as failure:
        write_checked_judgments(checked)
    assert failure.value.lines() == [
        f'u2.csv line 1, field "batchNo": worker u2\'s judgments in batch 2 are already in '
        f'campaign "C" {AGAIN}'
    ]
    assert (Judgment.objects.count(), Hit.objects.count()) == (44, 2)


def test_raw_and_standardised_scores_written_meanwhile_are_refused_under_the_lock():
    campaign = CampaignFactory(
        name="C", imported_from="wmt-da", source_language="cs", target_language="en"
    )
    # Both files are checked against the empty campaign, so both pass on their own (their
    # HITs differ: only the scale is in question).
    checked = check_judgment_import([upload(WMT_DA_RAW, "raw.tsv")], options("wmt-da", "C"))
    standardised = WMT_DA_STANDARDISED.replace("\nH1\t", "\nZ1\t").replace("\nH2\t", "\nZ2\t")
    run("wmt-da", standardised, "stnd.tsv", standardised=True)
    with pytest.raises(ImportFailed) as failure:
        write_checked_judgments(checked)
    assert failure.value.lines() == [
        'field "standardised": campaign "C" holds standardised scores and this file raw 0-100 '
        "ones; they cannot be standardised together, so import the file into a new campaign"
    ]
    assert Judgment.objects.filter(campaign=campaign, score__isnull=False).count() == 0
    assert Judgment.objects.filter(campaign=campaign, given_z__isnull=False).count() == 44
    assert Campaign.objects.count() == 1
