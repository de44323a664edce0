"""HIT settings from a campaign, task URLs, and the plan shown before publishing (what it
costs, what blocks it)."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.test import override_settings

from campaigns.models import CampaignStatus, MTurkHit, PlatformEvent
from campaigns.platforms import publishing
from campaigns.platforms.mturk import HitSettings
from tests.campaigns.platforms import publishing_support as support
from tests.campaigns.platforms.publishing_support import (
    BASE,
    HIT_TYPE,
    QUAL,
    TEST_NOTE,
    expect_hit,
    expect_hit_type,
    mturk_campaign,
    mturk_hit_id,
    qualification_campaign,
)
from tests.factories import HitFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("https_base")]

https_base = support.https_base  # the shared fixture
mturk_stub = support.mturk_stub  # the shared fixture


# --- Settings, URLs, plan --------------------------------------------------------------------


def test_hit_settings_come_from_the_campaign():
    campaign = mturk_campaign(mturk_masters=True, mturk_sandbox=False)
    assert publishing.hit_settings_for(campaign) == HitSettings(
        title="Rate English translations of German sentences",
        description="Read a German sentence and rate how well each English translation "
        "expresses it.",
        keywords="translation, evaluation",
        reward=Decimal("0.30"),
        max_assignments=3,
        assignment_duration_seconds=3600,
        lifetime_seconds=604800,
        auto_approval_delay_seconds=259200,
        locales=("US", "GB"),
        min_approval_rate=95,
        min_approved_hits=1000,
        masters=True,
        custom_qualification_type_id=None,
        sandbox=False,
    )


def test_the_test_hit_has_its_places_and_no_custom_qualification_regular_hits_require_it():
    campaign = qualification_campaign(mturk_qualification_type_id=QUAL)
    test = publishing.hit_settings_for(campaign, qualification_test=True)
    assert test.max_assignments == 50
    assert test.custom_qualification_type_id is None
    assert test.title == "Qualification test: Rate English translations of German sentences"
    assert test.description == f"{campaign.description}\n\n{TEST_NOTE}"
    regular = publishing.hit_settings_for(campaign)
    assert (regular.max_assignments, regular.custom_qualification_type_id) == (3, QUAL)


def test_regular_settings_refuse_a_required_test_without_a_qualification_type():
    campaign = qualification_campaign()
    with pytest.raises(ValueError, match="no MTurk qualification type yet"):
        publishing.hit_settings_for(campaign)


def test_task_url_is_the_https_mturk_entry_page():
    hit = HitFactory()
    with override_settings(PUBLIC_BASE_URL="https://eval.example.org/"):
        assert publishing.task_url(hit) == f"https://eval.example.org/work/mturk/{hit.pk}/"


def test_task_url_refuses_http_and_says_what_to_set():
    hit = HitFactory()
    with override_settings(PUBLIC_BASE_URL="http://127.0.0.1:8000"):
        with pytest.raises(publishing.NotHttpsError) as caught:
            publishing.task_url(hit)
    assert str(caught.value) == (
        "PUBLIC_BASE_URL is http://127.0.0.1:8000, but MTurk only shows task pages served over "
        "HTTPS. Set PUBLIC_BASE_URL to this site's public HTTPS address (for example "
        "https://eval.example.org) and restart evalsite."
    )


def test_plan_splits_the_test_from_regular_hits_and_prices_them():
    campaign = qualification_campaign()
    first, second = HitFactory(campaign=campaign, number=1), HitFactory(campaign=campaign, number=2)
    test = HitFactory(campaign=campaign, number=3, is_qualification=True)
    current = publishing.plan(campaign)
    assert current.problems == []
    assert current.qualification_hits == [test]
    assert current.regular_hits == [first, second]
    assert (current.campaign_hits, current.published_hits) == (3, 0)
    # Regular: 2 HITs x 3 assignments x ($0.30 + 20% fee $0.06) = $2.16.
    assert current.regular_cost.total == Decimal("2.16")
    # The test: 1 HIT x 50 assignments, 40% fee (10 or more assignments): 50 x $0.42 = $21.00.
    assert current.qualification_cost.fee_rate == Decimal("0.40")
    assert current.qualification_cost.total == Decimal("21.00")
    assert current.total_cost == Decimal("23.16")
    assert current.first_url == f"{BASE}/work/mturk/{test.pk}/"
    assert current.creates_qualification_type is True
    assert current.can_publish


def test_plan_lists_every_problem_with_what_to_do():
    campaign = mturk_campaign(status=CampaignStatus.DRAFT, title="", reward=Decimal("0"))
    with override_settings(PUBLIC_BASE_URL="http://eval.example.org"):
        current = publishing.plan(campaign)
    assert current.problems == [
        publishing.Problem(
            "The campaign is draft, so workers arriving from MTurk would be turned away.",
            "Activate it first (campaign action 'Activate: hand out HITs').",
        ),
        publishing.Problem(
            "The campaign has no HITs yet.",
            "Import its segments, then run the campaign action 'Build HITs'.",
        ),
    ]
    HitFactory(campaign=campaign, number=1)
    with override_settings(PUBLIC_BASE_URL="http://eval.example.org"):
        current = publishing.plan(campaign)
    assert [problem.message for problem in current.problems] == [
        "The campaign is draft, so workers arriving from MTurk would be turned away.",
        "The HIT title is empty: workers see it in their search results.",
        "PUBLIC_BASE_URL is http://eval.example.org, but MTurk only shows task pages served "
        "over HTTPS.",
    ]
    assert current.problems[1].what_to_do == publishing.EDIT_CAMPAIGN
    assert not current.can_publish


def test_plan_refuses_a_zero_reward():
    campaign = mturk_campaign(reward=Decimal("0.00"))
    HitFactory(campaign=campaign, number=1)
    assert [str(problem) for problem in publishing.plan(campaign).problems] == [
        "The reward must be more than $0.00 on MTurk (the minimum is $0.01). "
        + publishing.EDIT_CAMPAIGN
    ]


def test_plan_needs_the_qualification_test_with_the_hits():
    campaign = qualification_campaign()
    HitFactory(campaign=campaign, number=1)
    assert [p.message for p in publishing.plan(campaign).problems] == [
        "The campaign requires the qualification test but has no qualification HIT, so no "
        "MTurk worker could ever qualify for its HITs."
    ]
    test = HitFactory(campaign=campaign, number=2, is_qualification=True)
    only_regular = publishing.plan(campaign, [campaign.hits.get(number=1).pk])
    assert [str(p) for p in only_regular.problems] == [
        "The qualification test HIT is not on MTurk and not among the chosen HITs, so no worker "
        "could qualify for them. Publish HIT 2 (the qualification test) with them, or publish "
        "the whole campaign."
    ]
    assert publishing.plan(campaign, [test.pk]).problems == []


def test_plan_keeps_a_campaign_in_one_environment():
    campaign = mturk_campaign(mturk_sandbox=False)
    published = HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2)
    MTurkHit.objects.create(
        hit=published, mturk_hit_id=mturk_hit_id(1), hit_type_id=HIT_TYPE, sandbox=True,
        max_assignments=3,
    )  # fmt: skip
    current = publishing.plan(campaign)
    assert [p.message for p in current.problems] == [
        "1 HIT(s) of this campaign are already on MTurk's sandbox; one campaign lives in one "
        "environment, since its assignments and judgments would otherwise mix."
    ]


def test_plan_names_hit_ids_of_other_campaigns():
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    stranger = HitFactory()
    assert [p.message for p in publishing.plan(campaign, [stranger.pk]).problems] == [
        f"HIT id(s) {stranger.pk} are not HITs of this campaign."
    ]


def test_plan_prices_each_batch_with_hit_settings_for():
    campaign = qualification_campaign()
    HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2, is_qualification=True)
    # No MTurk qualification type yet: publish() creates it first, so the plan prices the
    # regular HITs without it (the type changes neither the price nor the checks).
    current = publishing.plan(campaign)
    assert current.problems == []
    assert current.regular_settings == publishing.hit_settings_for(campaign, type_pending=True)
    assert current.regular_settings.custom_qualification_type_id is None
    assert current.qualification_settings == publishing.hit_settings_for(
        campaign, qualification_test=True
    )
    campaign.mturk_qualification_type_id = QUAL
    current = publishing.plan(campaign)
    assert current.regular_settings == publishing.hit_settings_for(campaign)
    assert current.regular_settings.custom_qualification_type_id == QUAL
    assert current.qualification_settings.custom_qualification_type_id is None


def test_the_plans_fingerprint_says_what_changed():
    campaign = mturk_campaign()
    HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2)
    reviewed = publishing.plan(campaign).fingerprint()
    assert {key: reviewed[key] for key in ("campaign", "environment", "hits", "cost")} == {
        "campaign": campaign.pk,
        "environment": "sandbox",
        "hits": "1-2",
        "cost": "2.16",
    }
    signed = publishing.sign_plan(publishing.plan(campaign))
    assert publishing.reviewed_plan(signed) == reviewed
    assert publishing.reviewed_plan(signed[:-1] + ("A" if signed[-1] != "A" else "B")) is None
    assert publishing.reviewed_plan("") is None
    assert publishing.plan_changes(publishing.plan(campaign), reviewed) == []

    campaign.keywords = "translation"  # a setting the cost does not show
    assert publishing.plan_changes(publishing.plan(campaign), reviewed) == [
        "the HITs' settings (title, description, reward, assignments, durations or worker "
        "requirements)"
    ]
    campaign.keywords = "translation, evaluation"
    campaign.mturk_sandbox = False
    assert publishing.plan_changes(publishing.plan(campaign), reviewed) == [
        "environment SANDBOX -> PRODUCTION"
    ]
    first = campaign.hits.get(number=1)
    assert publishing.plan_changes(publishing.plan(campaign, [first.pk]), reviewed) == [
        "environment SANDBOX -> PRODUCTION",
        "HITs 1-2 -> 1",
        "most it can cost $2.16 -> $1.08",
    ]
    # The same numbers, but the HITs were built again (other rows): a change too.
    campaign.mturk_sandbox = True
    campaign.hits.all().delete()
    HitFactory(campaign=campaign, number=1)
    HitFactory(campaign=campaign, number=2)
    assert publishing.plan_changes(publishing.plan(campaign), reviewed) == [
        "HITs 1-2 were built again"
    ]


def test_publish_refuses_a_plan_other_than_the_one_confirmed(mturk_stub):
    campaign = mturk_campaign()
    hit = HitFactory(campaign=campaign, number=1)
    confirmed = publishing.plan(campaign).fingerprint()
    campaign.reward = Decimal("0.50")
    campaign.save()
    result = publishing.publish(campaign.pk, [hit.pk], expected=confirmed)
    assert result.message() == (
        "Nothing was published. The plan changed since you reviewed it (most it can cost "
        "$1.08 -> $1.80; the HITs' settings (title, description, reward, assignments, "
        "durations or worker requirements)); review it again. Look at the plan again (the "
        "admin's 'Publish to MTurk' page or manage.py mturk_hits plan) and confirm what it shows "
        "now."
    )
    mturk_stub.factory.assert_not_called()
    assert not MTurkHit.objects.exists()
    assert list(
        PlatformEvent.objects.values_list("kind", "operation", "message", "what_to_do")
    ) == [
        (
            "error",
            "publish",
            "Nothing was published. The plan changed since you reviewed it (most it can cost "
            "$1.08 -> $1.80; the HITs' settings (title, description, reward, assignments, "
            "durations or worker requirements)); review it again.",
            "Look at the plan again (the admin's 'Publish to MTurk' page or manage.py "
            "mturk_hits plan) and confirm what it shows now.",
        )
    ]
    # The plan as it is now goes out.
    expect_hit_type(mturk_stub, campaign, Reward="0.50")
    expect_hit(mturk_stub, campaign, hit, 1)
    now = publishing.plan(campaign).fingerprint()
    assert publishing.publish(campaign.pk, [hit.pk], expected=now).created == 1
