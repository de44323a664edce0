"""Prolific participants: the study URL's parameters identify them, a session leads back to its
own task only, and a finished HIT sends them to Prolific with the code their work earned."""

import json
import logging
from datetime import timedelta
from decimal import Decimal

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape

from analytics.models import Recommendation, WorkerStat
from campaigns.models import CampaignStatus, ReliabilityTest
from judgments import tokens
from judgments.actions import exclude_worker, record_judgment
from judgments.entry.prolific import (
    BAD_PARAMETER,
    MISSING_PARAMETER,
    NO_CODE_SET_UP,
    NOT_FROM_PROLIFIC,
    OPEN_IN_ANOTHER_SESSION,
    PLACEHOLDERS_LEFT,
    RETURN_THE_STUDY,
    quality_control_failures,
)
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Platform, Worker
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    HitFactory,
    HitSlotFactory,
    WorkerFactory,
)
from tests.judgments.test_qualification import EXPECTED, answers
from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

pytestmark = pytest.mark.django_db

PID = "5f1d2c3b4a5968778695a4b3"
OTHER_PID = "5f1d2c3b4a5968778695ffff"
STUDY = "60aa11bb22cc33dd44ee55ff"
SESSION = "61bb22cc33dd44ee55ff6677"
COMPLETE = "https://app.prolific.com/submissions/complete?cc="
INVALID_LINK = (
    "This link is not valid. Check that you opened the whole link, or ask whoever sent it to "
    "you for a new one."
)


@pytest.fixture
def campaign():
    campaign = CampaignFactory(
        title="Rate some English",
        redundancy=1,
        prolific_completion_code="C1A2B3C4",
        prolific_failed_code="FAILED99",
    )
    for number in (1, 2):
        hit = HitFactory(campaign=campaign, number=number)
        for position in (1, 2):
            HitSlotFactory(hit=hit, position=position)
    return campaign


def start_url(campaign, pid=PID, study=STUDY, session=SESSION):
    params = {"PROLIFIC_PID": pid, "STUDY_ID": study, "SESSION_ID": session}
    query = "&".join(f"{name}={value}" for name, value in params.items() if value is not None)
    return f"{reverse('judgments:prolific-start', args=[campaign.pk])}?{query}"


def task_url(assignment, name="judgments:task"):
    return reverse(name, args=[tokens.assignment_token(assignment.pk, assignment.worker_id)])


def finish(assignment):
    """Answer every item of a direct-assessment assignment, as the page would."""
    for position in sorted(assignment.hit.slots.values_list("position", flat=True)):
        record_judgment(assignment.pk, assignment.worker_id, {"position": position, "score": 60})
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED


def snapshot():
    return (
        sorted(Worker.objects.values_list("platform", "external_id")),
        sorted(
            Assignment.objects.values_list(
                "pk", "worker_id", "status", "platform_assignment_id", "platform_hit_id"
            )
        ),
    )


# --- Arriving from Prolific -------------------------------------------------------------------


def test_a_participant_gets_a_task_and_the_session_is_stored_on_it(client, campaign):
    response = client.get(start_url(campaign))

    worker = Worker.objects.get()
    assert (worker.platform, worker.external_id) == (Platform.PROLIFIC, PID)
    assignment = Assignment.objects.get()
    assert (assignment.worker, assignment.hit.number) == (worker, 1)
    assert (assignment.platform_assignment_id, assignment.platform_hit_id) == (SESSION, STUDY)
    assert (response.status_code, response["Location"]) == (302, task_url(assignment))
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"


def test_the_same_session_leads_back_to_the_same_task(client, campaign):
    first = client.get(start_url(campaign))
    before = snapshot()

    again = client.get(start_url(campaign))

    assert again["Location"] == first["Location"]
    assert snapshot() == before


def test_the_same_session_after_finishing_leads_to_the_completion_code(client, campaign):
    client.get(start_url(campaign))
    finish(Assignment.objects.get())

    back = client.get(start_url(campaign))
    assert back["Location"] == task_url(Assignment.objects.get())
    done = client.get(back["Location"])
    assert (done.status_code, done["Location"]) == (302, COMPLETE + "C1A2B3C4")
    assert Assignment.objects.count() == 1  # no second HIT in the same session


