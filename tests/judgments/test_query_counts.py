"""How many SQL queries each worker endpoint runs (issue 16 item 5): fixed numbers, and the
same number for a HIT of 2 items as for a HIT of 6 with more judgments and assignments stored
(no query per item, per judgment or per assignment). Every other task kind's page, item and
submit endpoints are counted in test_query_counts_kinds.py.

A change that adds or removes a query changes a number here on purpose: say why in the commit.
The numbers include the savepoints Django's test client and atomic blocks run
(``SAVEPOINT``/``RELEASE SAVEPOINT`` count as queries on SQLite and PostgreSQL alike).
"""

from __future__ import annotations

import json
import re
from urllib.parse import urlencode

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaigns.platforms.models import MTurkHit
from judgments import tokens
from judgments.models import CampaignWorker
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    JudgmentFactory,
    SegmentFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

SIZES = (3, 6)  # items per HIT (and other workers' finished assignments on it)


def build_da(items: int, *, ask_background: bool = False, prolific: bool = False):
    """A direct-assessment campaign: one HIT of ``items`` items, ``items`` other workers who
    finished it, and one worker's fresh assignment on a second HIT."""
    extra = {"prolific_completion_code": "C1A2B3C4"} if prolific else {}
    campaign = CampaignFactory(
        title="Rate some English", redundancy=items + 2, ask_background=ask_background, **extra
    )
    hits = [HitFactory(campaign=campaign, number=n) for n in (1, 2)]
    for hit in hits:
        for position in range(1, items + 1):
            segment = SegmentFactory(
                document__campaign=campaign, references=[f"Gray text {position}."]
            )
            HitSlotFactory(
                hit=hit,
                position=position,
                segment=segment,
                output__segment=segment,
                shown_text=f"Black text {position}.",
            )
    for _ in range(items):
        done = AssignmentFactory(hit=hits[0])
        for slot in hits[0].slots.all():
            JudgmentFactory(assignment=done, slot=slot, score=50)
    assignment = AssignmentFactory(hit=hits[0])
    if ask_background:
        CampaignWorker.objects.update_or_create(
            campaign=campaign, worker=assignment.worker, defaults={"background_at": timezone.now()}
        )
    return campaign, assignment


def task_url(assignment, name="judgments:task", *args):
    token = tokens.assignment_token(assignment.pk, assignment.worker_id)
    return reverse(name, args=[token, *args])


def post_json(client, url, payload):
    return client.post(url, data=json.dumps(payload), content_type="application/json")


def count(call) -> tuple[int, object]:
    with CaptureQueriesContext(connection) as queries:
        response = call()
    return len(queries), response


# --- The endpoints, each measured on a fresh campaign of each size --------------------------


def entry(items):
    campaign, _ = build_da(items)
    return count(lambda: Client().get(reverse("judgments:campaign-entry", args=[campaign.pk])))


def start(items):
    campaign, _ = build_da(items)
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("judgments:campaign-entry", args=[campaign.pk])).content.decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    url = reverse("judgments:campaign-start", args=[campaign.pk])
    return count(lambda: client.post(url, {"csrfmiddlewaretoken": csrf}))


def worker_link(items):
    campaign, _ = build_da(items)
    worker = WorkerFactory()
    url = reverse("judgments:worker-link", args=[tokens.worker_token(worker.pk, campaign.pk)])
    return count(lambda: Client().get(url))


def task_page(items):
    _, assignment = build_da(items)
    return count(lambda: Client().get(task_url(assignment)))


def task_item(items):
    _, assignment = build_da(items)
    return count(lambda: Client().get(task_url(assignment, "judgments:task-item")))


def task_item_again(items):
    """A reload of the task page: its item again, nothing to stamp."""
    _, assignment = build_da(items)
    Client().get(task_url(assignment, "judgments:task-item"))
    return count(lambda: Client().get(task_url(assignment, "judgments:task-item")))


def submit_first(items):
    _, assignment = build_da(items)
    url = task_url(assignment, "judgments:task-submit")
    return count(lambda: post_json(Client(), url, {"position": 1, "score": 70}))


def submit_next(items):
    """A later item: one judgment of this assignment is stored already."""
    _, assignment = build_da(items)
    url = task_url(assignment, "judgments:task-submit")
    post_json(Client(), url, {"position": 1, "score": 70})
    return count(lambda: post_json(Client(), url, {"position": 2, "score": 30}))


def submit_retry(items):
    """A double click: the same answer again returns the stored result."""
    _, assignment = build_da(items)
    url = task_url(assignment, "judgments:task-submit")
    post_json(Client(), url, {"position": 1, "score": 70})
    return count(lambda: post_json(Client(), url, {"position": 1, "score": 70}))


def submit_last(items):
    """The last item completes the assignment."""
    _, assignment = build_da(items)
    url = task_url(assignment, "judgments:task-submit")
    for position in range(1, items):
        post_json(Client(), url, {"position": position, "score": 70})
    return count(lambda: post_json(Client(), url, {"position": items, "score": 70}))


