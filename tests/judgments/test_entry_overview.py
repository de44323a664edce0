"""Issue 17 (rough edge): the worker's entry page said only "2 tasks in this campaign". It
says what the task is, how long one takes (measured when tasks are finished, else the kind's
default), the pay, the open places, and the requester's consent line (escaped)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import DEFAULT_CONSENT_TEXT, TaskKind
from judgments.entry.overview import entry_overview
from judgments.kinds import registry as judgment_kinds
from judgments.models import AssignmentStatus, Judgment
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory

pytestmark = pytest.mark.django_db


def _campaign(slots=30, hits=2, **fields):
    campaign = CampaignFactory(**{"redundancy": 3, "reward": Decimal("1.20"), **fields})
    for _ in range(hits):
        hit = HitFactory(campaign=campaign)
        for _ in range(slots):
            HitSlotFactory(hit=hit)
    return campaign


def _entry(client, campaign) -> str:
    return client.get(reverse("judgments:campaign-entry", args=[campaign.pk])).content.decode()


def test_entry_page_says_what_how_long_pay_places_and_consent(client):
    campaign = _campaign()
    html = _entry(client, campaign)
    assert (
        f'<dd id="entry-what">{judgment_kinds.get(TaskKind.DIRECT_ASSESSMENT).description}</dd>'
        in html.replace("&#x27;", "'")
    )
    # 30 items x 20 s (direct assessment's default) = 10 minutes.
    assert (
        '<dd id="entry-duration">One task takes about 10 minutes (an estimate: no task is '
        "finished yet).</dd>"
    ) in html
    assert '<dd id="entry-pay">$1.20 per task.</dd>' in html
    assert "2 tasks in this campaign; 6 of 6 places open now" in html
    assert campaign.consent_text == DEFAULT_CONSENT_TEXT
    assert '<section class="consent" id="entry-consent"' in html
    assert "By pressing Start you agree to this." in html
    assert ">Start</button>" in html


def test_time_is_measured_from_finished_tasks_once_there_are_some(client):
    campaign = _campaign()
    hit = campaign.hits.first()
    started = timezone.now() - timedelta(hours=1)
    for seconds in (4, 6, 30):  # three workers: 4, 6 and 30 s a judgment; the median is 6
        assignment = AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)
        Judgment.objects.bulk_create(
            Judgment(
                campaign=campaign,
                worker=assignment.worker,
                assignment=assignment,
                slot=slot,
                score=50,
                served_at=started + timedelta(seconds=i),
                client_duration_ms=seconds * 1000,
            )
            for i, slot in enumerate(hit.slots.all())
        )
    # A task still open does not count.
    AssignmentFactory(hit=hit, status=AssignmentStatus.STARTED)
    overview = entry_overview(campaign)
    assert (overview.items_per_task, overview.measured_from, overview.minutes) == (30.0, 3, 3)
    assert "One task takes about 3 minutes (the median of 3 finished tasks)." in _entry(
        client, campaign
    )
    # Four assignments on a HIT of 3 places hold 3 of them: 3 of 6 open.
    assert "2 tasks in this campaign; 3 of 6 places open now" in _entry(client, campaign)


def test_a_ranking_set_counts_its_time_once():
    campaign = _campaign(slots=0, hits=0, kind=TaskKind.RANKING)
    hit = HitFactory(campaign=campaign, task="rank")
    slots = [HitSlotFactory(hit=hit, group=i // 4) for i in range(8)]
    assignment = AssignmentFactory(hit=hit, status=AssignmentStatus.SUBMITTED)
    served = timezone.now()
    Judgment.objects.bulk_create(
        Judgment(
            campaign=campaign,
            worker=assignment.worker,
            assignment=assignment,
            slot=slot,
            rank=1,
            served_at=served + timedelta(seconds=slot.group),
            client_duration_ms=48_000,  # each set took 48 s: 12 s per output ranked
        )
        for slot in slots
    )
    overview = entry_overview(campaign)
    assert overview.minutes == 2  # 8 outputs x 12 s = 96 s
    assert overview.measured_from == 1


def test_pay_range_when_hits_pay_their_own_and_unpaid():
    campaign = _campaign()
    HitSlotFactory(hit=HitFactory(campaign=campaign, reward=Decimal("0.40")))
    assert entry_overview(campaign).pay == "$0.40 to $1.20 per task."
    free = _campaign(reward=Decimal("0.00"))
    assert entry_overview(free).pay == "Unpaid."


def test_consent_line_is_the_requesters_escaped_or_absent(client):
    campaign = _campaign(consent_text="Data kept <b>5 years</b>.\n\nAsk us: a@b.example")
    html = _entry(client, campaign)
    assert "<p>Data kept &lt;b&gt;5 years&lt;/b&gt;.</p>\n\n<p>Ask us: a@b.example</p>" in html
    campaign.consent_text = "  "
    campaign.save()
    assert 'id="entry-consent"' not in _entry(client, campaign)


def test_the_campaign_wide_facts_are_kept_a_few_seconds(
    client, settings, django_assert_num_queries
):
    """Issue 16: each of the entry page's facts reads the whole campaign (273 ms at 20,000
    HITs), for every arriving worker. They are kept ENTRY_PAGE_FACTS_SECONDS; a save of the
    campaign (its pay, its redundancy) starts afresh; 0 keeps nothing."""
    settings.ENTRY_PAGE_FACTS_SECONDS = 10
    campaign = _campaign()
    assert "2 tasks in this campaign; 6 of 6 places open now" in _entry(client, campaign)
    AssignmentFactory(hit=campaign.hits.first(), status=AssignmentStatus.STARTED)
    with django_assert_num_queries(0):
        kept = entry_overview(campaign)
    assert kept.progress.places_open == 6
    assert "6 of 6 places open now" in _entry(client, campaign)
    campaign.reward = Decimal("1.50")
    campaign.save()
    html = _entry(client, campaign)
    assert "5 of 6 places open now" in html
    assert '<dd id="entry-pay">$1.50 per task.</dd>' in html
    settings.ENTRY_PAGE_FACTS_SECONDS = 0
    AssignmentFactory(hit=campaign.hits.last(), status=AssignmentStatus.STARTED)
    assert "4 of 6 places open now" in _entry(client, campaign)
