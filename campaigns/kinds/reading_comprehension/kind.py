"""Reading comprehension on the requester's side: its four HIT stages (000 section 6). Its
settings, builder and pages come with the reading-comprehension issue; until then its
campaigns hold segments only."""

from __future__ import annotations

from campaigns.kinds import CampaignKind, registry
from campaigns.kinds.reading_comprehension.models import ReadingComprehensionSettings
from campaigns.models import HitTask, TaskKind


@registry.register
class ReadingComprehension(CampaignKind):
    kind = TaskKind.READING_COMPREHENSION
    hit_tasks = (HitTask.RC_AUTHOR, HitTask.RC_SELECT, HitTask.RC_ANSWER, HitTask.RC_GRADE)
    settings_model = ReadingComprehensionSettings
    settings_accessor = "rc_settings"
