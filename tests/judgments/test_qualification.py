"""The qualification test (002 section 4.1, "training phase"): scored on its last set, stored on
the worker's membership, a gate in the hand-out; never handed out in the normal flow and never
counted in a HIT's redundancy."""

from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from campaigns.models import SlotRole
from judgments import tokens
from judgments.actions import (
    HandOutKind,
    NoWorkReason,
    QualificationScore,
    next_assignment_for,
    record_judgment,
    score_qualification,
)
from judgments.models import Assignment, AssignmentStatus, CampaignWorker, Judgment
from tests.factories import AssignmentFactory, WorkerFactory
from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

NOW = timezone.now().replace(microsecond=0)
REFUSAL = "You did not pass the qualification test for this campaign. Thank you for trying."


# --- The pure score ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answers", "correct", "checked", "score"),
    [
        # 002's best+worst of 4: gold within 1-2, known worst within 3-4.
        ([(1, 1, 2), (2, 1, 2), (3, 3, 4), (4, 3, 4), (2, 3, 4)], 4, 5, 0.8),
        # Best-only: the gold must be 1; a tie at 1 is still 1.
        ([(1, 1, 1), (1, 1, 1), (2, 1, 1)], 2, 3, 2 / 3),
        # Slots without a known answer are not checked; an unanswered one is wrong.
        ([(4, None, None), (1, None, None), (None, 1, 1), (3, 1, 2)], 0, 2, 0.0),
        ([(2, 2, 2)], 1, 1, 1.0),
        ([], 0, 0, None),
        ([(1, None, None)], 0, 0, None),
    ],
)
def test_the_score_is_the_share_of_checked_slots_ranked_in_their_range(
    answers, correct, checked, score
):
    result = score_qualification(answers)
    assert (result.correct, result.checked, result.score) == (correct, checked, score)


@pytest.mark.parametrize(
    ("correct", "checked", "mark", "passes"),
    [
        (4, 5, Decimal("0.800"), True),  # exactly the mark passes
        (4, 5, Decimal("0.801"), False),
        (7, 10, Decimal("0.700"), True),  # 0.7 is not a float here: no rounding surprise
        (2, 3, Decimal("0.667"), False),
        (2, 3, Decimal("0.666"), True),
        (1, 3, 1 / 3, True),
        (0, 4, Decimal("0"), True),
        (3, 4, Decimal("1"), False),
        (0, 0, Decimal("1"), True),  # nothing to check cannot fail anyone
    ],
)
def test_passing_compares_the_exact_share_with_the_mark(correct, checked, mark, passes):
    result = QualificationScore(correct=correct, checked=checked)
    assert result.passes(mark) is passes
    if checked:
        assert result.share == Fraction(correct, checked)


# --- The hand-out and the recorded result ------------------------------------------------------

# The test HIT's checked slots: set 1 best+worst (gold at 2 in 1-2, worst at 4 in 3-4), sets 2
# and 3 best-only (5 and 12 must be 1).
EXPECTED = {2: (1, 2), 4: (3, 4), 5: (1, 1), 12: (1, 1)}
RIGHT = [{"1": 3, "2": 1, "3": 2, "4": 4}, {"5": 1, "6": 2, "7": 2, "8": 4}, None]


def answers(right_in_last=True):
    """Ranks for the three sets; the last set ranks position 12 first or not."""
    last = (
        {"9": 2, "10": 3, "11": 4, "12": 1}
        if right_in_last
        else {"9": 1, "10": 1, "11": 1, "12": 2}
    )
    return [*RIGHT[:2], last]


@pytest.fixture
def campaign(db):
    campaign = ranking_campaign(
        redundancy=1, qualification_required=True, qualification_pass_mark=Decimal("0.75")
    )
    build_ranking_hit(campaign, number=1)
    build_ranking_hit(campaign, number=2)
    return campaign


@pytest.fixture
def test_hit(campaign):
    return build_ranking_hit(campaign, number=3, is_qualification=True, expected=EXPECTED)


def take_test(worker, campaign, ranks, now=NOW):
    hand_out = next_assignment_for(worker, campaign, now=now)
    assignment = hand_out.assignment
    assert assignment.hit.is_qualification
    result = None
    for group, set_ranks in enumerate(ranks):
        result = record_judgment(
            assignment.pk, worker.pk, {"set": group, "ranks": set_ranks}, now=now
        )
    return assignment, result


@pytest.mark.django_db
def test_the_builders_test_slots_are_training_slots(test_hit):
    assert set(test_hit.slots.values_list("role", flat=True)) == {SlotRole.TRAINING}
    assert test_hit.slots.filter(expected_rank_min__isnull=False).count() == 4