def done_page(items):
    _, assignment = build_da(items)
    url = task_url(assignment, "judgments:task-submit")
    for position in range(1, items + 1):
        post_json(Client(), url, {"position": position, "score": 70})
    return count(lambda: Client().get(task_url(assignment)))


def background_form(items):
    _, assignment = build_da(items, ask_background=True)
    CampaignWorker.objects.filter(worker=assignment.worker).update(background_at=None)
    return count(lambda: Client().get(task_url(assignment, "judgments:task-background")))


def background_post(items):
    _, assignment = build_da(items, ask_background=True)
    CampaignWorker.objects.filter(worker=assignment.worker).update(background_at=None)
    answers = {
        "native_language": "English",
        "country": "MX",
        "years_source_language": "15",
        "years_target_language": "32",
    }
    url = task_url(assignment, "judgments:task-background")
    return count(lambda: Client().post(url, answers))


def mturk_preview(items):
    campaign, assignment = build_da(items)
    MTurkHit.objects.create(
        hit=assignment.hit,
        mturk_hit_id="3MTURKHIT",
        hit_type_id="3TYPE",
        sandbox=True,
        max_assignments=campaign.redundancy,
    )
    params = {"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "3MTURKHIT"}
    url = reverse("judgments:mturk-task", args=[assignment.hit_id]) + "?" + urlencode(params)
    return count(lambda: Client().get(url))


def prolific_start(items):
    campaign, _ = build_da(items, prolific=True)
    params = {"PROLIFIC_PID": "5" * 24, "STUDY_ID": "6" * 24, "SESSION_ID": "7" * 24}
    url = reverse("judgments:prolific-start", args=[campaign.pk]) + "?" + urlencode(params)
    return count(lambda: Client().get(url))


# endpoint: (measure, expected status, queries)
EXPECTED = {
    # The entry page says what the task is, how long it takes and pays, and the open places
    # (issue 17: judgments.entry.overview, analytics.progress): HITs' pay, their size, the
    # first task, the latest finished assignments, and the progress's two queries.
    "entry": (entry, 200, 7),
    "start": (start, 303, 7),
    # The hand-out's expiry (deadlines, and unanswered tasks past their hold: issue 17) is one
    # hand-written UPDATE with no savepoint of its own (issue 16: it was two UPDATEs in a
    # savepoint, 3 queries more), here and in Prolific's start. The hand-out's frontier
    # (judgments.actions.frontier) adds three: the reopened HITs read and deleted, the stored
    # frontier, and its upsert; the pick then costs the same at 10 HITs as at 16,667.
    "worker_link": (worker_link, 302, 16),
    "task_page": (task_page, 200, 2),
    # The first item request stamps the task opened and its page served in one transaction
    # (one commit: issue 16), counted here as SAVEPOINT and RELEASE; a reload writes nothing.
    "task_item": (task_item, 200, 6),
    "task_item_again": (task_item_again, 200, 2),
    "submit_first": (submit_first, 200, 6),
    "submit_next": (submit_next, 200, 6),
    "submit_retry": (submit_retry, 200, 5),
    "submit_last": (submit_last, 200, 6),
    # Whether another task is there for the worker (judgments.entry.availability: their
    # membership, a started task of theirs, a HIT with room), issue 17; and where the hand-out
    # would start looking (judgments.actions.frontier), so that the HITs below it are not
    # counted (issue 16).
    "done_page": (done_page, 200, 6),
    "background_form": (background_form, 200, 3),
    "background_post": (background_post, 303, 8),
    "mturk_preview": (mturk_preview, 200, 4),
    "prolific_start": (prolific_start, 302, 27),
}


# On PostgreSQL a submission reads its assignment (HIT, campaign, kind settings and the HIT's
# slots with what it answered, in one statement) without a lock, then stores the judgments and
# stamps the assignment in one statement with no transaction of its own (judgments.actions.
# hot_sql.store_unlocked; in a test, one savepoint around it): 4 instead of SQLite's locked
# transaction. A retry only reads (the stored judgments are compared, no transaction): 2. An
# item request reads the slots with the assignment too: one query fewer than on SQLite.
POSTGRESQL = {
    "submit_first": 4,
    "submit_next": 4,
    "submit_last": 4,
    "submit_retry": 2,
    "task_item": 5,
    "task_item_again": 1,
}


@pytest.mark.parametrize("items", SIZES)
@pytest.mark.parametrize("endpoint", sorted(EXPECTED))
def test_query_count(endpoint, items):
    measure, status, expected = EXPECTED[endpoint]
    if connection.vendor == "postgresql":
        expected = POSTGRESQL.get(endpoint, expected)
    queries, response = measure(items)
    assert (response.status_code, queries) == (status, expected)
