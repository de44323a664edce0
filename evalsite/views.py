from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.cache import never_cache

from evalsite.cachesafe import cache_errors, cache_get

logger = logging.getLogger(__name__)

# Where the analytics sweep leaves its heartbeat (analytics.tasks.SWEEP_HEARTBEAT_KEY; the
# string is repeated here so that the site's root does not import an app).
SWEEP_HEARTBEAT_KEY = "evalsite:sweep:heartbeat"


def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


def _failure(error: BaseException) -> dict[str, Any]:
    # The error's class only: a message may quote a URL with a password in it.
    return {"status": "down", "error": type(error).__name__}


def check_database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as error:  # any failure of the database is "down", never a 500
        return _failure(error)
    return {"status": "ok"}


def check_redis() -> dict[str, Any]:
    """A PING to REDIS_URL (the broker and cache), with a short timeout; "not configured"
    without REDIS_URL (the embedded default: local-memory cache, no broker)."""
    if not settings.REDIS_URL:
        return {"status": "not configured"}
    import redis

    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=1.0, socket_timeout=1.0
        )
        try:
            client.ping()
        finally:
            client.close()
    except cache_errors() as error:
        return _failure(error)
    return {"status": "ok"}


def check_celery(redis_status: dict[str, Any]) -> dict[str, Any]:
    """ "inline" without a broker (tasks run in the request); else a ping of the workers
    through the app's control, answered within HEALTHZ_CELERY_TIMEOUT_MS, and the age of the
    sweep's last heartbeat (beat and a worker both alive) for information."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return {"status": "inline"}
    if redis_status.get("status") != "ok":
        return {"status": "down", "error": "broker unreachable"}
    from evalsite.celery import app

    try:
        replies = app.control.ping(timeout=settings.HEALTHZ_CELERY_TIMEOUT_MS / 1000)
    except Exception as error:  # the broker's errors vary by transport
        return _failure(error)
    result: dict[str, Any] = {"workers": len(replies or [])}
    result["status"] = "ok" if replies else "down"
    if not replies:
        result["error"] = "no worker answered"
    heartbeat = _sweep_heartbeat_age()
    if heartbeat is not None:
        result["sweep_seconds_ago"] = heartbeat
    return result


def _sweep_heartbeat_age() -> int | None:
    value = cache_get(SWEEP_HEARTBEAT_KEY)
    if not isinstance(value, str):
        return None
    try:
        return round((timezone.now() - datetime.fromisoformat(value)).total_seconds())
    except ValueError:
        return None


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """For load balancers, docker-compose and monitoring: the database, Redis and Celery,
    each reported separately, as JSON. 200 when every configured part answers, 503 otherwise,
    with ``down`` naming the parts that do not. Without a broker Celery is "inline" and Redis
    "not configured" (both fine). No secret (no URL, no error message) is in the answer, and
    the view is not throttled."""
    redis_status = check_redis()
    checks = {
        "database": check_database(),
        "redis": redis_status,
        "celery": check_celery(redis_status),
    }
    down = [name for name, check in checks.items() if check["status"] == "down"]
    if down:
        logger.warning("Health check: %s down", ", ".join(down))
    body = {"status": "down" if down else "ok", "down": down, **checks}
    return JsonResponse(body, status=503 if down else 200)
