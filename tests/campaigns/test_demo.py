"""The demo command and its bundled sample (campaigns/sample/demo.tsv)."""

import re
import unicodedata
from collections import Counter
from io import StringIO
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from campaigns.models import (
    AssessmentMode,
    Campaign,
    CampaignStatus,
    Document,
    GoldAnswer,
    HitSlot,
    HitTask,
    Output,
    Segment,
    SlotRole,
    System,
    TaskKind,
)

SAMPLE = Path(__file__).resolve().parents[2] / "campaigns" / "sample" / "demo.tsv"
BASE = "http://127.0.0.1:8000"

FORUM_SOURCE = (
    "Ab Montag filtert die Software alle Beiträge, die HTML-Code wie "
    "<script>alert(1)</script> enthalten, bevor sie veröffentlicht werden."
)
LIBRARY_SOURCE = (
    "Über dem Eingang hängt ein Schild mit dem Wort „Bibliothek“ in mehreren Schriften: "
    "مكتبة, ספרייה und 図書館."
)
LIBRARY_REFERENCE = (
    "Above the entrance hangs a sign with the word “library” in several scripts: "
    "مكتبة, ספרייה and 図書館."
)
QUESTION_OUTPUT = 'A user asked: "Why is my formula x < y & y < z not shown?"'


def sample_rows() -> list[dict[str, str]]:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    rows = []
    for line in lines[1:]:
        cells = line.split("\t")
        assert len(cells) == len(header), line
        rows.append(dict(zip(header, cells, strict=True)))
    return rows


def run_demo(**options) -> str:
    out = StringIO()
    call_command("demo", stdout=out, **options)
    return out.getvalue()


def demo_campaigns():
    return Campaign.objects.filter(name__startswith="Demo: ")


def password_in(banner: str) -> str:
    match = re.search(r"^Password:\s+(\S+)$", banner, re.MULTILINE)
    assert match, banner
    return match.group(1)


# --- the sample file keeps its promises ---------------------------------------------------


def test_sample_file_has_what_the_demo_needs():
    rows = sample_rows()
    text = SAMPLE.read_text(encoding="utf-8")
    segments = {(row["doc_id"], row["seg_id"]) for row in rows}
    assert len(segments) >= 20
    assert len({row["doc_id"] for row in rows}) in (3, 4)
    assert {row["system"] for row in rows} == {
        "Lindenbaum-NMT",
        "LLM-Zero",
        "OpusBase-2026",
        "RuleBased-Classic",
    }
    # One row per system output: every segment has all four systems exactly once.
    assert len(rows) == 4 * len(segments)
    assert Counter((row["doc_id"], row["seg_id"]) for row in rows) == Counter(
        {segment: 4 for segment in segments}
    )
    assert (
        0
        < len({(row["doc_id"], row["seg_id"]) for row in rows if row["reference_2"]})
        < len(segments)
    )
    assert "<" in text and "&" in text
    assert "<script>alert(1)</script>" in text
    assert '"' in text and "'" in text and "„" in text and "“" in text
    assert any(unicodedata.bidirectional(ch) in ("R", "AL") for ch in text)
    assert any(unicodedata.name(ch, "").startswith("CJK UNIFIED IDEOGRAPH") for ch in text)


def test_sample_segments_vary_in_length_and_form_articles():
    rows = sample_rows()
    lengths = {(row["doc_id"], row["seg_id"]): len(row["source"].split()) for row in rows}
    assert all(3 <= n <= 40 for n in lengths.values())
    assert min(lengths.values()) <= 5 and max(lengths.values()) >= 30
    per_document = Counter(doc_id for doc_id, _ in lengths)
    assert all(5 <= n <= 8 for n in per_document.values())
    for row in rows:
        assert all(value == value.strip() for value in row.values())
        assert row["source"] and row["reference"] and row["output"]


# --- the command --------------------------------------------------------------------------


