"""The admin's "Import judgments" page (CampaignJudgmentImportAdminMixin), on an admin site of
its own so that it is tested whatever the campaign admin it is mixed into."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import path

import campaigns.importers.judgments as judgment_importers
from campaigns.admin.judgment_import import CampaignJudgmentImportAdminMixin
from campaigns.models import Campaign
from judgments.models import AssignmentStatus, Judgment, Platform
from tests.campaigns.test_import_judgments_data import WMT_DA_RAW, da_file, da_row
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, WorkerFactory

site = admin.AdminSite(name="judgment_import_test")


@admin.register(Campaign, site=site)
class ImportingCampaignAdmin(CampaignJudgmentImportAdminMixin, admin.ModelAdmin):
    def get_urls(self):
        return [*self.judgment_import_urls(), *super().get_urls()]


urlpatterns = [path("admin/", site.urls)]
pytestmark = [pytest.mark.django_db, pytest.mark.urls(__name__)]
URL = "/admin/campaigns/campaign/import-judgments/"


@pytest.fixture
def staff(client):
    user = get_user_model().objects.create_user("req", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(
            codename__in=["add_campaign", "change_campaign", "view_campaign"]
        )
    )
    client.force_login(user)
    return user


def upload(text: str, name: str = "ad-csen.tsv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, text.encode("utf-8"), content_type="text/tab-separated-values")


def test_page_and_changelist_button(client, staff):
    page = client.get(URL)
    assert page.status_code == 200
    assert [choice[0] for choice in page.context["form"].fields["format"].choices] == [
        "wmt-da",
        "appraise",
        "wmt08-rr",
        "wmt10-rr",
        "post-edits",
        "mturk-batch",
    ]
    changelist = client.get("/admin/campaigns/campaign/")
    assert changelist.context["judgment_import_url"] == URL


def test_upload_creates_the_campaign_and_links_to_it(client, staff):
    response = client.post(
        URL, {"files": upload(WMT_DA_RAW), "format": "wmt-da", "name": "WMT21 cs-en"}
    )
    campaign = Campaign.objects.get()
    change = f"/admin/campaigns/campaign/{campaign.pk}/change/"
    assert response.status_code == 302
    assert response["Location"] == change
    assert campaign.owner == staff
    assert Judgment.objects.count() == 44
    shown = [str(message) for message in response.wsgi_request._messages]
    assert shown == [
        "Imported 44 judgments (2 workers, 2 assignments, 2 HITs, 2 systems, 5 segments) from "
        # The summary is escaped (a campaign name is text), the link is not.
        "ad-csen.tsv into new campaign &quot;WMT21 cs-en&quot; (direct assessment, raw 0-100 "
        "scores). "
        f'<a href="{change}">Open the campaign and its results</a>.'
    ]


def test_problems_are_listed_and_nothing_is_written(client, staff):
    text = da_file(da_row("H1", "W1", "A", "SYSTEM", "1", "abc"))
    response = client.post(URL, {"files": upload(text), "format": "wmt-da", "name": "x"})
    assert response.status_code == 200
    assert [str(problem) for problem in response.context["problems"]] == [
        'ad-csen.tsv line 2, field "score": "abc" is not a number; every judgment needs one'
    ]
    assert b"1 problem found; nothing was imported." in response.content
    assert Campaign.objects.count() == 0


def test_check_only_and_adding_to_an_imported_campaign(client, staff):
    existing = CampaignFactory(name="earlier", imported_from="wmt-da", owner=staff)
    CampaignFactory(name="collected", owner=staff)
    form = client.get(URL).context["form"]
    assert list(form.fields["campaign"].queryset) == [existing]
    response = client.post(
        URL,
        {"files": upload(WMT_DA_RAW), "format": "wmt-da", "campaign": existing.pk, "_check": "1"},
    )
    assert response.status_code == 200
    assert response.context["checked"].message.startswith(
        "Checked ad-csen.tsv: no problems. Importing would add 44 judgments"
    )
    assert Judgment.objects.count() == 0
    client.post(URL, {"files": upload(WMT_DA_RAW), "format": "wmt-da", "campaign": existing.pk})
    assert Judgment.objects.filter(campaign=existing).count() == 44


def test_form_needs_a_name_or_a_campaign_and_staff_need_permissions(client, staff):
    response = client.post(URL, {"files": upload(WMT_DA_RAW), "format": "wmt-da"})
    assert response.context["form"].errors == {
        "name": ["Give the new campaign a name, or choose one to add to."]
    }
    staff.user_permissions.clear()
    assert client.get(URL).status_code == 403


def test_an_mturk_batch_reconciles_an_assignment_of_a_collected_campaign(client, staff):
    # Our own MTurk HITs are in campaigns collected here (imported_from empty).
    collected = CampaignFactory(name="our DA", owner=staff)  # theirs (issue 11, item 4)
    assignment = AssignmentFactory(
        hit=HitFactory(campaign=collected),
        worker=WorkerFactory(platform=Platform.MTURK, external_id="WA"),
        status=AssignmentStatus.SUBMITTED,
        platform_assignment_id="AS1",
        platform_hit_id="HIT1",
    )
    batch = "HITId,AssignmentId,WorkerId,AssignmentStatus\nHIT1,AS1,WA,Approved\n"
    response = client.post(
        URL, {"files": upload(batch, "Batch_1_batch_results.csv"), "format": "mturk-batch"}
    )
    change = f"/admin/campaigns/campaign/{collected.pk}/change/"
    assert (response.status_code, response["Location"]) == (302, change)
    assignment.refresh_from_db()
    assert (assignment.status, assignment.platform_status) == (
        AssignmentStatus.APPROVED,
        "Approved",
    )
    assert [str(message) for message in response.wsgi_request._messages] == [
        "Reconciled 1 assignment of campaign &quot;our DA&quot; with Batch_1_batch_results.csv: "
        f'1 marked approved. <a href="{change}">Open the campaign and its results</a>.'
    ]


def test_an_upload_over_the_limit_is_a_bad_request_naming_the_limit(client, staff, monkeypatch):
    monkeypatch.setattr(judgment_importers, "MAX_UPLOAD_BYTES", 1000)
    size = len(WMT_DA_RAW.encode("utf-8"))
    response = client.post(URL, {"files": upload(WMT_DA_RAW), "format": "wmt-da", "name": "x"})
    assert response.status_code == 400
    assert response.context["form"].errors == {
        "files": [
            f"The upload is {size:,} bytes; uploads are limited to 1,000 bytes: import a "
            "bigger file with manage.py import_judgments on the server "
            "(docs/judgment-formats.md)."
        ]
    }
    assert Campaign.objects.count() == 0


def test_a_user_who_may_only_add_is_not_told_of_a_campaign_they_cannot_see(client, staff):
    # Issue 11, item 8: the check used to answer with a free name ("WMT21 cs-en (2)"; "the
    # name is in use"), which confirmed the hidden campaign. It now answers as for a free
    # name, and so does the import: names are unique per owner (the write used to refuse the
    # name, site-wide unique then), so the user gets a new campaign of their own.
    hidden = CampaignFactory(name="WMT21 cs-en", imported_from="wmt-da")
    staff.user_permissions.set(Permission.objects.filter(codename="add_campaign"))
    checked = {}
    for name in ("WMT21 cs-en", "free name"):
        response = client.post(
            URL,
            {"files": upload(WMT_DA_RAW), "format": "wmt-da", "name": name, "_check": "1"},
        )
        assert response.status_code == 200
        checked[name] = response.context["checked"].as_dict()
    assert checked["WMT21 cs-en"] == {
        **checked["free name"],
        "campaign_name": "WMT21 cs-en",
        "message": checked["free name"]["message"].replace("free name", "WMT21 cs-en"),
    }
    assert checked["WMT21 cs-en"]["renamed_from"] is None
    response = client.post(
        URL, {"files": upload(WMT_DA_RAW), "format": "wmt-da", "name": "WMT21 cs-en"}
    )
    mine = Campaign.objects.exclude(pk=hidden.pk).get()
    assert (response.status_code, response["Location"]) == (
        302,
        f"/admin/campaigns/campaign/{mine.pk}/change/",
    )
    assert (mine.name, mine.owner) == ("WMT21 cs-en", staff)
    assert (Campaign.objects.get(pk=hidden.pk).owner, hidden.judgments.count()) == (None, 0)


def test_the_form_says_whose_judgments_count(client, staff):
    # Issue 12: WMT's filtered ("good") files are imported with every worker counted.
    response = client.post(
        URL,
        {
            "files": upload(WMT_DA_RAW),
            "format": "wmt-da",
            "name": "WMT21 good",
            "workers_counted": "everyone",
        },
    )
    assert response.status_code == 302
    assert Campaign.objects.get().da_settings.workers_counted == "everyone"
