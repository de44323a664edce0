"""A worker may only ever see and submit their own assignments: another worker's assignment id,
a forged token and a replayed token on the task page, its item and submit endpoints and the
background form get exact refusals, and nothing in the database changes.

Already asserted elsewhere and not repeated here: a tampered task token on the task page and
its endpoints, and a token naming a worker who holds no assignment (test_views.py); an
assignment token used as a worker link (test_views.py); the token format itself
(test_tokens.py); an identical answer resent after submission (test_submission.py); another
Prolific participant's session, or their participant id with another session or none
(test_prolific.py); another MTurk worker's assignment id, their WorkerId with a second
assignment id, and a HIT never published on MTurk (test_mturk_entry.py); answers before the
background form (test_background.py).
"""

import json

import pytest
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from campaigns.models import CampaignStatus
from judgments import tokens
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment, Worker
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.django_db

INVALID_LINK = (
    "This link is not valid. Check that you opened the whole link, or ask whoever sent it to "
    "you for a new one."
)
NOT_VALID_JSON = {"ok": False, "error": "This task link is not valid.", "field": None}
INVALID_JSON = {"ok": False, "error": INVALID_LINK, "field": None}
BACKGROUND = {
    "native_language": "German",
    "country": "DE",
    "years_source_language": "30",
    "years_target_language": "12",
}


@pytest.fixture
def campaign():
    campaign = CampaignFactory(title="Rate some English", redundancy=1, ask_background=True)
    for number in (1, 2):
        hit = HitFactory(campaign=campaign, number=number)
        for position in (1, 2):
            HitSlotFactory(hit=hit, position=position)
    return campaign


@pytest.fixture
def mine(campaign):
    """Worker A's assignment, background answered."""
    assignment = AssignmentFactory(hit=campaign.hits.get(number=1))
    CampaignWorker.objects.create(
        campaign=campaign, worker=assignment.worker, background_at=timezone.now()
    )
    return assignment


@pytest.fixture
def theirs(campaign):
    """Worker B's assignment, background not answered yet."""
    assignment = AssignmentFactory(hit=campaign.hits.get(number=2))
    CampaignWorker.objects.create(campaign=campaign, worker=assignment.worker)
    return assignment


def snapshot():
    """Everything a worker's request could change."""
    return (
        list(Judgment.objects.order_by("pk").values_list("pk", "assignment_id", "score")),
        list(
            Assignment.objects.order_by("pk").values_list(
                "pk",
                "worker_id",
                "status",
                "current_served_at",
                "last_activity_at",
                "submitted_at",
            )
        ),
        list(
            Worker.objects.order_by("pk").values_list(
                "pk", "native_language", "country", "country_source"
            )
        ),
        list(
            CampaignWorker.objects.order_by("pk").values_list(
                "pk", "years_source_language", "years_target_language", "background_at"
            )
        ),
    )


def post_json(client, url, payload):
    return client.post(url, data=json.dumps(payload), content_type="application/json")


def assert_refused_everywhere(token, *, item_error):
    """The task page, the item endpoint, the submit endpoint and the background form (GET and
    POST) all refuse ``token`` with 404 and their exact message, and nothing changes."""
    before = snapshot()
    client = Client()

    page = client.get(reverse("judgments:task", args=[token]))
    assert page.status_code == 404
    assert f'<p class="notice" role="status">{INVALID_LINK}</p>' in page.content.decode()

    item = client.get(reverse("judgments:task-item", args=[token]))
    assert (item.status_code, item.json()) == (404, item_error)

    submit = post_json(
        client, reverse("judgments:task-submit", args=[token]), {"position": 1, "score": 5}
    )
    assert (submit.status_code, submit.json()) == (404, item_error)

    background = reverse("judgments:task-background", args=[token])
    for response in (client.get(background), client.post(background, BACKGROUND)):
        assert response.status_code == 404
        assert f'<p class="notice" role="status">{INVALID_LINK}</p>' in response.content.decode()
        assert "<form" not in response.content.decode()

    assert snapshot() == before


# --- Another worker's assignment ---------------------------------------------------------------


def test_a_signed_token_naming_me_and_their_assignment_opens_nothing(mine, theirs):
    # Validly signed by this site: worker A's id with worker B's assignment id.
    token = tokens.assignment_token(theirs.pk, mine.worker_id)
    assert_refused_everywhere(token, item_error=NOT_VALID_JSON)
    theirs.refresh_from_db()
    assert theirs.current_served_at is None  # B's item was never served to A


