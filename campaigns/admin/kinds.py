"""The campaign admin's task-kind handling: the Add page asks for the kind first, the page of a
campaign shows only its kind's settings (an inline of the kind's settings model, with the
fieldsets its CampaignKind declares), and the kind is locked once the campaign has HITs.

Split from the campaign admin (campaigns/admin/campaign.py), as links.py and mturk.py are.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.db.models import Field, ForeignKey
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils.text import capfirst

from campaigns.kinds import CampaignKind, registry
from campaigns.models import Campaign, System, TaskKind


def has_hits(campaign: Campaign | None) -> bool:
    """Whether the saved ``campaign`` has HITs (its kind, layout settings and systems are then
    fixed). Asked by the kind field, the settings inline (for its read-only fields and its
    fieldsets, several times a page) and the systems inline: one query per page, kept on the
    instance the admin passes to all of them."""
    if campaign is None or campaign.pk is None:
        return False
    if not hasattr(campaign, "_evalsite_has_hits"):
        campaign._evalsite_has_hits = campaign.hits.exists()
    return campaign._evalsite_has_hits


class KindSettingsInline(admin.StackedInline):
    """Base of a kind's settings inline: exactly one row, never deleted; foreign keys to
    systems offer the campaign's own systems only."""

    extra = 0
    min_num = 1
    max_num = 1
    can_delete = False
    template = "admin/campaigns/kind_settings_inline.html"
    # The campaign's change form shows it among the campaign's own fieldsets (after
    # KindAdminMixin.kind_settings_after), not with the other inlines at the end.
    is_kind_settings = True
    # CampaignKind.settings_layout_fields: read-only once the campaign has HITs.
    layout_fields: tuple[str, ...] = ()

    def get_formset(self, request: HttpRequest, obj: Campaign | None = None, **kwargs: Any):
        self._campaign = obj  # for formfield_for_foreignkey, called while the form is built
        formset = super().get_formset(request, obj, **kwargs)
        form = formset.form

        class KindSettingsForm(form):  # type: ignore[valid-type, misc]
            def has_changed(self) -> bool:
                # Django saves a new inline row only when its form changed; the settings'
                # defaults as shown are the requester's choice too, so a campaign saved with
                # them must get its settings row (else it stays blocked and cannot build).
                return self.instance._state.adding or super().has_changed()

            def _update_errors(self, errors: ValidationError) -> None:
                # The model's clean() may find fault with a field the page shows read-only
                # (fixed with the HITs); Django would fail on it ("has no field named"), so
                # such a message is the form's own, naming the field.
                if hasattr(errors, "error_dict"):
                    kept: dict[str, list] = {}
                    for name, problems in errors.error_dict.items():
                        if name in self.fields or name == NON_FIELD_ERRORS:
                            kept.setdefault(name, []).extend(problems)
                            continue
                        label = capfirst(self.instance._meta.get_field(name).verbose_name)
                        kept.setdefault(NON_FIELD_ERRORS, []).extend(
                            f"{label}: {message}" for problem in problems for message in problem
                        )
                    errors = ValidationError(kept)
                super()._update_errors(errors)

        KindSettingsForm.__name__ = form.__name__
        formset.form = KindSettingsForm
        return formset

    def _layout_fixed(self, obj: Campaign | None) -> bool:
        return bool(self.layout_fields) and has_hits(obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Campaign | None = None):
        fields = tuple(super().get_readonly_fields(request, obj))
        if self._layout_fixed(obj):
            fields += tuple(name for name in self.layout_fields if name not in fields)
        return fields

    def get_fieldsets(self, request: HttpRequest, obj: Campaign | None = None):
        fieldsets = super().get_fieldsets(request, obj)
        if not self._layout_fixed(obj):
            return fieldsets
        (name, options), *rest = fieldsets
        note = (
            "The campaign has HITs, so the settings that shape them are fixed (a change would "
            "reach tasks already under way and mislabel the results). To change them, make a "
            "new campaign, or delete the HITs while nobody has worked on them."
        )
        return [(name, {**options, "description": note}), *rest]

    def formfield_for_dbfield(self, db_field, request: HttpRequest, **kwargs):
        field = super().formfield_for_dbfield(db_field, request, **kwargs)
        # A settings model's own words for a missing value (e.g. "Choose fluency or adequacy
        # for direct assessment.") instead of the form's generic "This field is required."
        blank = getattr(db_field, "error_messages", {}).get("blank")
        if field is not None and blank and blank != Field.default_error_messages["blank"]:
            field.error_messages["required"] = blank
        return field

    def formfield_for_foreignkey(self, db_field: ForeignKey, request: HttpRequest, **kwargs):
        if db_field.related_model is System:
            campaign = getattr(self, "_campaign", None)
            kwargs["queryset"] = (
                System.objects.filter(campaign=campaign)
                if campaign is not None and campaign.pk
                else System.objects.none()
            )
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


