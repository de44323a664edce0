"""A requester creates a campaign in the admin, uploads segments and sees what was imported."""

from pathlib import Path

from campaigns.models import Campaign, Output, Segment

SAMPLE = Path(__file__).resolve().parents[2] / "campaigns" / "sample" / "demo.tsv"


def create_campaign_in_admin(page, name: str) -> None:
    page.goto("/admin/campaigns/campaign/add/")
    # Step one: the kind; the next page asks for that kind's settings.
    page.check("input[name=kind][value=direct_assessment]")
    with page.expect_navigation():
        page.click("text=Next: settings")
    page.fill("#id_name", name)
    page.select_option("#id_da_settings-0-assessment_mode", "adequacy")
    page.fill("#id_source_language", "de")
    page.fill("#id_target_language", "en")
    with page.expect_navigation():
        page.click("input[name=_continue]")


def test_requester_uploads_a_tsv_and_sees_the_campaign_counts(admin_page):
    page = admin_page
    create_campaign_in_admin(page, "Browser import")
    assert "was added successfully" in page.inner_text(".messagelist")
    assert "0 documents, 0 segments, 0 systems, 0 outputs" in page.inner_text(".content-counts")

    with page.expect_navigation():
        page.click("text=Import segments")
    page.check("input[name=format][value=tsv]")
    page.set_input_files("input[name=file]", str(SAMPLE))
    with page.expect_navigation():
        page.click("input[value='Check and import']")

    assert "Imported 4 new documents, 28 segments and 112 outputs of 4 systems" in page.inner_text(
        ".messagelist"
    )
    assert page.inner_text(".content-counts") == (
        "4 documents, 28 segments, 4 systems, 112 outputs, 0 HITs, 0 assignments, 0 judgments"
    )
    campaign = Campaign.objects.get(name="Browser import")
    assert Segment.objects.filter(campaign=campaign).count() == 28
    assert Output.objects.filter(segment__campaign=campaign).count() == 112


def test_a_broken_upload_lists_its_problems_and_imports_nothing(admin_page, tmp_path):
    page = admin_page
    create_campaign_in_admin(page, "Broken import")
    broken = tmp_path / "broken.tsv"
    broken.write_text(
        "doc_id\tseg_id\tsource\treference\tsystem\toutput\n"
        "d1\t1\tHallo Welt.\tHello world.\tA\tHello world.\n"
        "d1\t2\tGuten Tag.\tGood day.\tA\t   \n",
        encoding="utf-8",
    )
    with page.expect_navigation():
        page.click("text=Import segments")
    page.set_input_files("input[name=file]", str(broken))
    with page.expect_navigation():
        page.click("input[value='Check and import']")

    assert "1 problem found; nothing was imported." in page.inner_text(".errornote")
    row = page.inner_text(".import-problems tbody tr")
    assert row.split("\t")[:3] == ["broken.tsv", "3", "output"]
    assert Segment.objects.filter(campaign__name="Broken import").count() == 0
