"""Granting analyst access chooses the user by name (issue 17, rough edge: it needed the user's
numeric id): the collaborators inline uses Django admin's autocomplete widget, asking the
campaign's own user search, which answers the campaign's grant managers only."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from analytics.models import CampaignAccess
from tests.factories import CampaignFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(django_user_model):
    owner = django_user_model.objects.create_user("owner", password="pw", is_staff=True)
    owner.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
    )
    for name in ("anna", "andreas", "bert"):
        django_user_model.objects.create_user(name, email=f"{name}@example.org", password="pw")
    django_user_model.objects.create_user("anton", password="pw", is_active=False)
    return owner


def search(client, campaign, **params):
    return client.get(reverse("admin:campaigns_campaign_access_users", args=[campaign.pk]), params)


def test_the_owner_finds_users_by_the_start_of_their_name(people):
    campaign = CampaignFactory(owner=people)
    client = Client()
    client.force_login(people)
    response = search(client, campaign, term="AN")
    assert response.status_code == 200
    results = response.json()
    assert [row["text"] for row in results["results"]] == ["andreas", "anna"]
    assert results["pagination"] == {"more": False}
    assert all(row["id"].isdigit() for row in results["results"])
    # No e-mail addresses, and the owner (who always has access) is not offered.
    assert "example.org" not in response.content.decode()
    assert "owner" not in [
        row["text"] for row in search(client, campaign, term="").json()["results"]
    ]


def test_only_grant_managers_may_search(people, django_user_model):
    campaign = CampaignFactory(owner=people)
    collaborator = django_user_model.objects.create_user("collab", password="pw", is_staff=True)
    collaborator.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_campaign", "change_campaign"])
    )
    CampaignAccess.objects.create(campaign=campaign, user=collaborator, level="change")
    client = Client()
    client.force_login(collaborator)
    assert search(client, campaign, term="a").status_code == 403
    other = CampaignFactory(owner=people, name="other")
    stranger = django_user_model.objects.create_user("stranger", password="pw", is_staff=True)
    stranger.user_permissions.add(Permission.objects.get(codename="view_campaign"))
    client.force_login(stranger)
    assert search(client, other, term="a").status_code == 404


def test_the_collaborators_inline_offers_the_autocomplete(django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.org", "pw")
    campaign = CampaignFactory(owner=boss)
    client = Client()
    client.force_login(boss)
    page = client.get(reverse("admin:campaigns_campaign_change", args=[campaign.pk]))
    html = page.content.decode()
    url = reverse("admin:campaigns_campaign_access_users", args=[campaign.pk])
    assert f'data-ajax--url="{url}"' in html
    assert "admin-autocomplete" in html
    assert "vForeignKeyRawIdAdminField" not in html
