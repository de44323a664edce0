"""A change of reward on the campaign's page says whom it reaches (campaigns.pay): work already
taken keeps its reward, new assignments get the new one, HITs on MTurk keep what they were
published with; a kind's own pay setting (post-editing's verification reward) re-prices the
task's HITs built already."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.contrib.messages import get_messages

from campaigns.models import Hit, HitTask, MTurkHit, TaskKind
from judgments.models import Assignment, AssignmentStatus
from tests.campaigns.test_admin_kinds import change_url, page_form
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory

pytestmark = pytest.mark.django_db


def save(admin_client, campaign, **changes) -> list[str]:
    """Post the campaign's page with ``changes``; the messages the next page shows."""
    form = page_form(admin_client.get(change_url(campaign)).content.decode())
    response = admin_client.post(change_url(campaign), {**form.data, **changes})
    assert response.status_code == 302, response.content.decode()[:3000]
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_a_new_reward_leaves_work_taken_and_published_hits_as_they_were(admin_client):
    campaign = CampaignFactory(reward=Decimal("0.50"), redundancy=3)
    published = HitFactory(campaign=campaign, number=1)
    MTurkHit.objects.create(
        hit=published,
        mturk_hit_id="3PUB",
        hit_type_id="T",
        sandbox=False,
        max_assignments=3,
        reward=Decimal("0.50"),
    )
    HitFactory(campaign=campaign, number=2)
    for _ in range(3):
        AssignmentFactory(hit=published, status=AssignmentStatus.SUBMITTED)

    said = save(admin_client, campaign, reward="1.00")

    assert (
        "Reward changed from $0.50 to $1.00 per assignment. The 3 assignments already taken "
        "keep the reward they were taken at, as the cost report counts them; assignments taken "
        "from now on get $1.00 (HITs with a reward of their own keep it). The HIT published on "
        "MTurk keeps the reward it was published with: MTurk fixes a HIT's reward when it is "
        "published, so only HITs published from now on offer the new one."
    ) in said
    assert sorted(Assignment.objects.values_list("reward", flat=True)) == [Decimal("0.50")] * 3
    assert MTurkHit.objects.get().reward == Decimal("0.50")


def test_a_new_reward_before_any_work_says_nothing_more(admin_client):
    campaign = CampaignFactory(reward=Decimal("0.50"))
    HitFactory(campaign=campaign, number=1)

    said = save(admin_client, campaign, reward="0.80")

    assert not [m for m in said if "Reward changed" in m]


def test_a_new_verification_reward_reprices_the_verification_hits_built(admin_client):
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING, reward=Decimal("0.40"))
    HitFactory(campaign=campaign, number=1, task=HitTask.POST_EDIT)
    verify = [
        HitFactory(campaign=campaign, number=n, task=HitTask.VERIFY_EDIT, places=3) for n in (2, 3)
    ]
    taken = AssignmentFactory(hit=verify[0], status=AssignmentStatus.SUBMITTED)
    assert taken.reward == Decimal("0.40")  # the editing reward, until now

    said = save(admin_client, campaign, **{"post_editing_settings-0-verification_reward": "0.10"})

    assert (
        "Verification HITs now pay $0.10. 2 HITs built already were re-priced; assignments "
        "already taken keep the reward they were taken at."
    ) in said
    rewards = dict(Hit.objects.filter(campaign=campaign).values_list("number", "reward"))
    assert rewards == {1: None, 2: Decimal("0.10"), 3: Decimal("0.10")}
    assert Assignment.objects.get(pk=taken.pk).reward == Decimal("0.40")

    # Emptied: the campaign's reward again.
    said = save(admin_client, campaign, **{"post_editing_settings-0-verification_reward": ""})
    assert (
        "Verification HITs now pay $0.40 (the campaign's reward). 2 HITs built already were "
        "re-priced; assignments already taken keep the reward they were taken at."
    ) in said
    assert set(Hit.objects.filter(campaign=campaign).values_list("reward", flat=True)) == {None}
