"""The ranking campaign over a translation campaign's translations (issue 15 item 4: the kept
translation chosen by a ranking of the redundant translations), for the admin's Choose
translations page.

:func:`create_ranking_campaign` makes a new ranking campaign (a draft: the requester builds
its HITs and activates it as any other) whose segments are the translation campaign's
sentences with at least two eligible translations (stored results: counted, not flagged,
translator not excluded), each eligible translation the output of one "system" per
translator (named ``translator <worker id>``: system names never reach workers, and the
ranking campaign's system table then ranks the translators). ``RankedTranslation`` records
which translation each output is; the translation campaign's ranking campaign is the campaign
of those outputs (:func:`ranking_campaign_of`), and its selection method becomes
``best_ranked``. Sentences with one eligible translation keep it. Gold units are off (the
crowd translations have no gold answer); a ranking set shows as many translations as the
sentence with the fewest has, at most 5 (000). The new campaign has the translation campaign's
owner and collaborators (``CampaignAccess``, same levels), so whoever could make it sees it.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db import transaction

from analytics.models import CampaignAccess, TranslationStat
from campaigns.kinds import new_campaign
from campaigns.kinds.translation.models import (
    RankedTranslation,
    SelectionMethod,
    ranking_campaign_of,
)
from campaigns.models import Campaign, Document, Output, Segment, System, TaskKind
from judgments.models import Worker

__all__ = [
    "RankingCampaignError",
    "create_ranking_campaign",
    "ranking_campaign_name",
    "ranking_campaign_of",
]

MAX_OUTPUTS_PER_SET = 5  # 000's five translations a screen


class RankingCampaignError(ValueError):
    """The ranking campaign cannot be made (the message says why)."""


def ranking_campaign_name(campaign: Campaign) -> str:
    """A name free among the owner's campaigns: "<name>: ranking of the crowd translations",
    with " (2)", " (3)" ... when taken."""
    base = f"{campaign.name[:150]}: ranking of the crowd translations"
    taken = set(
        Campaign.objects.filter(owner=campaign.owner, name__startswith=base).values_list(
            "name", flat=True
        )
    )
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base} ({number})"
    return name


def create_ranking_campaign(campaign: Campaign, **fields: Any) -> Campaign:
    """Make the ranking campaign over ``campaign``'s eligible translations (module docstring);
    ``fields`` override the new campaign's fields (name, redundancy ...). All or nothing;
    :class:`RankingCampaignError` when ``campaign`` is not a translation campaign, already has
    one, or has no sentence with two eligible translations."""
    if campaign.kind != TaskKind.TRANSLATION:
        raise RankingCampaignError(f"Campaign {campaign.pk} is not a translation campaign.")
    with transaction.atomic():
        settings = (
            type(campaign.translation_settings)
            .objects.select_for_update()
            .get(pk=campaign.translation_settings.pk)
        )
        existing = ranking_campaign_of(campaign)
        if existing is not None:
            raise RankingCampaignError(
                f"This campaign already has a ranking campaign over its translations "
                f'(campaign {existing.pk}, "{existing.name}"); delete it first to make another.'
            )
        eligible: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
        for segment, judgment, worker, text in (
            TranslationStat.objects.filter(campaign=campaign, eligible=True)
            .order_by("segment_id", "judgment_id")
            .values_list("segment_id", "judgment_id", "worker_id", "judgment__text")
        ):
            eligible[segment].append((judgment, worker, text.strip()))
        ranked = {segment: rows for segment, rows in eligible.items() if len(rows) >= 2}
        if not ranked:
            raise RankingCampaignError(
                "No sentence has two eligible translations yet (the results count submitted "
                "translations that are not flagged, of translators who are not excluded): "
                "there is nothing to rank."
            )
        values = {
            "name": ranking_campaign_name(campaign),
            "owner": campaign.owner,
            "source_language": campaign.source_language,
            "target_language": campaign.target_language,
            "instructions_language": campaign.instructions_language,
            "redundancy": campaign.redundancy,
            **fields,
        }
        made = new_campaign(
            kind=TaskKind.RANKING,
            settings={
                "outputs_per_set": min(MAX_OUTPUTS_PER_SET, *(len(r) for r in ranked.values())),
                "gold_rate": 0,
            },
            **values,
        )
        made.full_clean()
        ranking = made.save()

        segments = list(
            Segment.objects.filter(pk__in=ranked)
            .select_related("document")
            .order_by("document__position", "position")
        )
        documents: dict[int, Document] = {}
        for segment in segments:
            if segment.document_id not in documents:
                documents[segment.document_id] = Document.objects.create(
                    campaign=ranking,
                    external_id=segment.document.external_id,
                    position=len(documents) + 1,
                )
        copies = Segment.objects.bulk_create(
            Segment(
                campaign=ranking,
                document=documents[segment.document_id],
                external_id=segment.external_id,
                position=segment.position,
                source=segment.source,
            )
            for segment in segments
        )
        workers = sorted({worker for rows in ranked.values() for _, worker, _ in rows})
        names = dict(Worker.objects.filter(pk__in=workers).values_list("pk", "external_id"))
        systems = {
            system.name: system
            for system in System.objects.bulk_create(
                System(campaign=ranking, name=f"translator {names[worker]}") for worker in workers
            )
        }
        outputs: list[Output] = []
        judgments: list[int] = []
        for original, copy in zip(segments, copies, strict=True):
            for judgment, worker, text in ranked[original.pk]:
                outputs.append(
                    Output(system=systems[f"translator {names[worker]}"], segment=copy, text=text)
                )
                judgments.append(judgment)
        outputs = Output.objects.bulk_create(outputs)
        RankedTranslation.objects.bulk_create(
            RankedTranslation(output=output, campaign=campaign, judgment_id=judgment)
            for output, judgment in zip(outputs, judgments, strict=True)
        )
        CampaignAccess.objects.bulk_create(
            CampaignAccess(campaign=ranking, user_id=user, level=level)
            for user, level in CampaignAccess.objects.filter(campaign=campaign).values_list(
                "user_id", "level"
            )
        )
        settings.selection_method = SelectionMethod.BEST_RANKED
        settings.save(update_fields=["selection_method"])
    return ranking
