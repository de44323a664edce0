"""Issue 11, item 3: hoarded tasks. Starts are limited per client, a task handed out but never
opened returns to the pool after the first-touch timeout, and Prolific's ids are checked before
anything is handed out. Each attack of the issue is replayed here."""

from __future__ import annotations

import secrets
from datetime import timedelta
from unittest import mock

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from django.utils.html import escape
from redis.exceptions import ConnectionError as RedisConnectionError

from judgments import tokens
from judgments.actions import HandOutKind, NoWorkReason, next_assignment_for
from judgments.actions.handout import first_touch_deadline, open_assignment
from judgments.entry import throttle
from judgments.entry.prolific import BAD_PARAMETER, MISSING_PARAMETER, WRONG_STUDY
from judgments.models import Assignment, AssignmentStatus, Worker
from tests.factories import CampaignFactory, HitFactory, HitSlotFactory, WorkerFactory
from tests.judgments.test_mturk_entry import MTURK_HIT_ID, accept_url, publish

pytestmark = pytest.mark.django_db

STUDY = "60aa11bb22cc33dd44ee55ff"
DURATION = 2 * 60 * 60  # the campaign's working time: two hours, as in the attack


@pytest.fixture(autouse=True)
def _fresh_counters():
    cache.clear()  # the start counters of other tests (same client address) do not count here
    yield
    cache.clear()


@pytest.fixture
def demo():
    """A demo campaign with room for five tasks: five HITs of one assignment each."""
    campaign = CampaignFactory(
        title="Demo", redundancy=1, assignment_duration_seconds=DURATION, status="active"
    )
    for number in range(1, 6):
        hit = HitFactory(campaign=campaign, number=number)
        HitSlotFactory(hit=hit, position=1)
    return campaign


def random_pid() -> str:
    return secrets.token_hex(12)  # 24 hexadecimal digits, like a real Prolific id


def prolific_url(campaign, pid=None, study=STUDY, session="auto"):
    params = {"PROLIFIC_PID": pid or random_pid(), "STUDY_ID": study}
    if session == "auto":
        session = random_pid()
    if session is not None:
        params["SESSION_ID"] = session
    query = "&".join(f"{k}={v}" for k, v in params.items() if v is not None)
    return f"{reverse('judgments:prolific-start', args=[campaign.pk])}?{query}"


def start(campaign, address="203.0.113.7", **extra):
    """One POST to the Start button from a client without a session (a script)."""
    client = Client(REMOTE_ADDR=address, **extra)
    client.get(reverse("judgments:campaign-entry", args=[campaign.pk]))
    return client.post(reverse("judgments:campaign-start", args=[campaign.pk]))


def task_url(assignment):
    return reverse(
        "judgments:task", args=[tokens.assignment_token(assignment.pk, assignment.worker_id)]
    )


# --- The rate --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("10/10m", (10, 600)), ("5/m", (5, 60)), ("3/30s", (3, 30)), ("100/1h", (100, 3600))],
)
def test_the_start_rate_reads_count_and_period(text, expected):
    assert throttle.parse_rate(text) == expected


def test_an_empty_start_rate_is_no_limit_and_a_bad_one_says_how_to_write_it():
    assert throttle.parse_rate("") is None
    with pytest.raises(Exception, match="write <count>/<period>, for example 10/10m"):
        throttle.parse_rate("ten per minute")


# --- Attack: five Prolific starts in 0.3 s took the whole campaign ---------------------------


@pytest.mark.parametrize("rate", ["5/10m", "10/10m"])
def test_quick_prolific_starts_from_one_client_get_429_past_the_rate(demo, settings, rate):
    settings.START_RATE = rate
    limit = throttle.parse_rate(rate)[0]
    demo.redundancy = 3  # room for 15 tasks, so that the limit (not the room) stops them
    demo.save()
    client = Client(REMOTE_ADDR="203.0.113.7")

    answers = [client.get(prolific_url(demo)) for _ in range(limit + 2)]

    assert [r.status_code for r in answers] == [302] * limit + [429, 429]
    refused = answers[-1]
    assert 1 <= int(refused["Retry-After"]) <= 600
    html = refused.content.decode()
    assert "Too many tasks were started from your network in a short time." in html
    assert "Please try again in " in html
    assert Assignment.objects.count() == Worker.objects.count() == limit


def test_another_client_is_not_held_back_by_one_that_hit_the_limit(demo, settings):
    settings.START_RATE = "5/10m"
    attacker = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(6):
        attacker.get(prolific_url(demo))
    demo.redundancy = 2
    demo.save()

    other = Client(REMOTE_ADDR="198.51.100.20").get(prolific_url(demo))

    assert other.status_code == 302


