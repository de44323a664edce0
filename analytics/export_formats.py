"""Writers for the analysts' exports: judgment rows as CSV or JSON Lines, system tables as CSV,
WMT-style TSV and LaTeX. Pure Python (no Django import): the API's views in
:mod:`analytics.api.exports` feed them rows read with one query and stream what they return.

Judgment rows
    :func:`csv_chunks` and :func:`jsonl_chunks` take the column names and an iterable of row
    tuples (straight from ``values_list(...).iterator()``) and yield UTF-8 byte chunks of about
    ``chunk_size`` bytes, each holding whole rows, so a response never holds more than one
    chunk and the database cursor's current batch. CSV is RFC 4180 as Python's csv module
    writes it (Django's streaming CSV recipe: a pseudo-buffer whose ``write`` returns the
    line); texts with commas, quotes, tabs, newlines or non-ASCII characters are quoted and
    read back exactly by any CSV reader. Cells: ``None`` is empty, booleans are ``true`` /
    ``false``, datetimes ISO 8601, dicts and lists JSON. JSON Lines is one ``json.dumps`` per
    row (``ensure_ascii=False``: UTF-8, not ``\\u`` escapes; no spaces after separators), one
    object per line, keys in column order; a newline inside a text is escaped, so lines split
    on ``\\n`` only (not on U+2028 or U+2029, which str.splitlines would also split on).

System tables
    :class:`DASystemRow` (direct assessment: WMT's newstest tables, "#", "Ave %", "Ave z",
    "System", plus n and the cluster), :class:`RankingSystemRow` (ranking: one table per
    scoring method) and :class:`HTERSystemRow` (post-editing: HTER, lower is better). The
    CSV keeps full precision for further analysis; the TSV and the LaTeX table are for reading
    and print WMT's rounding (one decimal for raw means, three for z, ranking scores and
    HTER). The LaTeX table uses booktabs and separates clusters with ``\\midrule``;
    system names and the caption are escaped (``& % $ # _ { } ~ ^ \\``).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import TypeVar

__all__ = [
    "INCOMPLETE_MESSAGE",
    "DASystemRow",
    "ExportStopped",
    "HTERSystemRow",
    "RankingSystemRow",
    "csv_chunks",
    "csv_text",
    "da_systems_csv",
    "da_systems_latex",
    "da_systems_tsv",
    "hter_systems_csv",
    "hter_systems_latex",
    "hter_systems_tsv",
    "jsonl_chunks",
    "latex_escape",
    "ranking_systems_csv",
    "ranking_systems_latex",
    "ranking_systems_tsv",
]

# About 64 KiB per chunk: large enough that a million rows make ~10,000 writes to the socket
# rather than a million, small enough that a chunk is nothing next to the 200 MB budget.
DEFAULT_CHUNK_SIZE = 64 * 1024


# --- Judgment rows ---------------------------------------------------------------------------


class _Line:
    """A file-like object whose ``write`` returns what it is given: csv.writer then formats one
    row into a string without buffering anything (Django's streaming CSV recipe)."""

    def write(self, value: str) -> str:
        return value


def _iso(value: date | time) -> str:
    return value.isoformat()


def _json_text(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# Only these types need converting for CSV: the csv module writes str, int and float (as repr,
# which reads back as the same float) itself, and None as an empty cell.
_CSV_CONVERTERS: dict[type, Callable[[object], object]] = {
    bool: lambda value: "true" if value else "false",
    datetime: _iso,
    date: _iso,
    time: _iso,
    dict: _json_text,
    list: _json_text,
}


def _csv_row(row: Sequence[object]) -> list[object]:
    get = _CSV_CONVERTERS.get
    return [value if (convert := get(type(value))) is None else convert(value) for value in row]


def _chunked(lines: Iterable[str], chunk_size: int) -> Iterator[bytes]:
    """Whole lines gathered into UTF-8 chunks of at least ``chunk_size`` characters. When
    ``lines`` raises, what it gave before (its error line too) goes out first."""
    buffer: list[str] = []
    size = 0
    try:
        for line in lines:
            buffer.append(line)
            size += len(line)
            if size >= chunk_size:
                yield "".join(buffer).encode()
                buffer.clear()
                size = 0
    except Exception:
        if buffer:
            yield "".join(buffer).encode()
        raise
    if buffer:
        yield "".join(buffer).encode()


# --- A stream that fails partway -------------------------------------------------------------

INCOMPLETE_MESSAGE = (
    "ERROR: the export stopped after {rows} rows because of a server error, and this file is "
    "incomplete (the rows after these are missing). Download it again; if this line comes "
    "back, tell the site's administrators (the server logged the error)."
)


class ExportStopped(Exception):
    """The rows of a streamed export raised after ``rows`` rows were written. The file so far
    ends with an error line (:data:`INCOMPLETE_MESSAGE`: for CSV it opens a quoted cell that
    never closes, for JSON Lines it is not JSON, so that a reader fails on it rather than
    taking the file as whole); then this is raised from the cause, so that the server aborts
    the response (a chunked response then lacks its last chunk)."""

    def __init__(self, rows: int) -> None:
        super().__init__(f"the export stopped after {rows} rows")
        self.rows = rows


def _stopping(
    rows: Iterable[Sequence[object]], line: Callable[[Sequence[object]], str], error_line: str
) -> Iterator[str]:
    """One line per row; when reading or writing a row fails, ``error_line`` (its ``{rows}``
    filled in) and :class:`ExportStopped`."""
    count = 0
    try:
        for row in rows:
            yield line(row)
            count += 1
    except Exception as error:
        yield error_line.format(rows=count)
        raise ExportStopped(count) from error


# A UTF-8 byte order mark: spreadsheets (Excel) read the file as UTF-8 rather than as the
# computer's legacy encoding.
BYTE_ORDER_MARK = "\ufeff"


def csv_chunks(
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    *,
    cell: Callable[[object], object] | None = None,
    byte_order_mark: bool = False,
) -> Iterator[bytes]:
    """A header line and one CSV line per row, as UTF-8 byte chunks of whole lines.

    ``cell``: applied to every cell after conversion (the spreadsheet-safe export passes one
    that defuses formulas); ``byte_order_mark``: start the file with one. When ``rows`` fails
    partway, the file ends with an unterminated quoted error line and :class:`ExportStopped`
    is raised."""
    writer = csv.writer(_Line())
    if cell is None:
        convert = _csv_row
    else:

        def convert(row: Sequence[object]) -> list[object]:
            return [cell(value) for value in _csv_row(row)]

    def lines() -> Iterator[str]:
        header = writer.writerow(columns)
        yield BYTE_ORDER_MARK + header if byte_order_mark else header
        yield from _stopping(
            rows, lambda row: writer.writerow(convert(row)), '"' + INCOMPLETE_MESSAGE + "\r\n"
        )

    return _chunked(lines(), chunk_size)


def _json_default(value: object) -> str:
    if isinstance(value, date | time):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def jsonl_chunks(
    columns: Sequence[str],
    rows: Iterable[Sequence[object]],
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> Iterator[bytes]:
    """One JSON object per row and line (keys in column order), as UTF-8 byte chunks. When
    ``rows`` fails partway, the file ends with an error line that is not JSON and
    :class:`ExportStopped` is raised."""
    encode = json.JSONEncoder(
        ensure_ascii=False, separators=(",", ":"), default=_json_default
    ).encode
    keys = tuple(columns)

    def line(row: Sequence[object]) -> str:
        return encode(dict(zip(keys, row, strict=True))) + "\n"

    return _chunked(_stopping(rows, line, INCOMPLETE_MESSAGE + "\n"), chunk_size)


def csv_text(columns: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A small table as one CSV string (the system tables; judgments use :func:`csv_chunks`)."""
    return b"".join(csv_chunks(columns, rows)).decode()


# --- System tables ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DASystemRow:
    """One system of a direct-assessment campaign (a stored ``SystemScore``): WMT's rank
    range, Ave z, Ave raw, its judgments ``n`` and segments ``n_segments``, its cluster."""

    rank_best: int
    rank_worst: int
    system: str
    mean_z: float
    mean_score: float
    n: int
    cluster: int
    n_segments: int = 0


@dataclass(frozen=True)
class RankingSystemRow:
    """One system scored by one method in a ranking campaign (a stored ``RankingScore``).

    ``score`` is None for a system without comparisons; ``ci_low`` / ``ci_high`` are the
    bootstrap interval of the bootstrapped methods, ``sigma`` TrueSkill's uncertainty;
    ``cluster`` is None where the method has none (TrueSkill)."""

    method: str
    rank_best: int
    rank_worst: int
    system: str
    score: float | None
    ci_low: float | None
    ci_high: float | None
    sigma: float | None
    n: int
    wins: int
    ties: int
    losses: int
    cluster: int | None


@dataclass(frozen=True)
class HTERSystemRow:
    """One system of a post-editing campaign (a stored ``PostEditingSystemScore``): rank
    range, corpus HTER (total edits / total reference words) and mean segment HTER with their
    95% bootstrap intervals, outputs and edits counted, the share of edits verified, cluster."""

    rank_best: int
    rank_worst: int
    system: str
    corpus: float
    corpus_ci_low: float | None
    corpus_ci_high: float | None
    mean: float
    mean_ci_low: float | None
    mean_ci_high: float | None
    n_outputs: int
    n_edits: int
    n_verified: int
    cluster: int


def _rank_range(best: int, worst: int, dash: str) -> str:
    return str(best) if best == worst else f"{best}{dash}{worst}"


def _rounded(value: float | None, decimals: int) -> str:
    """``value`` with ``decimals`` decimals; empty for None; never a negative zero."""
    if value is None:
        return ""
    text = f"{value:.{decimals}f}"
    if text.startswith("-") and not text.strip("-0."):
        text = text[1:]
    return text


def _tsv_cell(text: str) -> str:
    # TSV has no quoting: a tab or line break in a name would shift or split the row.
    return re.sub(r"[\t\r\n]", " ", text)


def _tsv(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    lines = ["\t".join(header)]
    lines.extend("\t".join(_tsv_cell(cell) for cell in row) for row in rows)
    return "\n".join(lines) + "\n"


DA_CSV_COLUMNS = (
    "rank_best",
    "rank_worst",
    "system",
    "mean_z",
    "mean_raw",
    "n",
    "cluster",
    "n_segments",
)
DA_TSV_COLUMNS = ("#", "Ave %", "Ave z", "System", "n", "Cluster", "Segments")


def da_systems_csv(rows: Sequence[DASystemRow]) -> str:
    """Full-precision CSV: rank range as two columns, mean z, mean raw score, n (judgments),
    cluster, segments (added last, so that readers of the earlier columns keep working)."""
    return csv_text(
        DA_CSV_COLUMNS,
        (
            (
                r.rank_best,
                r.rank_worst,
                r.system,
                r.mean_z,
                r.mean_score,
                r.n,
                r.cluster,
                r.n_segments,
            )
            for r in rows
        ),
    )


def da_systems_tsv(rows: Sequence[DASystemRow]) -> str:
    """WMT's newstest table as TSV: rank range, Ave % (1 decimal), Ave z (3), System, n,
    cluster (a column, since TSV has no rules to draw between clusters)."""
    return _tsv(
        DA_TSV_COLUMNS,
        (
            (
                _rank_range(r.rank_best, r.rank_worst, "-"),
                _rounded(r.mean_score, 1),
                _rounded(r.mean_z, 3),
                r.system,
                str(r.n),
                str(r.cluster),
                str(r.n_segments),
            )
            for r in rows
        ),
    )


RANKING_CSV_COLUMNS = (
    "method",
    "rank_best",
    "rank_worst",
    "system",
    "score",
    "ci_low",
    "ci_high",
    "sigma",
    "n",
    "wins",
    "ties",
    "losses",
    "cluster",
)
RANKING_TSV_COLUMNS = (
    "Method",
    "#",
    "Score",
    "CI low",
    "CI high",
    "Sigma",
    "System",
    "n",
    "Wins",
    "Ties",
    "Losses",
    "Cluster",
)


def ranking_systems_csv(rows: Sequence[RankingSystemRow]) -> str:
    """Full-precision CSV, one line per method and system (method, then position order)."""
    return csv_text(
        RANKING_CSV_COLUMNS,
        (
            (
                r.method,
                r.rank_best,
                r.rank_worst,
                r.system,
                r.score,
                r.ci_low,
                r.ci_high,
                r.sigma,
                r.n,
                r.wins,
                r.ties,
                r.losses,
                r.cluster,
            )
            for r in rows
        ),
    )


def ranking_systems_tsv(rows: Sequence[RankingSystemRow]) -> str:
    """WMT13-style tables as TSV, one block of lines per method: rank range, score and its
    interval or sigma (3 decimals), system, comparisons, cluster."""
    return _tsv(
        RANKING_TSV_COLUMNS,
        (
            (
                r.method,
                _rank_range(r.rank_best, r.rank_worst, "-"),
                _rounded(r.score, 3),
                _rounded(r.ci_low, 3),
                _rounded(r.ci_high, 3),
                _rounded(r.sigma, 3),
                r.system,
                str(r.n),
                str(r.wins),
                str(r.ties),
                str(r.losses),
                "" if r.cluster is None else str(r.cluster),
            )
            for r in rows
        ),
    )


HTER_CSV_COLUMNS = (
    "rank_best",
    "rank_worst",
    "system",
    "hter",
    "hter_ci_low",
    "hter_ci_high",
    "mean_hter",
    "mean_hter_ci_low",
    "mean_hter_ci_high",
    "n_outputs",
    "n_edits",
    "n_verified",
    "cluster",
)
HTER_TSV_COLUMNS = ("#", "HTER", "95% CI", "Mean HTER", "System", "Outputs", "Edits", "Cluster")


def hter_systems_csv(rows: Sequence[HTERSystemRow]) -> str:
    """Full-precision CSV, best (lowest HTER) first."""
    return csv_text(
        HTER_CSV_COLUMNS,
        (
            (
                r.rank_best,
                r.rank_worst,
                r.system,
                r.corpus,
                r.corpus_ci_low,
                r.corpus_ci_high,
                r.mean,
                r.mean_ci_low,
                r.mean_ci_high,
                r.n_outputs,
                r.n_edits,
                r.n_verified,
                r.cluster,
            )
            for r in rows
        ),
    )


def _hter_interval(low: float | None, high: float | None, number: Callable) -> str:
    return "" if low is None or high is None else f"[{number(low, 3)}, {number(high, 3)}]"


def hter_systems_tsv(rows: Sequence[HTERSystemRow]) -> str:
    """The system table as TSV, rounded for reading (three decimals, as TER is printed):
    rank range, corpus HTER and its interval, mean HTER, system, outputs, edits, cluster."""
    return _tsv(
        HTER_TSV_COLUMNS,
        (
            (
                _rank_range(r.rank_best, r.rank_worst, "-"),
                _rounded(r.corpus, 3),
                _hter_interval(r.corpus_ci_low, r.corpus_ci_high, _rounded),
                _rounded(r.mean, 3),
                r.system,
                str(r.n_outputs),
                str(r.n_edits),
                str(r.cluster),
            )
            for r in rows
        ),
    )


# --- LaTeX -------------------------------------------------------------------------------------

_LATEX_SPECIAL = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}
_LATEX_SPECIAL_RE = re.compile("|".join(re.escape(char) for char in _LATEX_SPECIAL))


def latex_escape(text: str) -> str:
    """``text`` safe in LaTeX's text mode: the ten special characters escaped in one pass (so
    the backslashes added are not escaped again), line breaks and tabs as spaces."""
    text = re.sub(r"[\t\r\n]+", " ", text)
    return _LATEX_SPECIAL_RE.sub(lambda match: _LATEX_SPECIAL[match.group()], text)


def _latex_number(value: float | None, decimals: int) -> str:
    """A rounded number with a real minus sign (a hyphen in text mode is not one); "--" for
    a missing value."""
    text = _rounded(value, decimals)
    if not text:
        return "--"
    return f"$-${text[1:]}" if text.startswith("-") else text


def _latex_table(
    columns: str, header: Sequence[str], groups: Iterable[list[list[str]]], caption: str
) -> str:
    lines = [
        r"\begin{table}",
        r"\centering",
        rf"\begin{{tabular}}{{{columns}}}",
        r"\toprule",
        " & ".join(header) + r" \\",
    ]
    for group in groups:
        lines.append(r"\midrule")
        lines.extend(" & ".join(cells) + r" \\" for cells in group)
    lines += [
        r"\bottomrule",
        r"\end{tabular}",
        rf"\caption{{{latex_escape(caption)}}}",
        r"\end{table}",
    ]
    return "\n".join(lines) + "\n"


_Row = TypeVar("_Row", DASystemRow, RankingSystemRow, HTERSystemRow)


def _clustered(rows: Iterable[_Row], cells: Callable[[_Row], list[str]]) -> list[list[list[str]]]:
    """Consecutive rows of the same cluster as one group (a rule is drawn between groups)."""
    groups: list[list[list[str]]] = []
    previous: int | None | object = object()  # matches no cluster, not even None
    for row in rows:
        if not groups or row.cluster != previous:
            groups.append([])
            previous = row.cluster
        groups[-1].append(cells(row))
    return groups


LATEX_PREAMBLE_NOTE = "% Needs \\usepackage{booktabs} in the preamble.\n"


def da_systems_latex(rows: Sequence[DASystemRow], caption: str) -> str:
    """WMT's newstest table (booktabs): "#", "Ave %", "Ave z", "System", clusters between
    rules."""
    return LATEX_PREAMBLE_NOTE + _latex_table(
        "rrrl",
        (r"\#", r"Ave \%", r"Ave $z$", "System"),
        _clustered(
            rows,
            lambda r: [
                _rank_range(r.rank_best, r.rank_worst, "--"),
                _latex_number(r.mean_score, 1),
                _latex_number(r.mean_z, 3),
                latex_escape(r.system),
            ],
        ),
        caption,
    )


# The score column's heading per ranking method (RankingMethod values); a method not listed
# here gets "Score".
RANKING_LATEX_SCORE_HEADERS: Mapping[str, str] = {
    "win_ratio_geq": r"Wins ($\geq$)",
    "win_ratio_gt": r"Wins ($>$)",
    "win_ratio_wmt12": r"$>$ others",
    "expected_wins": "Exp.\\ wins",
    "bradley_terry": r"$\theta$",
    "trueskill": r"$\mu$",
}


def _interval(row: RankingSystemRow) -> str:
    if row.sigma is not None:
        return _latex_number(row.sigma, 3)
    if row.ci_low is None or row.ci_high is None:
        return "--"
    return f"[{_latex_number(row.ci_low, 3)}, {_latex_number(row.ci_high, 3)}]"


def ranking_systems_latex(
    rows: Sequence[RankingSystemRow], captions: Mapping[str, str], order: Sequence[str]
) -> str:
    """One booktabs table per method, in ``order`` (methods without rows are left out):
    rank range, score, its 95% interval (or TrueSkill's sigma), system; clusters between
    rules; the win ratios also give their counts (wins, ties, losses, comparisons), which
    each ratio is made of. ``captions`` gives each method's caption."""
    by_method: dict[str, list[RankingSystemRow]] = {}
    for row in rows:
        by_method.setdefault(row.method, []).append(row)
    tables = []
    for method in order:
        method_rows = by_method.get(method)
        if not method_rows:
            continue
        uncertainty = (
            r"$\sigma$" if any(r.sigma is not None for r in method_rows) else r"95\% interval"
        )
        counted = method.startswith("win_ratio")
        tables.append(
            _latex_table(
                "rrclrrrr" if counted else "rrcl",
                (
                    r"\#",
                    RANKING_LATEX_SCORE_HEADERS.get(method, "Score"),
                    uncertainty,
                    "System",
                    *(("Wins", "Ties", "Losses", "$n$") if counted else ()),
                ),
                _clustered(
                    method_rows,
                    lambda r, counted=counted: [
                        _rank_range(r.rank_best, r.rank_worst, "--"),
                        _latex_number(r.score, 3),
                        _interval(r),
                        latex_escape(r.system),
                        *((str(r.wins), str(r.ties), str(r.losses), str(r.n)) if counted else ()),
                    ],
                ),
                captions.get(method, method),
            )
        )
    return LATEX_PREAMBLE_NOTE + "\n".join(tables)


def hter_systems_latex(rows: Sequence[HTERSystemRow], caption: str) -> str:
    """The system table (booktabs): "#", HTER (corpus), its 95% interval, mean HTER, System;
    lower is better; clusters between rules."""
    return LATEX_PREAMBLE_NOTE + _latex_table(
        "rrcrl",
        (r"\#", "HTER", r"95\% interval", "Mean", "System"),
        _clustered(
            rows,
            lambda r: [
                _rank_range(r.rank_best, r.rank_worst, "--"),
                _latex_number(r.corpus, 3),
                _hter_interval(r.corpus_ci_low, r.corpus_ci_high, _latex_number) or "--",
                _latex_number(r.mean, 3),
                latex_escape(r.system),
            ],
        ),
        caption,
    )
