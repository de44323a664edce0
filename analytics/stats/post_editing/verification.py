"""Which post-edits passed verification (000 section 5.2's "judge the edits" HIT).

Other workers see the reference (or source) and an edited sentence and answer two yes/no
questions: "Does the edited translation have the same meaning as the reference human
translation?" and "Is the edited translation acceptable <target language>?" (000 section 5.2;
METHODS.md section 3).  000 keeps the edited segment "which passed the criteria": a verifier's
vote is *yes* when both answers are yes, *no* otherwise.

An edit passes by majority of its verifiers (issue 13 item 4): yes votes > no votes.  The
papers are silent on ties; we choose that a tie (e.g. 1-1 with two verifiers) does *not* pass,
because 000 asks for an edit that "passed the criteria", i.e. positive evidence, and a failed
edit only makes HTER fall back to a larger TER against the reference (conservative).
``tie_passes=True`` chooses the other way.  An edit with no verifier vote never passes (it was
not verified); a caller that wants unverified edits counted can set ``passed`` itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from numpy.typing import ArrayLike, NDArray

__all__ = ["VerificationOutcome", "verify_edits"]


@dataclass(frozen=True, eq=False)
class VerificationOutcome:
    """Per edit (aligned to edit positions 0..n_edits-1): yes and no votes and the verdict."""

    yes: NDArray[np.int64]
    no: NDArray[np.int64]
    passed: NDArray[np.bool_]
    tie_passes: bool

    @property
    def verified(self) -> NDArray[np.bool_]:
        """Edits with at least one vote."""
        return (self.yes + self.no) > 0


def verify_edits(
    edit: ArrayLike,
    same_meaning: ArrayLike,
    acceptable: ArrayLike,
    n_edits: int,
    *,
    tie_passes: bool = False,
) -> VerificationOutcome:
    """Majority verdict per edit from one row per verifier vote.

    ``edit``: per vote, the position (0..n_edits-1) of the edit it judges; ``same_meaning`` and
    ``acceptable``: the two yes/no answers.  A vote is yes when both answers are yes.
    """
    e = np.asarray(edit, dtype=np.int64).reshape(-1)
    meaning = np.asarray(same_meaning, dtype=bool).reshape(-1)
    fluent = np.asarray(acceptable, dtype=bool).reshape(-1)
    if not (e.shape == meaning.shape == fluent.shape):
        raise ValueError("edit, same_meaning and acceptable must have the same length")
    if e.size and (e.min() < 0 or e.max() >= n_edits):
        raise ValueError(f"edit positions must be in 0..{n_edits - 1}")
    vote = meaning & fluent
    yes = np.bincount(e, weights=vote, minlength=n_edits).astype(np.int64)
    total = np.bincount(e, minlength=n_edits).astype(np.int64)
    no = total - yes
    passed = (yes > no) | (tie_passes & (yes == no) & (total > 0))
    return VerificationOutcome(yes=yes, no=no, passed=passed, tie_passes=tie_passes)
