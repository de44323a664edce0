"""The checklist's payment step: a campaign that pays nothing is a warning that says what
workers will read and where to set the pay (never a blocker: volunteer campaigns are
legitimate); a paid one shows what an assignment pays, the kind's own pay per task too."""

from __future__ import annotations

from decimal import Decimal

import pytest

from campaigns.actions import build_hits
from campaigns.checklist import campaign_checklist
from campaigns.models import CampaignStatus, TaskKind
from tests.campaigns.test_actions import da_campaign
from tests.campaigns.test_admin_kinds import change_url
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db

UNPAID_TODO = (
    'Workers will read "Pay: Unpaid." on the task\'s entry page, and MTurk takes no HIT '
    "without a reward (at least $0.01). That is right for volunteers; to pay workers, set "
    'Reward (US dollars per assignment) under "Payment and publishing" below'
)


def steps(campaign):
    return {
        step.key: step
        for step in campaign_checklist(campaign, can_change=True, can_publish_mturk=True).steps
    }


def payment(campaign):
    step = steps(campaign)["payment"]
    return step.state, step.summary, step.todo, [text for text, _ in step.lines]


def test_an_unpaid_campaign_is_a_warning_and_activating_stays_the_next_step():
    campaign = da_campaign(status=CampaignStatus.DRAFT)
    build_hits(campaign)

    assert payment(campaign) == (
        "check",
        "Unpaid: $0.00 per assignment.",
        UNPAID_TODO + ", and save.",
        [],
    )
    assert steps(campaign)["activate"].state == "next"
    assert steps(campaign)["payment"].state_word == "Check"


def test_a_paid_campaign_shows_its_reward_per_assignment():
    campaign = da_campaign(reward=Decimal("0.35"))

    assert payment(campaign) == ("done", "$0.35 per assignment.", "", [])


def test_post_editing_shows_the_verification_reward():
    campaign = CampaignFactory(
        kind=TaskKind.POST_EDITING, reward=Decimal("0.40"), verification_reward=Decimal("0.10")
    )

    assert payment(campaign) == (
        "done",
        "Paid per assignment:",
        "",
        [
            "Post-edit HITs: $0.40 per assignment (the campaign's reward).",
            "Verification HITs: $0.10 per assignment (its own verification reward).",
        ],
    )


def test_post_editing_without_a_verification_reward_says_verification_pays_the_editing_reward():
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING, reward=Decimal("0.40"))

    assert payment(campaign)[3] == [
        "Post-edit HITs: $0.40 per assignment (the campaign's reward).",
        "Verification HITs: $0.40 per assignment (the campaign's reward: no own reward set).",
    ]


def test_unpaid_verification_beside_paid_editing_is_named():
    campaign = CampaignFactory(
        kind=TaskKind.POST_EDITING, reward=Decimal("0.40"), verification_reward=Decimal("0")
    )

    state, summary, todo, _ = payment(campaign)

    assert (state, summary) == ("check", "Some work is unpaid.")
    assert todo == (
        "Verification HITs pay $0.00: the workers who take them are not paid. If that is not "
        'meant, set Reward (US dollars per assignment) under "Payment and publishing" below, '
        "or the pay of each task in the post-editing settings, and save."
    )


def test_an_unpaid_post_editing_campaign_lists_what_each_task_pays():
    campaign = CampaignFactory(kind=TaskKind.POST_EDITING)

    assert payment(campaign) == (
        "check",
        "Unpaid: $0.00 per assignment.",
        UNPAID_TODO + ", or the pay of each task in the post-editing settings, and save.",
        [
            "Post-edit HITs: $0.00 per assignment (the campaign's reward).",
            "Verification HITs: $0.00 per assignment (the campaign's reward: no own reward set).",
        ],
    )


def test_stages_that_each_pay_their_own_need_no_campaign_reward():
    # Reading comprehension: every HIT is one of the four stages, each with its own pay.
    campaign = CampaignFactory(
        kind=TaskKind.READING_COMPREHENSION,
        author_reward=Decimal("1.00"),
        select_reward=Decimal("0.10"),
        answer_reward=Decimal("0.50"),
        grade_reward=Decimal("0.05"),
    )

    assert payment(campaign) == (
        "done",
        "Paid per assignment:",
        "",
        [
            "Writing questions: $1.00 per assignment (its own author reward).",
            "Selecting questions: $0.10 per assignment (its own select reward).",
            "Answering questions: $0.50 per assignment (its own answer reward).",
            "Grading answers: $0.05 per assignment (its own grade reward).",
        ],
    )


def _payment_folded(page: str) -> bool:
    start = page.index('class="fieldset-heading">Payment and publishing</h2>')
    return page.rfind("<details>", 0, start) > page.rfind("</details>", 0, start)


def test_the_payment_fields_stay_open_while_the_campaign_pays_nothing(admin_client):
    unpaid = CampaignFactory()
    paid = CampaignFactory(reward=Decimal("0.50"))

    page = admin_client.get(change_url(unpaid)).content.decode()

    assert 'id="step-payment" data-state="check"' in page
    assert "Unpaid: $0.00 per assignment." in page
    assert not _payment_folded(page)
    assert _payment_folded(admin_client.get(change_url(paid)).content.decode())
