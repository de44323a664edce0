"""What goes wrong in an import: one ImportProblem per finding, all of them gathered before
anything is written, raised together as ImportFailed."""

from __future__ import annotations

from dataclasses import dataclass

# Problems shown to a person (command output, admin page). Every problem is counted; only the
# first SHOWN_PROBLEMS (in file and line order) are listed, followed by "and N more".
SHOWN_PROBLEMS = 200
# Problems kept in memory; a completely broken 100 MB file should not need 1 GB of messages.
KEPT_PROBLEMS = 10_000


@dataclass(frozen=True)
class ImportProblem:
    """One thing wrong with an import.

    ``line`` is 1-based, None when the problem is about a whole file (or about the import as a
    whole, then ``file`` is None too). ``field`` is a column name (tabular), a JSON path
    (Appraise, e.g. ``[3].items[17].targetText``) or None.
    """

    file: str | None
    line: int | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.file or ""
        if self.line is not None:
            where = f"{where} line {self.line}" if where else f"line {self.line}"
        if self.field:
            where = f'{where}, field "{self.field}"' if where else f'field "{self.field}"'
        return f"{where}: {self.message}" if where else self.message


class ProblemList:
    """Collects problems in the order found; ``sorted()`` gives them in file and line order."""

    def __init__(self, file_order: list[str] | None = None) -> None:
        self._problems: list[ImportProblem] = []
        self.total = 0
        # Files in import order: problems are sorted by file in this order, then by line.
        self.file_order = list(file_order or [])

    def add(
        self, file: str | None, line: int | None, field: str | None, message: str
    ) -> ImportProblem:
        problem = ImportProblem(file, line, field, message)
        self.total += 1
        if len(self._problems) < KEPT_PROBLEMS:
            self._problems.append(problem)
        return problem

    def __bool__(self) -> bool:
        return self.total > 0

    def __len__(self) -> int:
        return self.total

    def sorted(self) -> list[ImportProblem]:
        order = {name: i for i, name in enumerate(self.file_order)}

        def key(problem: ImportProblem) -> tuple[int, int]:
            if problem.file is None:
                return (-1, 0)
            return (order.get(problem.file, len(order)), problem.line or 0)

        return sorted(self._problems, key=key)

    def failure(self) -> ImportFailed:
        return ImportFailed(self.sorted(), total=self.total)


class ImportFailed(Exception):
    """Raised when an import has problems; nothing was written.

    ``problems`` holds the first SHOWN_PROBLEMS problems in file and line order; ``total`` counts
    all of them, ``omitted`` those not listed.
    """

    def __init__(self, problems: list[ImportProblem], *, total: int | None = None) -> None:
        self.all_problems = list(problems)
        self.total = total if total is not None else len(problems)
        self.problems = self.all_problems[:SHOWN_PROBLEMS]
        self.omitted = self.total - len(self.problems)
        super().__init__(self.headline)

    @property
    def headline(self) -> str:
        noun = "problem" if self.total == 1 else "problems"
        return f"{self.total} {noun} found; nothing was imported."

    def lines(self) -> list[str]:
        """The problems one per line, with the "and N more" note when some are not listed."""
        lines = [str(problem) for problem in self.problems]
        if self.omitted:
            lines.append(
                f"... and {self.omitted} more (only the first {len(self.problems)} are listed)"
            )
        return lines

    def __str__(self) -> str:
        return "\n".join([self.headline, *self.lines()])
