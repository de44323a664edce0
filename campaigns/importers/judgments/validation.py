"""Checks shared by the judgment formats: field values, and what one import must agree on.

Every check reports a problem naming the file, the line and the column and goes on, so that
one upload lists everything wrong with it; nothing is written while any problem exists.
"""

from __future__ import annotations

import math
import re
import sys
from datetime import UTC, datetime

from campaigns.importers.context import id_problem
from campaigns.importers.judgments.records import MAX_SLOTS_PER_HIT, ParsedJudgments
from campaigns.importers.problems import ProblemList
from campaigns.importers.records import Origin
from campaigns.models import SlotRole, language_code_validator

RAW_MIN, RAW_MAX = 0.0, 100.0
MAX_RANK = 1000  # a set of a thousand outputs is no ranking a person gave
# WMT's rank files write -1 for an output the annotator left without a rank.
UNRANKED = ("", "-1")
_INTEGER = re.compile(r"^\s*\+?\d+\s*$")


class Checker:
    """Field checks for one file: each returns the parsed value, or None after reporting."""

    def __init__(self, file: str, problems: ProblemList) -> None:
        self.file = file
        self.problems = problems

    def problem(self, line: int, field: str | None, message: str) -> None:
        self.problems.add(self.file, line, field, message)

    def identifier(self, line: int, field: str, value: str, what: str) -> str | None:
        message = id_problem(value, what)
        if message:
            self.problem(line, field, message)
            return None
        # Interned: a file repeats its ids on every row, and each row's split makes new copies.
        return sys.intern(value.strip())

    def number(self, line: int, field: str, value: str, what: str) -> float | None:
        text = value.strip()
        try:
            number = float(text)
        except ValueError:
            shown = f'"{text}"' if text else "empty"
            self.problem(line, field, f"{shown} is not a number; every {what} needs one")
            return None
        if not math.isfinite(number):
            self.problem(line, field, f'"{text}" is not a finite number')
            return None
        return number

    def score(self, line: int, field: str, value: str, standardised: bool) -> float | None:
        """A raw 0-100 score, or (``standardised``) any finite z-score."""
        number = self.number(line, field, value, "judgment")
        if number is None or standardised:
            return number
        if not RAW_MIN <= number <= RAW_MAX:
            self.problem(
                line,
                field,
                f"score {value.strip()} is outside 0-100; raw scores are slider positions from "
                "0 to 100 (if the file holds standardised z-scores, import it as standardised)",
            )
            return None
        # One object per whole score: a file of a million judgments repeats 101 values.
        return _WHOLE_SCORES.get(number, number)

    def rank(self, line: int, field: str, value: str) -> int | None:
        """A rank from 1 (best); None (no problem) for an output left unranked."""
        text = value.strip()
        if text in UNRANKED:
            return None
        if not _INTEGER.match(text) or not 1 <= int(text) <= MAX_RANK:
            self.problem(
                line,
                field,
                f'rank "{text}" is not a positive whole number; ranks go from 1 (best) to the '
                "number of outputs of the set, and -1 or an empty field marks an output left "
                "unranked",
            )
            return None
        return int(text)

    def seconds(self, line: int, field: str, value: str) -> float | None:
        """Seconds spent; None (no problem) when empty."""
        if not value.strip():
            return None
        number = self.number(line, field, value, "time")
        if number is not None and number < 0:
            self.problem(line, field, f"time {value.strip()} is negative")
            return None
        return number

    def epoch(self, line: int, field: str, value: str) -> datetime | None:
        """A Unix time in seconds (Appraise's start and end times)."""
        number = self.number(line, field, value, "time")
        if number is None:
            return None
        try:
            return datetime.fromtimestamp(number, tz=UTC)
        except (OverflowError, OSError, ValueError):
            self.problem(line, field, f"{value.strip()} is not a Unix time in seconds")
            return None


