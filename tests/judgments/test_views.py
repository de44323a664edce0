"""Worker pages over HTTP: entry and Start, the worker link, the task page and its endpoints."""

import json
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns.models import CampaignStatus
from judgments import tokens
from judgments.actions import exclude_worker
from judgments.models import Assignment, AssignmentStatus, Judgment, Platform, Worker
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    HitSlotFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

INVALID_LINK = (
    "This link is not valid. Check that you opened the whole link, or ask whoever sent it to "
    "you for a new one."
)


def worker_url(worker, campaign):
    return reverse("judgments:worker-link", args=[tokens.worker_token(worker.pk, campaign.pk)])


def task_url(assignment, name="judgments:task"):
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    return reverse(name, args=[token])


def post_json(client, url, payload):
    return client.post(url, data=json.dumps(payload), content_type="application/json")


# --- Entry and Start --------------------------------------------------------------------------


def test_the_entry_page_of_an_open_campaign_has_a_start_button(client, campaign):
    response = client.get(reverse("judgments:campaign-entry", args=[campaign.pk]))
    html = response.content.decode()
    start = reverse("judgments:campaign-start", args=[campaign.pk])
    assert f'<form method="post" action="{start}"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    assert ">Start</button>" in html


def test_the_entry_page_of_a_paused_campaign_has_no_start_button(client, campaign):
    campaign.status = CampaignStatus.PAUSED
    campaign.save()
    html = client.get(reverse("judgments:campaign-entry", args=[campaign.pk])).content.decode()
    assert '<p class="notice">This campaign is paused. Please come back later.</p>' in html
    assert "Start</button>" not in html


def test_start_creates_a_pseudonymous_worker_and_sends_them_to_their_link(campaign):
    client = Client(enforce_csrf_checks=True)
    entry = client.get(reverse("judgments:campaign-entry", args=[campaign.pk]))
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', entry.content.decode())[1]

    response = client.post(
        reverse("judgments:campaign-start", args=[campaign.pk]), {"csrfmiddlewaretoken": csrf}
    )

    worker = Worker.objects.get()
    assert worker.platform == Platform.DIRECT
    assert re.fullmatch(r"anon-[0-9a-f]{16}", worker.external_id)
    assert response.status_code == 303
    assert response["Location"] == worker_url(worker, campaign)

    # The same browser pressing Start again continues as the same worker.
    again = client.post(
        reverse("judgments:campaign-start", args=[campaign.pk]), {"csrfmiddlewaretoken": csrf}
    )
    assert again["Location"] == worker_url(worker, campaign)
    assert Worker.objects.count() == 1
    # A new browser is a new worker.
    assert Client().post(reverse("judgments:campaign-start", args=[campaign.pk])).status_code == 303
    assert Worker.objects.count() == 2


def test_start_needs_the_csrf_token(campaign):
    response = Client(enforce_csrf_checks=True).post(
        reverse("judgments:campaign-start", args=[campaign.pk])
    )
    assert response.status_code == 403
    assert Worker.objects.count() == 0


def test_start_on_a_closed_campaign_creates_nobody(client, campaign):
    campaign.status = CampaignStatus.FINISHED
    campaign.save()
    response = client.post(reverse("judgments:campaign-start", args=[campaign.pk]))
    assert (response.status_code, response["Location"]) == (
        303,
        reverse("judgments:campaign-entry", args=[campaign.pk]),
    )
    assert Worker.objects.count() == 0
    assert client.get(reverse("judgments:campaign-start", args=[campaign.pk])).status_code == 405


# --- The worker link -------------------------------------------------------------------------


def test_the_worker_link_hands_out_and_redirects_to_the_task(client, campaign):
    worker = WorkerFactory()

    response = client.get(worker_url(worker, campaign))

    assignment = Assignment.objects.get()
    assert (assignment.worker, assignment.hit) == (worker, campaign.hits.get())
    assert (response.status_code, response["Location"]) == (302, task_url(assignment))
    assert client.get(worker_url(worker, campaign))["Location"] == task_url(assignment)
    assert Assignment.objects.count() == 1


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (
            lambda campaign, worker: CampaignStatus.PAUSED,
            "This campaign is paused. Please come back later.",
        ),
        (
            lambda campaign, worker: AssignmentFactory(
                hit=campaign.hits.get(), worker=worker, status=AssignmentStatus.SUBMITTED
            ),
            "You have done every task available to you, thank you!",
        ),
        (
            lambda campaign, worker: AssignmentFactory(hit=campaign.hits.get()),
            # Issue 17: when the work may free up (an opened task with no answer is released
            # after ASSIGNMENT_UNANSWERED_HOLD_SECONDS, 30 minutes).
            re.compile(
                r"Every other task is being worked on by someone else right now\. Tasks that are "
                r"not finished in time come back: the first could free up in about 30 minutes "
                r"\(\d\d:\d\d UTC\)\. Come back then with the same link\."
            ),
        ),
        (
            lambda campaign, worker: exclude_worker(campaign, worker, "random clicks"),
            "There are no more tasks for you in this campaign. Thank you.",
        ),
    ],
    ids=["paused", "all-done", "all-taken", "excluded"],
)
def test_the_worker_link_shows_a_polite_page_when_there_is_nothing(
    client, campaign, setup, message
):
    worker = WorkerFactory()
    status = setup(campaign, worker)
    if status == CampaignStatus.PAUSED:
        campaign.status = status
        campaign.save()

    response = client.get(worker_url(worker, campaign))

    assert response.status_code == 200
    html = response.content.decode()
    if isinstance(message, re.Pattern):
        assert re.search(f'<p class="notice" role="status">{message.pattern}</p>', html)
    else:
        assert f'<p class="notice" role="status">{message}</p>' in html
    assert "<h1>Rate some English</h1>" in html
    assert "random clicks" not in html  # the exclusion reason is for requesters only


