"""The worker's side of the task kinds (judgments.kinds): each kind registers its pages, one
per HIT task, and the shared code finds them by the task alone; a task no kind has a page for
is refused generically."""

from __future__ import annotations

import pytest
from django.template.loader import get_template

from campaigns import kinds as campaign_kinds
from campaigns.models import HitTask, TaskKind
from evalsite.kinds import TASK_KINDS
from judgments.kinds import (
    JudgmentKind,
    TaskPage,
    kind_of,
    registry,
    task_page,
    task_spec,
    worker_language,
)
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory

PAGES = [(kind, task) for kind in registry for task in kind.tasks()]


def test_direct_assessment_ranking_and_post_editing_have_their_pages():
    assert registry.kinds() == (
        "direct_assessment",
        "ranking",
        "post_editing",
        "reading_comprehension",
        "translation",
    )
    assert registry[TaskKind.DIRECT_ASSESSMENT].tasks() == (HitTask.ASSESS,)
    assert registry[TaskKind.RANKING].tasks() == (HitTask.RANK,)
    assert registry[TaskKind.POST_EDITING].tasks() == (HitTask.POST_EDIT, HitTask.VERIFY_EDIT)
    assert task_page(HitTask.ASSESS).template == "judgments/assess.html"
    assert task_page(HitTask.RANK).template == "judgments/rank.html"
    assert task_page(HitTask.POST_EDIT).template == "judgments/post_edit.html"
    assert task_page(HitTask.VERIFY_EDIT).template == "judgments/verify_edit.html"
    # Translation's correction pass is on the post-editing page (its HITs are post_edit).
    assert registry[TaskKind.TRANSLATION].tasks() == (HitTask.TRANSLATE, HitTask.DETECT_MT)
    assert task_page(HitTask.TRANSLATE).template == "judgments/translate.html"
    assert task_page(HitTask.DETECT_MT).template == "judgments/detect_mt.html"
    assert task_spec(HitTask.RANK).key == "set"
    assert task_spec(HitTask.POST_EDIT).key == task_spec(HitTask.VERIFY_EDIT).key == "position"


@pytest.mark.parametrize("task", ["no such task"])
def test_a_task_without_a_page_has_none(task):
    assert task_page(task) is None
    assert task_spec(task) is None


def test_no_two_kinds_share_a_hit_task():
    tasks = [task for _, task in PAGES]
    assert len(tasks) == len(set(tasks))


@pytest.mark.parametrize(
    ("kind", "task"), PAGES, ids=lambda value: str(getattr(value, "kind", value))
)
def test_a_page_is_for_a_task_its_kinds_campaigns_hold(kind, task):
    assert kind.kind in TASK_KINDS
    assert task in campaign_kinds.registry[kind.kind].hit_tasks
    page = kind.page(task)
    assert isinstance(kind, JudgmentKind) and isinstance(page, TaskPage)
    assert page.task == task and task_page(task) is page


@pytest.mark.parametrize(
    ("kind", "task"), PAGES, ids=lambda value: str(getattr(value, "kind", value))
)
def test_a_pages_templates_exist_and_its_page_extends_the_shared_base(kind, task):
    page = kind.page(task)
    get_template(page.preview_template)
    template = get_template(page.template)
    assert '{% extends "judgments/task_base.html" %}' in template.template.source


@pytest.mark.django_db
def test_a_kind_without_quality_control_of_its_own_fails_nobody():
    campaign = CampaignFactory(kind=TaskKind.RANKING)
    assert kind_of(campaign).qc_failures(campaign, [1, 2]) == {}
    assert kind_of(CampaignFactory(kind=TaskKind.TRANSLATION)).qc_failures(campaign, [1]) == {}


@pytest.mark.django_db
def test_the_messages_of_a_task_without_a_page_are_in_english(monkeypatch):
    # Every task has a page now: Detect-MT's page taken away stands for a task without one.
    monkeypatch.delitem(registry[TaskKind.TRANSLATION]._pages, HitTask.DETECT_MT)
    campaign = CampaignFactory(kind=TaskKind.TRANSLATION, instructions_language="de")
    assignment = AssignmentFactory(hit=HitFactory(campaign=campaign, task=HitTask.DETECT_MT))
    with worker_language(assignment) as language:
        assert language == "en"