def test_a_new_session_of_the_same_participant_gets_the_next_hit(client, campaign):
    client.get(start_url(campaign))
    finish(Assignment.objects.get())

    response = client.get(start_url(campaign, session="61bb22cc33dd44ee55ff0000"))

    second = Assignment.objects.get(hit__number=2)
    assert response["Location"] == task_url(second)
    assert second.platform_assignment_id == "61bb22cc33dd44ee55ff0000"
    assert Worker.objects.count() == 1


def test_the_participant_id_is_one_worker_whatever_its_case(client, campaign):
    client.get(start_url(campaign, pid=PID.upper()))
    client.get(start_url(campaign))
    assert list(Worker.objects.values_list("external_id", flat=True)) == [PID]
    assert Assignment.objects.count() == 1  # the second visit resumed the started task


@pytest.mark.parametrize("study_id_set", [False, True], ids=["any-study", "campaign-study"])
def test_a_visit_without_a_session_id_is_refused_and_writes_nothing(client, campaign, study_id_set):
    """The participant id is no secret: with it alone, someone else could open the
    participant's task, with its answers and its completion code. Every study URL carries a
    session id, so a visit without one is refused, whether or not the campaign names its
    study."""
    if study_id_set:
        campaign.prolific_study_id = STUDY
        campaign.save(update_fields=["prolific_study_id"])
    client.get(start_url(campaign))
    before = snapshot()

    response = Client().get(start_url(campaign, session=None))

    assert response.status_code == 400
    assert escape(MISSING_PARAMETER.format(name="SESSION_ID")) in response.content.decode()
    assert "Location" not in response
    assert snapshot() == before
    # A stranger's first visit without a session creates nobody either.
    stranger = Client().get(start_url(campaign, pid=OTHER_PID, session=None))
    assert stranger.status_code == 400
    assert snapshot() == before


def test_a_session_presented_with_another_study_id_opens_nothing(client, campaign):
    first = client.get(start_url(campaign))
    before = snapshot()

    response = client.get(start_url(campaign, study="60aa11bb22cc33dd44eeffff"))

    assert response.status_code == 404
    assert escape(INVALID_LINK) in response.content.decode()
    assert snapshot() == before
    # The study id's case is not the study: Prolific's ids are compared without it.
    assert client.get(start_url(campaign, study=STUDY.upper()))["Location"] == first["Location"]


def test_a_started_task_is_opened_by_its_own_session_only(client, campaign):
    first = client.get(start_url(campaign))
    before = snapshot()

    # Someone who knows the participant's id, with another session id.
    response = client.get(start_url(campaign, session="61bb22cc33dd44ee55ff0000"))

    assert response.status_code == 404
    assert escape(str(OPEN_IN_ANOTHER_SESSION)) in response.content.decode()
    assert "Location" not in response
    assert snapshot() == before
    assert Assignment.objects.get().platform_assignment_id == SESSION
    # The session the task was handed out in still leads back to it.
    assert client.get(start_url(campaign))["Location"] == first["Location"]


def test_a_started_task_without_a_session_takes_the_session_that_opens_it(client, campaign):
    """A task handed out before every visit needed a session id holds none: the first session
    that opens it takes it."""
    first = client.get(start_url(campaign, session="61bb22cc33dd44ee55ff0000"))
    Assignment.objects.update(platform_assignment_id="")
    response = client.get(start_url(campaign))
    assignment = Assignment.objects.get()
    assert response["Location"] == first["Location"] == task_url(assignment)
    assert (assignment.platform_assignment_id, assignment.platform_hit_id) == (SESSION, STUDY)


