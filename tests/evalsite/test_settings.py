"""Settings come from the environment; every case runs in a fresh interpreter."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]

PROBE = """
import json
import django
from django.conf import settings
django.setup()
from evalsite.celery import app
print(json.dumps({
    "DEBUG": settings.DEBUG,
    "engine": settings.DATABASES["default"]["ENGINE"],
    "db_name": str(settings.DATABASES["default"]["NAME"]),
    "db_host": settings.DATABASES["default"].get("HOST", ""),
    "db_options": settings.DATABASES["default"].get("OPTIONS", {}).get("options", ""),
    "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    "broker": settings.CELERY_BROKER_URL,
    "celery_eager": app.conf.task_always_eager,
    "cache": settings.CACHES["default"]["BACKEND"],
    "cache_location": settings.CACHES["default"].get("LOCATION", ""),
    "secret_len": len(settings.SECRET_KEY),
    "allowed_hosts": settings.ALLOWED_HOSTS,
    "beat": sorted(settings.CELERY_BEAT_SCHEDULE),
}))
"""

# Variables the settings read; cleared so the host's environment cannot leak into a case.
SETTINGS_VARIABLES = (
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "REDIS_URL",
    "HTTPS",
    "PUBLIC_BASE_URL",
    "ASSIGNMENT_TIMEOUT_SECONDS",
    "ANALYTICS_RECOMPUTE_COUNTDOWN",
    "ANALYTICS_RECOMPUTE_QUEUE",
)


def run_settings(**env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    clean["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
    clean.update(env)
    return subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=PROJECT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )


def loaded(**env: str) -> dict:
    result = run_settings(**env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_no_environment_gives_the_embedded_default():
    values = loaded()
    assert values["DEBUG"] is True
    assert values["engine"] == "django.db.backends.sqlite3"
    assert values["db_name"] == str(PROJECT / "db.sqlite3")
    assert values["eager"] is True
    assert values["celery_eager"] is True
    assert values["broker"] == "memory://"
    assert values["cache"] == "django.core.cache.backends.locmem.LocMemCache"
    assert values["secret_len"] >= 50
    assert values["allowed_hosts"] == ["localhost", "127.0.0.1", "[::1]", "testserver"]
    assert values["beat"] == [
        "expire-abandoned-assignments",
        "recompute-stale-campaign-results",
        "sync-mturk-assignments",
    ]


def test_dev_secret_is_generated_once_and_reused():
    assert (PROJECT / ".dev-secret-key").exists() or loaded()
    first = (PROJECT / ".dev-secret-key").read_text()
    loaded()
    assert (PROJECT / ".dev-secret-key").read_text() == first


def test_database_url_selects_postgresql():
    values = loaded(DATABASE_URL="postgres://u:p@db.example:5432/evalsite")
    assert values["engine"] == "django.db.backends.postgresql"
    assert values["db_name"] == "evalsite"
    assert values["db_host"] == "db.example"
    # No JIT, and prepared statements on their generic plan (evalsite.prepared_statements).
    assert values["db_options"] == "-c jit=off -c plan_cache_mode=force_generic_plan"


def test_the_database_urls_own_connection_options_are_kept():
    values = loaded(
        DATABASE_URL="postgres://u:p@db.example:5432/evalsite?options=-c%20statement_timeout%3D5000"
    )
    assert values["db_options"] == (
        "-c statement_timeout=5000 -c jit=off -c plan_cache_mode=force_generic_plan"
    )


def test_redis_url_selects_broker_and_cache_and_turns_eager_off():
    values = loaded(REDIS_URL="redis://cache.example:6379/2")
    assert values["eager"] is False
    assert values["celery_eager"] is False
    assert values["broker"] == "redis://cache.example:6379/2"
    assert values["cache"] == "evalsite.redis_cache.RedisCache"
    assert values["cache_location"] == "redis://cache.example:6379/2"


def test_production_values_are_accepted():
    values = loaded(
        DEBUG="0", SECRET_KEY="x" * 60, ALLOWED_HOSTS="eval.example.org, www.example.org"
    )
    assert values["DEBUG"] is False
    assert values["allowed_hosts"] == ["eval.example.org", "www.example.org"]


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"DEBUG": "0", "ALLOWED_HOSTS": "eval.example.org"},
            "SECRET_KEY is not set. With DEBUG off, set SECRET_KEY",
        ),
        (
            {"DEBUG": "false", "SECRET_KEY": "x" * 60},
            "ALLOWED_HOSTS is not set. With DEBUG off, set ALLOWED_HOSTS",
        ),
        ({"DEBUG": "yes-ish"}, "DEBUG='yes-ish' is not a boolean."),
        ({"DEBUG": "2"}, "DEBUG='2' is not a boolean."),
        ({"HTTPS": "maybe"}, "HTTPS='maybe' is not a boolean."),
        (
            {"DATABASE_URL": "mysql://u:p@h/db"},
            "DATABASE_URL must start with postgres:// or postgresql:// or sqlite://",
        ),
        ({"REDIS_URL": "localhost:6379"}, "REDIS_URL must start with redis:// or rediss://"),
        (
            {"ASSIGNMENT_TIMEOUT_SECONDS": "soon"},
            "ASSIGNMENT_TIMEOUT_SECONDS='soon' is not a whole",
        ),
        ({"ASSIGNMENT_TIMEOUT_SECONDS": "5"}, "ASSIGNMENT_TIMEOUT_SECONDS=5 must be at least 60."),
    ],
)
def test_bad_or_missing_values_stop_startup_with_a_message(env, message):
    result = run_settings(**env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr
