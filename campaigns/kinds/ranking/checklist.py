"""What ranking adds to the campaign page's checklist (campaigns.checklist): its
quality-control step and what stops its build, checked before a build is tried."""

from __future__ import annotations

from django.db.models import Count

from campaigns.checklist import BLOCKED, DONE, Facts, KindNotes, Step, _plural, _url
from campaigns.kinds import kind_settings
from campaigns.models import Campaign, GoldAnswer, Output


def quality(campaign: Campaign, facts: Facts) -> Step:
    settings = kind_settings(campaign)
    answers = GoldAnswer.objects.filter(segment__campaign=campaign).count()
    gold_url = (
        _url("campaigns_goldanswer_changelist") + f"?segment__campaign__id__exact={campaign.pk}"
    )
    parts = [f"Gold rate {settings.gold_rate:.0%} of the ranking sets"]
    if answers:
        parts.append(f"{_plural(answers, 'gold answer')} given")
    if settings.gold_best_system_id:
        parts.append(
            f"gold translations chosen from alternative references (best system "
            f'"{settings.gold_best_system}")'
        )
    if campaign.qualification_required:
        parts.append(f"qualification test of {settings.qualification_sets} sets")
    summary = "; ".join(parts) + "."
    lines = [(f"Gold answers ({answers:,})", gold_url)]
    if settings.gold_rate > 0 and not answers and not settings.gold_best_system_id:
        return Step(
            "quality",
            "Gold answers",
            BLOCKED,
            summary,
            todo=f"The gold rate is {settings.gold_rate:.0%} but the campaign has no gold "
            "answers: give gold answers per segment (Gold answers), or choose the best system "
            "in the ranking settings below so that gold translations are chosen from "
            "alternative references (Paul et al. 2013), or set the gold rate to 0.",
            lines=lines,
        )
    return Step("quality", "Gold answers", DONE, summary, lines=lines)


def blockers(campaign: Campaign, facts: Facts) -> list[str]:
    settings = kind_settings(campaign)
    problems = []
    if (
        settings.gold_rate > 0
        and not settings.gold_best_system_id
        and not GoldAnswer.objects.filter(segment__campaign=campaign).exists()
    ):
        problems.append("Gold answers are missing (see Gold answers above).")
    fewest = (
        Output.objects.filter(segment__campaign=campaign)
        .order_by()
        .values("segment")
        .annotate(n=Count("pk"))
        .order_by("n")
        .values_list("n", flat=True)
        .first()
    )
    if fewest is not None and fewest < settings.outputs_per_set:
        problems.append(
            f"A ranking set shows {settings.outputs_per_set} outputs of different systems "
            f"('Outputs per set'), and some segments have only {fewest}: lower 'Outputs per "
            f"set' to {max(fewest, 2)} in the ranking settings below, or import the missing "
            "outputs."
        )
    return problems


NOTES = KindNotes(quality, blockers)