@pytest.mark.django_db
def test_demo_loads_one_campaign_per_kind_with_the_whole_sample():
    run_demo()

    campaigns = demo_campaigns()
    assert Counter(campaigns.values_list("kind", flat=True)) == {
        TaskKind.RANKING: 1,
        TaskKind.DIRECT_ASSESSMENT: 2,
        TaskKind.POST_EDITING: 1,
        TaskKind.READING_COMPREHENSION: 1,
        TaskKind.TRANSLATION: 1,
    }
    assert set(
        campaigns.filter(kind=TaskKind.DIRECT_ASSESSMENT).values_list(
            "da_settings__assessment_mode", flat=True
        )
    ) == {AssessmentMode.FLUENCY, AssessmentMode.ADEQUACY}
    assert set(campaigns.values_list("status", flat=True)) == {CampaignStatus.ACTIVE}
    assert all(c.title and c.instructions and c.description for c in campaigns)
    assert all(c.owner.username == "admin" for c in campaigns)
    assert all((c.source_language, c.target_language) == ("de", "en") for c in campaigns)

    for campaign in campaigns:
        outputs = Output.objects.filter(segment__campaign=campaign)
        if campaign.kind == TaskKind.TRANSLATION:
            # Two documents, three systems' outputs (see test_demo_translation_campaign...).
            assert campaign.documents.count() == 2
            assert campaign.segments.count() == 14
            assert campaign.systems.count() == 3
            assert outputs.count() == 42
        else:
            assert campaign.documents.count() == 4, campaign
            assert campaign.segments.count() == 28, campaign
            assert campaign.systems.count() == 4, campaign
            assert outputs.count() == 112, campaign
        # Direct assessment: 112 outputs make two 100-item HITs. Ranking: 28 segments of 4
        # systems in sets of 4, 3 sets a page, plus gold sets (7 gold answers, 10% rate).
        # Post-editing: 4 documents of 7 segments, one run each, one HIT per system and run.
        # Reading comprehension: the stages after authoring are built as articles finish.
        # Translation: one HIT per document of 7 sentences; Detect-MT and correction HITs
        # come from the translations.
        expected_hits = {
            TaskKind.DIRECT_ASSESSMENT: 2,
            TaskKind.RANKING: 11,
            TaskKind.POST_EDITING: 16,
            TaskKind.READING_COMPREHENSION: 4,  # one authoring HIT per article
            TaskKind.TRANSLATION: 2,
        }[campaign.kind]
        assert campaign.hits.count() == expected_hits, campaign
        if campaign.kind == TaskKind.RANKING:
            gold = HitSlot.objects.filter(hit__campaign=campaign, role=SlotRole.GOLD)
            assert gold.count() == 3
            assert GoldAnswer.objects.filter(segment__campaign=campaign).count() == 7


@pytest.mark.django_db
def test_demo_translation_campaign_gives_real_work():
    run_demo()
    campaign = Campaign.objects.get(kind=TaskKind.TRANSLATION)
    settings = campaign.translation_settings

    assert campaign.ask_background
    assert settings.detect_mt_voters > 0 and settings.source_as_image
    assert settings.correction_pass
    assert list(campaign.documents.order_by("position").values_list("external_id", flat=True)) == [
        "forum-rules",
        "city-library",
    ]
    assert set(campaign.systems.values_list("name", flat=True)) == {
        "Lindenbaum-NMT",
        "OpusBase-2026",
        "RuleBased-Classic",
    }
    # Professional references for BLEU, byte for byte as in the sample.
    library = Segment.objects.get(
        campaign=campaign, document__external_id="city-library", external_id="3"
    )
    assert (library.source, library.reference) == (LIBRARY_SOURCE, LIBRARY_REFERENCE)
    assert all(campaign.segments.values_list("references", flat=True))
    # The link hands a translation HIT of the first document, its sources in order.
    from judgments.actions import next_assignment_for
    from judgments.kinds import task_page
    from tests.factories import WorkerFactory

    assignment = next_assignment_for(WorkerFactory(), campaign).assignment
    assert assignment.hit.task == HitTask.TRANSLATE
    assert task_page(HitTask.TRANSLATE) is not None
    slots = list(assignment.hit.slots.order_by("position"))
    assert [s.segment.document.external_id for s in slots] == ["forum-rules"] * 7
    assert slots[1].shown_text == FORUM_SOURCE


