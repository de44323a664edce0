"""Post-editing's part of the report (the registry is ``analytics.reports.kinds``): the
verification places still to come.

Every edit assignment, once submitted, gets a verification HIT of ``verifiers_per_edit``
places (campaigns/kinds/post_editing/verification.py), built by itself after the edit
arrives. So the HITs existing today hold only the verification of edits already in; each edit
still to come brings ``verifiers_per_edit`` more places, and so does an edit submitted whose
verification HIT the recompute has not built yet. Edits still to come: each edit HIT's places
(its own, else the campaign's redundancy) less its submitted and approved assignments (work in
progress is not in yet; a rejected edit frees its place for another). Their places are priced
at the verification reward (none: the campaign's) on the platform a HIT not on MTurk is
offered on (``analytics.reports.cost.offered_on``).

A submitted edit assignment without any edit stored gets no verification HIT; it is counted
here as if it would (an upper bound by its verifiers). Imported post-edits are analysed, not
run: nothing is to come.
"""

from __future__ import annotations

from django.db.models import Count, Q, Value
from django.db.models.functions import Coalesce

from analytics.reports.cost import PlacesToComeRow, offered_on
from campaigns.kinds.post_editing.verification import edit_assignments_awaiting_verification
from campaigns.models import Campaign, Hit, HitTask, TaskKind
from campaigns.pay import offered_reward
from judgments.models import AssignmentStatus

__all__ = ["KIND", "places_to_come"]

KIND = TaskKind.POST_EDITING

DONE = (AssignmentStatus.SUBMITTED, AssignmentStatus.APPROVED)


def places_to_come(campaign: Campaign) -> list[PlacesToComeRow]:
    """The verification places of edits not in yet (module docstring); two queries."""
    if campaign.imported_from:
        return []
    settings = campaign.post_editing_settings
    edit_places = (
        Hit.objects.filter(campaign=campaign, task=HitTask.POST_EDIT, is_qualification=False)
        .order_by()
        .annotate(done=Count("assignments", filter=Q(assignments__status__in=DONE)))
        .values_list(Coalesce("places", Value(campaign.redundancy)), "done")
    )
    edits_to_come = sum(max(0, places - done) for places, done in edit_places)
    awaiting_hit = edit_assignments_awaiting_verification(campaign).count()
    hits = edits_to_come + awaiting_hit
    if not hits:
        return []
    per_edit = settings.verifiers_per_edit
    return [
        PlacesToComeRow(
            places=hits * per_edit,
            reward=offered_reward(campaign.reward, settings.verification_reward),
            offered_on=offered_on(False, bool(campaign.prolific_study_id)),
            label=(
                f"Verification still to come: {per_edit} place{'' if per_edit == 1 else 's'} "
                f"for each of {hits:,} edit{'' if hits == 1 else 's'} not in yet or awaiting "
                "its verification HIT (built as edits arrive)"
            ),
        )
    ]
