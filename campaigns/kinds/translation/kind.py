"""Crowd translation on the requester's side: its settings. Its HIT builder and task pages
come with the translation issue; until then its campaigns hold segments and settings only."""

from __future__ import annotations

from campaigns.kinds import CampaignKind, registry
from campaigns.kinds.translation.models import TranslationSettings
from campaigns.models import HitTask, TaskKind


@registry.register
class Translation(CampaignKind):
    kind = TaskKind.TRANSLATION
    hit_tasks = (HitTask.TRANSLATE, HitTask.DETECT_MT)
    settings_model = TranslationSettings
    settings_accessor = "translation_settings"
    settings_fieldsets = (("HIT layout", {"fields": ("segments_per_hit",)}),)
    # The crowd makes the references: imported segments need none, nor system outputs.
    needs_reference = False
    outputs_optional = True
