"""What a task kind provides for importing published judgment files.

A kind whose judgments can be imported returns a :class:`JudgmentImportKind` from
``CampaignKind.judgment_import()`` (kept in ``campaigns/kinds/<kind>/imports.py``): the file
formats it reads (:class:`JudgmentFormat`, each naming its parser) and its own steps of an
import: how the files are read, what is checked of the parsed files and of the campaign they
go into (again under the campaign's lock before writing), the settings of a campaign the
import creates, and how the summary names the kind. The shared import
(``campaigns.importers.judgments``: options, target campaign, writer, summary) calls these
and never asks which kind it is; a format of any kind (the MTurk batch results) has no kind.

The parsers of the formats stay in this package (``wmt_da.py``, ``appraise_scores.py``,
``wmt08_rr.py``, ``wmt10_rr.py``), next to the records, tables and checks they share and to
docs/judgment-formats.md, which describes them; the kind module names the ones it reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from django.apps import apps
from django.core.exceptions import AppRegistryNotReady

from campaigns.kinds import KindNotAvailable, registry

if TYPE_CHECKING:
    from campaigns.importers.context import Progress
    from campaigns.importers.judgments.records import ParsedJudgments
    from campaigns.importers.judgments.target import ImportOptions
    from campaigns.importers.problems import ProblemList
    from campaigns.importers.reading import InputFile
    from campaigns.models import Campaign

__all__ = [
    "JudgmentFormat",
    "JudgmentImportKind",
    "judgment_import",
    "kind_formats",
    "kind_label",
]

# A format's parser: reads one file into the ParsedJudgments, reporting problems (further
# arguments: what the kind's ``read`` passes, e.g. ranking's sets).
Parser = Callable[..., None]


@dataclass(frozen=True)
class JudgmentFormat:
    """One judgment-file format (docs/judgment-formats.md)."""

    # ImportOptions.fmt, the --format of manage.py import_judgments: "wmt-da".
    name: str
    # The TaskKind value of the campaigns its files make; None: any kind (mturk-batch).
    kind: str | None
    # The choice's label in the admin and the API; the admin's longer description.
    label: str
    help: str
    # Reads one file (None: the format is not read into judgments, e.g. mturk-batch).
    parse: Parser | None = None
    # Whether its files may hold z-scores instead of raw scores (ImportOptions.standardised).
    standardised: bool = False


class JudgmentImportKind:
    """What a kind provides for judgment imports. Override what applies; the defaults do
    nothing of the kind's own."""

    # The TaskKind value this implements.
    kind: ClassVar[str]
    # How problems name its judgments: 'campaign "X" holds ranking judgments and this file
    # direct-assessment ones'.
    label: ClassVar[str]
    # The formats it reads, in the order the admin, the API and the command offer them.
    formats: ClassVar[tuple[JudgmentFormat, ...]] = ()

    def read(
        self,
        fmt: JudgmentFormat,
        inputs: Sequence[InputFile],
        parsed: ParsedJudgments,
        problems: ProblemList,
        progress: Progress | None,
    ) -> None:
        """Parse every file of one import into ``parsed``."""
        assert fmt.parse is not None
        for input_file in inputs:
            fmt.parse(input_file, parsed, problems, progress)

    def check_parsed(self, parsed: ParsedJudgments, problems: ProblemList) -> None:
        """The kind's checks of the files' contents (after the language-pair check, before
        the size checks); may add notes to ``parsed``."""

    def check_target(
        self,
        campaign: Campaign,
        options: ImportOptions,
        parsed: ParsedJudgments,
        problems: ProblemList,
    ) -> bool:
        """Can ``parsed`` be added to the existing imported ``campaign`` of this kind, as far
        as the kind's own settings and data go? Reports why not."""
        return True

    def check_before_write(
        self, campaign: Campaign, parsed: ParsedJudgments, problems: ProblemList
    ) -> None:
        """The checks of :meth:`check_target` that depend on what the campaign holds, run
        again by the writer under the campaign's lock (another import may have written
        meanwhile)."""

    def new_campaign_settings(self, parsed: ParsedJudgments) -> dict[str, Any]:
        """The kind settings of a campaign the import creates (``new_campaign(settings=)``),
        from what the files say."""
        return {}

    def describe(self, standardised: bool) -> str:
        """How the summary names a new campaign's kind: "new campaign "X" (<this>)"."""
        return str(self.kind).replace("_", " ")


def judgment_import(kind: str) -> JudgmentImportKind:
    """The judgment imports of ``kind``; KindNotAvailable if its judgments are not imported."""
    implementation = registry.get(kind)
    steps = None if implementation is None else implementation.judgment_import()
    if steps is None:
        raise KindNotAvailable(f"No judgment imports for {kind!r} campaigns.")
    return steps


def kind_label(kind: str) -> str:
    """How problems name the judgments of ``kind`` ("direct-assessment"); the kind's value
    for a kind without judgment imports."""
    implementation = registry.get(kind)
    steps = None if implementation is None else implementation.judgment_import()
    return kind if steps is None else steps.label


def kind_formats() -> list[JudgmentFormat]:
    """Every kind's formats, the kinds in TASK_KINDS order."""
    if not apps.ready:
        # The kinds register when the campaigns app is ready: asked before (e.g. in a form's
        # class body while the admin is autodiscovered), the answer would lack them.
        raise AppRegistryNotReady(
            "The judgment formats come from the task kinds' modules, registered once the "
            "apps are ready: look them up when needed, not at import time."
        )
    formats: list[JudgmentFormat] = []
    for implementation in registry:
        steps = implementation.judgment_import()
        if steps is not None:
            formats.extend(steps.formats)
    return formats
