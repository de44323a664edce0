"""Who may frame which page: MTurk's worker hosts the task pages (the MTurk entry page, the
task page and its completion page), nobody anything else (admin, home, entry pages, JSON)."""

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpResponse, JsonResponse
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone

from campaigns.platforms.models import MTurkHit
from judgments import tokens
from judgments.entry.framing import (
    FrameAncestorsMiddleware,
    allow_mturk_framing,
    with_frame_ancestors,
)
from judgments.models import AssignmentStatus, Platform
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.django_db

MTURK_HOSTS = (
    "frame-ancestors https://worker.mturk.com https://workersandbox.mturk.com https://www.mturk.com"
)
NOBODY = "frame-ancestors 'none'"


@pytest.fixture
def assignment():
    campaign = CampaignFactory(title="Rate some English", redundancy=1)
    hit = HitFactory(campaign=campaign, number=1)
    HitSlotFactory(hit=hit, position=1, shown_text="Black text 1.")
    return AssignmentFactory(hit=hit)


def task_url(assignment, name="judgments:task"):
    return reverse(name, args=[tokens.assignment_token(assignment.pk, assignment.worker_id)])


def framing_headers(response):
    """X-Frame-Options and the CSP's frame-ancestors directive. The policy has other directives
    since issue 11 item 9 (evalsite.security; tests/test_security_hardening.py checks them)."""
    policy = response.get("Content-Security-Policy")
    directives = [d.strip() for d in (policy or "").split(";")]
    frame_ancestors = [d for d in directives if d.startswith("frame-ancestors")]
    assert len(frame_ancestors) <= 1, policy
    return response.get("X-Frame-Options"), frame_ancestors[0] if frame_ancestors else None


# --- Task pages: MTurk's hosts ------------------------------------------------------------


def test_the_task_page_may_be_framed_by_mturk_only(assignment):
    response = Client().get(task_url(assignment))
    assert response.status_code == 200
    assert framing_headers(response) == (None, MTURK_HOSTS)


def test_the_completion_page_may_be_framed_by_mturk(assignment):
    assignment.status = AssignmentStatus.SUBMITTED
    assignment.submitted_at = timezone.now()
    assignment.save()
    response = Client().get(task_url(assignment))
    assert "Thank you!" in response.content.decode()
    assert framing_headers(response) == (None, MTURK_HOSTS)


def test_the_mturk_preview_and_its_error_pages_may_be_framed_by_mturk(assignment):
    MTurkHit.objects.create(
        hit=assignment.hit,
        mturk_hit_id="3HIT",
        hit_type_id="3TYPE",
        sandbox=True,
        max_assignments=1,
    )
    preview = Client().get(
        reverse("judgments:mturk-task", args=[assignment.hit_id]),
        {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "3HIT"},
    )
    assert "Accept the HIT to start." in preview.content.decode()
    assert framing_headers(preview) == (None, MTURK_HOSTS)
    # A worker on MTurk reads the message in the frame rather than a browser's refusal.
    missing = Client().get(reverse("judgments:mturk-task", args=[assignment.hit_id + 1000]))
    assert missing.status_code == 404
    assert framing_headers(missing) == (None, MTURK_HOSTS)


def test_the_hosts_are_read_from_settings_at_response_time(assignment, settings):
    settings.MTURK_FRAME_ANCESTORS = ["http://127.0.0.1:8123", "https://worker.mturk.com"]
    response = Client().get(task_url(assignment))
    assert framing_headers(response) == (
        None,
        "frame-ancestors http://127.0.0.1:8123 https://worker.mturk.com",
    )


def test_no_hosts_configured_means_nobody_frames_the_task_page(assignment, settings):
    settings.MTURK_FRAME_ANCESTORS = []
    response = Client().get(task_url(assignment))
    assert framing_headers(response) == (None, NOBODY)


# --- Every other page: nobody -------------------------------------------------------------


def test_the_home_page_denies_framing():
    response = Client().get(reverse("home"))
    assert response.status_code == 200
    assert framing_headers(response) == ("DENY", NOBODY)


