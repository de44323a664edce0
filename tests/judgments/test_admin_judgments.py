"""The Judgment changelist in the admin: newest first by the primary key (a page is the end
of the (campaign, id) index, not a sort of every judgment of the campaign), and the same
queries whatever the number of rows (each row's assignment shows its worker)."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, JudgmentFactory

pytestmark = pytest.mark.django_db

CHANGELIST = "admin:judgments_judgment_changelist"


def add_judgments(campaign, count):
    hit = HitFactory(campaign=campaign)
    return [
        JudgmentFactory(assignment=AssignmentFactory(hit=hit, campaign=campaign))
        for _ in range(count)
    ]


def test_the_changelist_shows_the_newest_judgment_first(admin_client):
    campaign = CampaignFactory()
    judgments = add_judgments(campaign, 3)
    url = reverse(CHANGELIST) + f"?campaign__id__exact={campaign.pk}"
    with CaptureQueriesContext(connection) as queries:
        html = admin_client.get(url).content.decode()
    shown = [int(pk) for pk in re.findall(r'name="_selected_action" value="(\d+)"', html)]
    if not shown:  # no actions column: the ids of the rows' change links
        shown = [int(pk) for pk in re.findall(r"/admin/judgments/judgment/(\d+)/change/", html)]
    assert shown == sorted((judgment.pk for judgment in judgments), reverse=True)
    # The page's rows (no LIMIT when they fit on one page).
    listing = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].startswith('SELECT "judgments_judgment"."id"')
    ]
    assert len(listing) == 1
    assert listing[0].split("ORDER BY")[1].strip().startswith('"judgments_judgment"."id" DESC')


def test_the_changelist_runs_the_same_queries_for_1_and_5_judgments(
    admin_client, django_assert_num_queries
):
    campaign = CampaignFactory()
    add_judgments(campaign, 1)
    url = reverse(CHANGELIST)
    admin_client.get(url)  # the session and content types are cached
    with CaptureQueriesContext(connection) as one:
        admin_client.get(url)
    add_judgments(campaign, 4)  # each in an assignment of a worker of its own
    with django_assert_num_queries(len(one.captured_queries)):
        response = admin_client.get(url)
    assert response.status_code == 200
