"""The campaign page's checklist (issue 17 item 1): where a campaign stands and what to do next.

Each step says what is true now, and is one of

- ``done``: nothing to do (its button may still offer to do it again: import more, rebuild);
- ``next``: the first thing to do, with its button;
- ``blocked``: it cannot be done yet; ``todo`` says why and what to do;
- ``waiting``: under way (judgments arriving);
- ``later``: an earlier step comes first;
- ``check``: worth a look, but nothing waits for it (a campaign that pays nothing).

The buttons post to the campaign admin's step view (``CampaignAdmin.step_view``), which runs
the same admin actions as the campaign list's action menu (and through them the shared
functions of :mod:`campaigns.actions`), or link to the pages those actions open (import,
direct links, Prolific, MTurk publishing, exports). A button is offered only to a user whom
the action would allow. The page reads stored counts and results only: a fixed number of
queries, nothing computed.

What a kind adds (its quality control, what stops its build before it is tried) comes from
:data:`KIND_NOTES`, keyed by the kind like the kinds' own registries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from decimal import Decimal
from importlib import import_module
from typing import TYPE_CHECKING

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Count, Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone
from django.utils.timesince import timesince

from campaigns import actions as campaign_actions
from campaigns.kinds import kind_of, kind_settings
from campaigns.links import open_link_url
from campaigns.models import (
    Campaign,
    CampaignStatus,
    Hit,
    HitTask,
    MTurkHit,
    Output,
)
from campaigns.pay import task_rewards
from evalsite.page_memo import remembered

if TYPE_CHECKING:
    from analytics.progress import CampaignProgress

__all__ = ["Button", "Checklist", "Step", "campaign_checklist"]

DONE, NEXT, BLOCKED, WAITING, LATER = "done", "next", "blocked", "waiting", "later"
# Worth a look, but nothing waits for it (an unpaid campaign: volunteers are legitimate).
CHECK = "check"
STATE_WORDS = {
    DONE: "Done",
    NEXT: "Next",
    BLOCKED: "Blocked",
    WAITING: "Under way",
    LATER: "Later",
    CHECK: "Check",
}
# The steps a requester's own button may run on the campaign page (CampaignAdmin.step_view).
POSTED_STEPS = (
    "build",
    "delete_hits",
    "activate",
    "pause",
    "finish",
    "follow_up",
    "sync_mturk",
    "expire_mturk",
    "extend_mturk",
    "export_background",
)


@dataclass(frozen=True)
class Button:
    """A link (``post`` empty), or a form posting ``field=post`` to ``url`` (the step view's
    ``step`` is one of :data:`POSTED_STEPS`)."""

    label: str
    url: str
    post: str = ""
    primary: bool = False
    field: str = "step"


@dataclass
class Step:
    key: str
    title: str
    state: str
    summary: str
    todo: str = ""
    buttons: list[Button] = field(default_factory=list)
    lines: list[tuple[str, str]] = field(default_factory=list)  # (text, link or "")
    percent: float | None = None

    @property
    def state_word(self) -> str:
        return STATE_WORDS[self.state]


@dataclass
class Checklist:
    steps: list[Step]

    @property
    def next_step(self) -> Step | None:
        return next((step for step in self.steps if step.state == NEXT), None)


@dataclass(frozen=True)
class Facts:
    """What the checklist reads about a campaign (one query per line, whatever its size)."""

    documents: int
    segments: int
    systems: int
    outputs: int
    hits: int
    qualification_hits: int
    frozen: str
    outside_hits: int
    by_platform: dict[str, int]
    mturk_published: int
    progress: CampaignProgress
    judgments: int
    computed_at: datetime | None

    @classmethod
    def load(cls, campaign: Campaign) -> Facts:
        """Once per campaign on a page (evalsite.page_memo: the campaign page's form shows
        the same counts)."""
        return remembered(("checklist_facts", campaign.pk), lambda: cls._read(campaign))

    @classmethod
    def _read(cls, campaign: Campaign) -> Facts:
        from analytics.kinds import statistics_of
        from analytics.progress import kind_progress
        from judgments.models import Assignment

        hits = Hit.objects.filter(campaign=campaign).aggregate(
            regular=Count("pk", filter=Q(is_qualification=False)),
            test=Count("pk", filter=Q(is_qualification=True)),
        )
        platforms = dict(
            Assignment.objects.filter(campaign=campaign)
            .order_by()
            .values_list("worker__platform")
            .annotate(n=Count("worker", distinct=True))
        )
        statistics = statistics_of(campaign)
        return cls(
            documents=campaign.documents.count(),
            segments=campaign.segments.count(),
            systems=campaign.systems.count(),
            outputs=Output.objects.filter(segment__campaign=campaign).count(),
            hits=hits["regular"],
            qualification_hits=hits["test"],
            frozen=campaign_actions.hits_frozen_reason(campaign) if hits["regular"] else "",
            outside_hits=(
                campaign_actions.segments_outside_hits(campaign).count() if hits["regular"] else 0
            ),
            by_platform=platforms,
            mturk_published=MTurkHit.objects.filter(hit__campaign=campaign).count(),
            # The panels' and the dashboard's one progress computation, by the kind's rule
            # (analytics.progress.kind_progress: ranking counts ranked sets).
            progress=kind_progress(campaign),
            judgments=campaign.judgments.count(),
            computed_at=None if statistics is None else statistics.stored_computed_at(campaign),
        )


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _url(name: str, *args: object) -> str:
    return reverse(f"admin:{name}", args=args)


def campaign_checklist(
    campaign: Campaign,
    *,
    can_change: bool,
    can_publish_mturk: bool,
    can_view: bool = True,
    mturk_shown: bool = True,
) -> Checklist:
    """The steps of ``campaign`` for a user who may (``can_change``) or may not change it and
    may or may not spend money on MTurk (``can_publish_mturk``). ``mturk_shown``: MTurk makes
    sense for this campaign (``campaigns.admin.mturk.mturk_shown``: credentials, or the
    campaign is on MTurk or chose it); otherwise its line says how to enable it and it has no
    MTurk buttons."""
    facts = Facts.load(campaign)
    step_url = _url("campaigns_campaign_step", campaign.pk)
    if campaign.imported_from:
        # Judgments imported from a published file: nothing to build, activate or publish.
        steps = [
            Step(
                "imported",
                "Judgments imported",
                DONE,
                f"Imported from a {campaign.imported_from} file: "
                f"{_plural(facts.judgments, 'judgment')} of {_plural(facts.systems, 'system')} "
                f"on {_plural(facts.segments, 'segment')}.",
            ),
            _results_step(campaign, facts, can_change, can_view),
        ]
        analysis = _analysis_step(campaign, facts)
        return Checklist(steps if analysis is None else [*steps, analysis])
    steps = [
        _import_step(campaign, facts, can_change, step_url),
        _quality_step(campaign, facts),
        _build_step(campaign, facts, can_change, step_url),
        _payment_step(campaign),
        _activate_step(campaign, facts, can_change, step_url),
        _publish_step(campaign, facts, can_change, can_publish_mturk, mturk_shown),
        _judgments_step(campaign, facts),
        _results_step(campaign, facts, can_change, can_view),
    ]
    analysis = _analysis_step(campaign, facts)
    if analysis is not None:
        steps.append(analysis)
    # Only the first step still to do is "next"; later ones wait for it.
    seen_next = False
    for step in steps:
        if step.state == NEXT:
            if seen_next:
                step.state = LATER
            seen_next = True
    return Checklist(steps)


# --- the steps ---------------------------------------------------------------------------------


def _import_step(campaign: Campaign, facts: Facts, can_change: bool, step_url: str) -> Step:
    import_button = Button(
        "Import segments" if not facts.segments else "Import more segments",
        _url("campaigns_campaign_import", campaign.pk),
        primary=not facts.segments,
    )
    buttons = [import_button] if can_change else []
    if not facts.segments:
        return Step(
            "import",
            "Segments imported",
            NEXT if can_change else LATER,
            "No segments yet.",
            todo="Import a file of segments: TSV, CSV, JSON lines, WMT plain text or Appraise "
            "(one row per system output: doc_id, seg_id, source, reference, system, output).",
            buttons=buttons,
        )
    summary = (
        f"{_plural(facts.segments, 'segment')} in {_plural(facts.documents, 'document')}; "
        f"{_plural(facts.systems, 'system')}, {_plural(facts.outputs, 'output')}."
    )
    todo = ""
    if facts.outside_hits and facts.frozen:
        todo = (
            f"{_plural(facts.outside_hits, 'segment')} came after the HITs were frozen (workers "
            "have started them) and no HIT shows them, so nobody will see them here. Create a "
            "follow-up campaign with them: it copies this campaign's settings and takes these "
            "segments, their systems and outputs."
        )
        if can_change:
            buttons.append(Button("Create follow-up campaign", step_url, post="follow_up"))
    elif facts.outside_hits:
        todo = (
            f"{_plural(facts.outside_hits, 'segment')} came after the HITs were built and no HIT "
            "shows them yet: rebuild the HITs to include them."
        )
    return Step("import", "Segments imported", DONE, summary, todo=todo, buttons=buttons)


def _has_settings(campaign: Campaign) -> bool:
    """Whether the campaign has its kind's settings row (a campaign whose kind just changed
    has none until the requester saves the new kind's settings)."""
    try:
        kind_settings(campaign)
    except ObjectDoesNotExist:
        return False
    return True