@pytest.mark.django_db
def test_demo_banner_gives_admin_url_password_and_entry_urls():
    banner = run_demo()

    assert f"{BASE}/admin/" in banner
    assert "Username:  admin" in banner
    password = password_in(banner)
    admin = get_user_model().objects.get(username="admin")
    assert admin.is_superuser and admin.is_staff
    assert admin.check_password(password)
    for campaign in demo_campaigns():
        assert f"{BASE}/work/{campaign.pk}/" in banner


@pytest.mark.django_db
def test_demo_base_url_option_changes_the_printed_urls():
    banner = run_demo(base_url="https://demo.example.org/")

    assert "https://demo.example.org/admin/" in banner
    campaign = demo_campaigns().first()
    assert f"https://demo.example.org/work/{campaign.pk}/" in banner
    assert BASE not in banner


@pytest.mark.django_db
def test_demo_twice_creates_nothing_new_and_resets_the_password():
    first = run_demo()
    tables = (Campaign, Document, Segment, System, Output)
    before = {model: model.objects.count() for model in tables}

    second = run_demo()

    assert {model: model.objects.count() for model in tables} == before
    assert second.count("already loaded") == 6
    assert "already loaded" not in first
    assert get_user_model().objects.count() == 1
    admin = get_user_model().objects.get(username="admin")
    assert password_in(first) != password_in(second)
    assert admin.check_password(password_in(second))
    assert not admin.check_password(password_in(first))
    assert "password was reset" in second
    assert "password was reset" not in first


@pytest.mark.django_db
def test_demo_stores_markup_rtl_and_cjk_byte_for_byte():
    run_demo()
    ranking = Campaign.objects.get(kind=TaskKind.RANKING)

    forum = Segment.objects.get(campaign=ranking, document__external_id="forum-rules", position=2)
    assert forum.source == FORUM_SOURCE
    library = Segment.objects.get(
        campaign=ranking, document__external_id="city-library", external_id="3"
    )
    assert library.source == LIBRARY_SOURCE
    assert library.reference == LIBRARY_REFERENCE
    assert library.source.encode("utf-8") == LIBRARY_SOURCE.encode("utf-8")
    output = Output.objects.get(
        segment__campaign=ranking,
        segment__document__external_id="forum-rules",
        segment__external_id="4",
        system__name="OpusBase-2026",
    )
    assert output.text == QUESTION_OUTPUT

    # Every source, reference and output of the sample, exactly as in the file.
    segments = {
        (doc, seg): (source, references)
        for doc, seg, source, references in Segment.objects.filter(campaign=ranking).values_list(
            "document__external_id", "external_id", "source", "references"
        )
    }
    outputs = {
        (doc, seg, system): text
        for doc, seg, system, text in Output.objects.filter(segment__campaign=ranking).values_list(
            "segment__document__external_id", "segment__external_id", "system__name", "text"
        )
    }
    for row in sample_rows():
        source, references = segments[(row["doc_id"], row["seg_id"])]
        assert source == row["source"]
        assert (
            references == [row["reference"], row["reference_2"]][: 2 if row["reference_2"] else 1]
        )
        assert outputs[(row["doc_id"], row["seg_id"], row["system"])] == row["output"]


@pytest.mark.django_db
def test_demo_entry_page_escapes_markup_in_title_and_instructions(client):
    banner = run_demo()
    post_editing = Campaign.objects.get(kind=TaskKind.POST_EDITING)
    match = re.search(rf"^  {re.escape(post_editing.name)} +(\S+)$", banner, re.MULTILINE)
    assert match, banner
    url = match.group(1)

    response = client.get(urlsplit(url).path)

    assert response.status_code == 200
    html = response.content.decode()
    assert "same meaning &amp; good English" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script>alert" not in html
    assert "&lt;b&gt;" in html


@pytest.mark.django_db
def test_every_demo_entry_page_answers(client):
    banner = run_demo()
    paths = [urlsplit(url).path for url in re.findall(rf"{re.escape(BASE)}/work/\d+/", banner)]
    assert len(paths) == 6
    for path in paths:
        assert client.get(path).status_code == 200, path
