"""The admin's import job page in Chromium (issue 11 item 6): its script (a same-origin file,
under the site's CSP) moves the progress bar as the job's row changes and reloads the page
when the job ends, which then shows the result."""

from django.utils import timezone

from campaigns.models import ImportJob, ImportJobStatus
from tests.e2e.test_csp import record_violations
from tests.factories import CampaignFactory


def test_the_progress_bar_follows_the_job_and_the_page_shows_its_result(admin_page, admin_user):
    from playwright.sync_api import expect  # here: the playwright fixture says if it is missing

    page = admin_page
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    violations = record_violations(page)
    campaign = CampaignFactory(name="Big news", owner=admin_user)
    job = ImportJob.objects.create(
        kind="segments",
        format="tsv",
        owner=admin_user,
        campaign=campaign,
        status=ImportJobStatus.CHECKING,
        phase="reading",
        done=100,
        total=400,
        files=[{"role": "file", "name": "big.tsv", "path": "gone"}],
        started_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )
    page.goto(f"/admin/campaigns/campaign/import-jobs/{job.pk}/")
    assert page.get_attribute("progress", "value") == "25"
    assert page.inner_text("[data-field=message]") == "Reading: 100 of 400."

    ImportJob.objects.filter(pk=job.pk).update(
        status=ImportJobStatus.WRITING,
        phase="writing",
        done=300,
        total=400,
        heartbeat_at=timezone.now(),
    )
    # (Locator assertions: wait_for_function would eval(), which the CSP refuses.)
    expect(page.locator("[data-field=percent]")).to_have_text("75%")
    assert page.get_attribute("progress", "value") == "75"
    assert page.inner_text("[data-field=phase]") == "writing"
    assert page.inner_text("[data-field=message]") == "Writing: 300 of 400."

    ImportJob.objects.filter(pk=job.pk).update(
        status=ImportJobStatus.DONE,
        done=400,
        result={"message": "Imported 1 new document, 200 segments and 400 outputs."},
        finished_at=timezone.now(),
    )
    page.wait_for_selector("p.success")
    assert page.inner_text("p.success") == "Imported 1 new document, 200 segments and 400 outputs."
    assert page.locator("progress").count() == 0
    assert page.get_attribute("text=Open the campaign", "href") == (
        f"/admin/campaigns/campaign/{campaign.pk}/change/"
    )
    assert errors == [] and violations == []