def check_one_language_pair(parsed: ParsedJudgments, problems: ProblemList) -> None:
    """One campaign is one language pair: a file holding several is imported one pair at a
    time, chosen with the option ``language_pair`` (rows of the others are skipped, counted);
    without it, such a file is refused with the pairs it holds."""
    selected = parsed.selected_pair
    if selected is not None:
        skipped = sum(count for _, count in parsed.other_pairs.values())
        if skipped:
            parsed.ignored[f"rows of other language pairs than {'-'.join(selected)}"] += skipped
        if not parsed.language_pairs and parsed.other_pairs:
            problems.add(
                None,
                None,
                "language_pair",
                f"no rows of the language pair {'-'.join(selected)}; the file holds "
                f"{_listed(parsed.other_pairs)}",
            )
    if len(parsed.language_pairs) < 2:
        return
    problems.add(
        None,
        None,
        "language_pair",
        f"the file holds several language pairs: {_listed(parsed.language_pairs)}; a "
        "campaign is one language pair, so choose the pair to import with the option "
        "language_pair (e.g. language_pair=de-en; --language-pair in manage.py "
        'import_judgments, "Language pair" on the admin\'s import page) and import each pair '
        "into its own campaign",
    )


def _listed(pairs: dict) -> str:
    return "; ".join(
        f"{_pair_text(pair)} ({count} row{'s' if count != 1 else ''}, first on "
        f"{origin.file} line {origin.line})"
        for pair, (origin, count) in pairs.items()
    )


def check_one_mode(parsed: ParsedJudgments, problems: ProblemList) -> None:
    """Fluency and adequacy are separate campaigns (METHODS.md section 2)."""
    if len(parsed.modes) < 2:
        return
    listed = ", ".join(
        f"{mode} (first on {origin.file} line {origin.line})"
        for mode, origin in parsed.modes.items()
    )
    problems.add(
        None,
        None,
        None,
        f"the file mixes assessment modes: {listed}; fluency and adequacy are separate "
        "campaigns, so import their rows separately",
    )


def file_languages(parsed: ParsedJudgments) -> tuple[str, str] | None:
    """The file's one language pair when both are language codes we accept, else None."""
    if len(parsed.language_pairs) != 1:
        return None
    pair = next(iter(parsed.language_pairs))
    if len(pair) != 2:
        return None
    for code in pair:
        try:
            language_code_validator(code)
        except Exception:  # ValidationError: a language name ("Czech"), not a code
            return None
    return pair[0], pair[1]


def note_unpaired_controls(parsed: ParsedJudgments) -> None:
    """Count repeats and bad references whose output has no system slot in their HIT: they
    are stored, but pair with nothing (the statistics' control pairs are within a HIT)."""
    unpaired = 0
    for hit in parsed.hits.values():
        for role, system, document, segment in hit.slots:
            if role in (SlotRole.REPEAT, SlotRole.BAD_REFERENCE) and (
                (SlotRole.SYSTEM.value, system, document, segment) not in hit.slots
            ):
                unpaired += 1
    if unpaired:
        parsed.notes.append(
            f"{unpaired} repeat or bad-reference item{'s have' if unpaired != 1 else ' has'} "
            "no system output of the same system and segment in its HIT, so it pairs with "
            "nothing in the reliability tests"
        )


def check_sizes(parsed: ParsedJudgments, problems: ProblemList) -> None:
    """What the tables cannot hold: a HIT of more slots than a slot position can number."""
    for hit in parsed.hits.values():
        if len(hit.slots) > MAX_SLOTS_PER_HIT:
            problems.add(
                hit.origin.file,
                hit.origin.line,
                None,
                f"{hit.label} has {len(hit.slots):,} items; a HIT holds at most "
                f"{MAX_SLOTS_PER_HIT:,} (export with Appraise's --batch-info to split an "
                "annotator's judgments by batch)",
            )
    if parsed.too_long:
        parsed.notes.append(
            f"{parsed.too_long} judgment{'s' if parsed.too_long != 1 else ''} took longer than "
            "24 days by the file's times; stored without a time"
        )


def check_not_empty(parsed: ParsedJudgments, problems: ProblemList) -> None:
    if parsed.judgments or problems:
        return
    names = ", ".join(parsed.files) or "the import"
    skipped = ""
    if parsed.ignored:
        skipped = " (skipped: " + ", ".join(f"{n} {why}" for why, n in parsed.ignored.items())
        skipped += ")"
    problems.add(
        parsed.files[0] if len(parsed.files) == 1 else None,
        None,
        None,
        f"nothing to import: no judgments found in {names}{skipped}",
    )


def origin(file: str, line: int, field: str | None = None) -> Origin:
    return Origin(file, line, field)


def _pair_text(pair: tuple[str, ...]) -> str:
    return "-".join(pair) if len(pair) == 2 else pair[0]


_WHOLE_SCORES = {float(n): float(n) for n in range(101)}
