"""Issue 11 item 9 with DEBUG off: `check --deploy` is clean, HTTPS is enforced (redirect and
HSTS) when HTTPS is on, and bad rate settings fail at start-up. Each case runs in a fresh
interpreter with a controlled environment (no DATABASE_URL or REDIS_URL from the host)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
PRODUCTION = {
    "DEBUG": "0",
    "SECRET_KEY": "hardening-test-secret-" + "k7Qz" * 12,
    "ALLOWED_HOSTS": "evalsite.example.org,testserver",
    "HTTPS": "1",
}
# Every variable these settings read that a host could have set.
CLEARED = (
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "DATABASE_URL",
    "REDIS_URL",
    # Set by the browser tests (tests/e2e/conftest.py) for the live server; not in deployment.
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "HTTPS",
    "HSTS_SECONDS",
    "HSTS_INCLUDE_SUBDOMAINS",
    "HSTS_PRELOAD",
    "TRUSTED_PROXY_COUNT",
    "API_THROTTLE_USER",
    "API_THROTTLE_ANON",
    "ADMIN_LOGIN_FAILURE_LIMIT",
    "ADMIN_LOGIN_COOLOFF_MINUTES",
)

PROBE = """
import json
import django
django.setup()
from django.test import Client

def answer(path, **headers):
    response = Client().get(path, HTTP_ACCEPT="application/json", **headers)
    return {
        "status": response.status_code,
        "location": response.get("Location"),
        "hsts": response.get("Strict-Transport-Security"),
        "csp": response.get("Content-Security-Policy"),
    }

print(json.dumps({
    "http_api": answer("/api/"),
    "http_healthz": answer("/healthz"),
    "https_api": answer("/api/", HTTP_X_FORWARDED_PROTO="https"),
}))
"""


def run(args: list[str], **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in CLEARED}
    clean["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
    clean.update(env)
    return subprocess.run(
        [sys.executable, *args], cwd=PROJECT, env=clean, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean_in_production():
    result = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], **PRODUCTION)
    assert result.returncode == 0, result.stdout + result.stderr
    # Only HSTS preloading is not asked for (the domain owner's decision, HSTS_PRELOAD=1).
    assert "System check identified no issues (1 silenced)." in result.stdout


def test_check_deploy_is_clean_with_preloading_too():
    result = run(
        ["manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        **PRODUCTION,
        HSTS_PRELOAD="1",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues (0 silenced)." in result.stdout


def probe(**env: str) -> dict:
    result = run(["-c", PROBE], **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_https_on_redirects_plain_http_and_sends_hsts():
    answers = probe(**PRODUCTION)
    assert answers["http_api"]["status"] == 301
    assert answers["http_api"]["location"] == "https://testserver/api/"
    # Health checks ask over plain HTTP, behind the TLS proxy: not redirected.
    assert answers["http_healthz"]["status"] != 301
    assert answers["http_healthz"]["location"] is None
    https = answers["https_api"]
    assert https["status"] == 401  # reached the API: anonymous
    assert https["hsts"] == "max-age=31536000; includeSubDomains"
    assert "script-src 'self';" in https["csp"]
    assert https["csp"].endswith("frame-ancestors 'none'")


def test_https_off_neither_redirects_nor_sends_hsts():
    answers = probe(**{**PRODUCTION, "HTTPS": "0"})
    assert answers["http_api"]["status"] == 401
    assert answers["http_api"]["hsts"] is None
    assert answers["https_api"]["hsts"] is None


def test_hsts_settings_come_from_the_environment():
    answers = probe(**PRODUCTION, HSTS_SECONDS="600", HSTS_INCLUDE_SUBDOMAINS="0", HSTS_PRELOAD="1")
    assert answers["https_api"]["hsts"] == "max-age=600; preload"


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {"API_THROTTLE_USER": "lots"},
            "API_THROTTLE_USER='lots' is not a request rate. Write it as <count>/<period>",
        ),
        (
            {"API_THROTTLE_ANON": "0/minute"},
            "API_THROTTLE_ANON='0/minute' is not a request rate.",
        ),
        ({"ADMIN_LOGIN_FAILURE_LIMIT": "0"}, "ADMIN_LOGIN_FAILURE_LIMIT=0 must be at least 1."),
        ({"TRUSTED_PROXY_COUNT": "-1"}, "TRUSTED_PROXY_COUNT=-1 must be at least 0."),
    ],
)
def test_bad_hardening_settings_fail_at_start_up_with_a_message(env, message):
    result = run(["manage.py", "check"], **env)
    assert result.returncode != 0
    assert message in result.stderr