def test_my_own_token_still_works_beside_the_refusals(mine, theirs):
    token = tokens.assignment_token(mine.pk, mine.worker_id)
    assert_refused_everywhere(
        tokens.assignment_token(theirs.pk, mine.worker_id), item_error=NOT_VALID_JSON
    )
    response = post_json(
        Client(), reverse("judgments:task-submit", args=[token]), {"position": 1, "score": 5}
    )
    assert response.status_code == 200
    assert list(Judgment.objects.values_list("assignment_id", "worker_id", "score")) == [
        (mine.pk, mine.worker_id, 5.0)
    ]


# --- Forged tokens ------------------------------------------------------------------------------


def test_a_tampered_signature_opens_nothing(mine, theirs):
    token = tokens.assignment_token(theirs.pk, theirs.worker_id)
    tampered = token[:-1] + ("A" if token[-1] != "A" else "B")
    assert_refused_everywhere(tampered, item_error=INVALID_JSON)


def test_a_worker_link_token_is_not_an_assignment_token(mine, theirs):
    # The same two ids as a valid assignment token, signed for the other door.
    token = tokens.worker_token(theirs.pk, theirs.worker_id)
    assert_refused_everywhere(token, item_error=INVALID_JSON)


def test_a_token_signed_by_another_site_opens_nothing(mine, theirs):
    with override_settings(SECRET_KEY="another-site-entirely-" * 3):
        foreign = tokens.assignment_token(theirs.pk, theirs.worker_id)
    assert_refused_everywhere(foreign, item_error=INVALID_JSON)


def test_a_token_for_an_assignment_that_does_not_exist_opens_nothing(mine, theirs):
    assert_refused_everywhere(
        tokens.assignment_token(theirs.pk + 1000, theirs.worker_id), item_error=NOT_VALID_JSON
    )


# --- Replayed tokens ----------------------------------------------------------------------------


def test_answers_resent_after_submission_change_nothing(mine):
    token = tokens.assignment_token(mine.pk, mine.worker_id)
    submit = reverse("judgments:task-submit", args=[token])
    client = Client()
    for position in (1, 2):
        assert post_json(client, submit, {"position": position, "score": 40}).status_code == 200
    mine.refresh_from_db()
    assert mine.status == AssignmentStatus.SUBMITTED
    before = snapshot()

    changed = post_json(client, submit, {"position": 1, "score": 99})
    beyond = post_json(client, submit, {"position": 3, "score": 40})

    assert (changed.status_code, changed.json()) == (
        409,
        {
            "ok": False,
            "error": "Item 1 is already answered, and answers cannot be changed (there is no "
            "going back). The task is finished.",
            "field": "position",
        },
    )
    assert (beyond.status_code, beyond.json()) == (
        400,
        {
            "ok": False,
            "error": "There is no item 3 in this task; it has items 1 to 2.",
            "field": "position",
        },
    )
    assert snapshot() == before


def test_the_background_form_replayed_after_submission_saves_nothing(theirs):
    token = tokens.assignment_token(theirs.pk, theirs.worker_id)
    Assignment.objects.filter(pk=theirs.pk).update(
        status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now()
    )
    before = snapshot()

    response = Client().post(reverse("judgments:task-background", args=[token]), BACKGROUND)

    assert (response.status_code, response["Location"]) == (
        303,
        reverse("judgments:task", args=[token]),
    )
    assert snapshot() == before


def test_a_worker_link_reused_after_the_campaign_finished_hands_out_nothing(campaign, mine):
    link = reverse("judgments:worker-link", args=[tokens.worker_token(mine.worker_id, campaign.pk)])
    Assignment.objects.filter(pk=mine.pk).update(
        status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now()
    )
    campaign.status = CampaignStatus.FINISHED
    campaign.save()
    before = snapshot()

    response = Client().get(link)

    assert response.status_code == 200
    assert (
        '<p class="notice" role="status">This campaign has finished. Thank you for your '
        "interest.</p>"
    ) in response.content.decode()
    assert snapshot() == before


def test_a_worker_link_for_another_campaign_hands_out_nothing_there(campaign, mine):
    other = CampaignFactory(status=CampaignStatus.DRAFT)
    link = reverse("judgments:worker-link", args=[tokens.worker_token(mine.worker_id, other.pk)])
    before = snapshot()
    response = Client().get(link)
    assert response.status_code == 200
    assert "This campaign has not opened yet. Please come back later." in response.content.decode()
    assert snapshot() == before