def _missing_settings(campaign: Campaign) -> str:
    return (
        f"The campaign has no {campaign.get_kind_display()} settings yet: fill them in below "
        "and save."
    )


def _quality_step(campaign: Campaign, facts: Facts) -> Step:
    notes = _kind_notes(campaign)
    if not _has_settings(campaign):
        return Step(
            "quality", "Quality control", BLOCKED, "No settings.", todo=_missing_settings(campaign)
        )
    if notes is None:
        return Step("quality", "Quality control", DONE, "Set in the kind's settings below.")
    return notes.quality(campaign, facts)


def _build_step(campaign: Campaign, facts: Facts, can_change: bool, step_url: str) -> Step:
    title = "HITs built"
    if not campaign_actions.has_hit_builder(campaign.kind):
        return Step(
            "build",
            title,
            BLOCKED,
            "No HITs.",
            todo=f"Building HITs for {campaign.get_kind_display()} campaigns is not available.",
        )
    if facts.hits:
        summary = f"{_plural(facts.hits, 'HIT')} built"
        if facts.qualification_hits:
            summary += f", and the qualification test ({_plural(facts.qualification_hits, 'HIT')})"
        summary += "."
        gaps = _output_gaps(campaign, facts)
        if facts.frozen:
            reason = facts.frozen.split(". ")[0]
            todo = f"Frozen: {reason[:1].lower()}{reason[1:]}."
            return Step("build", title, DONE, summary, todo=f"{gaps} {todo}" if gaps else todo)
        state = NEXT if facts.outside_hits else DONE
        buttons = (
            [
                Button("Rebuild HITs", step_url, post="build", primary=state == NEXT),
                # To add a late system first (its outputs cannot join segments HITs show).
                Button("Delete HITs", step_url, post="delete_hits"),
            ]
            if can_change
            else []
        )
        todo = (
            "Rebuilding replaces them with HITs of the present segments and settings, until a "
            "worker starts one; deleting them lets a late system's outputs join the segments "
            "first."
        )
        return Step(
            "build",
            title,
            state,
            summary,
            todo=f"{gaps} {todo}" if gaps else todo,
            buttons=buttons,
        )
    if not facts.segments:
        return Step("build", title, LATER, "No HITs yet.", todo="Import segments first.")
    notes = _kind_notes(campaign)
    if not _has_settings(campaign):
        blockers = [_missing_settings(campaign)]
    else:
        blockers = [] if notes is None else notes.blockers(campaign, facts)
    gaps = _output_gaps(campaign, facts)
    if gaps:
        blockers.insert(0, gaps)
    if blockers:
        return Step(
            "build",
            title,
            BLOCKED,
            "No HITs yet.",
            todo=" ".join(blockers),
            buttons=[Button("Try to build HITs", step_url, post="build")] if can_change else [],
        )
    return Step(
        "build",
        title,
        NEXT if can_change else LATER,
        "No HITs yet.",
        todo="Build the HITs from the segments and the settings below; the same seed builds the "
        "same HITs.",
        buttons=[Button("Build HITs", step_url, post="build", primary=True)] if can_change else [],
    )