@pytest.mark.parametrize(
    "make_token", [lambda w, c: "garbage", lambda w, c: tokens.assignment_token(w.pk, c.pk)]
)
def test_a_bad_worker_link_gets_a_clear_404(client, campaign, make_token):
    worker = WorkerFactory()
    url = reverse("judgments:worker-link", args=[make_token(worker, campaign)])
    response = client.get(url)
    assert response.status_code == 404
    assert INVALID_LINK in response.content.decode()
    assert Assignment.objects.count() == 0


# --- The task page ----------------------------------------------------------------------------


def test_the_task_page_is_a_shell_without_cookies(assignment):
    client = Client(enforce_csrf_checks=True)
    response = client.get(task_url(assignment))

    html = response.content.decode()
    assert response.status_code == 200
    assert response.cookies == {}  # no session, no CSRF cookie: works in MTurk's iframe
    assert "no-store" in response["Cache-Control"]
    assert "X-Frame-Options" not in response  # MTurk frames it; CSP frame-ancestors decides
    # The policy's last directive (the others, since issue 11 item 9: evalsite.security).
    assert response["Content-Security-Policy"].split("; ")[-1] == (
        "frame-ancestors https://worker.mturk.com https://workersandbox.mturk.com "
        "https://www.mturk.com"
    )
    assert '<p class="statement" id="statement">' in html
    assert "The black text adequately expresses the meaning of the gray text." in html
    assert "strongly disagree" in html and "strongly agree" in html
    assert "Move the slider to give your answer" in html
    assert 'type="range" id="score" class="untouched" min="0" max="100" step="1"' in html
    assert f'data-item-url="{task_url(assignment, "judgments:task-item")}"' in html
    assert f'data-submit-url="{task_url(assignment, "judgments:task-submit")}"' in html
    assert "Black text" not in html and "Gray text" not in html  # the shell holds no item
    assert 'id="gray-text" dir="auto"' in html and 'id="main-text" dir="auto"' in html


def test_the_instructions_are_shown_as_escaped_plain_text(assignment):
    assignment.campaign.instructions = "Rate <b>each</b> text.\nTake your time & relax."
    assignment.campaign.save()
    html = Client().get(task_url(assignment)).content.decode()
    assert "Rate &lt;b&gt;each&lt;/b&gt; text.<br>Take your time &amp; relax." in html


def test_a_token_for_another_workers_assignment_gets_404(assignment):
    intruder = WorkerFactory()
    # Even a correctly signed pair fails when the worker does not own the assignment.
    forged = tokens.assignment_token(assignment.pk, intruder.pk)
    client = Client()
    for name in ("judgments:task", "judgments:task-item"):
        response = client.get(reverse(name, args=[forged]))
        assert response.status_code == 404
    response = post_json(
        client, reverse("judgments:task-submit", args=[forged]), {"position": 1, "score": 5}
    )
    assert (response.status_code, response.json()) == (
        404,
        {"ok": False, "error": "This task link is not valid.", "field": None},
    )
    assert Judgment.objects.count() == 0


@pytest.mark.parametrize("name", ["judgments:task", "judgments:task-item", "judgments:task-submit"])
def test_a_tampered_task_token_gets_404(assignment, name):
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    tampered = token[:-2] + ("xy" if not token.endswith("xy") else "yx")
    client = Client()
    url = reverse(name, args=[tampered])
    response = (
        post_json(client, url, {"position": 1, "score": 5})
        if name.endswith("submit")
        else client.get(url)
    )
    assert response.status_code == 404
    if name == "judgments:task":
        assert INVALID_LINK in response.content.decode()
    else:
        assert response.json() == {"ok": False, "error": INVALID_LINK, "field": None}


# --- The JSON endpoints ----------------------------------------------------------------------


def test_the_item_endpoint_sends_the_current_item_and_progress(assignment):
    body = Client().get(task_url(assignment, "judgments:task-item")).json()
    assert body == {
        "ok": True,
        "next": {"position": 1, "text": "Black text 1.", "gray_text": "Gray text 1."},
        "done": False,
        "progress": {"done": 0, "total": 2},
    }
    assignment.refresh_from_db()
    assert assignment.current_served_at is not None


