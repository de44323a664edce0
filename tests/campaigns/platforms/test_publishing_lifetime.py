"""Expiring and extending published HITs, and the qualification granted to MTurk workers who
pass the test, against botocore's Stubber."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from campaigns.models import MTurkHit, PlatformEvent
from campaigns.platforms import publishing
from campaigns.tasks.publishing import grant_mturk_qualification
from judgments.models import CampaignWorker, Platform
from tests.campaigns.platforms import publishing_support as support
from tests.campaigns.platforms.publishing_support import (
    GRANT,
    HIT_TYPE,
    QUAL,
    WORKER,
    expire_params,
    mturk_campaign,
    mturk_hit_id,
    published_rows,
)
from tests.factories import HitFactory, WorkerFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("https_base")]

https_base = support.https_base  # the shared fixture
mturk_stub = support.mturk_stub  # the shared fixture


# --- Expire and extend -----------------------------------------------------------------------


def test_expire_ends_each_hit_on_mturk_then_locally(mturk_stub):
    campaign = mturk_campaign()
    rows = published_rows(campaign)
    for row in rows:
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row))
    result = publishing.expire(MTurkHit.objects.filter(hit__campaign=campaign))
    assert (len(result.done), result.failed, result.message()) == (
        2,
        [],
        "Ended 2 MTurk HIT(s).",
    )
    for row in rows:
        row.refresh_from_db()
        assert row.expired_by_requester_at is not None
        assert row.expires_at == row.expired_by_requester_at
    # Ended HITs are left alone the second time (no MTurk call is stubbed).
    again = publishing.expire(MTurkHit.objects.all())
    assert again.message() == "Ended 0 MTurk HIT(s). 2 left as they were (already ended)."


def test_an_unknown_hit_is_reported_and_the_others_still_end(mturk_stub):
    campaign = mturk_campaign()
    first, second = published_rows(campaign)
    mturk_stub.error(
        "update_expiration_for_hit",
        "Hit does not exist.",
        turk_code="AWS.MechanicalTurk.HITDoesNotExist",
        params=expire_params(first),
    )
    mturk_stub.add("update_expiration_for_hit", {}, expire_params(second))
    result = publishing.expire(MTurkHit.objects.all())
    assert [row.pk for row in result.done] == [second.pk]
    first.refresh_from_db()
    assert first.expired_by_requester_at is None  # MTurk did not confirm: nothing local
    event = PlatformEvent.objects.get(kind="error")
    assert (event.operation, event.code) == ("expire", "AWS.MechanicalTurk.HITDoesNotExist")
    assert event.what_to_do.startswith("MTurk does not know this HIT id in this environment")


def test_an_account_wide_error_stops_the_batch_and_changes_nothing(mturk_stub):
    campaign = mturk_campaign()
    first = published_rows(campaign, count=3)[0]
    mturk_stub.error(
        "update_expiration_for_hit",
        "The security token included in the request is invalid.",
        code="UnrecognizedClientException",
        params=expire_params(first),
    )
    result = publishing.expire(MTurkHit.objects.all())
    assert (len(result.done), len(result.failed), result.not_attempted) == (0, 1, 2)
    assert not MTurkHit.objects.filter(expired_by_requester_at__isnull=False).exists()
    assert result.message().endswith(
        "2 HIT(s) were not tried after that error; run the action again once it is fixed."
    )


def test_expire_builds_one_client_per_environment(mturk_stub):
    sandbox_rows = published_rows(mturk_campaign(), count=2)
    production = HitFactory(campaign=mturk_campaign(name="Live", mturk_sandbox=False), number=1)
    live = MTurkHit.objects.create(
        hit=production, mturk_hit_id=mturk_hit_id(9), hit_type_id=HIT_TYPE, sandbox=False,
        max_assignments=3,
    )  # fmt: skip
    for row in [*sandbox_rows, live]:
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row))
    result = publishing.expire(MTurkHit.objects.order_by("pk"))
    assert len(result.done) == 3
    assert [call.args for call in mturk_stub.factory.call_args_list] == [(True,), (False,)]


def test_extend_sets_the_new_expiry_after_mturk_confirms_it(mturk_stub):
    campaign = mturk_campaign()
    first, second = published_rows(campaign)
    first.expired_by_requester_at = timezone.now()
    first.save()
    until = (timezone.now() + timedelta(days=10)).replace(microsecond=0)
    for row in (first, second):
        mturk_stub.add("update_expiration_for_hit", {}, expire_params(row, until))
    result = publishing.extend(MTurkHit.objects.all(), until)
    assert result.message() == "Extended 2 MTurk HIT(s)."
    for row in (first, second):
        row.refresh_from_db()
        assert (row.expires_at, row.expired_by_requester_at) == (until, None)
    # A HIT already open longer is left alone: MTurk cannot shorten it.
    shorter = publishing.extend(MTurkHit.objects.all(), until - timedelta(days=1))
    assert shorter.message() == (
        "Extended 0 MTurk HIT(s). 2 left as they were (already open until then or later)."
    )


def test_extend_refuses_a_past_or_too_distant_expiry():
    with pytest.raises(ValueError, match="must be in the future"):
        publishing.extend([], timezone.now() - timedelta(minutes=1))
    with pytest.raises(ValueError, match="at most 365 days"):
        publishing.extend([], timezone.now() + timedelta(days=366))
    with pytest.raises(ValueError, match="between 1 and 365 days; got 0"):
        publishing.days_from_now("0")
    with pytest.raises(ValueError, match="whole number, e.g. 7; got 'soon'"):
        publishing.days_from_now("soon")


# --- The qualification granted to MTurk workers who pass the test -----------------------------


@pytest.fixture
def test_campaign(db):
    from tests.judgments.test_qualification import EXPECTED
    from tests.judgments.test_rank_submission import build_ranking_hit, ranking_campaign

    campaign = ranking_campaign(
        qualification_required=True,
        qualification_pass_mark=Decimal("0.8"),  # 4 of 4 right passes, 3 of 4 fails
        mturk_qualification_type_id=QUAL,
    )
    build_ranking_hit(campaign, number=1)
    build_ranking_hit(campaign, number=2, is_qualification=True, expected=EXPECTED)
    return campaign


def take_the_test(campaign, worker, passing, capture):
    from tests.judgments.test_qualification import answers, take_test

    with capture(execute=True):
        take_test(worker, campaign, answers(right_in_last=passing))
    return CampaignWorker.objects.get(campaign=campaign, worker=worker)


def test_passing_the_test_grants_the_mturk_qualification(
    test_campaign, mturk_stub, django_capture_on_commit_callbacks
):
    worker = WorkerFactory(platform=Platform.MTURK, external_id=WORKER)
    mturk_stub.add(
        "associate_qualification_with_worker",
        {},
        GRANT,
    )
    membership = take_the_test(test_campaign, worker, True, django_capture_on_commit_callbacks)
    assert membership.qualification_passed is True
    mturk_stub.factory.assert_called_once_with(True)
    assert not PlatformEvent.objects.exists()


@pytest.mark.parametrize(
    ("platform", "passing"), [(Platform.MTURK, False), (Platform.PROLIFIC, True)]
)
def test_no_grant_for_a_failed_test_or_a_worker_from_elsewhere(
    platform, passing, test_campaign, mturk_stub, django_capture_on_commit_callbacks
):
    worker = WorkerFactory(platform=platform, external_id=WORKER)
    membership = take_the_test(test_campaign, worker, passing, django_capture_on_commit_callbacks)
    assert membership.qualification_passed is passing
    mturk_stub.factory.assert_not_called()


def test_a_refused_grant_is_stored_with_what_to_do(test_campaign, mturk_stub):
    worker = WorkerFactory(platform=Platform.MTURK, external_id=WORKER)
    membership = CampaignWorker.objects.create(
        campaign=test_campaign, worker=worker, qualification_passed=True
    )
    mturk_stub.error(
        "associate_qualification_with_worker",
        "QualificationType 3QUAL0000000000000000000000001 does not exist.",
        turk_code="AWS.MechanicalTurk.QualificationTypeDoesNotExist",
        params=GRANT,
    )
    assert grant_mturk_qualification.delay(membership.pk).get() is False
    event = PlatformEvent.objects.get()
    assert (event.kind, event.operation, event.code) == (
        "error",
        "grant qualification",
        "AWS.MechanicalTurk.QualificationTypeDoesNotExist",
    )
    assert event.message == (
        f"Worker {WORKER} passed the qualification test but MTurk did not grant them "
        f"qualification {QUAL}: QualificationType {QUAL} does not exist."
    )
    assert event.what_to_do.endswith(
        "Until then the worker cannot accept the campaign's HITs; you can also grant it on the "
        "requester website (Manage, Workers, the worker, Assign qualification, value 1)."
    )
