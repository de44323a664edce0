"""Issue 11, item 1: forged MTurk accepts. Anyone can open ``/work/mturk/<hit>/`` with a
made-up ``assignmentId`` and ``workerId``; before the fix, 10 of 10 such accepts got work on a
HIT MTurk offered 3 times, and all their judgments were counted.

Replayed here over HTTP on a production HIT of 3 places: only 3 accepts get a task, the 7 others
a 409 page that says why, and nothing is written for them. The judgments of assignments MTurk
has not reported stay stored but count in no score (loaded as held back, like a rejected
assignment's) until the sync (botocore's Stubber, as in tests/campaigns/platforms/) sees the
assignment on MTurk; the confirmation is announced and makes the stored results stale, so the
sweep recomputes them too.
"""

from __future__ import annotations

import random
from datetime import timedelta
from urllib.parse import urlencode

import numpy as np
import pytest
from django.urls import reverse
from django.utils import timezone

from analytics import actions
from analytics.kinds.direct_assessment.loading import load_da_judgments
from analytics.kinds.ranking.loading import load_ranking_judgments
from analytics.loading import held_back_assignment_ids
from analytics.models import CampaignResult
from campaigns.platforms import review
from campaigns.platforms.models import MTurkHit
from judgments.actions import (
    MTurkAcceptRefused,
    NoWorkReason,
    accept_mturk_assignment,
    next_assignment_for,
)
from judgments.models import (
    Assignment,
    AssignmentStatus,
    CampaignWorker,
    Judgment,
    Platform,
    Worker,
)
from tests.analytics.kinds.direct_assessment.test_actions import RANDOM, build_small_campaign
from tests.analytics.kinds.ranking.test_loading import build_ranking_campaign
from tests.campaigns.platforms import review_support as review_fixtures
from tests.campaigns.platforms.review_support import list_response, remote_item
from tests.factories import CampaignFactory, HitFactory, HitSlotFactory, WorkerFactory

pytestmark = pytest.mark.django_db

# The Stubber on a real boto3 client, and the campaigns announced for a recompute (shared).
mturk_stub = review_fixtures.mturk_stub
announced = review_fixtures.announced

PRODUCTION = "https://www.mturk.com"
MTURK_HIT_ID = "3FORGEDHIT00000000000000000001"
HIT_FULL = (
    "Every place on this HIT is taken: it is offered to 3 worker(s) at a time and 3 already "
    "hold it. Please return this HIT on MTurk; a place frees up when someone else&#x27;s time "
    "on it runs out."
)


def made_up_id(rng: random.Random, length: int) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") for _ in range(length))


def publish(hit, *, places=3, sandbox=False):
    return MTurkHit.objects.create(
        hit=hit,
        mturk_hit_id=MTURK_HIT_ID,
        hit_type_id="3TYPE",
        sandbox=sandbox,
        max_assignments=places,
    )


def accept(client, hit, worker_id, assignment_id, turk_submit_to=PRODUCTION):
    params = {
        "assignmentId": assignment_id,
        "hitId": MTURK_HIT_ID,
        "workerId": worker_id,
        "turkSubmitTo": turk_submit_to,
    }
    url = reverse("judgments:mturk-task", args=[hit.pk]) + "?" + urlencode(params)
    return client.get(url)


def forged_accepts(client, hit, n=10, seed=11):
    """``n`` accepts with made-up worker and assignment ids, as the attacker sent them."""
    rng = random.Random(seed)
    return [
        accept(client, hit, "A" + made_up_id(rng, 13), "3" + made_up_id(rng, 29)) for _ in range(n)
    ]


def answer(assignment, slots, scores):
    """The worker's answers, as the task page stores them, and the submission."""
    Judgment.objects.bulk_create(
        Judgment(
            campaign_id=assignment.campaign_id,
            worker_id=assignment.worker_id,
            assignment=assignment,
            slot=slot,
            score=float(score),
            client_duration_ms=1000,
        )
        for slot, score in zip(slots, scores, strict=True)
    )
    Assignment.objects.filter(pk=assignment.pk).update(
        status=AssignmentStatus.SUBMITTED, submitted_at=timezone.now()
    )


def counts():
    return (
        Worker.objects.filter(platform=Platform.MTURK).count(),
        CampaignWorker.objects.filter(worker__platform=Platform.MTURK).count(),
        Assignment.objects.filter(worker__platform=Platform.MTURK).count(),
    )


# --- (a) The HIT's places are counted for MTurk accepts -----------------------------------------


def test_ten_forged_accepts_on_a_hit_of_three_places_get_three_tasks(client):
    small = build_small_campaign(redundancy=3)
    hit = small.careful.hit
    publish(hit)

    responses = forged_accepts(client, hit)

    assert [response.status_code for response in responses] == [302] * 3 + [409] * 7
    for refused in responses[3:]:
        assert HIT_FULL in refused.content.decode()
    # The refused accepts wrote nothing: no worker, membership or assignment.
    assert counts() == (3, 3, 3)
    # The direct-link assignments of the same HIT are no MTurk places.
    assert Assignment.objects.filter(hit=hit).count() == 5


