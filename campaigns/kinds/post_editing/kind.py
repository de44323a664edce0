"""Post-editing on the requester's side: its settings. Its HIT builder, task pages and HTER
come with the post-editing issue; until then its campaigns hold segments and settings only."""

from __future__ import annotations

from campaigns.kinds import CampaignKind, registry
from campaigns.kinds.post_editing.models import PostEditingSettings
from campaigns.models import HitTask, TaskKind


@registry.register
class PostEditing(CampaignKind):
    kind = TaskKind.POST_EDITING
    hit_tasks = (HitTask.POST_EDIT, HitTask.VERIFY_EDIT)
    settings_model = PostEditingSettings
    settings_accessor = "post_editing_settings"
    settings_fieldsets = (("HIT layout", {"fields": ("segments_per_hit",)}),)
