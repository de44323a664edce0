"""What work pays: the reward an assignment taken now is offered, and the kinds' own pay per
task.

A HIT pays its own reward (``Hit.reward``: a reading-comprehension stage, a post-editing
verification HIT), else the campaign's. A HIT published on MTurk pays what it was published
with (``MTurkHit.reward``): MTurk fixes the reward per HIT, so a later change of the campaign's
reward reaches only HITs published after it. An assignment stores what it was offered when
the worker took it (``judgments.models.Assignment.reward``), and everything that prices work
already taken (the report, the API's cost, the review pages) reads that, so a change of reward
re-prices only the work still to come.

A kind whose HIT tasks pay their own rewards names them (``CampaignKind.task_rewards``: the
task, the settings field, the words), so the checklist and the report show them and a change
of one reaches the HITs of that task already built (:func:`reprice_task_hits`) as a change of
the campaign's reward reaches the HITs without a reward of their own.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from django.core.exceptions import ObjectDoesNotExist
from django.db import transaction

__all__ = [
    "TaskReward",
    "offered_reward",
    "reprice_task_hits",
    "reward_change_message",
    "task_rewards",
    "task_rewards_message",
]


def offered_reward(
    campaign_reward: Decimal,
    hit_reward: Decimal | None = None,
    published_reward: Decimal | None = None,
) -> Decimal:
    """What one assignment of a HIT taken now pays: the reward MTurk published the HIT with
    (None: not published, or published before evalsite recorded it), else the HIT's own
    reward, else the campaign's."""
    for reward in (published_reward, hit_reward):
        if reward is not None:
            return reward
    return campaign_reward


@dataclass(frozen=True)
class TaskReward:
    """One HIT task of a kind that pays its own reward: ``own`` is the kind's setting (None:
    the campaign's reward), ``reward`` what one of its assignments pays now."""

    task: str
    label: str
    field: str
    own: Decimal | None
    reward: Decimal


def task_rewards(campaign) -> list[TaskReward]:
    """The kind's own pay per task (``CampaignKind.task_rewards``), in its order; [] for a
    kind without any, or a campaign without its settings row yet."""
    from campaigns.kinds import kind_of, kind_settings

    kind = kind_of(campaign)
    if not kind.task_rewards:
        return []
    try:
        settings = kind_settings(campaign)
    except ObjectDoesNotExist:
        return []
    rows = []
    for task, field, label in kind.task_rewards:
        own = getattr(settings, field)
        rows.append(TaskReward(task, label, field, own, offered_reward(campaign.reward, own)))
    return rows


def reprice_task_hits(campaign, fields: set[str]) -> int:
    """After the requester changed the kind's pay settings ``fields``: the campaign's HITs of
    those tasks pay the new reward from now on (None: the campaign's). Assignments already
    taken keep theirs (they store it), and HITs on MTurk keep what they were published with.
    Under the campaign's lock, as the builders that make such HITs as work arrives, so that
    a HIT built meanwhile with the old setting is re-priced too. Returns the HITs changed."""
    from campaigns.kinds import kind_of, kind_settings
    from campaigns.models import Campaign, Hit

    kind = kind_of(campaign)
    changed = [(task, field) for task, field, _ in kind.task_rewards if field in fields]
    if not changed:
        return 0
    n = 0
    with transaction.atomic():
        campaign = Campaign.objects.select_for_update(no_key=True).get(pk=campaign.pk)
        settings = kind_settings(campaign)
        for task, field in changed:
            n += (
                Hit.objects.filter(campaign=campaign, task=task, mturk__isnull=True)
                .exclude(reward=getattr(settings, field))
                .update(reward=getattr(settings, field))
            )
    return n


def reward_change_message(campaign, old: Decimal | None) -> str:
    """What the requester reads after changing the campaign's reward from ``old``: whom the
    change reaches and whom not ("" when nothing was taken or published yet, so there is
    nothing to say). Two queries."""
    from campaigns.models import MTurkHit
    from judgments.models import Assignment, Platform

    if old is None or old == campaign.reward:
        return ""
    taken = (
        Assignment.objects.filter(campaign=campaign)
        .exclude(worker__platform=Platform.IMPORTED)
        .count()
    )
    published = MTurkHit.objects.filter(hit__campaign=campaign).count()
    if not taken and not published:
        return ""
    words = [f"Reward changed from ${old:.2f} to ${campaign.reward:.2f} per assignment."]
    if taken:
        words.append(
            (
                "The assignment already taken keeps the reward it was taken at"
                if taken == 1
                else f"The {taken:,} assignments already taken keep the reward they were taken at"
            )
            + f", as the cost report counts them; assignments taken from now on get "
            f"${campaign.reward:.2f} (HITs with a reward of their own keep it)."
        )
    else:
        words.append(f"Assignments taken from now on get ${campaign.reward:.2f}.")
    if published:
        words.append(
            (
                "The HIT published on MTurk keeps the reward it was published with"
                if published == 1
                else f"The {published:,} HITs published on MTurk keep the reward they were "
                "published with"
            )
            + ": MTurk fixes a HIT's reward when it is published, so only HITs published from "
            "now on offer the new one."
        )
    return " ".join(words)


def task_rewards_message(campaign, fields: set[str], repriced: int) -> str:
    """What the requester reads after changing the kind's pay settings ``fields``."""
    changed = [row for row in task_rewards(campaign) if row.field in fields]
    if not changed:
        return ""
    said = "; ".join(
        f"{row.label} now pay ${row.reward:.2f}"
        + (" (the campaign's reward)" if row.own is None else "")
        for row in changed
    )
    return (
        f"{said}. {repriced:,} HIT{'' if repriced == 1 else 's'} built already "
        f"{'was' if repriced == 1 else 'were'} re-priced; assignments already taken keep the "
        "reward they were taken at."
    )