def test_the_admin_denies_framing(admin_client):
    login = Client().get(reverse("admin:login"))
    assert framing_headers(login) == ("DENY", NOBODY)
    index = admin_client.get(reverse("admin:index"))
    assert index.status_code == 200
    assert framing_headers(index) == ("DENY", NOBODY)


def test_the_campaign_entry_page_and_the_json_endpoints_deny_framing(assignment):
    entry = Client().get(reverse("judgments:campaign-entry", args=[assignment.campaign_id]))
    assert entry.status_code == 200
    assert framing_headers(entry) == ("DENY", NOBODY)
    item = Client().get(task_url(assignment, "judgments:task-item"))
    assert item.json()["ok"] is True
    assert framing_headers(item) == ("DENY", NOBODY)


def test_the_worker_link_and_unknown_pages_deny_framing(assignment):
    link = reverse(
        "judgments:worker-link",
        args=[tokens.worker_token(assignment.worker_id, assignment.campaign_id)],
    )
    response = Client().get(link)
    assert response.status_code == 302
    assert framing_headers(response) == ("DENY", NOBODY)
    unknown = Client().get("/no-such-page/")
    assert unknown.status_code == 404
    assert framing_headers(unknown) == ("DENY", NOBODY)


# --- The middleware and the decorator on their own ------------------------------------------


def test_an_existing_policy_keeps_its_other_directives():
    def view(request):
        return HttpResponse(headers={"Content-Security-Policy": "default-src 'self'; img-src *"})

    response = FrameAncestorsMiddleware(view)(RequestFactory().get("/"))
    assert response["Content-Security-Policy"] == (
        "default-src 'self'; img-src *; frame-ancestors 'none'"
    )


def test_a_frameable_view_replaces_an_earlier_frame_ancestors_directive():
    @allow_mturk_framing
    def view(request):
        return HttpResponse(
            headers={"Content-Security-Policy": "Frame-Ancestors *; script-src 'self'"}
        )

    response = FrameAncestorsMiddleware(view)(RequestFactory().get("/"))
    assert response["Content-Security-Policy"] == f"script-src 'self'; {MTURK_HOSTS}"
    assert response.xframe_options_exempt is True


def test_the_decorator_keeps_the_view_name_and_marks_json_too():
    @allow_mturk_framing
    def some_view(request):
        return JsonResponse({"ok": True})

    response = FrameAncestorsMiddleware(some_view)(RequestFactory().get("/"))
    assert some_view.__name__ == "some_view"
    assert response["Content-Security-Policy"] == MTURK_HOSTS


def test_with_frame_ancestors_on_no_policy():
    assert with_frame_ancestors(None, "'none'") == "frame-ancestors 'none'"
    assert with_frame_ancestors(" ; ", "'none'") == "frame-ancestors 'none'"


@pytest.mark.parametrize(
    "bad",
    [
        "https://worker.mturk.com; script-src *",
        "worker.mturk.com",
        "https://worker.mturk.com https://evil.example",
        "*",
    ],
)
def test_a_bad_host_setting_fails_loudly(settings, bad):
    settings.MTURK_FRAME_ANCESTORS = ["https://workersandbox.mturk.com", bad]
    with pytest.raises(ImproperlyConfigured) as error:
        FrameAncestorsMiddleware(lambda request: HttpResponse())
    assert str(error.value) == (
        f"MTURK_FRAME_ANCESTORS holds {bad!r}, which is not an origin such as "
        "https://worker.mturk.com (a scheme, a host, an optional port, nothing else)."
    )


def test_platform_choice_is_irrelevant_to_framing(assignment):
    # An MTurk worker's task page and a direct worker's are the same page, framed the same way.
    assignment.worker.platform = Platform.MTURK
    assignment.worker.external_id = "A1WORKER"
    assignment.worker.save()
    response = Client().get(task_url(assignment))
    assert framing_headers(response) == (None, MTURK_HOSTS)
