"""Glue: load one post-editing campaign's edits, votes and stored TER numbers as numpy arrays.

:func:`load_post_editing` runs one ``values_list`` per table (judgments read twice: the edits
and the votes), as the other kinds' loaders do (``analytics.loading``), and joins in numpy
(sorted ids + ``searchsorted``): no text is read, only the numbers
``analytics.kinds.post_editing.scoring`` stored once per edit and output under the current
TER signature.

- Edits: every judgment on a post-editing slot with an output, in id (submission) order, with
  the output's system, segment and document, its stored TER numbers (NaN while unscored),
  and per-row masks: ``rejected`` (a rejected, or unconfirmed MTurk, assignment), ``excluded``
  (the requester excluded the worker), ``gold`` (the settings' gold editor: a professional
  edit, not a crowd one).
- Votes: every judgment on a verification slot (a slot that shows an edit,
  ``HitSlot.about_judgment``: only verification HITs have them, and the filter needs no join
  to the HIT), with the edit it judges (``vote_edit``: the edit's row, -1 when that edit is
  not loaded) and its two answers (NaN when missing).
- Outputs: the campaign's outputs with their stored TER against the reference (NaN without a
  reference or score).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from django.db.models import Q

from analytics.kinds.post_editing.scoring import edit_judgments
from analytics.loading import held_back_assignment_ids, id_array
from analytics.models import PostEditOutputScore, PostEditScore
from campaigns.models import HitTask, Output
from judgments.models import CampaignWorker, Judgment, Worker

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["VOTE_FILTER", "LoadedPostEditing", "judged", "load_post_editing"]

# A verification vote: a judgment on a slot showing an edit (verification HITs only).
VOTE_FILTER = {"slot__about_judgment__isnull": False}


def judged(prefix: str = "") -> Q:
    """The judgments the loader reads, edits and votes, as one condition (``prefix`` reaches
    Judgment through a relation): what the stored result's ``n_judgments`` counts."""
    return Q(
        **{f"{prefix}slot__hit__task": HitTask.POST_EDIT, f"{prefix}slot__output__isnull": False}
    ) | Q(**{f"{prefix}{name}": value for name, value in VOTE_FILTER.items()})


def _positions(sorted_ids: NDArray[np.int64], wanted: NDArray[np.int64]) -> NDArray[np.int64]:
    """Position of each wanted id in ``sorted_ids``, -1 where it is not there."""
    if sorted_ids.size == 0:
        return np.full(wanted.shape, -1, dtype=np.int64)
    pos = np.minimum(np.searchsorted(sorted_ids, wanted), sorted_ids.shape[0] - 1)
    return np.where(sorted_ids[pos] == wanted, pos, -1).astype(np.int64)


def _table(rows: list[tuple], width: int) -> NDArray[np.float64]:
    """Rows of numbers (NULL as NaN, booleans as 0/1) as a float matrix, converted in C."""
    return np.array(rows, dtype=np.float64).reshape(-1, width)


@dataclass(frozen=True, eq=False)
class LoadedPostEditing:
    """A post-editing campaign's edits, votes and outputs (module docstring). Per-edit arrays
    are aligned to ``edit_id``; per-vote to ``vote_worker``; per-output to ``output_id``."""

    campaign_id: int
    signature: str
    # Edits
    edit_id: NDArray[np.int64]
    edit_worker: NDArray[np.int64]
    edit_output: NDArray[np.int64]  # row in the output arrays
    edits: NDArray[np.float64]  # TER(MT -> edit): edits, NaN while unscored
    ref_length: NDArray[np.float64]
    reference_edits: NDArray[np.float64]  # TER(edit -> reference), NaN without a reference
    reference_length: NDArray[np.float64]
    rejected: NDArray[np.bool_]
    excluded: NDArray[np.bool_]
    gold: NDArray[np.bool_]
    # Votes
    vote_worker: NDArray[np.int64]
    vote_edit: NDArray[np.int64]
    vote_same: NDArray[np.float64]  # same meaning? 1/0, NaN when not answered
    vote_acceptable: NDArray[np.float64]
    vote_rejected: NDArray[np.bool_]
    vote_excluded: NDArray[np.bool_]
    # Outputs
    output_id: NDArray[np.int64]
    output_system: NDArray[np.int64]
    output_segment: NDArray[np.int64]
    output_document: NDArray[np.int64]
    output_ref_edits: NDArray[np.float64]  # TER(MT -> reference), NaN without one
    output_ref_length: NDArray[np.float64]
    excluded_workers: NDArray[np.int64]
    gold_workers: NDArray[np.int64]
    n_rejected_read: int

    @property
    def n_edits(self) -> int:
        return int(self.edit_id.shape[0])

    @property
    def n_votes(self) -> int:
        return int(self.vote_worker.shape[0])

    @property
    def n_read(self) -> int:
        """Edits and votes read (what the stored result reflects)."""
        return self.n_edits + self.n_votes

    @property
    def scored(self) -> NDArray[np.bool_]:
        """Edits with stored TER numbers."""
        return ~np.isnan(self.edits)

    @property
    def crowd(self) -> NDArray[np.bool_]:
        """Edits that count in the scores: scored, not rejected, not excluded, not gold."""
        return self.scored & ~(self.rejected | self.excluded | self.gold)

    @property
    def counted_votes(self) -> NDArray[np.bool_]:
        """Votes that count: on a loaded edit, both answers given, not rejected or excluded."""
        answered = ~(np.isnan(self.vote_same) | np.isnan(self.vote_acceptable))
        return (self.vote_edit >= 0) & answered & ~(self.vote_rejected | self.vote_excluded)

    @property
    def edit_system(self) -> NDArray[np.int64]:
        return self.output_system[self.edit_output]

    @property
    def edit_segment(self) -> NDArray[np.int64]:
        return self.output_segment[self.edit_output]


