"""The shapes the task kinds fill for the API's computed endpoints (``analytics.kinds``):
segment tables, the stored pairwise significance, the position of a system in stored scores.

Shared by every kind and by :mod:`.scores` (which caches the segment tables and assembles the
significance matrix); it asks no kind anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

import numpy as np
from django.db.models import OuterRef, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce

from campaigns.models import Segment, System

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = [
    "SEGMENT_COLUMNS",
    "UNSCORED_POSITION",
    "SegmentTable",
    "StoredSignificance",
    "group_pairs",
    "plain",
    "position_in",
    "sorted_table",
    "stored_matrix",
]

# --- Segment-level scores --------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class SegmentTable:
    """Scores per (segment, system), as parallel arrays sorted by document, segment position
    and system name; rows become dicts only when sliced (one page at a time), so a paginator
    can take it like a list.

    Direct assessment fills ``n`` (judgments), ``mean_score`` and ``mean_z``; ranking fills
    ``n`` (pairwise comparisons with other systems), ``wins``, ``ties``, ``losses``,
    ``n_ranked`` (outputs ranked) and ``mean_rank``; post-editing ``n`` (edits), ``hter``
    and ``n_passed``. The other kinds' columns are None.
    """

    kind: str
    segment: NDArray[np.int64]
    system: NDArray[np.int64]
    n: NDArray[np.int64]
    columns: dict[str, NDArray]
    segment_info: dict[int, tuple[str, str]]  # id -> (document external id, segment external id)
    system_names: dict[int, str]

    @classmethod
    def empty(cls, kind: str) -> SegmentTable:
        """No rows (a kind without scores)."""
        none = np.zeros(0, dtype=np.int64)
        return cls(kind, none, none, none, {}, {}, {})

    def __len__(self) -> int:
        return int(self.segment.shape[0])

    def for_system(self, system: int) -> SegmentTable:
        """Only ``system``'s rows, in the same order (no query: a filter of the cached
        table)."""
        keep = self.system == system
        return replace(
            self,
            segment=self.segment[keep],
            system=self.system[keep],
            n=self.n[keep],
            columns={name: values[keep] for name, values in self.columns.items()},
        )

    def count(self) -> int:
        return len(self)

    def __getitem__(self, index: slice | int) -> list[dict[str, Any]] | dict[str, Any]:
        if isinstance(index, int):
            return self[index : index + 1][0]
        rows = range(len(self))[index]
        out = []
        for i in rows:
            segment = int(self.segment[i])
            system = int(self.system[i])
            document_id, segment_id = self.segment_info.get(segment, ("", ""))
            row: dict[str, Any] = {
                "segment_id": segment,
                "document_external_id": document_id,
                "segment_external_id": segment_id,
                "system_id": system,
                "system": self.system_names.get(system, ""),
                "n": int(self.n[i]),
            }
            for name in SEGMENT_COLUMNS:
                values = self.columns.get(name)
                row[name] = None if values is None else plain(values[i])
            out.append(row)
        return out


SEGMENT_COLUMNS = (
    "mean_score",
    "mean_z",
    "wins",
    "ties",
    "losses",
    "n_ranked",
    "mean_rank",
    "hter",
    "n_passed",
)


def plain(value: Any) -> Any:
    """A numpy number as a plain int or float (None for NaN and infinities)."""
    if isinstance(value, np.integer):
        return int(value)
    value = float(value)
    return value if np.isfinite(value) else None


def group_pairs(
    segment: NDArray[np.int64], system: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Distinct (segment, system) pairs (sorted) and, per row, the index of its pair."""
    if segment.size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    pairs, inverse = np.unique(np.stack([segment, system], axis=1), axis=0, return_inverse=True)
    return pairs[:, 0], pairs[:, 1], inverse.reshape(-1).astype(np.int64)


def sorted_table(
    kind: str,
    campaign_id: int,
    segment: NDArray[np.int64],
    system: NDArray[np.int64],
    n: NDArray[np.int64],
    columns: dict[str, NDArray],
) -> SegmentTable:
    """Order rows by document position, segment position and system name (two queries: the
    campaign's segments and systems)."""
    segments = list(
        Segment.objects.filter(campaign_id=campaign_id)
        .order_by()
        .values_list("id", "document__position", "position", "document__external_id", "external_id")
    )
    names = dict(
        System.objects.filter(campaign_id=campaign_id).order_by().values_list("id", "name")
    )
    place = {row[0]: (row[1], row[2]) for row in segments}
    name_rank = {pk: i for i, pk in enumerate(sorted(names, key=lambda pk: (names[pk], pk)))}
    doc_pos = np.array([place.get(int(s), (0, 0))[0] for s in segment], dtype=np.int64)
    seg_pos = np.array([place.get(int(s), (0, 0))[1] for s in segment], dtype=np.int64)
    sys_rank = np.array([name_rank.get(int(s), -1) for s in system], dtype=np.int64)
    order = np.lexsort((sys_rank, segment, seg_pos, doc_pos))
    return SegmentTable(
        kind=kind,
        segment=segment[order],
        system=system[order],
        n=n[order],
        columns={name: values[order] for name, values in columns.items()},
        segment_info={row[0]: (row[3], row[4]) for row in segments},
        system_names=names,
    )


# --- Pairwise significance -------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class StoredSignificance:
    """A kind's stored pairwise p-values of one variant, before they are ordered and marked
    (``analytics.api.queries.significance_table``).

    ``variant``, ``method`` and ``test`` describe what was asked; the rest is empty while
    nothing is stored (``computed_at`` None). ``systems`` are the ids as stored, ``p_values``
    the stored matrix over them (NaN on the diagonal), ``scores`` each system's score (None
    where none), ``clusters`` aligned to ``systems``, and ``order`` the indices of
    ``systems`` best first. ``names``: names of systems that are no System row (reading
    comprehension's human translation, id None), else the System's name is used.
    """

    variant: str
    test: str
    method: str | None = None
    computed_at: datetime | None = None
    systems: list[int] = field(default_factory=list)
    p_values: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))
    scores: dict[int, Any] = field(default_factory=dict)
    clusters: list[int | None] = field(default_factory=list)
    order: list[int] = field(default_factory=list)
    names: dict[int | None, str] = field(default_factory=dict)


def stored_matrix(values: Any, size: int) -> NDArray[np.float64]:
    """A stored JSON matrix (None for NaN) as floats, NaN on the diagonal."""
    matrix = np.array(
        [[np.nan if v is None else float(v) for v in row] for row in (values or [])],
        dtype=np.float64,
    ).reshape(size, size)
    np.fill_diagonal(matrix, np.nan)
    return matrix


# --- Systems ---------------------------------------------------------------------------------

UNSCORED_POSITION = 2**15  # after every stored position (a PositiveSmallIntegerField)


def position_in(scores: QuerySet) -> Coalesce:
    """The system's position in a variant of stored scores (systems without one last)."""
    position = scores.filter(system=OuterRef("pk")).order_by().values("position")[:1]
    return Coalesce(Subquery(position), Value(UNSCORED_POSITION))