def test_a_forged_forwarded_for_does_not_evade_the_limit_without_a_trusted_proxy(demo, settings):
    settings.START_RATE = "5/10m"
    settings.TRUSTED_PROXY_COUNT = 0
    demo.redundancy = 3
    demo.save()
    answers = [
        Client(REMOTE_ADDR="203.0.113.7", HTTP_X_FORWARDED_FOR=f"10.0.0.{i}").get(
            prolific_url(demo)
        )
        for i in range(6)
    ]
    assert [r.status_code for r in answers] == [302] * 5 + [429]


def test_behind_a_trusted_proxy_the_forwarded_address_is_the_client(demo, settings):
    settings.START_RATE = "5/10m"
    settings.TRUSTED_PROXY_COUNT = 1
    demo.redundancy = 3
    demo.save()
    # Six clients behind the one proxy: each is counted on its own.
    answers = [
        Client(REMOTE_ADDR="10.0.0.1", HTTP_X_FORWARDED_FOR=f"203.0.113.{i}").get(
            prolific_url(demo)
        )
        for i in range(6)
    ]
    assert [r.status_code for r in answers] == [302] * 6


def test_going_back_to_ones_own_task_is_never_limited(demo, settings):
    settings.START_RATE = "5/10m"
    client = Client(REMOTE_ADDR="203.0.113.7")
    pid, session = random_pid(), random_pid()
    first = client.get(prolific_url(demo, pid=pid, session=session))
    # The same session, and the same participant without a session id (a resume).
    again = [client.get(prolific_url(demo, pid=pid, session=session)) for _ in range(10)]
    assert {r["Location"] for r in again} == {first["Location"]}
    # Only the one start counted: four more participants may start from here.
    fresh = [client.get(prolific_url(demo)) for _ in range(5)]
    assert [r.status_code for r in fresh] == [302, 302, 302, 302, 429]


def test_with_the_cache_down_starts_go_through(demo, settings):
    settings.START_RATE = "1/10m"
    with mock.patch.object(cache, "add", side_effect=RedisConnectionError("down")):
        answers = [Client().get(prolific_url(demo)) for _ in range(3)]
    assert [r.status_code for r in answers] == [302] * 3


# --- Attack: /work/<id>/start allows the same -----------------------------------------------


def test_quick_starts_at_the_start_button_get_429_past_the_rate(demo, settings):
    settings.START_RATE = "5/10m"

    answers = [start(demo) for _ in range(7)]

    assert [r.status_code for r in answers] == [303] * 5 + [429, 429]
    assert "Too many tasks were started" in answers[-1].content.decode()
    assert answers[-1]["Retry-After"]
    assert Worker.objects.count() == 5


def test_pressing_start_again_in_the_same_session_is_not_a_new_start(demo, settings):
    settings.START_RATE = "2/10m"
    client = Client(REMOTE_ADDR="203.0.113.7")
    client.get(reverse("judgments:campaign-entry", args=[demo.pk]))
    url = reverse("judgments:campaign-start", args=[demo.pk])
    answers = [client.post(url) for _ in range(5)]
    assert [r.status_code for r in answers] == [303] * 5
    assert Worker.objects.count() == 1


# --- The first-touch timeout -----------------------------------------------------------------


def test_a_hand_out_gets_the_first_touch_deadline_and_opening_gives_the_full_time(demo, settings):
    settings.ASSIGNMENT_FIRST_TOUCH_SECONDS = 600
    now = timezone.now()
    assignment = next_assignment_for(WorkerFactory(), demo, now=now).assignment
    assert assignment.expires_at == now + timedelta(seconds=600)

    opened_at = now + timedelta(minutes=3)
    assert open_assignment(assignment, now=opened_at) is True
    assignment.refresh_from_db()
    assert assignment.expires_at == opened_at + timedelta(seconds=DURATION)
    # Once open, opening again does not move the deadline.
    assert open_assignment(assignment, now=opened_at + timedelta(minutes=5)) is False
    assignment.refresh_from_db()
    assert assignment.expires_at == opened_at + timedelta(seconds=DURATION)


def test_a_campaign_with_a_short_working_time_keeps_it(settings):
    settings.ASSIGNMENT_FIRST_TOUCH_SECONDS = 600
    short = CampaignFactory(assignment_duration_seconds=300)
    now = timezone.now()
    assert first_touch_deadline(short, now) == now + timedelta(seconds=300)


def test_an_expired_hand_out_is_not_revived_by_opening_it(demo):
    now = timezone.now()
    assignment = next_assignment_for(WorkerFactory(), demo, now=now).assignment
    assert open_assignment(assignment, now=now + timedelta(minutes=11)) is False
    assignment.refresh_from_db()
    assert assignment.expires_at == now + timedelta(minutes=10)