@pytest.mark.django_db
def test_a_worker_who_must_qualify_gets_the_test_first(campaign, test_hit):
    worker = WorkerFactory()

    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assert (hand_out.kind, hand_out.assignment.hit) == (HandOutKind.NEW, test_hit)
    # Issue 11 item 3: a hand-out's deadline is the first-touch window (10 minutes here) until
    # the worker opens the task, which gives it the campaign's working time.
    assert hand_out.assignment.expires_at == NOW + timedelta(
        seconds=min(settings.ASSIGNMENT_FIRST_TOUCH_SECONDS, campaign.assignment_duration_seconds)
    )
    membership = CampaignWorker.objects.get(worker=worker)
    assert (membership.qualification_passed, membership.qualification_score) == (None, None)
    # Asking again resumes it.
    again = next_assignment_for(worker, campaign, now=NOW)
    assert (again.kind, again.assignment) == (HandOutKind.RESUMED, hand_out.assignment)


@pytest.mark.django_db
def test_any_number_of_workers_take_the_test_whatever_the_redundancy(campaign, test_hit):
    workers = WorkerFactory.create_batch(5)
    handed = [next_assignment_for(worker, campaign, now=NOW) for worker in workers]
    assert {h.assignment.hit for h in handed} == {test_hit}
    assert Assignment.objects.filter(hit=test_hit).count() == 5


@pytest.mark.django_db
def test_passing_stores_the_result_and_the_worker_goes_on_to_the_first_hit(campaign, test_hit):
    worker = WorkerFactory()
    later = NOW + timedelta(minutes=3)

    assignment, result = take_test(worker, campaign, answers(right_in_last=False), now=later)

    # 3 of 4 checked slots right: 0.75, the pass mark.
    membership = CampaignWorker.objects.get(worker=worker)
    assert (
        membership.qualification_passed,
        membership.qualification_score,
        membership.qualified_at,
    ) == (True, 0.75, later)
    assert result.qualification == membership
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.SUBMITTED
    assert Judgment.objects.filter(assignment=assignment).count() == 12  # the answers stay

    first = next_assignment_for(worker, campaign, now=later)
    assert (first.kind, first.assignment.hit.number) == (HandOutKind.NEW, 1)
    # The test took no redundancy place: with redundancy 1, HIT 1 was still free.
    other = WorkerFactory()
    take_test(other, campaign, answers(), now=later)
    assert next_assignment_for(other, campaign, now=later).assignment.hit.number == 2


@pytest.mark.django_db
def test_failing_stores_the_result_and_the_worker_is_refused_politely(campaign, test_hit):
    worker = WorkerFactory()
    wrong = [
        {"1": 1, "2": 4, "3": 2, "4": 1},  # gold ranked 4, worst ranked 1
        {"5": 2, "6": 1, "7": 3, "8": 4},
        {"9": 1, "10": 2, "11": 3, "12": 1},  # a tie at 1 still counts as 1
    ]

    take_test(worker, campaign, wrong)

    membership = CampaignWorker.objects.get(worker=worker)
    assert (membership.qualification_passed, membership.qualification_score) == (False, 0.25)
    assert membership.qualified_at == NOW
    hand_out = next_assignment_for(worker, campaign, now=NOW)
    assert (hand_out.assignment, hand_out.reason) == (None, NoWorkReason.NOT_QUALIFIED)
    assert hand_out.reason.label == REFUSAL
    assert Assignment.objects.filter(worker=worker).count() == 1


@pytest.mark.django_db
def test_without_the_requirement_the_test_is_never_handed_out(campaign, test_hit):
    campaign.qualification_required = False
    campaign.save()
    workers = WorkerFactory.create_batch(3)

    handed = [next_assignment_for(worker, campaign, now=NOW) for worker in workers]

    assert [h.assignment.hit.number if h.assignment else h.reason for h in handed] == [
        1,
        2,
        NoWorkReason.ALL_TAKEN,
    ]
    assert not Assignment.objects.filter(hit=test_hit).exists()
    assert CampaignWorker.objects.filter(qualification_passed__isnull=False).count() == 0


@pytest.mark.django_db
def test_a_worker_who_did_every_hit_is_not_given_the_test_instead(campaign, test_hit):
    campaign.qualification_required = False
    campaign.save()
    worker = WorkerFactory()
    for hit in campaign.hits.filter(is_qualification=False):
        AssignmentFactory(hit=hit, worker=worker, status=AssignmentStatus.SUBMITTED)
    assert next_assignment_for(worker, campaign, now=NOW).reason == NoWorkReason.ALL_DONE


@pytest.mark.django_db
def test_a_campaign_with_only_a_test_has_no_tasks(test_hit):
    campaign = test_hit.campaign
    campaign.hits.filter(is_qualification=False).delete()
    campaign.qualification_required = False
    campaign.save()
    assert next_assignment_for(WorkerFactory(), campaign, now=NOW).reason == NoWorkReason.NO_TASKS