def test_a_place_frees_up_when_an_mturk_assignment_no_longer_holds_it(client):
    small = build_small_campaign(redundancy=3)
    hit = small.careful.hit
    publish(hit)
    forged_accepts(client, hit, n=3)
    first, second, third = Assignment.objects.filter(worker__platform=Platform.MTURK).order_by("pk")
    assert accept(client, hit, "AQUEUED1", "3QUEUED1").status_code == 409

    # A reload of MTurk's frame by a worker holding a place resumes it, full or not.
    resumed = accept(client, hit, first.worker.external_id, first.platform_assignment_id)
    assert resumed.status_code == 302
    # Submitted and approved assignments hold their place; one past its deadline, returned or
    # rejected does not.
    Assignment.objects.filter(pk=second.pk).update(status=AssignmentStatus.APPROVED)
    Assignment.objects.filter(pk=third.pk).update(expires_at=timezone.now() - timedelta(1))
    assert accept(client, hit, "AQUEUED1", "3QUEUED1").status_code == 302
    assert accept(client, hit, "AQUEUED2", "3QUEUED2").status_code == 409
    Assignment.objects.filter(pk=second.pk).update(status=AssignmentStatus.REJECTED)
    assert accept(client, hit, "AQUEUED2", "3QUEUED2").status_code == 302
    # The worker whose assignment lapsed comes back under the same id: the HIT is full again.
    lapsed = accept(client, hit, third.worker.external_id, third.platform_assignment_id)
    assert (lapsed.status_code, HIT_FULL in lapsed.content.decode()) == (409, True)
    third.refresh_from_db()
    assert third.expires_at < timezone.now()  # unchanged


def test_the_limit_is_the_published_max_assignments_in_the_sandbox_too():
    small = build_small_campaign(redundancy=3)
    hit = small.careful.hit
    publish(hit, places=1, sandbox=True)
    sandbox = "https://workersandbox.mturk.com"
    taken = accept_mturk_assignment(hit, "AW1", "3A1", MTURK_HIT_ID, sandbox)
    assert taken.assignment is not None
    with pytest.raises(MTurkAcceptRefused) as refused:
        accept_mturk_assignment(hit, "AW2", "3A2", MTURK_HIT_ID, sandbox)
    assert (refused.value.status, str(refused.value)) == (
        409,
        "Every place on this HIT is taken: it is offered to 1 worker(s) at a time and 1 "
        "already hold it. Please return this HIT on MTurk; a place frees up when someone "
        "else's time on it runs out.",
    )


# --- (b) Judgments of assignments MTurk has not confirmed count in no score ------------------


def test_forged_judgments_are_stored_but_out_of_the_scores_until_mturk_confirms_them(
    client, mturk_stub, announced, django_capture_on_commit_callbacks
):
    small = build_small_campaign(redundancy=3)
    campaign, hit = small.campaign, small.careful.hit
    publish(hit)
    forged_accepts(client, hit)
    forged = list(Assignment.objects.filter(worker__platform=Platform.MTURK).order_by("pk"))
    for assignment in forged:
        answer(assignment, small.slots, RANDOM)

    # Stored and flagged (held back, like a rejected assignment's), out of every score.
    assert Judgment.objects.filter(campaign=campaign).count() == 52 + 3 * 26
    loaded = load_da_judgments(campaign.pk)
    assert set(held_back_assignment_ids(campaign.pk).tolist()) == {a.pk for a in forged}
    held_back = np.isin(loaded.judgments.assignment, [a.pk for a in forged])
    np.testing.assert_array_equal(loaded.rejected, held_back)
    assert (loaded.n_read, loaded.n_rejected_read, int(loaded.scored.sum())) == (130, 78, 52)
    result = actions.recompute_campaign(campaign)
    assert (result.n_judgments, result.n_scored_judgments, result.n_rejected_judgments) == (
        130,
        52,
        78,
    )
    assert not actions.stale_campaigns().filter(pk=campaign.pk).exists()

    # MTurk lists one of the three (as if its worker had really accepted and submitted it);
    # the two it never saw stay held back.
    genuine = forged[0]
    item = remote_item(
        genuine.platform_assignment_id,
        "Submitted",
        worker=genuine.worker.external_id,
        hit_id=MTURK_HIT_ID,
    )
    list_response(mturk_stub, [item], hit_id=MTURK_HIT_ID)
    # The announcement (a recompute) runs after the commit: held back here, as if lost.
    with django_capture_on_commit_callbacks(execute=False) as after_commit:
        report = review.sync_campaign(campaign.pk)
    assert mturk_stub.environments == [False]  # the production client, as the HIT is there
    assert report.confirmed == [genuine.platform_assignment_id]
    assert "1 confirmed by MTurk (now in the scores)" in report.summary()
    assert set(held_back_assignment_ids(campaign.pk).tolist()) == {a.pk for a in forged[1:]}

    # The stored results are stale now: the sweep would recompute them.
    assert actions.stale_campaigns().filter(pk=campaign.pk).exists()
    # The announcement recomputes them at once; the confirmed assignment counts.
    for callback in after_commit:
        callback()
    assert announced == [[campaign.pk]]
    result = CampaignResult.objects.get(campaign=campaign)
    assert (result.n_judgments, result.n_scored_judgments, result.n_rejected_judgments) == (
        130,
        78,
        52,
    )
    assert not actions.stale_campaigns().filter(pk=campaign.pk).exists()
    actions.clear_recompute_flag(campaign.pk)


