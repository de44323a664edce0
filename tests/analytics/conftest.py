"""Fixtures shared by the analytics tests."""

from __future__ import annotations

from unittest import mock

import pytest

from analytics import tasks
from evalsite.celery import app as celery_app


@pytest.fixture
def broker(monkeypatch):
    """As in production: tasks are sent, not run inline; apply_async is the network edge."""
    saved = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    sent = mock.Mock(name="apply_async")
    monkeypatch.setattr(tasks.recompute_campaign_results, "apply_async", sent)
    yield sent
    celery_app.conf.task_always_eager = saved