def test_hoarded_unopened_tasks_return_to_the_pool_after_the_first_touch_timeout(demo, settings):
    """The attack: five Prolific starts take every task; the next real worker is told all are
    taken; ten minutes later (nobody opened them) the real worker gets one."""
    settings.START_RATE = "10/10m"
    settings.ASSIGNMENT_FIRST_TOUCH_SECONDS = 600
    hoarder = Client(REMOTE_ADDR="203.0.113.7")
    assert [hoarder.get(prolific_url(demo)).status_code for _ in range(5)] == [302] * 5

    real = WorkerFactory()
    now = timezone.now()
    assert next_assignment_for(real, demo, now=now).reason == NoWorkReason.ALL_TAKEN

    later = now + timedelta(minutes=10, seconds=1)
    hand_out = next_assignment_for(real, demo, now=later)
    assert hand_out.kind == HandOutKind.NEW
    assert Assignment.objects.filter(status=AssignmentStatus.EXPIRED).count() == 5


def test_an_opened_task_is_kept_for_the_full_working_time(demo, settings):
    settings.ASSIGNMENT_FIRST_TOUCH_SECONDS = 600
    demo.redundancy = 1
    demo.save()
    client = Client(REMOTE_ADDR="203.0.113.7")
    location = client.get(prolific_url(demo))["Location"]
    assert client.get(location).status_code == 200  # the worker opens the task page
    assignment = Assignment.objects.get()
    assert assignment.expires_at > timezone.now() + timedelta(seconds=DURATION - 60)

    # Twenty minutes later it is still theirs: nobody else gets HIT 1.
    later = timezone.now() + timedelta(minutes=20)
    other = next_assignment_for(WorkerFactory(), demo, now=later).assignment
    assert other.hit.number == 2
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.STARTED


def test_the_item_endpoint_opens_the_task_too(demo):
    assignment = next_assignment_for(WorkerFactory(), demo).assignment
    url = reverse(
        "judgments:task-item", args=[tokens.assignment_token(assignment.pk, assignment.worker_id)]
    )
    assert Client().get(url).status_code == 200
    assignment.refresh_from_db()
    assert assignment.expires_at > timezone.now() + timedelta(seconds=DURATION - 60)


def test_a_resumed_task_keeps_its_deadline(demo):
    worker = WorkerFactory()
    now = timezone.now()
    first = next_assignment_for(worker, demo, now=now).assignment
    again = next_assignment_for(worker, demo, now=now + timedelta(minutes=5))
    assert (again.kind, again.assignment.expires_at) == (HandOutKind.RESUMED, first.expires_at)


# --- Prolific's ids are checked before anything is handed out --------------------------------


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"study": None}, MISSING_PARAMETER.format(name="STUDY_ID")),
        ({"study": ""}, MISSING_PARAMETER.format(name="STUDY_ID")),
        ({"study": "60aa11bb-22cc"}, BAD_PARAMETER.format(name="STUDY_ID")),
        ({"session": "61bb22cc;drop"}, BAD_PARAMETER.format(name="SESSION_ID")),
        ({"pid": "zz" * 12}, BAD_PARAMETER.format(name="Prolific ID (PROLIFIC_PID)")),
    ],
    ids=["no-study", "empty-study", "study-dash", "session-semicolon", "pid-not-hex"],
)
def test_malformed_prolific_ids_get_a_clear_400_and_create_nothing(demo, params, message):
    response = Client().get(prolific_url(demo, **params))
    assert response.status_code == 400
    assert escape(message) in response.content.decode()
    assert (Worker.objects.count(), Assignment.objects.count()) == (0, 0)


def test_malformed_visits_do_not_use_up_the_start_limit(demo, settings):
    settings.START_RATE = "2/10m"
    client = Client(REMOTE_ADDR="203.0.113.7")
    for _ in range(5):
        assert client.get(prolific_url(demo, study=None)).status_code == 400
    assert [client.get(prolific_url(demo)).status_code for _ in range(3)] == [302, 302, 429]


# --- The campaign's own Prolific study ----------------------------------------------------------


def test_with_the_study_id_set_another_studys_visit_is_refused_and_writes_nothing(demo):
    demo.prolific_study_id = STUDY
    demo.save(update_fields=["prolific_study_id"])
    response = Client().get(prolific_url(demo, study="60aa11bb22cc33dd44eeffff"))
    assert response.status_code == 403
    assert escape(str(WRONG_STUDY)) in response.content.decode()
    assert (Worker.objects.count(), Assignment.objects.count()) == (0, 0)


def test_with_the_study_id_set_a_visit_needs_its_session_id(demo):
    demo.prolific_study_id = STUDY
    demo.save(update_fields=["prolific_study_id"])
    response = Client().get(prolific_url(demo, session=None))
    assert response.status_code == 400
    assert escape(MISSING_PARAMETER.format(name="SESSION_ID")) in response.content.decode()
    assert (Worker.objects.count(), Assignment.objects.count()) == (0, 0)


