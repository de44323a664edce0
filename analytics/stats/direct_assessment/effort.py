"""Signs that a worker is clearly not working, beyond the reliability test (issue 12, item 5).

The reliability test (:mod:`.reliability`) says whether a worker tells bad references from
their outputs; a worker who fails it is paid unless they "clearly clicked at random" (001,
2014). Two signs are clear without any test:

- the scores hardly vary (:func:`score_spread`): a worker who leaves the slider where it is,
  e.g. 70 on every item, expresses no judgment at all;
- the worker is faster than anyone can read (mean seconds per item, already in
  :class:`~.reliability.WorkerReliability`).

Pure numpy, one pass over the rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from analytics.stats.direct_assessment._groups import Grouped
from analytics.stats.direct_assessment.judgments import DAJudgments

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["MIN_JUDGMENTS_FOR_SPREAD", "ScoreSpread", "score_spread"]

# The spread of fewer scores says little: three items of similar quality can honestly get the
# same score. Ten is one set of the 2014 HIT layout (10 sets of 10), which always holds a bad
# reference or a reference next to ordinary outputs, so a worker who reads must move the
# slider within it.
MIN_JUDGMENTS_FOR_SPREAD = 10


@dataclass(frozen=True, eq=False)
class ScoreSpread:
    """Per worker (aligned to ``DAJudgments.workers``): the number of raw scores, their
    sample sd (ddof 1; exactly 0 when all are equal; NaN below two scores) and their mean."""

    n: NDArray[np.int64]
    sd: NDArray[np.float64]
    mean: NDArray[np.float64]


def score_spread(judgments: DAJudgments) -> ScoreSpread:
    """The spread of each worker's raw scores over every role (QC items included: a worker
    who reads gives a bad reference a lower score than its output). Given z-scores (imports)
    have no raw score and are left out."""
    raw = np.isfinite(judgments.score)
    if raw.all():  # the usual case: no copy of the columns (a recompute's peak is here)
        grouped = Grouped.build(judgments.score, judgments.worker_index, judgments.n_workers)
    else:
        grouped = Grouped.build(
            judgments.score[raw], judgments.worker_index[raw], judgments.n_workers
        )
    mean, var = grouped.mean_var()
    lo, hi = grouped.minmax()
    # Exact 0 for equal scores: a float variance of equal values can come out a hair above 0.
    sd = np.where(lo == hi, 0.0, np.sqrt(var))
    sd = np.where(grouped.counts >= 2, sd, np.nan)
    return ScoreSpread(n=grouped.counts, sd=sd, mean=mean)
