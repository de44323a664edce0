"""Issue 17 (rough edge): the demo listed post-editing, reading-comprehension and translation
campaigns as active before those kinds worked. Every kind works now, so the demo keeps all of
them active; this keeps the promise: every demo campaign listed as active hands a new worker
a task whose page opens and whose first item (or page) can be fetched."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest
from django.urls import reverse

from campaigns.models import Campaign, CampaignStatus
from judgments.actions import next_assignment_for
from judgments.entry.pages import task_url
from judgments.kinds import task_page
from tests.campaigns.test_demo import BASE, run_demo
from tests.factories import WorkerFactory

pytestmark = pytest.mark.django_db


def test_every_active_demo_campaign_has_a_task_a_worker_can_start(client):
    banner = run_demo()
    listed = [int(pk) for pk in re.findall(rf"{re.escape(BASE)}/work/(\d+)/", banner)]
    assert len(listed) == 6
    campaigns = Campaign.objects.in_bulk(listed)
    assert {c.status for c in campaigns.values()} == {CampaignStatus.ACTIVE}
    assert len({c.kind for c in campaigns.values()}) == 5
    for pk in listed:
        campaign = campaigns[pk]
        hand_out = next_assignment_for(WorkerFactory(), campaign)
        assert hand_out.assignment is not None, (campaign.name, hand_out.reason)
        assignment = hand_out.assignment
        assert task_page(assignment.hit.task) is not None, campaign.name
        url = task_url(assignment)
        page = client.get(url)
        token = url.rstrip("/").rsplit("/", 1)[-1]
        if campaign.ask_background:
            # The background form comes first (000 section 5.1), then the task.
            assert page.status_code == 302, campaign.name
            background = urlsplit(page["Location"]).path
            assert background == reverse("judgments:task-background", args=[token])
            answers = {
                "native_language": "English",
                "country": "GB",
                "years_source_language": "3",
                "years_target_language": "30",
            }
            assert client.post(background, answers).status_code == 303, campaign.name
            page = client.get(url)
        assert page.status_code == 200, campaign.name
        item = client.get(reverse("judgments:task-item", args=[token])).json()
        assert item["ok"] and item["next"] is not None and not item["done"], campaign.name
