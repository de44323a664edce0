"""What ranking adds to the campaign page's checklist (campaigns.checklist): its
quality-control step and what stops its build, checked before a build is tried.

The gold step reads the campaign's gold exactly as the build does (:func:`gold_supply`, with
the build's own rules): it is done only when the build will find the gold units it needs,
and otherwise says what is missing, with the build's own message. It also says how many gold
sets the gold rate makes (the builder's count) and from how many gold units, so that a
requester sees when each unit will be shown several times. This is the one step of the
checklist that computes rather than counts (choosing gold translations from alternative
references compares them by edit distance); it runs once per page (evalsite.page_memo), with
a fixed number of queries.
"""

from __future__ import annotations

from django.urls import reverse

from campaigns.checklist import BLOCKED, DONE, Facts, KindNotes, Step, _plural, _url
from campaigns.gold import ORIGIN_ALTERNATIVE_REFERENCE
from campaigns.kinds import kind_settings
from campaigns.kinds.ranking.gold import (
    GoldSupply,
    gold_sets_needed,
    gold_supply,
    outputs_per_segment,
)
from campaigns.models import Campaign
from evalsite.page_memo import remembered

# What the build step says when the gold step is blocked (the gold step says why).
GOLD_BLOCKER = "Gold units are missing or too few (see Gold answers above)."


def _supply(campaign: Campaign) -> GoldSupply:
    settings = kind_settings(campaign)
    return remembered(("ranking_gold", campaign.pk), lambda: gold_supply(campaign, settings))


def _counts(campaign: Campaign) -> list[int]:
    return remembered(("ranking_outputs", campaign.pk), lambda: outputs_per_segment(campaign))


def gold_import_url(campaign: Campaign) -> str:
    return reverse("admin:campaigns_campaign_gold_import", args=[campaign.pk])


def quality(campaign: Campaign, facts: Facts) -> Step:
    settings = kind_settings(campaign)
    supply = _supply(campaign)
    gold_url = (
        _url("campaigns_goldanswer_changelist") + f"?segment__campaign__id__exact={campaign.pk}"
    )
    parts = [f"Gold rate {settings.gold_rate:.0%} of the ranking sets"]
    if supply.answers:
        parts.append(f"{_plural(supply.answers, 'gold answer')} given")
    elif settings.gold_best_system_id:
        parts.append(
            f"gold translations chosen from alternative references (best system "
            f'"{settings.gold_best_system}")'
        )
    training = settings.qualification_sets if campaign.qualification_required else 0
    if training:
        parts.append(f"qualification test of {settings.qualification_sets} sets")
    on_the_fly = max(len(supply.units) - training, 0)
    sets = gold_sets_needed(settings, _counts(campaign))
    todo = ""
    if supply.needed and not supply.problem and sets and on_the_fly:
        parts.append(
            f"the rate makes {_plural(sets, 'gold set')} from "
            f"{_plural(on_the_fly, 'gold unit')}"
            + (f" (and {training} for the qualification test)" if training else "")
        )
        if sets > on_the_fly:
            low, high = sets // on_the_fly, -(-sets // on_the_fly)
            shown = f"{low}" if low == high else f"{low} or {high}"
            more = (
                "raise 'Gold count' or give gold answers"
                if supply.origin == ORIGIN_ALTERNATIVE_REFERENCE
                else "add gold answers"
            )
            todo = (
                f"Each gold unit is shown in {shown} gold sets, so a worker who takes several "
                f"HITs may meet the same gold set again. To show each fewer times, {more} for "
                "more segments, or lower the gold rate."
            )
    summary = "; ".join(parts) + "."
    lines = [
        (f"Gold answers ({supply.answers:,})", gold_url),
        (
            "Import gold answers (doc_id, seg_id, best_system, worst_system)",
            gold_import_url(campaign),
        ),
    ]
    if supply.problem:
        return Step("quality", "Gold answers", BLOCKED, summary, todo=supply.problem, lines=lines)
    return Step("quality", "Gold answers", DONE, summary, todo=todo, lines=lines)


def blockers(campaign: Campaign, facts: Facts) -> list[str]:
    settings = kind_settings(campaign)
    problems = []
    if _supply(campaign).problem:
        problems.append(GOLD_BLOCKER)
    counts = _counts(campaign)
    fewest = min(counts) if counts else None
    if fewest is not None and fewest < settings.outputs_per_set:
        problems.append(
            f"A ranking set shows {settings.outputs_per_set} outputs of different systems "
            f"('Outputs per set'), and some segments have only {fewest}: lower 'Outputs per "
            f"set' to {max(fewest, 2)} in the ranking settings below, or import the missing "
            "outputs."
        )
    return problems


NOTES = KindNotes(quality, blockers)