def load_post_editing(campaign_id: int, signature: str, gold_editor: str = "") -> LoadedPostEditing:
    """Load campaign ``campaign_id``'s post-editing data with the TER numbers stored under
    ``signature``; ``gold_editor``: the worker id whose edits are gold (eight queries with a
    gold editor, seven without)."""
    # No ORDER BY: the rows are sorted by id in numpy (sorting 150,000 votes in the database
    # costs more than the statistics that read them, and their order does not matter).
    edit_rows = list(
        edit_judgments(campaign_id)
        .order_by()
        .values_list("id", "worker_id", "assignment_id", "slot__output_id")
    )
    score_rows = list(
        PostEditScore.objects.filter(campaign_id=campaign_id, signature=signature)
        .order_by()
        .values_list("judgment_id", "edits", "ref_length", "reference_edits", "reference_length")
    )
    vote_rows = list(
        Judgment.objects.filter(campaign_id=campaign_id, **VOTE_FILTER)
        .order_by()
        .values_list(
            "worker_id", "assignment_id", "slot__about_judgment_id", "yes_no", "yes_no_second"
        )
    )
    output_rows = list(
        Output.objects.filter(system__campaign_id=campaign_id)
        .order_by()
        .values_list("id", "system_id", "segment_id", "segment__document_id")
    )
    output_score_rows = list(
        PostEditOutputScore.objects.filter(campaign_id=campaign_id, signature=signature)
        .order_by()
        .values_list("output_id", "edits", "ref_length")
    )
    held_back = held_back_assignment_ids(campaign_id)
    excluded_workers = id_array(
        list(
            CampaignWorker.objects.filter(campaign_id=campaign_id, excluded=True)
            .order_by("worker_id")
            .values_list("worker_id", flat=True)
        )
    )
    gold_workers = id_array(
        list(
            Worker.objects.filter(external_id=gold_editor)
            .order_by("id")
            .values_list("id", flat=True)
        )
        if gold_editor
        else []
    )

    edits = np.array(edit_rows, dtype=np.int64).reshape(-1, 4)
    edits = edits[np.argsort(edits[:, 0], kind="stable")]  # by id: submission order
    edit_id, edit_worker, edit_assignment, edit_output_id = (edits[:, i] for i in range(4))
    outputs = np.array(output_rows, dtype=np.int64).reshape(-1, 4)
    outputs = outputs[np.argsort(outputs[:, 0], kind="stable")]
    output_id = outputs[:, 0]
    edit_output = _positions(output_id, edit_output_id)
    if (edit_output < 0).any():  # an output of another campaign: a broken slot
        bad = edit_id[edit_output < 0][:5].tolist()
        raise ValueError(f"edit(s) {bad} show an output outside the campaign")

    scores = _table(score_rows, 5)
    at = _positions(edit_id, scores[:, 0].astype(np.int64))
    stat = np.full((edit_id.shape[0], 4), np.nan)
    stat[at[at >= 0]] = scores[at >= 0, 1:]

    output_scores = _table(output_score_rows, 3)
    out_at = _positions(output_id, output_scores[:, 0].astype(np.int64))
    out_stat = np.full((output_id.shape[0], 2), np.nan)
    out_stat[out_at[out_at >= 0]] = output_scores[out_at >= 0, 1:]

    votes = _table(vote_rows, 5)
    vote_worker = votes[:, 0].astype(np.int64)
    vote_assignment = votes[:, 1].astype(np.int64)
    about = np.where(np.isnan(votes[:, 2]), -1, votes[:, 2]).astype(np.int64)
    vote_edit = np.where(about >= 0, _positions(edit_id, about), -1)

    rejected = np.isin(edit_assignment, held_back)
    vote_rejected = np.isin(vote_assignment, held_back)
    return LoadedPostEditing(
        campaign_id=campaign_id,
        signature=signature,
        edit_id=edit_id,
        edit_worker=edit_worker,
        edit_output=edit_output,
        edits=stat[:, 0],
        ref_length=stat[:, 1],
        reference_edits=stat[:, 2],
        reference_length=stat[:, 3],
        rejected=rejected,
        excluded=np.isin(edit_worker, excluded_workers),
        gold=np.isin(edit_worker, gold_workers),
        vote_worker=vote_worker,
        vote_edit=vote_edit.astype(np.int64),
        vote_same=votes[:, 3],
        vote_acceptable=votes[:, 4],
        vote_rejected=vote_rejected,
        vote_excluded=np.isin(vote_worker, excluded_workers),
        output_id=output_id,
        output_system=outputs[:, 1],
        output_segment=outputs[:, 2],
        output_document=outputs[:, 3],
        output_ref_edits=out_stat[:, 0],
        output_ref_length=out_stat[:, 1],
        excluded_workers=excluded_workers,
        gold_workers=gold_workers,
        n_rejected_read=int(np.count_nonzero(rejected) + np.count_nonzero(vote_rejected)),
    )
