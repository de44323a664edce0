"""Celery task of post-editing's scoring: one chunk of a fan-out
(:func:`analytics.kinds.post_editing.scoring.fan_out_scoring`).

Apart from :mod:`.scoring`, which every web worker loads with the kind, so that only the
Celery worker (which autodiscovers this module, :mod:`evalsite.celery`) and the code that
sends the chunks import Celery (issue 16 item 4).
"""

from __future__ import annotations

from celery import shared_task

from analytics.kinds.post_editing.scoring import (
    SCORE_CHUNK_TASK,
    _unscored,
    fan_out_key,
    pending_reference_ids,
    score_pending_edits,
    score_pending_references,
    ter_signature_for,
)
from campaigns.models import Campaign
from evalsite.cachesafe import cache_delete


@shared_task(name=SCORE_CHUNK_TASK)
def score_edit_chunk(
    campaign_id: int,
    signature: str,
    judgment_ids: list[int],
    last_id: int | None = None,
    part: str = "all",
) -> int:
    """Score one chunk of a campaign's edits (in this process), then schedule the recompute
    (coalesced: the chunks of a fan-out queue one, which stores nothing while a large backlog
    is left and scores a small rest itself). Once no edit of the fan-out (up to ``last_id``)
    is left unscored, the fan-out is over and another may start. A chunk of settings that
    changed meanwhile is dropped: a newer fan-out scores under the new signature. ``part``:
    see :func:`fan_out_scoring`."""
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None or ter_signature_for(campaign) != signature:
        return 0
    if part == "references":
        n = score_pending_references(campaign, processes=1, judgment_ids=judgment_ids)
        left = [
            i
            for i in pending_reference_ids(campaign_id, signature)
            if last_id is None or i <= last_id
        ]
        done = not left
    else:
        n = score_pending_edits(campaign, processes=1, judgment_ids=judgment_ids)
        left_qs = _unscored(campaign_id, signature)
        if last_id is not None:
            left_qs = left_qs.filter(id__lte=last_id)
        done = not left_qs.exists()
    if done:
        cache_delete(fan_out_key(campaign_id, signature, part))
    from analytics.actions import schedule_recompute

    schedule_recompute(campaign_id)
    return n
