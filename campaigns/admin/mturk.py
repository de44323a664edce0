"""Campaign admin: publishing to MTurk, ending and prolonging HITs, and the MTurk panel.

The requester's path: the campaign action "Publish to MTurk" opens a confirmation page that
says in large letters whether it goes to the SANDBOX or PRODUCTION, what will be published,
what it can cost against the account balance, who may accept the HITs, and what stops it;
Confirm publishes (inline without a broker, else as a Celery task) and reports back with a
link to the HITs as workers see them. "Expire MTurk HITs" and "Extend MTurk HITs" work on
campaigns and on the MTurk HIT list alike, after a confirmation page. The campaign page shows
the MTurk panel (``mturk_panel.html``): published HITs, environment, preview links and the
last platform events, each with what to do.

All MTurk work goes through :mod:`campaigns.platforms.publishing`, shared with
``manage.py mturk_hits`` and the Celery tasks.
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from campaigns.admin.access import CampaignRowsAdminMixin, campaign_page_object
from campaigns.models import Campaign, Hit, MTurkHit, PlatformEvent
from campaigns.platforms import mturk, publishing
from campaigns.platforms.mturk.settings import checked_locales
from campaigns.platforms.publishing import numbers_in_words

PANEL_EVENTS = 20
TEMPLATES = "admin/campaigns/campaign/"


class LocaleListField(forms.CharField):
    """``mturk_locales`` as the text "US, GB" in the form and a JSON list in the database,
    checked the way MTurk reads it (``checked_locales``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("required", False)
        kwargs.setdefault("widget", forms.TextInput(attrs={"size": 40, "placeholder": "US, GB"}))
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return ", ".join(str(code) for code in value)
        return value  # the text as typed, when the form comes back with an error

    def to_python(self, value: Any) -> list[str]:
        if isinstance(value, list | tuple):
            codes = list(value)
        else:
            codes = [code for code in re.split(r"[,;\s]+", super().to_python(value)) if code]
        try:
            return list(checked_locales(codes))
        except ValueError as error:
            raise ValidationError(str(error), code="invalid") from None


# The campaign's MTurk settings: one that differs from its default means the requester chose
# MTurk for this campaign.
MTURK_SETTINGS = (
    "mturk_sandbox",
    "hit_lifetime_seconds",
    "auto_approval_delay_seconds",
    "mturk_locales",
    "mturk_min_approval_rate",
    "mturk_min_approved_hits",
    "mturk_masters",
    "mturk_qualification_type_id",
    "mturk_qualification_test_places",
)
# The extra_context key under which CampaignAdmin.change_view passes mturk_shown's answer.
MTURK_SHOWN = "mturk_shown"
MTURK_HINT = (
    "Amazon Mechanical Turk is not set up: this server has no AWS credentials. To publish "
    "HITs there, start it with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) "
    "set; the campaign's MTurk settings are in the “Amazon Mechanical Turk” section below."
)


def mturk_credentials_configured() -> bool:
    """Whether boto3 would find AWS credentials: its usual chain (environment, shared
    credentials and config files, a credential process, SSO, a container's endpoint) without
    the EC2 instance-metadata lookup, which would wait on the network on every page view off
    EC2 (a server on EC2 with only an instance role sets AWS_PROFILE or runs with the
    campaign already published, and sees the panel)."""
    from botocore.session import get_session

    resolver = get_session().get_component("credential_provider")
    resolver.remove("iam-role")
    try:
        return resolver.load_credentials() is not None
    except Exception:  # a broken config file: the publish page says what is wrong
        return True


def chose_mturk(campaign: Campaign) -> bool:
    """Whether the campaign is (or is meant to be) on MTurk: HITs published there, platform
    events, or MTurk settings changed from their defaults."""
    if MTurkHit.objects.filter(hit__campaign=campaign).exists():
        return True
    if PlatformEvent.objects.filter(campaign=campaign).exists():
        return True
    fields = {field.name: field for field in Campaign._meta.get_fields() if field.concrete}
    return any(
        getattr(campaign, name) != fields[name].get_default()
        for name in MTURK_SETTINGS
        if name in fields
    )


def mturk_shown(campaign: Campaign) -> bool:
    """The MTurk panel (and the checklist's MTurk buttons) show where they make sense: the
    server has MTurk credentials, or the campaign is on MTurk already or chose it."""
    return mturk_credentials_configured() or chose_mturk(campaign)


def mturk_panel_context(campaign: Campaign) -> dict[str, Any]:
    """What the campaign page's MTurk panel shows; a fixed number of queries."""
    rows = MTurkHit.objects.filter(hit__campaign=campaign)
    counts = rows.aggregate(
        published=Count("pk"),
        ended=Count("pk", filter=Q(expired_by_requester_at__isnull=False)),
        sandbox=Count("pk", filter=Q(sandbox=True)),
    )
    hits = Hit.objects.filter(campaign=campaign)
    if not campaign.qualification_required:
        hits = hits.filter(is_qualification=False)
    groups = (
        rows.exclude(hit_group_id="")
        .order_by()
        .values_list("hit_group_id", "sandbox", "hit__is_qualification")
        .distinct()
    )
    previews = sorted(
        (
            (
                "Qualification test" if is_test else "HITs",
                mturk.preview_url(group_id, sandbox=sandbox),
            )
            for group_id, sandbox, is_test in groups
        ),
        key=lambda item: item[0] != "Qualification test",
    )
    if counts["published"]:
        sandbox = counts["sandbox"] == counts["published"]
    else:
        sandbox = campaign.mturk_sandbox
    return {
        "published": counts["published"],
        "ended": counts["ended"],
        "total": hits.count(),
        "environment": publishing.environment_label(sandbox),
        "sandbox": sandbox,
        "previews": previews,
        "events": list(campaign.platform_events.all()[:PANEL_EVENTS]),
        "publish_url": reverse("admin:campaigns_campaign_mturk_publish", args=[campaign.pk]),
        "hits_url": reverse("admin:campaigns_mturkhit_changelist")
        + f"?hit__campaign__id__exact={campaign.pk}",
        "events_url": reverse("admin:campaigns_platformevent_changelist")
        + f"?campaign__id__exact={campaign.pk}",
        "qualification_type_id": campaign.mturk_qualification_type_id,
    }


# --- Expire and extend, shared by the campaign and the MTurk HIT admins --------------------


def _hits_action(
    model_admin: admin.ModelAdmin,
    request: HttpRequest,
    queryset: QuerySet,
    rows: QuerySet[MTurkHit],
    operation: str,
) -> TemplateResponse | None:
    """The confirmation page of "Expire/Extend MTurk HITs", then the action itself.

    ``queryset`` is what the requester ticked (campaigns or MTurk HITs), ``rows`` the MTurk
    HITs it stands for. The page posts back to the changelist with ``apply``.
    """
    rows = rows.select_related("hit", "hit__campaign").order_by("hit__campaign", "hit__number")
    days = request.POST.get("days", "7")
    error = ""
    if request.POST.get("apply"):
        try:
            until = publishing.days_from_now(days) if operation == "extend" else None
        except ValueError as problem:
            error = str(problem)
        else:
            if until is None:
                result = publishing.expire(rows)
            else:
                result = publishing.extend(rows, until)
            level = messages.ERROR if result.failed else messages.SUCCESS
            model_admin.message_user(request, result.message(), level)
            return None
    summary = (
        rows.order_by()
        .values("hit__campaign__name", "sandbox")
        .annotate(
            count=Count("pk"),
            ended=Count("pk", filter=Q(expired_by_requester_at__isnull=False)),
        )
        .order_by("hit__campaign__name", "sandbox")
    )
    context = {
        **model_admin.admin_site.each_context(request),
        "title": "Extend MTurk HITs" if operation == "extend" else "Expire MTurk HITs",
        "opts": model_admin.model._meta,
        "operation": operation,
        "action": request.POST.get("action", ""),
        "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
        "select_across": request.POST.get("select_across", "0"),
        "queryset": queryset,
        "summary": [
            {
                "campaign": row["hit__campaign__name"],
                "environment": publishing.environment_label(row["sandbox"]).upper(),
                "count": row["count"],
                "ended": row["ended"],
            }
            for row in summary
        ],
        "count": sum(row["count"] for row in summary),
        "days": days,
        "error": error,
        "max_days": publishing.MAX_EXTEND_DAYS,
        # From the campaign page's checklist (CampaignAdmin.step_view): posted back with it.
        "step": request.POST.get("step", ""),
    }
    return TemplateResponse(request, TEMPLATES + "mturk_hits_action.html", context)


def _can_use_mturk(request: HttpRequest) -> bool:
    """Spending money and ending HITs is for requesters who may change campaigns."""
    return request.user.has_perm("campaigns.change_campaign")


class MTurkCampaignAdminMixin:
    """Campaign actions and pages for MTurk; ``mturk_actions`` are added to the admin's
    actions and ``mturk_urls()`` to its URLs."""

    mturk_actions: tuple[str, ...] = ("publish_to_mturk", "expire_mturk_hits", "extend_mturk_hits")

    def mturk_urls(self) -> list:
        return [
            path(
                "<int:campaign_id>/mturk/publish/",
                self.admin_site.admin_view(self.mturk_publish_view),
                name="campaigns_campaign_mturk_publish",
            ),
        ]

    def has_mturk_permission(self, request: HttpRequest) -> bool:
        return _can_use_mturk(request)

    def formfield_for_dbfield(self, db_field, request: HttpRequest, **kwargs: Any):
        if db_field.name == "mturk_locales":
            return LocaleListField(
                label="MTurk worker countries (locales)", help_text=db_field.help_text
            )
        return super().formfield_for_dbfield(db_field, request, **kwargs)

    def change_view(
        self,
        request: HttpRequest,
        object_id: str,
        form_url: str = "",
        extra_context: dict[str, Any] | None = None,
    ):
        extra_context = dict(extra_context or {})
        campaign = Campaign.objects.filter(pk=object_id).first() if object_id.isdigit() else None
        shown = extra_context.pop(MTURK_SHOWN, None)
        if campaign is not None:
            if shown if shown is not None else mturk_shown(campaign):
                extra_context["mturk_panel"] = mturk_panel_context(campaign)
            else:
                extra_context["mturk_hint"] = MTURK_HINT
        return super().change_view(request, object_id, form_url, extra_context)

    @admin.action(description="Publish to MTurk", permissions=["mturk"])
    def publish_to_mturk(self, request: HttpRequest, queryset: QuerySet[Campaign]):
        campaigns = list(queryset[:2])
        if len(campaigns) != 1:
            self.message_user(
                request,
                "Publish one campaign at a time: tick exactly one, then choose the action again.",
                messages.WARNING,
            )
            return None
        return HttpResponseRedirect(
            reverse("admin:campaigns_campaign_mturk_publish", args=[campaigns[0].pk])
        )

    @admin.action(description="Expire MTurk HITs (end them now)", permissions=["mturk"])
    def expire_mturk_hits(self, request: HttpRequest, queryset: QuerySet[Campaign]):
        rows = MTurkHit.objects.filter(
            hit__campaign__in=queryset, expired_by_requester_at__isnull=True
        )
        return _hits_action(self, request, queryset, rows, "expire")

    @admin.action(description="Extend MTurk HITs (keep them open longer)", permissions=["mturk"])
    def extend_mturk_hits(self, request: HttpRequest, queryset: QuerySet[Campaign]):
        rows = MTurkHit.objects.filter(hit__campaign__in=queryset)
        return _hits_action(self, request, queryset, rows, "extend")

    def mturk_publish_view(self, request: HttpRequest, campaign_id: int) -> HttpResponse:
        """GET: the confirmation page. POST (Confirm): publish the HITs the page showed, if
        the plan is still the one the page showed (its signed fingerprint, posted back),
        nothing stops it and the balance covers the cost; back to the campaign page. A plan
        that changed meanwhile publishes nothing and shows the page again, with the new plan.
        """
        campaign = campaign_page_object(self, request, campaign_id, change=True)
        if not _can_use_mturk(request):
            raise PermissionDenied
        data = request.POST if request.method == "POST" else request.GET
        hits_text = data.get("hits", "").strip()
        hit_ids, selection_error = None, ""
        if hits_text:
            try:
                numbers = publishing.parse_hit_numbers(hits_text)
                hit_ids = publishing.hit_ids_for_numbers(campaign, numbers)
            except ValueError as error:
                selection_error = str(error)
        current = publishing.plan(campaign, hit_ids)
        funds = publishing.check_funds(campaign)
        cost = current.total_cost
        can_confirm = not selection_error and current.can_publish and funds.covers(cost)
        if request.method == "POST":
            # Confirm publishes the plan the page showed, or nothing: the campaign may have
            # changed since (sandbox -> production, the reward), and the requester must see
            # what goes out and what it costs before it does.
            changes = publishing.plan_changes(
                current, publishing.reviewed_plan(request.POST.get("plan", ""))
            )
            if changes:
                self.message_user(
                    request,
                    publishing.plan_changed_message(changes) + " Nothing was published.",
                    messages.ERROR,
                )
            elif can_confirm:
                return self._publish_now(request, campaign, current)
            else:
                self.message_user(
                    request,
                    "Nothing was published: " + _why_not(current, funds, selection_error),
                    messages.ERROR,
                )
        context = {
            **self.admin_site.each_context(request),
            "title": f"Publish to MTurk: {campaign}",
            "opts": Campaign._meta,
            "campaign": campaign,
            "plan": current,
            "signed_plan": publishing.sign_plan(current),
            "funds": funds,
            "funds_text": funds.summary(cost),
            "can_confirm": can_confirm,
            "why_not": "" if can_confirm else _why_not(current, funds, selection_error),
            "hits_text": hits_text,
            "selection_error": selection_error,
            "numbers": numbers_in_words(hit.number for hit in current.hits),
            "test_numbers": numbers_in_words(hit.number for hit in current.qualification_hits),
            "requirements": publishing.requirements_in_words(campaign),
            "test_requirements": publishing.requirements_in_words(
                campaign, qualification_test=True
            ),
            "qualification_type_name": publishing.qualification_type_name(campaign),
        }
        return TemplateResponse(request, TEMPLATES + "mturk_publish.html", context)

    def _publish_now(
        self, request: HttpRequest, campaign: Campaign, confirmed: publishing.Plan
    ) -> HttpResponse:
        from campaigns.tasks.publishing import publish_to_mturk

        back = reverse("admin:campaigns_campaign_change", args=[campaign.pk]) + "#mturk"
        hit_ids = [hit.pk for hit in confirmed.hits]
        queued = publish_to_mturk.delay(campaign.pk, hit_ids, confirmed.fingerprint())
        if not publish_to_mturk.app.conf.task_always_eager:
            self.message_user(
                request,
                f"Publishing {len(hit_ids)} HIT(s) to MTurk's "
                f"{publishing.environment_label(campaign.mturk_sandbox)} in the background. "
                "Reload this page in a minute: the MTurk panel shows the outcome.",
                messages.INFO,
            )
            return HttpResponseRedirect(back)
        result = publishing.PublishResult.from_dict(queued.get())
        level = messages.SUCCESS if result.ok else messages.ERROR
        if result.preview_urls:
            links = format_html_join(
                " ",
                '<a href="{}" target="_blank" rel="noopener">{}</a>',
                ((url, url) for url in result.preview_urls),
            )
            text = format_html("{} See them as workers do: {}", result.message(), links)
        else:
            text = result.message()
        self.message_user(request, text, level)
        return HttpResponseRedirect(back)


def _why_not(plan: publishing.Plan, funds: publishing.Funds, selection_error: str) -> str:
    """Why Confirm is not offered, in one sentence per reason."""
    if selection_error:
        return selection_error
    if plan.problems:
        return " ".join(str(problem) for problem in plan.problems)
    if not plan.hit_count:
        return "There is nothing to publish: every HIT is already on MTurk."
    return funds.summary(plan.total_cost) + "."


# --- The MTurk HIT and platform event lists --------------------------------------------------


@admin.register(MTurkHit)
class MTurkHitAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    """Read-only: rows are written by publishing, never by hand. Expire and extend here."""

    campaign_path = "hit__campaign"  # only the HITs of campaigns shared with the user

    list_display = (
        "mturk_hit_id",
        "hit",
        "campaign",
        "environment",
        "max_assignments",
        "published_at",
        "expires_at",
        "expired_by_requester_at",
        "preview",
    )
    list_filter = ("sandbox", ("hit__campaign", admin.RelatedOnlyFieldListFilter))
    search_fields = ("mturk_hit_id", "hit_type_id", "hit_group_id")
    list_select_related = ("hit", "hit__campaign")
    actions = ("expire_mturk_hits", "extend_mturk_hits")
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: MTurkHit | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: MTurkHit | None = None) -> bool:
        # Deleting the row would let the HIT be published a second time.
        return False

    def has_mturk_permission(self, request: HttpRequest) -> bool:
        return _can_use_mturk(request)

    @admin.display(description="Campaign", ordering="hit__campaign__name")
    def campaign(self, row: MTurkHit) -> Campaign:
        return row.hit.campaign

    @admin.display(description="Environment", ordering="sandbox")
    def environment(self, row: MTurkHit) -> str:
        return publishing.environment_label(row.sandbox)

    @admin.display(description="Preview")
    def preview(self, row: MTurkHit) -> str:
        if not row.hit_group_id:
            return "-"
        url = mturk.preview_url(row.hit_group_id, sandbox=row.sandbox)
        return format_html('<a href="{}" target="_blank" rel="noopener">as a worker</a>', url)

    @admin.action(description="Expire MTurk HITs (end them now)", permissions=["mturk"])
    def expire_mturk_hits(self, request: HttpRequest, queryset: QuerySet[MTurkHit]):
        return _hits_action(
            self, request, queryset, queryset.filter(expired_by_requester_at__isnull=True), "expire"
        )

    @admin.action(description="Extend MTurk HITs (keep them open longer)", permissions=["mturk"])
    def extend_mturk_hits(self, request: HttpRequest, queryset: QuerySet[MTurkHit]):
        return _hits_action(self, request, queryset, queryset, "extend")


@admin.register(PlatformEvent)
class PlatformEventAdmin(CampaignRowsAdminMixin, admin.ModelAdmin):
    """Read-only log of platform errors, conflicts and publications, newest first."""

    list_display = ("created_at", "campaign", "kind", "operation", "code", "message", "what_to_do")
    list_filter = ("kind", "operation", ("campaign", admin.RelatedOnlyFieldListFilter))
    search_fields = ("message", "code", "what_to_do")
    list_select_related = ("campaign",)
    date_hierarchy = "created_at"
    show_full_result_count = False

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: PlatformEvent | None = None):
        return False

    def has_delete_permission(self, request: HttpRequest, obj: PlatformEvent | None = None):
        return False
