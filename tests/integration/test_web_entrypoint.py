"""The production web entry point (deploy/web.sh, as docker-compose runs it): migrate,
collectstatic, gunicorn with DEBUG off, static files served by whitenoise."""

import json
import re
import socket
import urllib.error
import urllib.request

import pytest

from tests.integration.conftest import DEPLOY_DIR

pytestmark = pytest.mark.integration

STARTUP_TIMEOUT = 90  # migrate (a no-op) + collectstatic with compression + gunicorn boot
HASHED_ADMIN_CSS = re.compile(r'href="(/static/admin/css/base\.[0-9a-f]{12}\.css)"')


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# With DEBUG off HTTPS is on (issue 11 item 9): plain HTTP is redirected, so the requests come
# as the TLS proxy in front of gunicorn forwards them.
FROM_THE_TLS_PROXY = {"X-Forwarded-Proto": "https"}


def fetch(url: str) -> tuple[int, dict[str, str], bytes]:
    """GET as the TLS proxy forwards it; errors are answers too."""
    try:
        request = urllib.request.Request(url, headers=FROM_THE_TLS_PROXY)
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def test_web_entrypoint_serves_health_admin_and_hashed_static_files(
    postgres_required, subprocess_env, start_service, tmp_path
):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **subprocess_env,
        "DEBUG": "0",
        "SECRET_KEY": "integration-test-secret-key-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "STATIC_ROOT": str(tmp_path / "static"),
        "PORT": str(port),
        "WEB_CONCURRENCY": "2",
    }
    env.pop("REDIS_URL", None)  # the web process needs only the database
    web = start_service("web", [str(DEPLOY_DIR / "web.sh")], env)

    def healthy() -> bool:
        try:
            return fetch(f"{base}/healthz")[0] == 200
        except OSError:  # not listening yet
            return False

    web.wait_until(healthy, STARTUP_TIMEOUT, "GET /healthz answering 200")
    status, headers, body = fetch(f"{base}/healthz")
    # Issue 11 item 10: each part reported separately; no broker here, so Celery is inline.
    assert (status, json.loads(body)) == (
        200,
        {
            "status": "ok",
            "down": [],
            "database": {"status": "ok"},
            "redis": {"status": "not configured"},
            "celery": {"status": "inline"},
        },
    )

    status, headers, body = fetch(f"{base}/admin/login/")
    assert status == 200, web.describe()
    assert headers["X-Frame-Options"] == "DENY"
    assert headers["X-Content-Type-Options"] == "nosniff"
    html = body.decode()
    # ManifestStaticFilesStorage rewrote the reference to the hashed name collectstatic wrote.
    match = HASHED_ADMIN_CSS.search(html)
    assert match, f"no hashed admin CSS in the login page:\n{html[:2000]}"
    css_url = match.group(1)
    assert (tmp_path / "static" / css_url.removeprefix("/static/")).is_file()

    status, headers, body = fetch(base + css_url)
    assert status == 200, web.describe()
    assert headers["Content-Type"].startswith("text/css")
    # whitenoise, not Django, serves it: hashed files are cached forever.
    assert "immutable" in headers["Cache-Control"]
    assert b"body" in body

    # An unknown host is refused (ALLOWED_HOSTS applies with DEBUG off).
    request = urllib.request.Request(
        f"{base}/healthz", headers={"Host": "evil.example", **FROM_THE_TLS_PROXY}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 400

    assert web.stop() == 0, web.describe()
    log = web.log()
    assert "Booting worker" in log
    assert "Shutting down: Master" in log