def test_a_task_whose_time_ran_out_moves_to_the_session_that_restarts_it(client, campaign):
    client.get(start_url(campaign))
    Assignment.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    later_session = "61bb22cc33dd44ee55ff0000"

    response = client.get(start_url(campaign, session=later_session))

    assignment = Assignment.objects.get()
    assert response["Location"] == task_url(assignment)
    assert (assignment.hit.number, assignment.status, assignment.platform_assignment_id) == (
        1,
        AssignmentStatus.STARTED,
        later_session,
    )
    assert (
        client.get(start_url(campaign, session=later_session))["Location"] == (response["Location"])
    )
    lapsed = client.get(start_url(campaign))
    assert lapsed.status_code == 404
    assert escape(str(OPEN_IN_ANOTHER_SESSION)) in lapsed.content.decode()


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"pid": None}, NOT_FROM_PROLIFIC),
        ({"pid": ""}, NOT_FROM_PROLIFIC),
        ({"pid": "{{%PROLIFIC_PID%}}"}, PLACEHOLDERS_LEFT),
        (
            {"pid": "5f1d2c3b4a5968778695a4b"},
            BAD_PARAMETER.format(name="Prolific ID (PROLIFIC_PID)"),
        ),
        (
            {"pid": "5f1d2c3b4a5968778695a4bz"},
            BAD_PARAMETER.format(name="Prolific ID (PROLIFIC_PID)"),
        ),
        (
            {"pid": "<script>alert(1)</script>"},
            BAD_PARAMETER.format(name="Prolific ID (PROLIFIC_PID)"),
        ),
        ({"study": "{{%STUDY_ID%}}"}, BAD_PARAMETER.format(name="STUDY_ID")),
        ({"session": "61bb22cc-33dd"}, BAD_PARAMETER.format(name="SESSION_ID")),
        ({"session": "a" * 65}, BAD_PARAMETER.format(name="SESSION_ID")),
        ({"session": None}, MISSING_PARAMETER.format(name="SESSION_ID")),
        ({"session": ""}, MISSING_PARAMETER.format(name="SESSION_ID")),
    ],
    ids=[
        "no-pid",
        "empty-pid",
        "placeholders",
        "short-pid",
        "non-hex-pid",
        "markup-pid",
        "study-placeholder",
        "session-dash",
        "session-too-long",
        "no-session",
        "empty-session",
    ],
)
def test_a_link_prolific_would_not_send_gets_a_clear_400_and_writes_nothing(
    client, campaign, params, message
):
    response = client.get(start_url(campaign, **params))

    assert response.status_code == 400
    html = response.content.decode()
    assert f'<p class="notice" role="status">{escape(message)}</p>' in html
    assert "<h1>Rate some English</h1>" in html
    assert "<script>alert(1)</script>" not in html
    assert (Worker.objects.count(), Assignment.objects.count()) == (0, 0)


@pytest.mark.parametrize("status", [CampaignStatus.DRAFT, None])
def test_a_draft_or_unknown_campaign_is_not_found(client, campaign, status):
    if status is None:
        url = start_url(campaign).replace(f"/prolific/{campaign.pk}/", "/prolific/999999/")
    else:
        campaign.status = status
        campaign.save()
        url = start_url(campaign)
    response = client.get(url)
    assert response.status_code == 404
    assert INVALID_LINK in response.content.decode()
    assert Worker.objects.count() == 0


def test_a_paused_campaign_says_so_and_stores_nobody(client, campaign):
    campaign.status = CampaignStatus.PAUSED
    campaign.save()
    response = client.get(start_url(campaign))
    assert response.status_code == 200
    assert (
        '<p class="notice" role="status">This campaign is paused. Please come back later.</p>'
        in response.content.decode()
    )
    assert Worker.objects.count() == 0


def test_no_work_left_gets_the_polite_reason(client, campaign):
    for hit in campaign.hits.all():
        AssignmentFactory(hit=hit)
    response = client.get(start_url(campaign))
    assert response.status_code == 200
    assert (
        "Every task left is being worked on by other people right now." in response.content.decode()
    )
    assert Assignment.objects.filter(worker__platform=Platform.PROLIFIC).count() == 0


def test_another_participants_session_is_refused_and_nothing_changes(client, campaign):
    client.get(start_url(campaign))
    before = snapshot()

    response = client.get(start_url(campaign, pid=OTHER_PID))

    assert response.status_code == 404
    assert INVALID_LINK in response.content.decode()
    assert snapshot() == before  # in particular, no worker for OTHER_PID


def test_a_session_of_another_campaign_is_refused(client, campaign):
    client.get(start_url(campaign))
    other = CampaignFactory()
    HitSlotFactory(hit=HitFactory(campaign=other, number=1), position=1)
    before = snapshot()

    response = client.get(start_url(other))

    assert response.status_code == 404
    assert snapshot() == before