def _output_gaps(campaign: Campaign, facts: Facts) -> str:
    """Systems the HITs leave out (no outputs, or fewer than the segments where the kind
    compares systems on the same segments): a problem that blocks the build, as it does in
    :func:`campaigns.actions.build_hits`; '' without one. A query when there are systems."""
    if not facts.systems or not facts.segments:
        return ""
    return campaign_actions.output_gaps(campaign, facts.segments)


def _payment_step(campaign: Campaign) -> Step:
    """What one assignment pays: the campaign's reward, and the kind's own pay per task
    (campaigns.pay.task_rewards: post-editing's verification, the stages of translation and
    reading comprehension). A campaign that pays nothing is legitimate (volunteers), so it is
    a warning, not a blocker; it says what workers will read and where to set the pay."""
    title = "Payment"
    kind = kind_of(campaign)
    own = task_rewards(campaign)
    own_tasks = {task for task, _, _ in kind.task_rewards}
    # (what, pays, where it comes from)
    pays: list[tuple[str, Decimal, str]] = []
    on_campaign = [task for task in kind.hit_tasks if task not in own_tasks]
    if on_campaign or not kind.hit_tasks:
        what = (
            "Each assignment"
            if not own
            else " and ".join(f"{HitTask(task).label} HITs" for task in on_campaign)
        )
        pays.append((what, campaign.reward, "the campaign's reward"))
    for row in own:
        where = (
            "the campaign's reward: no own reward set"
            if row.own is None
            else f"its own {_field_words(kind, row.field)}"
        )
        pays.append((row.label, row.reward, where))
    lines = [
        (f"{what}: ${amount:.2f} per assignment ({where}).", "") for what, amount, where in pays
    ]
    unpaid = [what for what, amount, _ in pays if amount <= 0]
    where_to_set = 'Reward (US dollars per assignment) under "Payment and publishing" below' + (
        f", or the pay of each task in the {kind.settings_model._meta.verbose_name}" if own else ""
    )
    if unpaid and len(unpaid) == len(pays):
        return Step(
            "payment",
            title,
            CHECK,
            "Unpaid: $0.00 per assignment.",
            todo='Workers will read "Pay: Unpaid." on the task\'s entry page, and MTurk takes '
            "no HIT without a reward (at least $0.01). That is right for volunteers; to pay "
            f"workers, set {where_to_set}, and save.",
            lines=lines if own else [],
        )
    if unpaid:
        return Step(
            "payment",
            title,
            CHECK,
            "Some work is unpaid.",
            todo=f"{' and '.join(unpaid)} pay $0.00: the workers who take them are not paid. "
            f"If that is not meant, set {where_to_set}, and save.",
            lines=lines,
        )
    if not own:
        return Step("payment", title, DONE, f"${campaign.reward:.2f} per assignment.")
    return Step("payment", title, DONE, "Paid per assignment:", lines=lines)


