"""Reading comprehension's system table as CSV, WMT-style TSV or LaTeX (000 Table 3: System,
% correct), written from stored rows without Django, with the shared writers' conventions
(``analytics.export_formats``: full precision in CSV, rounded for reading in TSV and LaTeX,
rules between significance clusters, the ten LaTeX specials escaped)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analytics import export_formats as formats

__all__ = [
    "RC_CSV_COLUMNS",
    "RC_TSV_COLUMNS",
    "RCSystemRow",
    "rc_systems_csv",
    "rc_systems_latex",
    "rc_systems_tsv",
    "write_system_table",
]


@dataclass(frozen=True)
class RCSystemRow:
    """One system of a reading-comprehension campaign (a stored
    ``ReadingComprehensionSystemScore``); ``system`` is the human translation's label for the
    control (``is_reference``)."""

    rank_best: int
    rank_worst: int
    system: str
    is_reference: bool
    share: float
    share_ci_low: float | None
    share_ci_high: float | None
    question_mean: float
    correct: float
    n_answers: int
    n_ties: int
    n_readings: int
    cluster: int


RC_CSV_COLUMNS = (
    "rank_best",
    "rank_worst",
    "system",
    "is_reference",
    "share_correct",
    "share_ci_low",
    "share_ci_high",
    "question_mean",
    "correct",
    "n_answers",
    "n_ties",
    "n_readings",
    "cluster",
)
RC_TSV_COLUMNS = ("#", "% correct", "95% CI", "System", "Answers", "Cluster")


def rc_systems_csv(rows: Sequence[RCSystemRow]) -> str:
    """Full precision, shares as proportions (0.94 is 000's "reference 0.94"), best first."""
    return formats.csv_text(
        RC_CSV_COLUMNS,
        (
            (
                r.rank_best,
                r.rank_worst,
                r.system,
                r.is_reference,
                r.share,
                r.share_ci_low,
                r.share_ci_high,
                r.question_mean,
                r.correct,
                r.n_answers,
                r.n_ties,
                r.n_readings,
                r.cluster,
            )
            for r in rows
        ),
    )


def _percent(value: float | None) -> str:
    return formats._rounded(None if value is None else 100 * value, 1)


def _interval(row: RCSystemRow, number) -> str:
    if row.share_ci_low is None or row.share_ci_high is None:
        return ""
    return f"[{number(100 * row.share_ci_low, 1)}, {number(100 * row.share_ci_high, 1)}]"


def rc_systems_tsv(rows: Sequence[RCSystemRow]) -> str:
    """Rank range, % correct (one decimal) and its interval, system, answers, cluster."""
    return formats._tsv(
        RC_TSV_COLUMNS,
        (
            (
                formats._rank_range(r.rank_best, r.rank_worst, "-"),
                _percent(r.share),
                _interval(r, formats._rounded),
                r.system,
                str(r.n_answers),
                str(r.cluster),
            )
            for r in rows
        ),
    )


def rc_systems_latex(rows: Sequence[RCSystemRow], caption: str) -> str:
    """The system table (booktabs): "#", "% correct", its 95% interval, System; the control
    in italics; clusters between rules."""

    def cells(r: RCSystemRow) -> list[str]:
        name = formats.latex_escape(r.system)
        return [
            formats._rank_range(r.rank_best, r.rank_worst, "--"),
            formats._latex_number(100 * r.share, 1),
            _interval(r, formats._latex_number) or "--",
            rf"\textit{{{name}}}" if r.is_reference else name,
        ]

    return formats.LATEX_PREAMBLE_NOTE + formats._latex_table(
        "rrcl",
        (r"\#", r"\% correct", r"95\% interval", "System"),
        formats._clustered(rows, cells),
        caption,
    )


def write_system_table(rows: Sequence[RCSystemRow], caption: str, fmt: str) -> str:
    if fmt == "csv":
        return rc_systems_csv(rows)
    if fmt == "tsv":
        return rc_systems_tsv(rows)
    return rc_systems_latex(rows, caption)