def test_submitting_needs_no_cookie_and_no_csrf_token(assignment):
    client = Client(enforce_csrf_checks=True)
    url = task_url(assignment, "judgments:task-submit")

    response = post_json(client, url, {"position": 1, "score": 70, "client_duration_ms": 1234})

    assert response.status_code == 200
    assert response.cookies == {}
    assert response.json() == {
        "ok": True,
        "next": {"position": 2, "text": "Black text 2.", "gray_text": "Gray text 2."},
        "done": False,
        "progress": {"done": 1, "total": 2},
    }
    retry = post_json(client, url, {"position": 1, "score": 70, "client_duration_ms": 1300})
    assert retry.json() == {**response.json(), "already_recorded": True}

    last = post_json(client, url, {"position": 2, "score": 20})
    assert last.json() == {
        "ok": True,
        "next": None,
        "done": True,
        "progress": {"done": 2, "total": 2},
    }
    assert list(Judgment.objects.values_list("slot__position", "score", "client_duration_ms")) == [
        (1, 70.0, 1234),
        (2, 20.0, None),
    ]
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED


@pytest.mark.parametrize(
    ("body", "status", "expected"),
    [
        (
            '{"position": 1, "score": "high"}',
            400,
            {
                "ok": False,
                "error": 'score must be a number from 0 to 100 (got the text "high").',
                "field": "score",
            },
        ),
        (
            '{"position": 1, "score": NaN}',
            400,
            {
                "ok": False,
                "error": "score must be a number from 0 to 100 (got nan).",
                "field": "score",
            },
        ),
        (
            '{"position": 2, "score": 5}',
            400,
            {
                "ok": False,
                "error": "Answer item 1 first; the items are answered in order.",
                "field": "position",
            },
        ),
        (
            "position=1&score=5",
            400,
            {
                "ok": False,
                "error": "The answer could not be read: send JSON such as "
                '{"position": 1, "score": 50}.',
                "field": None,
            },
        ),
    ],
)
def test_submission_errors_are_json_a_person_can_act_on(assignment, body, status, expected):
    response = Client().post(
        task_url(assignment, "judgments:task-submit"), data=body, content_type="application/json"
    )
    assert (response.status_code, response.json()) == (status, expected)
    assert Judgment.objects.count() == 0


def test_changing_an_answer_is_a_409(assignment):
    url = task_url(assignment, "judgments:task-submit")
    post_json(Client(), url, {"position": 1, "score": 5})
    response = post_json(Client(), url, {"position": 1, "score": 6})
    assert response.status_code == 409
    assert response.json() == {
        "ok": False,
        "error": "Item 1 is already answered, and answers cannot be changed (there is no going "
        "back). Continue with item 2.",
        "field": "position",
    }


def test_an_expired_task_says_so_everywhere(assignment):
    Assignment.objects.filter(pk=assignment.pk).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    client = Client()
    expired = (
        "This task has expired: its time ran out. The answers you gave are saved. Open your "
        "task link again to continue or to get a new task."
    )
    page = client.get(task_url(assignment))
    assert page.status_code == 410
    assert expired in page.content.decode()
    assert f'href="{worker_url(assignment.worker, assignment.campaign)}"' in page.content.decode()
    item = client.get(task_url(assignment, "judgments:task-item"))
    assert (item.status_code, item.json()) == (410, {"ok": False, "error": expired, "field": None})
    submit = post_json(
        client, task_url(assignment, "judgments:task-submit"), {"position": 1, "score": 1}
    )
    assert (submit.status_code, submit.json()["error"]) == (410, expired)


def test_the_submit_endpoint_only_takes_post(assignment):
    assert Client().get(task_url(assignment, "judgments:task-submit")).status_code == 405
    assert Client().post(task_url(assignment, "judgments:task-item")).status_code == 405


def test_a_submitted_assignment_shows_the_completion_page(assignment):
    Assignment.objects.filter(pk=assignment.pk).update(status=AssignmentStatus.SUBMITTED)
    # Another task is there for the worker, so the page offers it (tests/judgments/
    # test_next_task.py: without one, it says so instead).
    HitSlotFactory(hit=HitFactory(campaign=assignment.campaign))
    client = Client()
    response = client.get(task_url(assignment))
    html = response.content.decode()
    assert response.status_code == 200
    assert "<h1>Thank you!</h1>" in html
    assert "You have finished this task. Your answers are saved." in html
    assert (
        f'href="{worker_url(assignment.worker, assignment.campaign)}">Do another task</a>' in html
    )
    body = client.get(task_url(assignment, "judgments:task-item")).json()
    assert body == {"ok": True, "next": None, "done": True, "progress": {"done": 0, "total": 2}}


def test_segment_text_is_escaped_in_html_and_exact_in_json(campaign):
    nasty = '<script>alert(1)</script> & "x"'
    hit = HitFactory(campaign=campaign, number=2)
    HitSlotFactory(hit=hit, position=1, shown_text=nasty)
    assignment = AssignmentFactory(hit=hit)
    client = Client()
    campaign.instructions = nasty
    campaign.save()

    html = client.get(task_url(assignment)).content.decode()
    item = client.get(task_url(assignment, "judgments:task-item"))

    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;" in html  # instructions
    assert item["Content-Type"] == "application/json"
    assert item.json()["next"]["text"] == nasty