@pytest.mark.django_db
def test_a_required_test_that_was_not_built_means_no_tasks_yet(campaign):
    hand_out = next_assignment_for(WorkerFactory(), campaign, now=NOW)
    assert (hand_out.assignment, hand_out.reason) == (None, NoWorkReason.NO_TASKS)


@pytest.mark.django_db
def test_a_worker_who_already_qualified_goes_straight_to_the_hits(campaign, test_hit):
    worker = WorkerFactory()
    CampaignWorker.objects.create(campaign=campaign, worker=worker, qualification_passed=True)
    assert next_assignment_for(worker, campaign, now=NOW).assignment.hit.number == 1


@pytest.mark.django_db
@pytest.mark.parametrize("status", [AssignmentStatus.EXPIRED, AssignmentStatus.RETURNED])
def test_an_expired_or_returned_test_is_started_again_with_its_answers(campaign, test_hit, status):
    worker = WorkerFactory()
    assignment = next_assignment_for(worker, campaign, now=NOW).assignment
    record_judgment(assignment.pk, worker.pk, {"set": 0, "ranks": RIGHT[0]}, now=NOW)
    Assignment.objects.filter(pk=assignment.pk).update(status=status)

    later = NOW + timedelta(hours=3)
    hand_out = next_assignment_for(worker, campaign, now=later)

    assert (hand_out.kind, hand_out.assignment.pk) == (HandOutKind.REACTIVATED, assignment.pk)
    hand_out.assignment.refresh_from_db()
    assert hand_out.assignment.status == AssignmentStatus.STARTED
    assert Judgment.objects.filter(assignment=assignment).count() == 4


@pytest.mark.django_db
def test_a_test_finished_before_the_requirement_is_scored_at_the_next_hand_out(campaign, test_hit):
    campaign.qualification_required = False
    campaign.save()
    worker = WorkerFactory()
    assignment = AssignmentFactory(hit=test_hit, worker=worker)
    for group, ranks in enumerate(answers()):
        record_judgment(assignment.pk, worker.pk, {"set": group, "ranks": ranks}, now=NOW)
    # Scored on its last set even though the campaign did not require it then.
    assert CampaignWorker.objects.get(worker=worker).qualification_passed is True
    CampaignWorker.objects.filter(worker=worker).update(
        qualification_passed=None, qualification_score=None, qualified_at=None
    )
    campaign.qualification_required = True
    campaign.save()

    hand_out = next_assignment_for(worker, campaign, now=NOW)

    assert hand_out.assignment.hit.number == 1
    membership = CampaignWorker.objects.get(worker=worker)
    assert (membership.qualification_passed, membership.qualification_score) == (True, 1.0)


# --- Through the worker's pages ----------------------------------------------------------------


def worker_url(worker, campaign):
    return reverse("judgments:worker-link", args=[tokens.worker_token(worker.pk, campaign.pk)])


def submit_all(client, task_url, ranks):
    for group, set_ranks in enumerate(ranks):
        response = client.post(
            task_url + "submit",
            {"set": group, "ranks": set_ranks},
            content_type="application/json",
        )
        assert response.status_code == 200, response.json()
    return response


@pytest.mark.django_db
def test_the_pages_go_from_the_test_to_the_first_task(campaign, test_hit):
    worker = WorkerFactory()
    client = Client()
    task_url = client.get(worker_url(worker, campaign))["Location"]
    page = client.get(task_url).content.decode()
    assert "This is a short qualification test." in page

    last = submit_all(client, task_url, answers())

    assert last.json()["done"] is True
    finished = client.get(task_url)
    assert (finished.status_code, finished["Location"]) == (302, worker_url(worker, campaign))
    next_task = client.get(finished["Location"])["Location"]
    assignment = Assignment.objects.get(worker=worker, hit__number=1)
    token = tokens.assignment_token(assignment.pk, worker.pk)
    assert next_task == reverse("judgments:task", args=[token])
    assert "qualification test" not in client.get(next_task).content.decode()


@pytest.mark.django_db
def test_the_pages_go_from_a_failed_test_to_the_polite_refusal(campaign, test_hit):
    worker = WorkerFactory()
    client = Client()
    task_url = client.get(worker_url(worker, campaign))["Location"]
    failing = [{str(p): 4 for p in range(g * 4 + 1, g * 4 + 5)} for g in range(3)]

    submit_all(client, task_url, failing)

    response = client.get(task_url, follow=True)
    assert response.status_code == 200
    assert f'<p class="notice" role="status">{REFUSAL}</p>' in response.content.decode()
    assert "0.0" not in response.content.decode()  # the score is not shown
