"""What direct assessment adds to the campaign page's checklist (campaigns.checklist): its
quality-control step and what stops its build, checked before a build is tried."""

from __future__ import annotations

from django.db.models import Count

from campaigns import actions as campaign_actions
from campaigns.checklist import DONE, Facts, KindNotes, Step
from campaigns.kinds import kind_settings
from campaigns.models import Campaign, Output


def quality(campaign: Campaign, facts: Facts) -> Step:
    settings = kind_settings(campaign)
    return Step(
        "quality",
        "Quality control",
        DONE,
        "Built into every HIT: 10 bad references, 10 repeats and 10 references among its 100 "
        "items (Graham et al. 2014); a worker is reliable when the "
        f"'{settings.get_reliability_test_display()}' test gives p below "
        f"{settings.reliability_alpha}.",
    )


def blockers(campaign: Campaign, facts: Facts) -> list[str]:
    from campaigns.builders.direct_assessment import hit_size_problem, short_systems_problem

    settings = kind_settings(campaign)
    problems = []
    size = hit_size_problem(settings.items_per_hit)
    if size:
        problems.append(size + " Change it in the direct-assessment settings below.")
    counts = dict(
        Output.objects.filter(segment__campaign=campaign)
        .order_by()
        .values_list("system_id")
        .annotate(n=Count("pk"))
    )
    short = short_systems_problem(counts) if counts else None
    if short is not None:
        problems.append(campaign_actions.explain(short, campaign) + ".")
    return problems


NOTES = KindNotes(quality, blockers)
