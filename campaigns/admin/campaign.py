"""The requester's side of evalsite: the campaigns in the Django admin (their content, from
systems to HITs: :mod:`campaigns.admin.content`).

A direct-assessment campaign's change page also shows its live results (the panel at the top,
``change_form.html``): progress, the worker table with a recommendation per worker and a form
to exclude workers from the scores, and the system table for reliable workers (default) or
every worker (``?include_unreliable=1``).

A ranking campaign's page shows its panel (``ranking_results.html``): the reason of an
automatic pause, progress in ranking sets, a table per scoring method (trusted workers by
default, everyone with ``?include_untrusted=1``) with intervals, clusters and Spearman's rho
against the requester's reference ranking, the agreement figures, and the trust table with a
form to mark workers untrusted, trust them again, exclude or re-admit them. The reference
ranking and the oracle are edited in an inline on the same page.

The figures are read from analytics' stored results (``analytics.models``), never computed
on a page view.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import BLANK_CHOICE_DASH, QuerySet
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from analytics import actions as analytics_actions
from analytics.kinds import MEMBERSHIP_ACTIONS
from analytics.kinds import registry as analytics_kinds
from campaigns import actions as campaign_actions
from campaigns import checklist, pay
from campaigns.admin.access import (
    CampaignRowsAdminMixin,
    campaign_page_object,
    user_autocomplete,
)
from campaigns.admin.campaign_form import CampaignAccessInline, CampaignForm, SystemInline
from campaigns.admin.deletion import CampaignDeletionAdminMixin
from campaigns.admin.judgment_import import CampaignJudgmentImportAdminMixin
from campaigns.admin.kinds import KindAdminMixin
from campaigns.admin.links import WorkerLinksAdminMixin
from campaigns.admin.mturk import MTURK_SHOWN, MTurkCampaignAdminMixin, mturk_shown
from campaigns.admin.mturk_review import MTurkReviewCampaignAdminMixin
from campaigns.kinds import CampaignKind, registry
from campaigns.links import prolific_study_url
from campaigns.models import Campaign, CampaignStatus, Hit, Segment, System
from evalsite.page_memo import once_per_page
from evalsite.subquery_counts import related_count


def _fields_of(options: dict[str, Any]) -> set[str]:
    """The field names of a fieldset's options (lines may be tuples of fields)."""
    names: set[str] = set()
    for line in options.get("fields", ()):
        names.update(line if isinstance(line, list | tuple) else (line,))
    return names


def _opened(options: dict[str, Any]) -> dict[str, Any]:
    return {**options, "classes": tuple(c for c in options.get("classes", ()) if c != "collapse")}


def _changes_results(implementation: CampaignKind, campaign: Campaign, formset) -> bool:
    """Whether an inline's change makes the stored results out of date: the kind's result
    settings in its settings inline, or anything in the kind's own inlines."""
    if not formset.has_changed():
        return False
    if formset.model is implementation.settings_model:
        changed = {name for form in formset.forms for name in form.changed_data}
        return bool(changed & set(implementation.result_settings))
    return formset.model in {inline.model for inline in implementation.admin_inlines(campaign)}


# The campaign list's action menu, common actions first. Every action also works on one
# campaign from its page (the checklist's buttons, CampaignAdmin.step_view, or the pages the
# publish and links actions open).
ACTION_GROUPS = (
    ("Run the campaign", ("build_hits", "delete_hits", "activate", "pause", "finish")),
    ("Reach workers", ("create_worker_links", "prolific_study", "publish_to_mturk")),
    ("MTurk HITs", ("sync_with_mturk", "expire_mturk_hits", "extend_mturk_hits")),
    ("Export", ("export_worker_background",)),
    ("Delete", ("delete_selected",)),
)