def test_with_the_study_id_set_its_own_visits_get_a_task_whatever_the_case(demo):
    demo.prolific_study_id = STUDY.upper()
    demo.save(update_fields=["prolific_study_id"])
    response = Client().get(prolific_url(demo))
    assignment = Assignment.objects.get()
    assert (response.status_code, response["Location"]) == (302, task_url(assignment))
    assert assignment.platform_hit_id == STUDY


def test_without_the_study_id_any_study_is_taken_as_before(demo):
    assert demo.prolific_study_id == ""
    response = Client().get(prolific_url(demo, study="60aa11bb22cc33dd44eeffff"))
    assert response.status_code == 302
    assert Assignment.objects.count() == 1


# --- MTurk accepts (made-up ids filled every place of a published HIT) ------------------------


@pytest.fixture
def mturk_hit():
    """A HIT of three places, published on MTurk's sandbox."""
    campaign = CampaignFactory(redundancy=3, assignment_duration_seconds=DURATION, status="active")
    hit = HitFactory(campaign=campaign, number=1)
    HitSlotFactory(hit=hit, position=1)
    publish(hit, MTURK_HIT_ID)
    return hit


def mturk_accept(hit, worker: str, assignment: str, address: str = "203.0.113.7"):
    """An accept of ``hit`` from the client at ``address``."""
    url = accept_url(hit, workerId=worker, assignmentId=assignment)
    return Client(REMOTE_ADDR=address).get(url)


def test_mturk_accepts_that_take_a_place_count_against_the_start_limit(mturk_hit, settings):
    """The attack: made-up accepts from one client took all of a HIT's places for the
    campaign's working time, and MTurk's real worker was told to return the HIT. Now the
    client's third accept is refused before anything is written, and the real worker, from
    another address, gets the place that is left."""
    settings.START_RATE = "2/10m"
    forged = [mturk_accept(mturk_hit, f"FAKEWORKER{i}", f"3FAKEASSIGNMENT{i}") for i in range(3)]

    assert [r.status_code for r in forged] == [302, 302, 429]
    assert 1 <= int(forged[2]["Retry-After"]) <= 600
    assert "Too many tasks were started from your network" in forged[2].content.decode()
    assert "frame-ancestors https://worker.mturk.com" in forged[2]["Content-Security-Policy"]
    assert sorted(Assignment.objects.values_list("platform_assignment_id", flat=True)) == [
        "3FAKEASSIGNMENT0",
        "3FAKEASSIGNMENT1",
    ]
    real = mturk_accept(mturk_hit, "A1REALWORKER", "3REALASSIGNMENT", address="198.51.100.20")
    assert real.status_code == 302
    assert Assignment.objects.get(platform_assignment_id="3REALASSIGNMENT").status == (
        AssignmentStatus.STARTED
    )


def test_reopening_ones_own_mturk_assignment_is_never_limited(mturk_hit, settings):
    """MTurk's frame is reloaded (or the HIT opened again from the worker's queue) as often
    as the worker likes: only the first accept counted, so one more accept may start."""
    settings.START_RATE = "2/10m"
    first = mturk_accept(mturk_hit, "A1WORKER", "3ASSIGNMENTA")
    again = [mturk_accept(mturk_hit, "A1WORKER", "3ASSIGNMENTA") for _ in range(5)]
    assert {r["Location"] for r in again} == {first["Location"]}

    others = [mturk_accept(mturk_hit, f"A{i}OTHER", f"3ASSIGNMENT{i}") for i in range(2)]

    assert [r.status_code for r in others] == [302, 429]
    assert Assignment.objects.count() == 2


def test_an_mturk_accept_that_takes_no_place_gives_its_start_back(mturk_hit, settings):
    """A HIT whose places are all taken refuses with 409 and writes nothing: that accept
    took nothing from the pool, so it does not use up the client's starts."""
    settings.START_RATE = "2/10m"
    for i in range(3):  # the HIT's three places, from three other clients
        assert mturk_accept(
            mturk_hit, f"A{i}HOLDER", f"3HOLDER{i}", f"198.51.100.{i}"
        ).status_code == (302)
    refused = [mturk_accept(mturk_hit, f"A{i}LATE", f"3LATE{i}") for i in range(3)]
    assert [r.status_code for r in refused] == [409, 409, 409]

    Assignment.objects.filter(platform_assignment_id="3HOLDER0").update(
        status=AssignmentStatus.RETURNED
    )
    assert mturk_accept(mturk_hit, "A9LATE", "3LATE9").status_code == 302
