"""Deleting a campaign in the admin (session 16's requester walkthrough, C8): a campaign whose
HITs were built but never taken is deleted, HITs and all; one that workers worked on is kept,
and its delete page says why and what to do instead, not "your account doesn't have
permission" to a superuser."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign, CampaignStatus, Hit, HitSlot, MTurkHit, Output, Segment
from judgments.models import Assignment, Judgment
from tests.factories import AssignmentFactory, HitSlotFactory, JudgmentFactory

pytestmark = pytest.mark.django_db


def delete_url(campaign: Campaign) -> str:
    return reverse("admin:campaigns_campaign_delete", args=[campaign.pk])


def test_a_campaign_with_built_hits_nobody_took_is_deleted_with_them(admin_client):
    slot = HitSlotFactory()
    campaign = slot.hit.campaign
    Campaign.objects.filter(pk=campaign.pk).update(status=CampaignStatus.DRAFT)

    page = admin_client.get(delete_url(campaign)).content.decode()
    assert "t have permission" not in page
    assert 'name="post"' in page  # Django's confirmation, listing what goes

    response = admin_client.post(delete_url(campaign), {"post": "yes"})

    assert response.status_code == 302
    assert not Campaign.objects.filter(pk=campaign.pk).exists()
    assert not Hit.objects.filter(pk=slot.hit_id).exists()
    assert not HitSlot.objects.filter(pk=slot.pk).exists()
    assert not Segment.objects.filter(pk=slot.segment_id).exists()
    assert not Output.objects.filter(pk=slot.output_id).exists()


def test_a_campaign_workers_worked_on_is_kept_and_the_page_says_why(admin_client):
    judgment = JudgmentFactory()
    campaign = judgment.campaign
    AssignmentFactory(campaign=campaign, hit=judgment.assignment.hit)  # a second, unanswered

    response = admin_client.get(delete_url(campaign))

    page = response.content.decode()
    assert "permission" not in page
    assert (
        "This campaign cannot be deleted: it holds 2 assignments and 1 judgment. evalsite "
        "never deletes workers&#x27; work. To stop the campaign, set its status to Finished: "
        "its results and exports stay available."
    ) in page
    assert 'name="post"' not in page  # no confirmation form: nothing to confirm
    assert "<li>Judgment" not in page  # and no list of the judgments it would delete

    response = admin_client.post(delete_url(campaign), {"post": "yes"})

    assert Campaign.objects.filter(pk=campaign.pk).exists()
    assert Judgment.objects.filter(pk=judgment.pk).exists()
    assert Assignment.objects.filter(campaign=campaign).count() == 2


def test_a_campaign_with_hits_on_mturk_is_kept_until_they_are_taken_off(admin_client):
    slot = HitSlotFactory()
    campaign = slot.hit.campaign
    MTurkHit.objects.create(
        hit=slot.hit,
        mturk_hit_id="3ABCDEFGHIJKLMNOPQRSTUVWXYZ012",
        hit_type_id="3TYPE",
        sandbox=True,
        max_assignments=3,
    )

    page = admin_client.get(delete_url(campaign)).content.decode()

    assert (
        "This campaign cannot be deleted: 1 of its HITs was published on MTurk. evalsite never "
        "deletes the record of what was published on MTurk and paid there. To stop the "
        "campaign, end its HITs there (action &quot;Expire MTurk HITs&quot;), then set its "
        "status to Finished: its results and exports stay available."
    ) in page
    response = admin_client.post(delete_url(campaign), {"post": "yes"})
    assert response.status_code == 302
    assert Campaign.objects.filter(pk=campaign.pk).exists()


def test_delete_selected_deletes_only_when_every_campaign_may_go(admin_client):
    kept = JudgmentFactory().campaign
    unworked = HitSlotFactory().hit.campaign
    changelist = reverse("admin:campaigns_campaign_changelist")
    chosen = {"action": "delete_selected", "_selected_action": [kept.pk, unworked.pk]}

    response = admin_client.post(changelist, {**chosen, "post": "yes"}, follow=True)

    shown = [str(m) for m in response.context["messages"]]
    assert shown == [
        f"{kept}: This campaign cannot be deleted: it holds 1 assignment and 1 judgment. "
        "evalsite never deletes workers' work. To stop the campaign, set its status to "
        "Finished: its results and exports stay available.",
        "Nothing was deleted: deselect the campaigns above.",
    ]
    assert Campaign.objects.filter(pk__in=[kept.pk, unworked.pk]).count() == 2

    chosen["_selected_action"] = [unworked.pk]
    confirm = admin_client.post(changelist, chosen).content.decode()
    assert "t have permission" not in confirm
    admin_client.post(changelist, {**chosen, "post": "yes"})
    assert not Campaign.objects.filter(pk=unworked.pk).exists()
    assert Campaign.objects.filter(pk=kept.pk).exists()


def test_staff_without_the_delete_permission_still_get_403(client, django_user_model):
    from django.contrib.auth.models import Permission

    from analytics.models import AccessLevel, CampaignAccess

    campaign = JudgmentFactory().campaign
    user = django_user_model.objects.create_user("viewer", password="pw", is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
    )
    CampaignAccess.objects.create(campaign=campaign, user=user, level=AccessLevel.CHANGE)
    client.force_login(user)

    assert client.get(delete_url(campaign)).status_code == 403
    assert client.post(delete_url(campaign), {"post": "yes"}).status_code == 403
    assert Campaign.objects.filter(pk=campaign.pk).exists()


def test_the_list_action_deletes_hits_nobody_started_and_keeps_started_ones(admin_client):
    """The way the import and build messages give to add a late system: delete the HITs
    nobody has started, import, build again (session 17; it was the admin's generic Hits list,
    filtered by hand)."""
    unstarted = HitSlotFactory().hit
    started = JudgmentFactory().assignment.hit
    changelist = reverse("admin:campaigns_campaign_changelist")

    response = admin_client.post(
        changelist,
        {
            "action": "delete_hits",
            "_selected_action": [unstarted.campaign_id, started.campaign_id],
        },
        follow=True,
    )

    assert [str(m) for m in response.context["messages"]] == [
        f"{unstarted.campaign}: deleted 1 HIT(s) nobody had started. Build them again once "
        "the campaign's systems and outputs are complete.",
        f"{started.campaign}: no HITs deleted. Workers have already started this campaign's "
        "HITs, so they cannot be rebuilt. Create a new campaign to evaluate with a different "
        "layout.",
    ]
    assert not Hit.objects.filter(pk=unstarted.pk).exists()
    assert Hit.objects.filter(pk=started.pk).exists()
    assert Segment.objects.filter(campaign=unstarted.campaign).count() == 1  # content stays
