"""The requester's side of each task kind: settings, their validation, admin fieldsets, HITs.

Every kind registers one :class:`CampaignKind` (``campaigns/kinds/<kind>/kind.py``) with
:data:`registry`; a kind with settings of its own keeps them in a model joined one-to-one to
its Campaign (``campaigns/kinds/<kind>/models.py``, a :class:`KindSettings`). Shared code asks
``registry[campaign.kind]`` and never compares the kind with a particular one
(evalsite/kinds.py, docs/task-kinds.md).

A campaign and its settings are created together: :func:`new_campaign` returns both unsaved,
validated together by :meth:`NewCampaign.full_clean` and saved together by
:meth:`NewCampaign.save`; the admin shows the settings as an inline on the campaign's page.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from django.core.exceptions import ObjectDoesNotExist, ValidationError
from django.db import models, transaction

from evalsite.kinds import KindNotAvailable, Registry

if TYPE_CHECKING:
    from django.db.models import QuerySet

    from campaigns.importers.judgments.kinds import JudgmentImportKind
    from campaigns.models import Campaign, Hit
    from judgments.models import Worker

__all__ = [
    "CampaignKind",
    "HitBuildError",
    "KindNotAvailable",
    "KindSettings",
    "NewCampaign",
    "kind_of",
    "kind_settings",
    "new_campaign",
    "registry",
    "save_campaign",
]


class HitBuildError(Exception):
    """The campaign's HITs cannot be (re)built; the message says why and what to do."""


class KindSettings(models.Model):
    """Base of a kind's settings model. Subclasses declare
    ``campaign = models.OneToOneField(Campaign, primary_key=True, related_name=...)`` with the
    related name their :class:`CampaignKind` gives as ``settings_accessor``; ``clean`` checks
    rules that need the campaign (its systems, its languages)."""

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self._meta.verbose_name} of {self.campaign}"


class CampaignKind:
    """What every task kind provides on the requester's side. Override what applies."""

    # The TaskKind value this implements.
    kind: ClassVar[str]
    # The module (dotted path) whose NOTES add the kind's steps to the campaign page's
    # checklist (campaigns.checklist.KindNotes); None: the shared steps only.
    checklist_notes: ClassVar[str | None] = None
    # The HitTask values a campaign of this kind may hold.
    hit_tasks: ClassVar[tuple[str, ...]] = ()
    # The settings model (a KindSettings) and the Campaign attribute that reaches it; None for
    # a kind without settings of its own.
    settings_model: ClassVar[type[KindSettings] | None] = None
    settings_accessor: ClassVar[str] = ""
    # Admin fieldsets of the settings inline on the campaign's page.
    settings_fieldsets: ClassVar[tuple[tuple[str | None, dict[str, Any]], ...]] = ()
    # Settings the inline shows without an input: values the kind's design fixes (a field a
    # requester could type into but only one value of which is accepted only confuses).
    settings_readonly_fields: ClassVar[tuple[str, ...]] = ()
    # Settings that shape the HITs the builder makes (their size, layout, controls): fixed
    # once the campaign has HITs, as its kind is. A change would reach the workers of a task
    # half done (direct assessment's mode switched at item 51) and mislabel the results.
    settings_layout_fields: ClassVar[tuple[str, ...]] = ()
    # Settings whose change makes the stored results out of date (recompute on save).
    result_settings: ClassVar[tuple[str, ...]] = ()
    # HIT tasks that pay their own reward: (HitTask value, settings field, the words for its
    # HITs), the field null meaning the campaign's reward. The checklist and the report show
    # them, and a change of one re-prices the task's HITs already built (campaigns.pay).
    task_rewards: ClassVar[tuple[tuple[str, str, str], ...]] = ()
    # Whether imported segments must carry a reference translation.
    needs_reference: ClassVar[bool] = True
    # Whether segments may be imported without any system outputs.
    outputs_optional: ClassVar[bool] = False
    # Whether the HITs compare systems on the same segments, so that a system with outputs
    # for fewer segments than the campaign has is judged on other segments than the rest:
    # such a system then stops the HITs being built (campaigns.actions.output_gaps). A
    # system with no output at all stops them in every kind. Ranking's builder balances
    # segments with different numbers of outputs by design (its sets over crowd
    # translations), so it leaves this False.
    needs_every_output: ClassVar[bool] = False
    # Whether :meth:`build_hits` exists for this kind yet.
    builds_hits: ClassVar[bool] = False
    # The HitTask of the HITs that imported judgments are stored under (None: this kind
    # takes no judgment imports).
    import_hit_task: ClassVar[str | None] = None

    def settings_for(self, campaign: Campaign) -> KindSettings | None:
        """The campaign's stored settings, or None for a kind without settings."""
        if self.settings_model is None:
            return None
        try:
            return getattr(campaign, self.settings_accessor)
        except ObjectDoesNotExist:
            raise ObjectDoesNotExist(
                f"Campaign {campaign.pk} ({campaign.kind}) has no {self.settings_accessor}: "
                "create campaigns with campaigns.kinds.new_campaign."
            ) from None

    def default_settings(self, campaign: Campaign, **values: Any) -> KindSettings | None:
        if self.settings_model is None:
            if values:
                raise ValueError(f"{self.kind} campaigns have no settings: {sorted(values)}")
            return None
        return self.settings_model(campaign=campaign, **values)

    def build_hits(self, campaign: Campaign) -> int:
        """Build and store the campaign's HITs (the campaign row is locked and its old HITs
        deleted by the caller, campaigns.actions.build_hits); return how many were built."""
        raise HitBuildError(f"Building HITs for {self.kind} campaigns is not available yet.")

    def hits_for_worker(
        self, campaign: Campaign, worker: Worker, hits: QuerySet[Hit]
    ) -> QuerySet[Hit]:
        """Narrow the regular HITs the hand-out may give ``worker`` (called under the
        campaign's lock, judgments.actions.handout): a kind's own rules of who may do what
        (post-editing: one edit HIT per run of segments, never one's own edit to verify).
        Default: every HIT."""
        return hits

    def hit_preference(self) -> tuple[Any, ...]:
        """Order expressions the hand-out puts before the HIT number (after the worker's own
        expired HITs): which HITs go out first. Default: by number only."""
        return ()

    def admin_inlines(self, campaign: Campaign | None) -> list[type]:
        """Further admin inlines of a saved campaign of this kind (the settings inline is
        added by the campaign admin)."""
        return []

    def admin_urls(self, model_admin: Any) -> list:
        """Further admin URLs of this kind's campaigns (paths under the campaign admin's,
        e.g. ``<int:campaign_id>/...``), for its own pages: reading comprehension's stages
        page. Default: none."""
        return []

    def judgment_import(self) -> JudgmentImportKind | None:
        """What this kind provides for importing published judgment files: its formats and
        its steps of an import (campaigns/importers/judgments/kinds.py); None: no judgment
        files of this kind are imported."""
        return None


