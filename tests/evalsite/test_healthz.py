"""Issue 11, item 10: /healthz reports the database, Redis and Celery separately (200 when every
configured part answers, 503 naming what is down), leaks no secret and is not throttled."""

from __future__ import annotations

from unittest import mock

import pytest
from django.db.utils import OperationalError
from django.test import Client, override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from evalsite import views
from evalsite.celery import app

pytestmark = pytest.mark.django_db

SECRET_URL = "redis://:s3cret-password@127.0.0.1:1/0"  # nothing listens on port 1
WITH_BROKER = {"REDIS_URL": SECRET_URL, "CELERY_TASK_ALWAYS_EAGER": False}
# The embedded default, whatever the environment of the run (CI sets REDIS_URL).
WITHOUT_BROKER = {"REDIS_URL": "", "CELERY_TASK_ALWAYS_EAGER": True}


def health():
    response = Client().get("/healthz")
    return response.status_code, response.json(), response


@override_settings(**WITHOUT_BROKER)
def test_without_a_broker_everything_is_ok_and_celery_is_inline():
    status, body, response = health()
    assert (status, body) == (
        200,
        {
            "status": "ok",
            "down": [],
            "database": {"status": "ok"},
            "redis": {"status": "not configured"},
            "celery": {"status": "inline"},
        },
    )
    assert "no-cache" in response["Cache-Control"]


@override_settings(**WITHOUT_BROKER)
def test_a_database_that_does_not_answer_is_named(monkeypatch):
    def broken_cursor(*args, **kwargs):
        raise OperationalError("could not connect to server at db.internal:5432 password=x")

    with mock.patch.object(views.connection, "cursor", side_effect=broken_cursor):
        status, body, response = health()
    assert status == 503
    assert body["down"] == ["database"]
    assert body["database"] == {"status": "down", "error": "OperationalError"}
    assert b"db.internal" not in response.content and b"password" not in response.content


@override_settings(**WITH_BROKER)
def test_redis_down_names_redis_and_celery_without_leaking_the_url():
    status, body, response = health()
    assert status == 503
    assert body["down"] == ["redis", "celery"]
    assert body["database"] == {"status": "ok"}
    assert body["redis"] == {"status": "down", "error": "ConnectionError"}
    assert body["celery"] == {"status": "down", "error": "broker unreachable"}
    assert b"s3cret" not in response.content and b"127.0.0.1" not in response.content


@override_settings(**WITH_BROKER)
def test_no_celery_worker_answering_is_named():
    with (
        mock.patch("redis.Redis.ping", return_value=True),
        mock.patch.object(app.control, "ping", return_value=[]) as ping,
        # The sweep's heartbeat lives in the shared cache (a Celery worker of another test
        # may have written it): its age is reported for information only.
        mock.patch.object(views, "_sweep_heartbeat_age", return_value=None),
    ):
        status, body, _ = health()
    assert status == 503
    assert body["down"] == ["celery"]
    assert body["redis"] == {"status": "ok"}
    assert body["celery"] == {"status": "down", "workers": 0, "error": "no worker answered"}
    ping.assert_called_once_with(timeout=1.0)


@override_settings(**WITH_BROKER, HEALTHZ_CELERY_TIMEOUT_MS=300)
def test_everything_answering_is_200():
    replies = [{"celery@a": {"ok": "pong"}}, {"celery@b": {"ok": "pong"}}]
    with (
        mock.patch("redis.Redis.ping", return_value=True),
        mock.patch.object(app.control, "ping", return_value=replies) as ping,
    ):
        status, body, _ = health()
    assert status == 200
    assert body["down"] == []
    assert body["celery"]["status"] == "ok" and body["celery"]["workers"] == 2
    ping.assert_called_once_with(timeout=0.3)


@override_settings(**WITH_BROKER)
def test_a_broker_error_during_the_ping_is_down_not_500():
    with (
        mock.patch("redis.Redis.ping", return_value=True),
        mock.patch.object(app.control, "ping", side_effect=RedisConnectionError("gone")),
    ):
        status, body, _ = health()
    assert status == 503
    assert body["celery"] == {"status": "down", "error": "ConnectionError"}


@override_settings(**WITHOUT_BROKER)
def test_healthz_is_not_throttled():
    client = Client(REMOTE_ADDR="203.0.113.7")
    assert {client.get("/healthz").status_code for _ in range(200)} == {200}
