"""The API's fixed cast (DESIGN.md): who asks, and what each may see.

- ``staff``: the site's administrator (a superuser): every campaign;
- ``owner``: the requester who owns the campaign (campaigns.view/change/add_campaign): full
  access to it;
- ``analyst``: granted read access to the campaign (``CampaignAccess``; view_campaign);
  ``owner``, ``analyst``, ``other_analyst`` and ``outsider`` are staff (they may log in to
  the admin), which must not widen what they see;
- ``other_analyst``: an analyst granted access to another campaign only;
- ``outsider``: a user with no campaign at all (view_campaign, but nothing shared with them);
- ``staff_only``: staff status and no permission at all (every admin page answers 403): staff
  status alone grants nothing (issue 11, item 4);
- ``inactive``: granted access to the campaign, but the account is deactivated;
- ``anonymous``: no credentials;
- ``worker_link``: a worker's signed link token sent as an API token.

Each user has a token; ``Cast.client(role)`` is an API client sending it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from analytics import actions
from analytics.models import CampaignAccess
from campaigns.models import Campaign
from judgments.models import Assignment
from judgments.tokens import assignment_token
from tests.analytics.kinds.direct_assessment.test_actions import SmallCampaign, build_small_campaign
from tests.analytics.kinds.ranking.test_loading import RankingCampaign, build_ranking_campaign
from tests.factories import CampaignFactory

ROLES = (
    "staff",
    "owner",
    "analyst",
    "other_analyst",
    "outsider",
    "staff_only",
    "inactive",
    "anonymous",
    "worker_link",
)
# Who may read the cast's campaign, and who is turned away before anything is looked up.
READERS = ("staff", "owner", "analyst")
NOT_READERS = ("other_analyst", "outsider", "staff_only")
UNAUTHENTICATED = ("inactive", "anonymous", "worker_link")


@dataclass
class Cast:
    campaign: Campaign
    other_campaign: Campaign
    users: dict
    tokens: dict[str, str]

    def client(self, role: str) -> APIClient:
        client = APIClient()
        if role in self.tokens:
            client.credentials(HTTP_AUTHORIZATION=f"Token {self.tokens[role]}")
        return client


def make_cast(campaign: Campaign) -> Cast:
    """The fixed cast around ``campaign`` (which becomes the owner's)."""
    model = get_user_model()
    users = {
        "staff": model.objects.create_user("staff", is_staff=True, is_superuser=True),
        "owner": model.objects.create_user("requester", is_staff=True),
        # Staff too (they may log in to the admin), which must not widen what they see.
        "analyst": model.objects.create_user("analyst", is_staff=True),
        "other_analyst": model.objects.create_user("other-analyst", is_staff=True),
        "outsider": model.objects.create_user("outsider", is_staff=True),
        "staff_only": model.objects.create_user("staff-only", is_staff=True),
        "inactive": model.objects.create_user("inactive", is_active=False),
    }
    # Django's model permissions come on top of what is shared (analytics.access).
    view, change, add = (
        Permission.objects.get(content_type__app_label="campaigns", codename=codename)
        for codename in ("view_campaign", "change_campaign", "add_campaign")
    )
    users["owner"].user_permissions.add(view, change, add)
    for role in ("analyst", "other_analyst", "outsider", "inactive"):
        users[role].user_permissions.add(view)
    campaign.owner = users["owner"]
    campaign.save(update_fields=["owner"])
    other = CampaignFactory(name=f"other campaign of {campaign.name}", owner=users["staff"])
    CampaignAccess.objects.create(campaign=campaign, user=users["analyst"])
    CampaignAccess.objects.create(campaign=campaign, user=users["inactive"])
    CampaignAccess.objects.create(campaign=other, user=users["other_analyst"])
    tokens = {role: Token.objects.create(user=user).key for role, user in users.items()}
    # What a worker holds: the signed link of one of their assignments in this campaign.
    assignment = Assignment.objects.filter(campaign=campaign).order_by("pk").first()
    tokens["worker_link"] = (
        assignment_token(assignment.pk, assignment.worker_id)
        if assignment
        else assignment_token(1, 1)
    )
    return Cast(campaign=campaign, other_campaign=other, users=users, tokens=tokens)


@pytest.fixture
def small(db) -> Iterator[SmallCampaign]:
    """The hand-worked direct-assessment campaign of tests/analytics/test_actions.py (systems
    A and B, a careful and a random worker) with its results computed."""
    built = build_small_campaign()
    actions.recompute_campaign(built.campaign)
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


@pytest.fixture
def ranking(db) -> Iterator[RankingCampaign]:
    """The hand-worked ranking campaign of tests/analytics/test_ranking_loading.py (systems A,
    B, C; careful, ties, reversed, excluded and rejected workers) with its results computed."""
    built = build_ranking_campaign()
    actions.recompute_campaign(built.campaign)
    yield built
    actions.clear_recompute_flag(built.campaign.pk)


@pytest.fixture
def cast(small: SmallCampaign) -> Cast:
    return make_cast(small.campaign)


@pytest.fixture
def ranking_cast(ranking: RankingCampaign) -> Cast:
    return make_cast(ranking.campaign)