registry: Registry[CampaignKind] = Registry("campaigns.kinds.{name}.kind", "campaign settings")


def kind_of(campaign: Campaign) -> CampaignKind:
    return registry[campaign.kind]


def kind_settings(campaign: Campaign) -> KindSettings | None:
    """The campaign's kind-specific settings row (None for a kind without settings)."""
    return kind_of(campaign).settings_for(campaign)


def settings_accessors() -> tuple[str, ...]:
    """Every kind's settings accessor, for ``select_related`` on campaign lists."""
    return tuple(k.settings_accessor for k in registry if k.settings_model is not None)


@dataclass
class NewCampaign:
    """An unsaved campaign with its unsaved kind settings: validated and saved together."""

    campaign: Campaign
    settings: KindSettings | None

    def full_clean(self, **kwargs: Any) -> None:
        """Validate the campaign and its settings; one ValidationError naming every field."""
        errors: dict[str, list[str]] = {}
        for instance, exclude in ((self.campaign, None), (self.settings, {"campaign"})):
            if instance is None:
                continue
            try:
                instance.full_clean(**({"exclude": exclude} if exclude else {}), **kwargs)
            except ValidationError as error:
                for field, messages in error.message_dict.items():
                    errors.setdefault(field, []).extend(messages)
        if errors:
            raise ValidationError(errors)

    def save(self) -> Campaign:
        save_campaign(self.campaign)
        return self.campaign


def save_campaign(campaign: Campaign) -> None:
    """Save a campaign made by :func:`new_campaign` (unsaved, its settings attached) together
    with its settings row; for a saved campaign, the same as ``campaign.save()``."""
    with transaction.atomic():
        created = campaign.pk is None
        campaign.save()
        implementation = registry.get(campaign.kind)
        if not created or implementation is None or implementation.settings_model is None:
            return
        settings = campaign._state.fields_cache.get(implementation.settings_accessor)
        if settings is None:
            settings = implementation.default_settings(campaign)
        settings.campaign = campaign
        settings.save()
        setattr(campaign, implementation.settings_accessor, settings)


def new_campaign(
    *, kind: str, settings: Mapping[str, Any] | None = None, **fields: Any
) -> NewCampaign:
    """A campaign of ``kind`` with ``fields`` and its settings (defaults, overridden by
    ``settings``), both unsaved."""
    from django.apps import apps  # the model by name: this module is imported by models

    campaign = apps.get_model("campaigns", "Campaign")(kind=kind, **fields)
    implementation = registry.get(kind)
    if implementation is None:  # an unknown kind: full_clean reports it on the kind field
        return NewCampaign(campaign, None)
    row = implementation.default_settings(campaign, **dict(settings or {}))
    if row is not None:
        # Attached to the unsaved campaign, so that code holding only the campaign (checks,
        # writers) reads its settings and save_campaign() saves them.
        campaign._state.fields_cache[implementation.settings_accessor] = row
    return NewCampaign(campaign, row)