@admin.register(Campaign)
class CampaignAdmin(
    CampaignDeletionAdminMixin,
    CampaignRowsAdminMixin,
    KindAdminMixin,
    CampaignJudgmentImportAdminMixin,
    MTurkCampaignAdminMixin,
    MTurkReviewCampaignAdminMixin,
    WorkerLinksAdminMixin,
    admin.ModelAdmin,
):
    list_display = (
        "name",
        "kind",
        "language_pair",
        "status",
        "n_systems",
        "n_segments",
        "n_hits",
        "created_at",
    )
    list_filter = ("kind", "status", "source_language", "target_language")
    search_fields = ("name", "title")
    readonly_fields = (
        "created_at",
        "updated_at",
        "content_counts",
        "worker_entry_link",
        "prolific_study_link",
    )
    inlines = [SystemInline, CampaignAccessInline]
    form = CampaignForm
    campaign_path = ""  # the rows are the campaigns (access.CampaignRowsAdminMixin)
    actions = [
        "activate",
        "pause",
        "finish",
        "build_hits",
        "delete_hits",
        *MTurkCampaignAdminMixin.mturk_actions,
        *MTurkReviewCampaignAdminMixin.review_actions,
        *WorkerLinksAdminMixin.links_actions,
        "delete_selected",  # CampaignDeletionAdminMixin's, in place of the site's
    ]
    fieldsets = (
        (None, {"fields": ("name", "kind")}),
        # Status changes are the checklist's buttons (activate, pause, finish).
        (
            "Status and owner",
            {"fields": ("status", "status_reason", "owner"), "classes": ("collapse",)},
        ),
        ("Content", {"fields": ("content_counts", "worker_entry_link")}),
        (
            "Languages and instructions",
            {
                "fields": (
                    ("source_language", "target_language"),
                    "instructions",
                    "instructions_language",
                ),
                "classes": ("collapse",),
            },
        ),
        # The kind's own layout and quality-control settings follow in its settings inline
        # (campaigns/kinds/<kind>/kind.py: settings_fieldsets).
        ("HIT layout", {"fields": ("redundancy", "hit_seed"), "classes": ("collapse",)}),
        (
            "Qualification test",
            {
                "fields": (("qualification_required", "qualification_pass_mark"),),
                "classes": ("collapse",),
            },
        ),
        (
            "Payment and publishing",
            {
                "fields": (
                    "reward",
                    "title",
                    "description",
                    "keywords",
                    "assignment_duration_seconds",
                    "ask_background",
                    "consent_text",
                ),
                "classes": ("collapse",),
            },
        ),
        (
            "Amazon Mechanical Turk",
            {
                "fields": (
                    "mturk_sandbox",
                    ("hit_lifetime_seconds", "auto_approval_delay_seconds"),
                    "mturk_locales",
                    ("mturk_min_approval_rate", "mturk_min_approved_hits", "mturk_masters"),
                    ("mturk_qualification_type_id", "mturk_qualification_test_places"),
                ),
                "classes": ("collapse",),
            },
        ),
        (
            "Prolific",
            {
                "fields": (
                    "prolific_study_link",
                    "prolific_study_id",
                    ("prolific_completion_code", "prolific_failed_code"),
                ),
                "classes": ("collapse",),
            },
        ),
        ("History", {"fields": ("created_at", "updated_at"), "classes": ("collapse",)}),
    )

    def get_action_choices(self, request: HttpRequest, default_choices=BLANK_CHOICE_DASH):
        """The list's action menu in groups, the common ones first (ACTION_GROUPS); an action
        no group names (none today) goes in "Other", before deleting. Each of them also has
        its button on a campaign's own page (the checklist), for one campaign at a time."""
        choices = super().get_action_choices(request, default_choices=[])
        labels = dict(choices)
        grouped = []
        named = set()
        for title, names in ACTION_GROUPS:
            named.update(names)
            entries = [(name, labels[name]) for name in names if name in labels]
            if entries:
                grouped.append((title, entries))
        others = [(name, label) for name, label in choices if name not in named]
        if others:
            at = len(grouped) - 1 if grouped and grouped[-1][0] == "Delete" else len(grouped)
            grouped.insert(at, ("Other", others))
        return [*default_choices, *grouped]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Campaign]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                systems_count=related_count(System),
                segments_count=related_count(Segment),
                hits_count=related_count(Hit),
            )
        )

    def get_urls(self):
        return [
            path(
                "<int:campaign_id>/import/",
                self.admin_site.admin_view(self.import_segments),
                name="campaigns_campaign_import",
            ),
            path(
                "<int:campaign_id>/step/",
                self.admin_site.admin_view(self.step_view),
                name="campaigns_campaign_step",
            ),
            path(
                "<int:campaign_id>/access/users/",
                self.admin_site.admin_view(self.user_autocomplete_view),
                name="campaigns_campaign_access_users",
            ),
            path(
                "<int:campaign_id>/results/workers/",
                self.admin_site.admin_view(self.results_workers),
                name="campaigns_campaign_results_workers",
            ),
            *self.judgment_import_urls(),
            *self.kind_urls(),
            *self.mturk_urls(),
            *self.review_urls(),
            *self.links_urls(),
            *super().get_urls(),
        ]

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ):
        # The results panel, the checklist and the form's "What it holds" count the same
        # progress and rows: once each (evalsite.page_memo), the page rendered in the block.
        with once_per_page():
            response = self._change_view(request, object_id, form_url, extra_context)
            if isinstance(response, TemplateResponse):
                response.render()
        return response

    def _change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str,
        extra_context: dict[str, Any] | None,
    ):
        extra_context = dict(extra_context or {})
        campaign = self.get_object(request, unquote(object_id))
        statistics = None if campaign is None else analytics_kinds.get(campaign.kind)
        if statistics is not None:
            # The kind's results panel (analytics.kinds.ResultsPanel), above the form.
            extra_context["results_panel"] = statistics.results_panel(campaign, request)
        if campaign is not None and self.has_view_permission(request, campaign):
            # The MTurk panel's and the checklist's one answer (the mixin's change_view reads
            # it): MTurk shows where it makes sense, else a one-line hint.
            extra_context[MTURK_SHOWN] = mturk_shown(campaign)
            # Issue 17 item 1: where the campaign stands and the next step's button, first.
            extra_context["checklist"] = checklist.campaign_checklist(
                campaign,
                can_change=self.has_change_permission(request, campaign),
                can_publish_mturk=self.has_change_permission(request, campaign)
                and self.has_mturk_permission(request),
                mturk_shown=extra_context[MTURK_SHOWN],
            )
        return super().change_view(request, object_id, form_url, extra_context)

    def render_change_form(self, request: HttpRequest, context: dict, *args: Any, **kwargs: Any):
        # Folded fieldsets (classes "collapse", a closed <details>) would hide their errors:
        # a fieldset with an error is shown open.
        adminform = context.get("adminform")
        if adminform is not None and adminform.form.errors:
            errors = set(adminform.form.errors)
            adminform.fieldsets = [
                (name, _opened(options) if _fields_of(options) & errors else options)
                for name, options in adminform.fieldsets
            ]
        return super().render_change_form(request, context, *args, **kwargs)

    def step_view(self, request: HttpRequest, campaign_id: int) -> HttpResponse:
        """A checklist button (campaigns.checklist): build, activate, pause, finish, create
        the follow-up campaign, sync with MTurk, expire or extend its MTurk HITs (after their
        confirmation page), or export the workers' background, through the very admin actions
        of the campaign list (and so the shared campaigns.actions), with their messages; back
        to the checklist. POST only, for users who may change the campaign (the export: who
        may see it)."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        campaign = self.get_object(request, str(campaign_id))
        if campaign is None:
            raise Http404("No such campaign, or it is not shared with you.")
        step = request.POST.get("step", "")
        back = reverse("admin:campaigns_campaign_change", args=[campaign.pk]) + "#checklist"
        selected = Campaign.objects.filter(pk=campaign.pk)
        if step == "export_background":
            # A download for whoever may see the campaign (the list action's permission).
            return self.export_worker_background(request, selected)
        if not self.has_change_permission(request, campaign):
            raise PermissionDenied
        if step == "follow_up":
            return self._follow_up(request, campaign, back)
        mturk_steps = {
            "sync_mturk": self.sync_with_mturk,
            # A confirmation page first, which posts back here with the step and "apply".
            "expire_mturk": self.expire_mturk_hits,
            "extend_mturk": self.extend_mturk_hits,
        }
        if step in mturk_steps:
            if not self.has_mturk_permission(request):
                raise PermissionDenied
            response = mturk_steps[step](request, selected)
            return response if response is not None else HttpResponseRedirect(back)
        run = {
            "build": self.build_hits,
            "delete_hits": self.delete_hits,
            "activate": self.activate,
            "pause": self.pause,
            "finish": self.finish,
        }.get(step)
        if run is None:
            self.message_user(
                request,
                f"Unknown step {step!r}: choose one of the checklist's buttons.",
                messages.ERROR,
            )
            return HttpResponseRedirect(back)
        run(request, selected)
        return HttpResponseRedirect(back)

    def _follow_up(self, request: HttpRequest, campaign: Campaign, back: str) -> HttpResponse:
        if not self.has_add_permission(request):
            raise PermissionDenied
        try:
            new = campaign_actions.create_follow_up(campaign, owner=request.user)
        except campaign_actions.FollowUpError as error:
            self.message_user(request, str(error), messages.ERROR)
            return HttpResponseRedirect(back)
        self.message_user(
            request,
            f'Created "{new}" with this campaign\'s settings and its '
            f"{new.segments.count()} segment(s) that no HIT showed. Build its HITs below.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(
            reverse("admin:campaigns_campaign_change", args=[new.pk]) + "#checklist"
        )

    def user_autocomplete_view(self, request: HttpRequest, campaign_id: int) -> HttpResponse:
        """The collaborators inline's user search (access.user_autocomplete)."""
        campaign = self.get_object(request, str(campaign_id))
        if campaign is None:
            raise Http404("No such campaign, or it is not shared with you.")
        return user_autocomplete(request, campaign)

    def get_inlines(self, request: HttpRequest, obj: Campaign | None):
        # The kind's settings first, then its own inlines (e.g. ranking's reference ranking).
        return [*self.settings_inlines(request, obj), *self.inlines]

    def get_fieldsets(self, request: HttpRequest, obj: Campaign | None = None):
        fieldsets = super().get_fieldsets(request, obj)
        # The Add page asks for the languages (required): their fieldset stays open there.
        # Payment stays open while the campaign pays nothing (its default): a requester
        # published an unpaid campaign without ever seeing the folded Reward field.
        opened = {"Payment and publishing"} if obj is None or not obj.reward else set()
        if obj is None:
            opened.add("Languages and instructions")
        return [
            (name, _opened(options) if name in opened else options) for name, options in fieldsets
        ]

    def get_inline_instances(self, request: HttpRequest, obj: Campaign | None = None):
        inlines = super().get_inline_instances(request, obj)
        if obj is None:
            return inlines
        for inline in inlines:
            if getattr(inline, "is_kind_settings", False) and inline.fieldsets:
                # The kind's layout (its first fieldset) stays open; its quality-control and
                # scoring settings, rarely changed, are folded (Django opens a folded inline
                # fieldset when the inline has an error).
                first, *rest = inline.fieldsets
                inline.fieldsets = (
                    first,
                    *(
                        (name, {**options, "classes": (*options.get("classes", ()), "collapse")})
                        for name, options in rest
                    ),
                )
        return inlines

    def get_form(self, request: HttpRequest, obj: Campaign | None = None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)
        form.creator = request.user  # a class made for this request (modelform_factory)
        return form

    def get_readonly_fields(self, request: HttpRequest, obj: Campaign | None = None):
        # Only superusers choose a campaign's owner: names are unique per owner (issue 11
        # item 8), so creating one for another user would tell whether they use a name.
        fields = tuple(super().get_readonly_fields(request, obj))
        return fields if request.user.is_superuser else (*fields, "owner")

    def save_model(self, request: HttpRequest, obj: Campaign, form, change: bool) -> None:
        changed = form.changed_data
        if (
            change
            and "status" in changed
            and "status_reason" not in changed
            and obj.status == CampaignStatus.ACTIVE
        ):
            obj.status_reason = ""  # reactivated: the reason of the pause no longer holds
        if not change and obj.owner_id is None:
            obj.owner = request.user  # a new campaign is its creator's (analytics.access)
        super().save_model(request, obj, form, change)
        if change:
            self.save_kind_change(request, obj, form)
            if "reward" in changed:
                # Whom a new reward reaches: never work already taken, nor HITs on MTurk.
                said = pay.reward_change_message(obj, form.initial.get("reward"))
                if said:
                    self.message_user(request, said, messages.WARNING)

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)
        campaign = form.instance
        implementation = registry.get(campaign.kind)
        if change and implementation is not None and implementation.task_rewards:
            self._reprice_task_hits(request, campaign, implementation, formsets)
        if (
            change
            and implementation is not None
            and any(_changes_results(implementation, campaign, formset) for formset in formsets)
        ):
            # New quality-control settings or references: the stored results are out of date.
            transaction.on_commit(lambda: analytics_actions.schedule_recompute(campaign.pk))

    def _reprice_task_hits(
        self, request: HttpRequest, campaign: Campaign, implementation: CampaignKind, formsets
    ) -> None:
        """A changed pay setting of the kind (post-editing's verification reward) reaches the
        task's HITs built already, as the campaign's reward reaches HITs without their own."""
        changed = {
            name
            for formset in formsets
            if formset.model is implementation.settings_model
            for form in formset.forms
            for name in form.changed_data
        } & {field for _, field, _ in implementation.task_rewards}
        if not changed:
            return
        repriced = pay.reprice_task_hits(campaign, changed)
        # Read again: the page's campaign may hold the settings row as it was before the save.
        fresh = Campaign.objects.get(pk=campaign.pk)
        self.message_user(request, pay.task_rewards_message(fresh, changed, repriced))

    def results_workers(self, request: HttpRequest, campaign_id: int) -> HttpResponse:
        """The results panel's form: exclude or re-admit the ticked workers, or what else the
        kind's panel allows (ranking: mark them untrusted or trust them again; the campaign is
        recomputed at once), or recompute now. POST only."""
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        campaign = campaign_page_object(self, request, campaign_id, change=True)
        statistics = analytics_kinds.get(campaign.kind)
        back = reverse("admin:campaigns_campaign_change", args=[campaign.pk])
        if statistics is not None:
            variant = statistics.variant_param
            if request.POST.get(variant) == "1":
                back += f"?{variant}=1"
            back += f"#{statistics.panel_anchor}"
        action = request.POST.get("action")
        if action == "recompute":
            result = analytics_actions.recompute_campaign(campaign)
            n = 0 if result is None else result.n_judgments
            self.message_user(request, f"Results recomputed over {n} judgment(s).")
            return HttpResponseRedirect(back)
        allowed = MEMBERSHIP_ACTIONS if statistics is None else statistics.worker_actions
        if action not in allowed:
            self.message_user(request, "Choose what to do with the ticked workers.", messages.ERROR)
            return HttpResponseRedirect(back)
        try:
            worker_ids = [int(pk) for pk in request.POST.getlist("worker")]
        except ValueError:
            worker_ids = []
        if not worker_ids:
            self.message_user(request, "Tick at least one worker first.", messages.WARNING)
            return HttpResponseRedirect(back)
        reason = request.POST.get("reason", "").strip()
        by = request.user.get_username()
        if action in ("untrust", "trust"):
            untrust = action == "untrust"
            if untrust and not reason:
                reason = f"Marked untrusted by {by} from the results panel."
            changed = analytics_actions.set_workers_trusted(
                campaign, worker_ids, not untrust, reason if untrust else ""
            )
            done = "marked untrusted in" if untrust else "trusted again in"
        else:
            excluded = action == "exclude"
            if excluded and not reason:
                reason = f"Excluded by {by} from the results panel."
            changed = analytics_actions.set_workers_excluded(campaign, worker_ids, excluded, reason)
            done = "excluded from" if excluded else "re-admitted to"
        self.message_user(
            request,
            f"{changed} worker(s) {done} the campaign; the results are recomputed.",
            messages.SUCCESS,
        )
        return HttpResponseRedirect(back)

    def import_segments(self, request: HttpRequest, campaign_id: int):
        from campaigns.admin import segment_import  # the upload form pulls in every importer

        return segment_import.import_segments_view(request, campaign_id, self)

    @admin.display(description="Languages")
    def language_pair(self, campaign: Campaign) -> str:
        return f"{campaign.source_language}→{campaign.target_language}"

    @admin.display(description="Systems", ordering="systems_count")
    def n_systems(self, campaign: Campaign) -> int:
        return campaign.systems_count

    @admin.display(description="Segments", ordering="segments_count")
    def n_segments(self, campaign: Campaign) -> int:
        return campaign.segments_count

    @admin.display(description="HITs", ordering="hits_count")
    def n_hits(self, campaign: Campaign) -> int:
        return campaign.hits_count

    @admin.display(description="What it holds")
    def content_counts(self, campaign: Campaign) -> str:
        if not campaign.pk:
            return "Save the campaign, then import its segments."
        # The checklist's counts (read once a page: campaigns.checklist.Facts).
        facts = checklist.Facts.load(campaign)
        counts = {
            "documents": facts.documents,
            "segments": facts.segments,
            "systems": facts.systems,
            "outputs": facts.outputs,
            "HITs": facts.hits + facts.qualification_hits,
            "assignments": campaign.assignments.count(),
            "judgments": facts.judgments,
        }
        import_url = reverse("admin:campaigns_campaign_import", args=[campaign.pk])
        return format_html(
            '<span class="content-counts">{}</span> · <a href="{}">Import segments</a>',
            ", ".join(f"{n} {label}" for label, n in counts.items()),
            import_url,
        )

    @admin.display(description="Worker entry page")
    def worker_entry_link(self, campaign: Campaign) -> str:
        if not campaign.pk:
            return "-"
        url = reverse("judgments:campaign-entry", args=[campaign.pk])
        return format_html('<a href="{}">{}</a>', url, url)

    @admin.display(description="Prolific study URL")
    def prolific_study_link(self, campaign: Campaign) -> str:
        """What the requester pastes into the Prolific study as its URL."""
        if not campaign.pk:
            return "Save the campaign first."
        return format_html("<code>{}</code>", prolific_study_url(campaign))

    def _set_status(self, request: HttpRequest, queryset: QuerySet[Campaign], status: str) -> None:
        updated = campaign_actions.set_status(queryset, status)
        self.message_user(
            request,
            f"{updated} campaign(s) now {CampaignStatus(status).label.lower()}.",
            messages.SUCCESS,
        )

    @admin.action(description="Activate: hand out HITs")
    def activate(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        self._set_status(request, queryset, CampaignStatus.ACTIVE)

    @admin.action(description="Pause: stop handing out HITs")
    def pause(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        self._set_status(request, queryset, CampaignStatus.PAUSED)

    @admin.action(description="Finish")
    def finish(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        self._set_status(request, queryset, CampaignStatus.FINISHED)

    @admin.action(description="Delete HITs nobody has started")
    def delete_hits(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        """Delete the selected campaigns' HITs while nobody has started them (a late system's
        outputs can then join the segments, and the HITs be built again); one message per
        campaign with the count or the reason nothing was deleted."""
        for campaign in queryset.order_by("pk"):
            try:
                count = campaign_actions.delete_unstarted_hits(campaign)
            except campaign_actions.HitBuildError as error:
                self.message_user(request, f"{campaign}: no HITs deleted. {error}", messages.ERROR)
            else:
                self.message_user(
                    request,
                    f"{campaign}: deleted {count} HIT(s) nobody had started. Build them again "
                    "once the campaign's systems and outputs are complete.",
                    messages.SUCCESS,
                )

    @admin.action(description="Build HITs")
    def build_hits(self, request: HttpRequest, queryset: QuerySet[Campaign]) -> None:
        """Build (or rebuild, while nobody has started) the selected campaigns' HITs; one
        message per campaign with the count or the reason nothing was built."""
        for campaign in queryset.order_by("pk"):
            try:
                count = campaign_actions.build_hits(campaign)
            except campaign_actions.HitBuildError as error:
                self.message_user(request, f"{campaign}: no HITs built. {error}", messages.ERROR)
            else:
                self.message_user(request, f"{campaign}: built {count} HIT(s).", messages.SUCCESS)