@cache
def settings_inline(implementation: CampaignKind) -> type[KindSettingsInline]:
    """The admin inline of one kind's settings model (one class per kind)."""
    model = implementation.settings_model
    assert model is not None
    label = TaskKind(implementation.kind).label
    return type(
        f"{model.__name__}Inline",
        (KindSettingsInline,),
        {
            "model": model,
            "fieldsets": implementation.settings_fieldsets,
            "readonly_fields": implementation.settings_readonly_fields,
            "layout_fields": implementation.settings_layout_fields,
            "verbose_name": f"{label} settings",
            "verbose_name_plural": f"{label} settings",
        },
    )


class KindAdminMixin:
    """For CampaignAdmin: kind-first Add page, the kind's settings inline, kind locked with
    HITs."""

    kind_choice_template = "admin/campaigns/campaign/choose_kind.html"
    # The campaign fieldset after which the kind's settings stand on the form.
    kind_settings_after = "Qualification test"

    def render_change_form(self, request: HttpRequest, context: dict, *args: Any, **kwargs: Any):
        context["kind_settings_after"] = self.kind_settings_after
        return super().render_change_form(request, context, *args, **kwargs)  # type: ignore[misc]

    def chosen_kind(self, request: HttpRequest, obj: Campaign | None) -> CampaignKind | None:
        """The kind of the page: the campaign's, or on the Add page the one in ``?kind=``."""
        if obj is not None:
            return registry.get(obj.kind)
        return registry.get(request.GET.get("kind", ""))

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context=None):
        if self.chosen_kind(request, None) is None:
            return self.choose_kind_view(request)
        return super().add_view(request, form_url, extra_context)  # type: ignore[misc]

    def choose_kind_view(self, request: HttpRequest) -> TemplateResponse:
        """Step one of adding a campaign: what it evaluates."""
        if not self.has_add_permission(request):  # type: ignore[attr-defined]
            from django.core.exceptions import PermissionDenied

            raise PermissionDenied
        kinds = [
            {"value": k.kind, "label": TaskKind(k.kind).label, "builds_hits": k.builds_hits}
            for k in (registry[name] for name in registry.kinds())
        ]
        context = {
            **self.admin_site.each_context(request),  # type: ignore[attr-defined]
            "opts": self.model._meta,  # type: ignore[attr-defined]
            "title": "Add campaign: what does it evaluate?",
            "kinds": kinds,
            "unknown": request.GET.get("kind", ""),
        }
        return TemplateResponse(request, self.kind_choice_template, context)

    def kind_locked(self, obj: Campaign | None) -> bool:
        return has_hits(obj)

    def get_form(self, request: HttpRequest, obj: Campaign | None = None, change=False, **kwargs):
        form = super().get_form(request, obj, change=change, **kwargs)  # type: ignore[misc]
        field = form.base_fields.get("kind")
        if field is not None:
            chosen = self.chosen_kind(request, obj)
            if obj is None and chosen is not None:
                # Chosen on step one; the settings below belong to it.
                field.initial = chosen.kind
                field.disabled = True
                field.help_text = "Chosen on the previous page."
            elif self.kind_locked(obj):
                field.disabled = True
                field.help_text = (
                    "The campaign has HITs, so its kind is fixed. Create a new campaign to "
                    "evaluate with another kind."
                )
            else:
                field.help_text = (
                    "Can change until HITs are built; the page then asks for the settings of "
                    "the new kind."
                )
        return form

    def kind_urls(self) -> list:
        """Every kind's own admin pages (CampaignKind.admin_urls)."""
        return [url for implementation in registry for url in implementation.admin_urls(self)]

    def settings_inlines(self, request: HttpRequest, obj: Campaign | None) -> list[type]:
        chosen = self.chosen_kind(request, obj)
        if chosen is None:
            return []
        inlines: list[type] = []
        if chosen.settings_model is not None:
            # A campaign whose kind changed (before it had HITs) has no settings row of its
            # new kind yet: the inline shows the defaults to save.
            inlines.append(settings_inline(chosen))
        inlines.extend(chosen.admin_inlines(obj))
        return inlines

    def save_kind_change(self, request: HttpRequest, obj: Campaign, form) -> None:
        """After the kind changed on a campaign without HITs: the requester is told to fill
        in the settings of the new kind, which its page now shows (and requires)."""
        if "kind" not in form.changed_data or obj.pk is None:
            return
        implementation = registry.get(obj.kind)
        if implementation is None or implementation.settings_model is None:
            return
        if implementation.settings_model.objects.filter(campaign=obj).exists():
            return  # it was this kind before: its settings are still there
        label = TaskKind(obj.kind).label
        self.message_user(  # type: ignore[attr-defined]
            request,
            f"The campaign is now {label}: fill in its {label} settings below and save.",
            messages.WARNING,
        )

    def response_change(self, request: HttpRequest, obj: Campaign):
        # A kind change needs its new settings filled in: stay on the page.
        implementation = registry.get(obj.kind)
        if (
            implementation is not None
            and implementation.settings_model is not None
            and not implementation.settings_model.objects.filter(campaign=obj).exists()
        ):
            from django.http import HttpResponseRedirect

            return HttpResponseRedirect(request.path)
        return super().response_change(request, obj)  # type: ignore[misc]