def test_a_sync_that_confirms_nothing_announces_nothing(
    client, mturk_stub, announced, django_capture_on_commit_callbacks
):
    small = build_small_campaign(redundancy=3)
    publish(small.careful.hit)
    forged_accepts(client, small.careful.hit, n=1)
    list_response(mturk_stub, [], hit_id=MTURK_HIT_ID)
    with django_capture_on_commit_callbacks(execute=True):
        report = review.sync_campaign(small.campaign.pk)
    assert (report.confirmed, announced) == ([], [])
    assert len(held_back_assignment_ids(small.campaign.pk)) == 1
    actions.clear_recompute_flag(small.campaign.pk)


def test_a_new_mturk_assignment_id_on_a_confirmed_row_is_unconfirmed_again(client):
    small = build_small_campaign(redundancy=3)
    publish(small.careful.hit)
    forged_accepts(client, small.careful.hit, n=1)
    row = Assignment.objects.get(worker__platform=Platform.MTURK)
    Assignment.objects.filter(pk=row.pk).update(
        platform_status="Submitted", status=AssignmentStatus.RETURNED
    )
    assert len(held_back_assignment_ids(small.campaign.pk)) == 0
    # Returned and accepted again under an id MTurk has not reported: held back again.
    assert accept(client, small.careful.hit, row.worker.external_id, "3NEWID").status_code == 302
    assert held_back_assignment_ids(small.campaign.pk).tolist() == [row.pk]
    actions.clear_recompute_flag(small.campaign.pk)


def test_unconfirmed_mturk_rankings_are_held_back_like_rejected_ones():
    ranking = build_ranking_campaign()
    campaign = ranking.campaign
    before = load_ranking_judgments(campaign.pk)
    # One scored assignment with rankings, turned into an MTurk one MTurk never reported.
    scored_id = int(before.judgments.assignment[before.scored][0])
    assignment = Assignment.objects.get(pk=scored_id)
    assignment.turk_submit_to = PRODUCTION
    assignment.platform_assignment_id = "3RANKING0001"
    assignment.save()
    mine = before.judgments.assignment == assignment.pk
    assert mine.any() and before.scored[mine].all()

    loaded = load_ranking_judgments(campaign.pk)
    np.testing.assert_array_equal(loaded.rejected, before.rejected | mine)
    assert not loaded.scored[mine].any()
    assert loaded.n_rejected_read == before.n_rejected_read + int(mine.sum())

    assignment.platform_status = "Submitted"
    assignment.save()
    confirmed = load_ranking_judgments(campaign.pk)
    np.testing.assert_array_equal(confirmed.rejected, before.rejected)


def test_judgments_of_other_platforms_are_not_held_back():
    small = build_small_campaign()
    # Direct links, and MTurk assignments that did not come through our page (MTurk's own
    # batch file: no turkSubmitTo), count as before.
    Worker.objects.filter(pk=small.random.worker_id).update(platform=Platform.MTURK)
    Assignment.objects.filter(pk=small.random.pk).update(platform_assignment_id="3BATCH1")
    assert len(held_back_assignment_ids(small.campaign.pk)) == 0
    assert int(load_da_judgments(small.campaign.pk).scored.sum()) == 52


# --- Direct links and Prolific leave MTurk's HITs to MTurk ---------------------------------------


def test_a_hit_published_on_mturk_is_not_handed_out_by_direct_link():
    """Replayed live: 4 direct-link and 3 MTurk assignments on one HIT of redundancy 5. A HIT
    published on MTurk is MTurk's to hand out; direct links take the others."""
    campaign = CampaignFactory(redundancy=5, status="active")
    published = HitFactory(campaign=campaign, number=1)
    HitSlotFactory(hit=published, position=1)
    publish(published, places=3)
    unpublished = HitFactory(campaign=campaign, number=2)
    HitSlotFactory(hit=unpublished, position=1)
    hand_outs = [next_assignment_for(WorkerFactory(), campaign) for _ in range(6)]
    assert [h.assignment.hit_id for h in hand_outs[:5]] == [unpublished.pk] * 5
    assert hand_outs[5].assignment is None
    assert hand_outs[5].reason == NoWorkReason.ALL_TAKEN
    assert not published.assignments.exists()


def test_a_campaign_published_whole_on_mturk_sends_direct_visitors_there():
    campaign = CampaignFactory(redundancy=5, status="active")
    hit = HitFactory(campaign=campaign, number=1)
    HitSlotFactory(hit=hit, position=1)
    publish(hit, places=5)
    hand_out = next_assignment_for(WorkerFactory(), campaign)
    assert (hand_out.assignment, hand_out.reason) == (None, NoWorkReason.ON_MTURK)
    assert NoWorkReason.ON_MTURK.label == (
        "This campaign's tasks are offered on Amazon Mechanical Turk: please take them there."
    )