def test_an_mturk_assignment_id_is_not_a_session_of_anybody(client, campaign):
    mturk = AssignmentFactory(
        hit=campaign.hits.get(number=2),
        worker=WorkerFactory(platform=Platform.MTURK, external_id=PID),
        platform_assignment_id=SESSION,
    )
    before = snapshot()
    response = client.get(start_url(campaign))
    assert response.status_code == 404
    assert snapshot() == before
    assert Assignment.objects.get().pk == mturk.pk


def test_only_get_is_allowed(client, campaign):
    assert client.post(start_url(campaign)).status_code == 405
    assert Worker.objects.count() == 0


# --- The completion redirect ------------------------------------------------------------------


@pytest.fixture
def finished(client, campaign):
    client.get(start_url(campaign))
    assignment = Assignment.objects.get()
    finish(assignment)
    return assignment


def worker_stat(assignment, recommendation):
    return WorkerStat.objects.create(
        campaign=assignment.campaign,
        worker=assignment.worker,
        n_judgments=100,
        test=ReliabilityTest.WILCOXON,
        p_value=0.43,
        reliable=False,
        n_pairs=10,
        n_bad_ref_pairs=10,
        n_repeat_pairs=5,
        mean_seconds=1.5,
        recommendation=recommendation,
    )


def test_a_participant_who_passed_goes_to_prolific_with_the_completion_code(client, finished):
    response = client.get(task_url(finished))
    assert (response.status_code, response["Location"]) == (302, COMPLETE + "C1A2B3C4")


@pytest.mark.parametrize(
    ("fail", "reason"),
    [
        (
            lambda a: exclude_worker(a.campaign, a.worker, "copied the same score everywhere"),
            "Excluded by the requester (copied the same score everywhere)",
        ),
        (
            lambda a: CampaignWorker.objects.filter(worker=a.worker).update(
                untrusted=True, untrusted_reason="1 of 4 gold units right"
            ),
            "Untrusted after the gold checks (1 of 4 gold units right)",
        ),
        (
            lambda a: CampaignWorker.objects.filter(worker=a.worker).update(
                qualification_passed=False, qualification_score=0.25
            ),
            "Failed the qualification test (score 25%)",
        ),
        (
            lambda a: worker_stat(a, Recommendation.REJECT),
            "Unreliable and fast: clear random clicking (reliability test p = 0.43, 1.5 s per "
            "judgment)",
        ),
    ],
    ids=["excluded", "untrusted", "failed-test", "random-clicking"],
)
def test_a_participant_who_failed_gets_the_failed_code(client, campaign, finished, fail, reason):
    fail(finished)

    response = client.get(task_url(finished))

    assert (response.status_code, response["Location"]) == (302, COMPLETE + "FAILED99")
    assert quality_control_failures(campaign, [finished.worker_id]) == {finished.worker_id: reason}


def test_without_a_failed_code_a_failed_participant_is_asked_to_return_the_study(
    client, campaign, finished
):
    campaign.prolific_failed_code = ""
    campaign.save()
    exclude_worker(campaign, finished.worker, "secret reason for the requester")

    response = client.get(task_url(finished))

    assert response.status_code == 200
    html = response.content.decode()
    assert f'<p class="notice" role="status">{escape(str(RETURN_THE_STUDY))}</p>' in html
    assert "secret reason" not in html
    assert "FAILED" not in html and "C1A2B3C4" not in html


@pytest.mark.parametrize(
    "recommendation", [Recommendation.APPROVE, Recommendation.PAY, Recommendation.WAIT]
)
def test_unreliable_but_not_random_work_earns_the_completion_code(client, finished, recommendation):
    worker_stat(finished, recommendation)
    response = client.get(task_url(finished))
    assert response["Location"] == COMPLETE + "C1A2B3C4"


def test_without_a_completion_code_the_participant_is_told_their_work_is_saved(
    client, campaign, finished, caplog
):
    campaign.prolific_completion_code = ""
    campaign.save()

    with caplog.at_level(logging.WARNING, logger="judgments.entry.prolific"):
        response = client.get(task_url(finished))

    assert response.status_code == 200
    assert (
        f'<p class="notice" role="status">{escape(str(NO_CODE_SET_UP))}</p>'
        in response.content.decode()
    )
    assert [record.getMessage() for record in caplog.records] == [
        f"Campaign {campaign.pk} has no Prolific completion code: worker {finished.worker_id} "
        "finished and was asked to message the researcher on Prolific. Set the code in the "
        "campaign's Prolific settings."
    ]