def _field_words(kind, field: str) -> str:
    """A kind's settings field as the admin names it (its verbose name)."""
    return str(kind.settings_model._meta.get_field(field).verbose_name)


def _activate_step(campaign: Campaign, facts: Facts, can_change: bool, step_url: str) -> Step:
    title = "Active"
    status = campaign.status
    label = CampaignStatus(status).label
    if status == CampaignStatus.ACTIVE:
        buttons = [
            Button("Pause", step_url, post="pause"),
            Button("Finish", step_url, post="finish"),
        ]
        return Step(
            "activate",
            title,
            DONE,
            "Active: HITs are handed out.",
            buttons=buttons if can_change else [],
        )
    if not facts.hits:
        return Step(
            "activate",
            title,
            LATER,
            f"{label}.",
            todo="Build HITs first: an active campaign without HITs has nothing to hand out.",
        )
    summary = f"{label}: no HITs are handed out."
    if campaign.status_reason:
        summary += f" {campaign.status_reason}"
    buttons = [Button("Activate", step_url, post="activate", primary=True)]
    if status == CampaignStatus.PAUSED:
        buttons.append(Button("Finish", step_url, post="finish"))
    return Step(
        "activate",
        title,
        NEXT if can_change else LATER,
        summary,
        todo="Activate the campaign to hand out its HITs to workers who come by its links.",
        buttons=buttons if can_change else [],
    )


