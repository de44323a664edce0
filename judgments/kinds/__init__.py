"""The worker's side of each task kind: what a worker's browser receives, how an answer is
checked and stored, and what the kind adds to quality control.

Every kind registers one :class:`JudgmentKind` (``judgments/kinds/<kind>.py``) with
:data:`registry`. A kind's HITs hold one or more HIT tasks (``Hit.task``: direct assessment
"assess", ranking "rank"; post-editing "post_edit" and "verify_edit"; reading comprehension
"rc_author", "rc_select", "rc_answer" and "rc_grade"), and the kind gives each a
:class:`TaskPage`: its answer spec, its templates, its words and its presenters. The shared
code asks :func:`task_page` (by a HIT's task) or :func:`kind_of` (by a campaign) and never
compares a kind or a task with a particular one; a task no kind handles gets None, which the
views answer with "This kind of task cannot be shown yet." (501).

What the shared code calls, in order, for one worker:

1. the hand-out (``judgments.actions.next_assignment_for``): shared, no kind involved;
2. the task page (``judgments.views.task_page``): :attr:`TaskPage.template` (it extends
   ``judgments/task_base.html``) with :meth:`TaskPage.labels` and
   :meth:`TaskPage.template_context`; the page's own script is named by the template;
3. the item endpoint: the task state cuts the HIT with ``spec.units`` and ``spec.page_size``,
   then :meth:`TaskPage.present` (built on :meth:`TaskPage.present_unit`) is the JSON's
   "next";
4. the submit endpoint: ``spec.parsers`` read the answer (no database), ``spec.bind`` checks it
   against its unit and gives the Judgment column values of each slot, which the shared
   ``record_judgment`` stores (atomic, idempotent);
5. Prolific's completion: :meth:`JudgmentKind.qc_failures` adds the kind's own reasons to fail
   quality control.

MTurk's preview of a HIT shows :meth:`TaskPage.preview_sample` (built on
:meth:`TaskPage.present_unit`) with :attr:`TaskPage.preview_template`.

Words: every word a worker reads is an English msgid marked with ``pgettext`` and translated
by the catalogs under ``locale/`` (``judgments.i18n``); :meth:`TaskPage.labels` renders them
in :meth:`TaskPage.language`, and :func:`worker_language` puts the messages about an answer in
the same language.

This module imports no kind and nothing of ``judgments.actions`` (whose task state and
submission import it): the kind modules, loaded by ``JudgmentsConfig.ready()``, do.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, ClassVar

from django.utils.translation import pgettext

from evalsite.kinds import KindNotAvailable, Registry
from judgments.i18n import page_language, words_in

if TYPE_CHECKING:
    from campaigns.models import Campaign
    from judgments.actions.specs import ShownUnit, TaskSpec
    from judgments.actions.state import TaskState
    from judgments.models import Assignment

__all__ = [
    "JudgmentKind",
    "KindNotAvailable",
    "asks_background",
    "TaskPage",
    "failure_reason",
    "kind_of",
    "registry",
    "task_page",
    "task_page_words",
    "task_spec",
    "worker_language",
]


def task_page_words() -> dict[str, str]:
    """The words every task page shares (task_base.html and task-common.js), in the active
    language."""
    return {
        "progress_label": pgettext("task page", "Progress"),
        "noscript": pgettext(
            "task page", "This task needs JavaScript. Please turn it on and reload the page."
        ),
        "unreadable": pgettext(
            "task page", "The server answered unexpectedly. Please reload the page."
        ),
        "restart": pgettext("task page", "Get a task"),
        "instructions": pgettext("task page", "Instructions"),
        # Translators: names the sample of a task on MTurk's preview (for screen readers).
        "example": pgettext("task page", "Example"),
        # Translators: read by screen readers while the worker has not moved the slider yet;
        # {value} is where it stands ("50% (0: strongly disagree, 100: strongly agree)").
        "slider_untouched": pgettext("task page", "Not moved yet: {value}"),
    }


class TaskPage:
    """What one HIT task shows a worker and how it takes answers. Subclasses set the class
    attributes and implement :meth:`words`, :meth:`present_unit`, :meth:`present` and
    :meth:`preview_sample`."""

    # The HitTask value this page is for.
    task: ClassVar[str]
    # How answers are taken (units, parsers, bind, page size): judgments.actions.specs.
    spec: ClassVar[TaskSpec]
    # The task page's template (extends judgments/task_base.html and names its script).
    template: ClassVar[str]
    # The sample of MTurk's preview, included by judgments/mturk_preview.html.
    preview_template: ClassVar[str]
    # CSS class of the preview's frame (the task page's template sets its own).
    preview_class: ClassVar[str] = ""
    # Seconds one judgment takes before any task of the campaign is finished (the worker entry
    # page's time estimate, judgments.entry.overview; issue 17). From the papers' own reports
    # where they give them, else a generous reading time of the unit.
    default_seconds_per_judgment: ClassVar[int] = 30
    # A task whose first answer is long work (reading comprehension's authoring: a whole
    # article's questions at once) keeps the campaign's working time without an answer
    # (judgments.actions.membership.unanswered_past_hold).
    long_first_answer: ClassVar[bool] = False
    # (context, msgid) of the page's prompt: a catalog that translates it offers the page in
    # its language (judgments.i18n.page_language). None: the page is shown in English.
    language_probe: ClassVar[tuple[str, str] | None] = None

    def language(self, campaign: Campaign) -> str:
        """The language the page is shown in for ``campaign`` (its instructions language or
        that language's base, when a catalog offers the page in it; else English)."""
        return page_language(campaign.instructions_language, self.language_probe)

    def labels(self, campaign: Campaign) -> dict[str, Any]:
        """Everything the page says, in :meth:`language`: the shared words, the page's own
        (:meth:`words`) and ``code``, the language (the page's ``lang``)."""
        language = self.language(campaign)
        with words_in(language):
            return {**task_page_words(), **self.words(campaign), "code": language}

    def words(self, campaign: Campaign) -> dict[str, Any]:
        """The page's own words, in the active language (called by :meth:`labels`)."""
        raise NotImplementedError

    def template_context(self, campaign: Campaign) -> dict[str, Any]:
        """Further context of the page's template."""
        return {}

    def present_unit(self, unit: ShownUnit, campaign: Campaign) -> dict[str, Any]:
        """What the worker's browser receives of one unit: its handle and the texts to show,
        never a slot's role, a system name or a gold answer."""
        raise NotImplementedError

    def present(self, state: TaskState) -> dict[str, Any]:
        """The "next" of the item endpoint: the unit(s) on the worker's page now
        (``state.shown``, never empty here)."""
        raise NotImplementedError

    def preview_sample(
        self, unit: ShownUnit, total: int, campaign: Campaign, labels: dict[str, Any]
    ) -> dict[str, Any]:
        """The preview template's view of the HIT's first unit (of ``total``), with the
        page's ``labels``."""
        raise NotImplementedError


class JudgmentKind:
    """What every task kind provides on the worker's side. Override what applies."""

    # The TaskKind value this implements.
    kind: ClassVar[str]
    # The pages of the HIT tasks this kind's HITs hold.
    pages: ClassVar[tuple[type[TaskPage], ...]] = ()
    # Whether every worker answers the language-background form before their first task, as
    # if the campaign's ``ask_background`` were on (translation: 000 asks its translators).
    asks_background: ClassVar[bool] = False
    # What a worker does, in plain words for the entry page (no word about checks).
    description: ClassVar[str] = ""

    def __init__(self) -> None:
        self._pages = {str(page.task): page() for page in self.pages}

    def page(self, task: str) -> TaskPage | None:
        """The page of HIT task ``task``, if this kind has it."""
        return self._pages.get(str(task))

    def tasks(self) -> tuple[str, ...]:
        return tuple(self._pages)

    def qc_failures(self, campaign: Campaign, worker_ids: Iterable[int]) -> dict[int, str]:
        """Workers among ``worker_ids`` who failed this kind's own quality control in
        ``campaign``, with the reason (for the requester; never shown to the worker), besides
        the shared reasons (excluded, untrusted, failed the qualification test)."""
        return {}


registry: Registry[JudgmentKind] = Registry("judgments.kinds.{name}", "task page")


def kind_of(campaign: Campaign) -> JudgmentKind | None:
    """The campaign's kind on the worker's side; None for a kind without pages yet."""
    return registry.get(campaign.kind)


def task_page(task: str) -> TaskPage | None:
    """The page of HIT task ``task`` (``Hit.task``); None when no kind has one yet."""
    for kind in registry:
        page = kind.page(task)
        if page is not None:
            return page
    return None


def asks_background(campaign: Campaign) -> bool:
    """Whether the campaign's workers answer the language-background form before their first
    task: the campaign asks for it, or its kind always does."""
    if campaign.ask_background:
        return True
    kind = kind_of(campaign)
    return kind is not None and kind.asks_background


def task_spec(task: str) -> TaskSpec | None:
    """How HIT task ``task`` takes answers; None when no kind has a page for it yet."""
    page = task_page(task)
    return None if page is None else page.spec


@contextmanager
def worker_language(assignment: Assignment) -> Iterator[str]:
    """Meanwhile, words (the messages about an answer) are in the language of the
    assignment's task page (English for a task without one); yields that language."""
    page = task_page(assignment.hit.task)
    language = "en" if page is None else page.language(assignment.campaign)
    with words_in(language):
        yield language


def failure_reason(what: str, details: str) -> str:
    """A quality-control failure for the requester: ``what`` (details)."""
    details = " ".join(details.split())
    return f"{what} ({details})" if details else what