def test_the_completion_url_setting_is_used(client, finished, settings):
    settings.PROLIFIC_COMPLETION_URL = "https://example.prolific.test/done?lang=en"
    response = client.get(task_url(finished))
    assert response["Location"] == "https://example.prolific.test/done?lang=en&cc=C1A2B3C4"


def test_direct_workers_still_get_the_ordinary_completion_page(client, campaign):
    assignment = AssignmentFactory(hit=campaign.hits.get(number=1))
    finish(assignment)
    response = client.get(task_url(assignment))
    assert response.status_code == 200
    assert "<h1>Thank you!</h1>" in response.content.decode()


def test_the_whole_session_through_the_pages(campaign):
    """Start link, task page, item and submit endpoints, completion: as a browser would."""
    client = Client(enforce_csrf_checks=True)
    task = client.get(start_url(campaign))["Location"]
    assert client.get(task).status_code == 200
    token = task.rstrip("/").split("/")[-1]
    submit = reverse("judgments:task-submit", args=[token])
    for position in (1, 2):
        response = client.post(
            submit, json.dumps({"position": position, "score": 70}), "application/json"
        )
        assert response.status_code == 200
    assert response.json()["done"] is True
    done = client.get(task)
    assert (done.status_code, done["Location"]) == (302, COMPLETE + "C1A2B3C4")


# --- With the qualification test --------------------------------------------------------------


@pytest.fixture
def ranking():
    campaign = ranking_campaign(
        redundancy=1,
        qualification_required=True,
        qualification_pass_mark=Decimal("0.75"),
        prolific_completion_code="C1A2B3C4",
        prolific_failed_code="FAILED99",
    )
    build_ranking_hit(campaign, number=1)
    build_ranking_hit(campaign, number=2)
    build_ranking_hit(campaign, number=3, is_qualification=True, expected=EXPECTED)
    return campaign


def rank_all(assignment, ranks):
    for group, set_ranks in enumerate(ranks):
        record_judgment(assignment.pk, assignment.worker_id, {"set": group, "ranks": set_ranks})


def test_a_participant_who_passes_the_test_goes_on_to_one_hit_then_to_prolific(client, ranking):
    test_page = client.get(start_url(ranking))["Location"]
    test = Assignment.objects.get()
    assert (test.hit.is_qualification, test.platform_assignment_id) == (True, SESSION)
    rank_all(test, answers())

    # The passed test sends the participant on through their link to HIT 1.
    worker_link = client.get(test_page)
    worker = test.worker
    assert worker_link["Location"] == reverse(
        "judgments:worker-link", args=[tokens.worker_token(worker.pk, ranking.pk)]
    )
    hit_page = client.get(worker_link["Location"])["Location"]
    first = Assignment.objects.get(hit__number=1)
    assert hit_page == task_url(first)
    rank_all(first, answers())

    assert client.get(hit_page)["Location"] == COMPLETE + "C1A2B3C4"
    # Going back to the test's page, or to the study URL, leads to the code, never to HIT 2.
    assert client.get(test_page)["Location"] == COMPLETE + "C1A2B3C4"
    assert client.get(client.get(start_url(ranking))["Location"])["Location"] == (
        COMPLETE + "C1A2B3C4"
    )
    assert Assignment.objects.count() == 2


def test_a_participant_who_fails_the_test_gets_the_failed_code(client, ranking):
    test_page = client.get(start_url(ranking))["Location"]
    test = Assignment.objects.get()
    wrong = [
        {"1": 1, "2": 4, "3": 2, "4": 1},
        {"5": 2, "6": 1, "7": 3, "8": 4},
        {"9": 1, "10": 2, "11": 3, "12": 1},
    ]
    rank_all(test, wrong)

    response = client.get(test_page)

    assert (response.status_code, response["Location"]) == (302, COMPLETE + "FAILED99")
    assert CampaignWorker.objects.get(worker=test.worker).qualification_passed is False
    assert Assignment.objects.count() == 1