def _publish_step(
    campaign: Campaign,
    facts: Facts,
    can_change: bool,
    can_publish_mturk: bool,
    mturk_shown: bool = True,
) -> Step:
    from judgments.models import Platform

    open_link = open_link_url(campaign)
    came = facts.by_platform
    lines = [
        (
            f"Direct links: the open link {open_link}, or one link per worker "
            f"({_plural(came.get(Platform.DIRECT, 0), 'worker')} came by direct link).",
            open_link,
        ),
        (
            "Prolific: "
            + (
                f"study {campaign.prolific_study_id}"
                if campaign.prolific_study_id
                else "no study id set (the Prolific section of the settings)"
            )
            + f"; {_plural(came.get(Platform.PROLIFIC, 0), 'participant')}.",
            "",
        ),
    ]
    if mturk_shown:
        lines.append(
            (
                f"MTurk: {facts.mturk_published:,} of {_plural(facts.hits, 'HIT')} published"
                + (
                    f" ({'sandbox' if campaign.mturk_sandbox else 'production'} chosen)"
                    if not facts.mturk_published
                    else ""
                )
                + f"; {_plural(came.get(Platform.MTURK, 0), 'worker')}.",
                "",
            )
        )
    else:
        lines.append(
            (
                "MTurk: not set up (this server has no AWS credentials; the note below the "
                "checklist says how to enable it).",
                "",
            )
        )
    buttons = []
    if can_change:
        buttons.append(
            Button("Create direct worker links", _url("campaigns_campaign_links", campaign.pk))
        )
    buttons.append(Button("Prolific study URL", _url("campaigns_campaign_prolific", campaign.pk)))
    if can_publish_mturk and facts.hits and mturk_shown:
        buttons.append(
            Button("Publish to MTurk", _url("campaigns_campaign_mturk_publish", campaign.pk))
        )
    if can_publish_mturk and facts.mturk_published:
        # The campaign list's MTurk actions for this one campaign (CampaignAdmin.step_view).
        step_url = _url("campaigns_campaign_step", campaign.pk)
        buttons += [
            Button("Sync with MTurk now", step_url, post="sync_mturk"),
            Button("Expire MTurk HITs…", step_url, post="expire_mturk"),
            Button("Extend MTurk HITs…", step_url, post="extend_mturk"),
        ]
    reached = sum(came.values()) or facts.mturk_published
    if reached:
        state, todo = DONE, ""
    elif campaign.status == CampaignStatus.ACTIVE:
        state = NEXT
        todo = (
            "Give workers a way in: direct links (a CSV of one link per worker, or the open "
            "link), a Prolific study, or MTurk."
        )
    else:
        state = LATER
        todo = (
            "Links can be made now; they hand out HITs once the campaign is active."
            if facts.hits
            else "Build HITs and activate the campaign first."
        )
    return Step(
        "publish",
        "Published where",
        state,
        "Where workers come from:",
        todo=todo,
        buttons=buttons,
        lines=lines,
    )


