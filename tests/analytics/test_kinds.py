"""The analytics registry of task kinds (analytics.kinds): which kinds have statistics, and
that each registered kind provides what the shared code calls."""

from __future__ import annotations

import inspect

import pytest
from django.template.loader import get_template

from analytics import actions, tasks
from analytics.kinds import AnalyticsKind, registry, statistics_of
from campaigns.models import TaskKind
from tests.factories import CampaignFactory

# What a kind must implement (the base raises NotImplementedError for these).
REQUIRED = sorted(
    name
    for name, member in vars(AnalyticsKind).items()
    if inspect.isfunction(member) and "raise NotImplementedError" in inspect.getsource(member)
)


def test_every_kind_has_statistics():
    assert registry.kinds() == (
        TaskKind.DIRECT_ASSESSMENT,
        TaskKind.RANKING,
        TaskKind.POST_EDITING,
        TaskKind.READING_COMPREHENSION,
        TaskKind.TRANSLATION,
    )


@pytest.mark.parametrize("kind", registry.kinds())
def test_each_kind_provides_what_the_shared_code_calls(kind):
    statistics = registry[kind]
    assert "recompute" in REQUIRED and "results_panel" in REQUIRED
    for name in REQUIRED:
        assert getattr(type(statistics), name) is not getattr(AnalyticsKind, name), name
    for name in ("result_model", "result_relation", "variant_param", "panel_anchor", "label"):
        assert getattr(statistics, name), name
    assert set(statistics.worker_actions) >= {"exclude", "readmit"}
    assert statistics.variant_param in statistics.query_fields("scores")


@pytest.mark.django_db
@pytest.mark.parametrize("kind", registry.kinds())
def test_each_kinds_panel_templates_exist(kind, rf):
    campaign = CampaignFactory(kind=kind)
    panel = registry[kind].results_panel(campaign, rf.get("/"))
    get_template(panel.template)
    get_template(panel.style_template)


@pytest.mark.django_db
def test_kinds_without_a_module_have_no_statistics(monkeypatch):
    # Every kind of TASK_KINDS has its module now: take one out of the registry.
    campaign = CampaignFactory(kind=TaskKind.TRANSLATION)
    monkeypatch.delitem(registry._kinds, TaskKind.TRANSLATION)
    assert statistics_of(campaign) is None


def test_the_recompute_task_is_enqueued_by_its_registered_name():
    # analytics.actions does not import analytics.tasks (no import circle): it looks the task
    # up by this name.
    assert tasks.recompute_campaign_results.name == actions.RECOMPUTE_TASK
