"""A campaign's report (Paul et al. 2013, 002: section 5.1 and Appendix A, Tables A.1-A.4):
time per assignment, the evaluation period, judgments by trusted and untrusted workers and
workers per country, beside the cost (:mod:`analytics.reports.cost`). Pure: numpy on plain
rows, no Django.

* **Time per assignment** (002 Table A.4 "avg. time per assignment", "grading time"): the
  seconds an assignment's judgments took, summed (each judgment's browser measurement, else
  the server's, as everywhere in analytics), over the done assignments (submitted or
  approved) of regular HITs; the median and quartiles (numpy's default linear interpolation
  between order statistics), the mean, and the total grading time. Not the assignment's
  submitted_at - started_at, which counts the time a worker left the tab open.
* **Evaluation period** (Table A.4 "the number of days needed to collect all the data"): from
  the first judgment stored to the last.
* **Trusted and untrusted** (Tables A.1 and A.3): each worker's status in the campaign as its
  kind decides it (``analytics.reports.kinds``): ranking's gold trust, direct assessment's
  reliability test, the exclusions of the other kinds; "undecided" while the evidence is too
  thin (too few gold units or control pairs). Judgments of each, workers of each.
* **Workers per country** (Table A.2): the country the worker gave (background form) or
  MTurk's one-country locale gave; "unknown" otherwise. Judgments per country beside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

import numpy as np

__all__ = [
    "STATUSES",
    "CountryRow",
    "EvaluationPeriod",
    "TimePerAssignment",
    "TrustRow",
    "countries",
    "evaluation_period",
    "time_per_assignment",
    "trust_split",
]

TRUSTED, UNTRUSTED, UNDECIDED = "trusted", "untrusted", "undecided"
STATUSES = (TRUSTED, UNTRUSTED, UNDECIDED)
UNKNOWN_COUNTRY = "unknown"


@dataclass(frozen=True)
class TimePerAssignment:
    """Seconds per done assignment: ``n`` assignments with any timed judgment; the others
    are left out (``n_untimed``). Quantities are None without any."""

    n: int
    n_untimed: int
    median: float | None
    q1: float | None
    q3: float | None
    mean: float | None
    total_hours: float | None


def time_per_assignment(seconds: Iterable[float | None]) -> TimePerAssignment:
    """Median, quartiles, mean and total of the done assignments' seconds (None: untimed)."""
    values = np.array([np.nan if s is None else float(s) for s in seconds], dtype=np.float64)
    timed = values[~np.isnan(values)]
    untimed = int(values.size - timed.size)
    if timed.size == 0:
        return TimePerAssignment(0, untimed, None, None, None, None, None)
    q1, median, q3 = np.percentile(timed, [25, 50, 75])
    return TimePerAssignment(
        n=int(timed.size),
        n_untimed=untimed,
        median=float(median),
        q1=float(q1),
        q3=float(q3),
        mean=float(timed.mean()),
        total_hours=float(timed.sum() / 3600.0),
    )


@dataclass(frozen=True)
class EvaluationPeriod:
    """The first and last judgment stored (None without judgments) and the days between."""

    first: datetime | None
    last: datetime | None

    @property
    def days(self) -> float | None:
        if self.first is None or self.last is None:
            return None
        return (self.last - self.first).total_seconds() / 86400.0


def evaluation_period(firsts: Iterable[datetime], lasts: Iterable[datetime]) -> EvaluationPeriod:
    """The period over every group's first and last judgment (e.g. per assignment)."""
    first = min(firsts, default=None)
    last = max(lasts, default=None)
    return EvaluationPeriod(first=first, last=last)


@dataclass(frozen=True)
class TrustRow:
    status: str
    workers: int
    judgments: int
    share_of_judgments: float | None


def trust_split(
    judgments_by_worker: dict[int, int], status_by_worker: dict[int, str]
) -> list[TrustRow]:
    """Workers and judgments per status (:data:`STATUSES` order); a worker the kind has no
    status for is undecided. The shares are of all judgments (None without any)."""
    workers = dict.fromkeys(STATUSES, 0)
    judgments = dict.fromkeys(STATUSES, 0)
    for worker, n in judgments_by_worker.items():
        status = status_by_worker.get(worker, UNDECIDED)
        if status not in workers:
            raise ValueError(f"unknown trust status {status!r} for worker {worker}")
        workers[status] += 1
        judgments[status] += n
    total = sum(judgments.values())
    return [
        TrustRow(
            status=status,
            workers=workers[status],
            judgments=judgments[status],
            share_of_judgments=judgments[status] / total if total else None,
        )
        for status in STATUSES
    ]


@dataclass(frozen=True)
class CountryRow:
    country: str
    workers: int
    judgments: int


def countries(
    country_by_worker: dict[int, str], judgments_by_worker: dict[int, int]
) -> list[CountryRow]:
    """Workers (and their judgments) per country, most workers first, then by code;
    "unknown" (no country given) last. Every worker of ``country_by_worker`` counts, with or
    without judgments (002 Table A.2 counts participating workers)."""
    workers: dict[str, int] = {}
    judgments: dict[str, int] = {}
    for worker, code in country_by_worker.items():
        key = code or UNKNOWN_COUNTRY
        workers[key] = workers.get(key, 0) + 1
        judgments[key] = judgments.get(key, 0) + judgments_by_worker.get(worker, 0)
    order = sorted(workers, key=lambda c: (c == UNKNOWN_COUNTRY, -workers[c], c))
    return [CountryRow(c, workers[c], judgments[c]) for c in order]
