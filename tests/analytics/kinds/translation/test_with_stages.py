"""The recompute with the campaigns side's real stages
(``campaigns.kinds.translation.stages``): it builds the Detect-MT HIT of a translation
assignment that has none (the hand-worked campaign's have theirs already) and asks for the
correction HITs of the final kept translations."""

from __future__ import annotations

import pytest

from analytics import actions
from analytics.kinds.translation import actions as tr_actions
from campaigns.models import Hit, HitSlot, HitTask
from tests.analytics.kinds.translation.campaign import build_tr_campaign, translate

pytestmark = pytest.mark.django_db


def test_detect_mt_hits_are_built_once_per_translation_assignment():
    built = build_tr_campaign()
    assert tr_actions._stages() is not None
    before = Hit.objects.filter(campaign=built.campaign, task=HitTask.DETECT_MT).count()
    tr_actions.recompute_translation(built.campaign)
    assert Hit.objects.filter(campaign=built.campaign, task=HitTask.DETECT_MT).count() == before
    translate(built, "t5", {3: "we like green tea very much"})
    tr_actions.recompute_translation(built.campaign)
    slots = HitSlot.objects.filter(
        hit__task=HitTask.DETECT_MT, about_judgment=built.translation("t5", 3)
    )
    assert slots.count() == 1 and slots.get().hit.places == 3
    actions.clear_recompute_flag(built.campaign.pk)