def _judgments_step(campaign: Campaign, facts: Facts) -> Step:
    progress = facts.progress
    summary = (
        f"{progress.units_in:,} of {progress.units_needed:,} {progress.unit_name} in; "
        f"{progress.places_done:,} of {_plural(progress.places, 'assignment')} done "
        f"({_plural(progress.hits, 'HIT')}, redundancy {campaign.redundancy})."
    )
    if progress.explanation:
        summary += " " + progress.explanation
    percent = progress.percent
    if not facts.hits:
        return Step("judgments", "Judgments in", LATER, "No HITs yet.")
    if progress.places and progress.places_done >= progress.places:
        return Step("judgments", "Judgments in", DONE, summary, percent=percent)
    if campaign.status == CampaignStatus.ACTIVE:
        return Step("judgments", "Judgments in", WAITING, summary, percent=percent)
    return Step(
        "judgments",
        "Judgments in",
        LATER if not facts.judgments else WAITING,
        summary,
        todo="" if campaign.status != CampaignStatus.DRAFT else "Activate the campaign first.",
        percent=percent,
    )


def _results_step(campaign: Campaign, facts: Facts, can_change: bool, can_view: bool) -> Step:
    title = "Results"
    if not facts.judgments:
        return Step(
            "results", title, LATER, "No judgments yet: results appear as judgments arrive."
        )
    if facts.computed_at is None:
        summary = "Not computed yet: they are computed a few seconds after judgments arrive."
        state = WAITING
    else:
        ago = timesince(facts.computed_at, timezone.now())
        local = timezone.localtime(facts.computed_at)
        summary = f"Fresh as of {local:%Y-%m-%d %H:%M:%S %Z} ({ago} ago), shown below."
        state = DONE
    buttons = []
    if can_change:
        buttons.append(
            Button(
                "Recompute now",
                _url("campaigns_campaign_results_workers", campaign.pk),
                post="recompute",
                field="action",
            )
        )
    if can_view:
        for label, name in (
            ("Export judgments (CSV)", "export-judgments-csv"),
            ("Export system table (CSV)", "export-systems-csv"),
        ):
            buttons.append(Button(label, reverse(f"api:{name}", args=[campaign.pk])))
        buttons.append(
            Button(
                "Export worker background (CSV)",
                _url("campaigns_campaign_step", campaign.pk),
                post="export_background",
            )
        )
    return Step("results", title, state, summary, buttons=buttons)


# Helper F's dashboards and helper G's reports and "judgments still needed" (issue 17 items
# 2-4), linked from the checklist when their pages exist.
ANALYSIS_PAGES = (
    ("Dashboard (plots)", "campaign-dashboard"),
    ("Report (cost and time)", "campaign-report"),
    ("Judgments still needed", "campaign-still-needed"),
)


def _analysis_step(campaign: Campaign, facts: Facts) -> Step | None:
    buttons = []
    for label, name in ANALYSIS_PAGES:
        try:
            buttons.append(Button(label, reverse(name, args=[campaign.pk])))
        except NoReverseMatch:
            continue
    if not buttons:
        return None
    return Step(
        "analysis",
        "Analysis",
        DONE if facts.judgments else LATER,
        "Plots, cost and time, and how many more judgments would separate the systems.",
        buttons=buttons,
    )


# --- what each kind adds -----------------------------------------------------------------------


@dataclass(frozen=True)
class KindNotes:
    """A kind's quality-control step, and what stops its build (checked before it is tried,
    with the builder's own rules; [] when nothing is known to)."""

    quality: Callable[[Campaign, Facts], Step]
    blockers: Callable[[Campaign, Facts], list[str]] = lambda campaign, facts: []


def _kind_notes(campaign: Campaign) -> KindNotes | None:
    """The campaign's kind's notes (``CampaignKind.checklist_notes``: a module of the kind's
    package with ``NOTES``, imported when first asked for; the kind modules import this one)."""
    kind = kind_of(campaign)
    if kind is None or not kind.checklist_notes:
        return None
    return import_module(kind.checklist_notes).NOTES
