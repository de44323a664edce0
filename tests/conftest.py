"""Shared fixtures for tests that need a real service: PostgreSQL, Redis, Chromium.

The rule (``require_services``): a test that needs a service asks for its fixture. When the
service is missing the test is skipped on a developer's machine, but fails when
EVALSITE_REQUIRE_SERVICES=1 (set by ``.ci/run``), so CI can never go green by skipping.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit, urlunsplit

import pytest
from django.conf import settings

from evalsite.env import env_bool

REQUIRE_SERVICES_VAR = "EVALSITE_REQUIRE_SERVICES"
DEFAULT_CHROMIUM_PATH = "/usr/bin/chromium"
POSTGRES_ENGINES = ("django.db.backends.postgresql",)


def services_required() -> bool:
    """True in CI (EVALSITE_REQUIRE_SERVICES=1): a missing service is an error, not a skip."""
    return env_bool(REQUIRE_SERVICES_VAR, default=False)


def require_services(problem: str, remedy: str) -> NoReturn:
    """Skip the test locally, fail it in CI; the message says what to install or set."""
    if services_required():
        pytest.fail(
            f"{problem}. {remedy} ({REQUIRE_SERVICES_VAR}=1, so a missing service is an error).",
            pytrace=False,
        )
    pytest.skip(f"{problem}. {remedy}")


def database_is_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"] in POSTGRES_ENGINES


POSTGRES_REMEDY = (
    "Install and start PostgreSQL, then set "
    "DATABASE_URL=postgres://USER:PASSWORD@127.0.0.1:5432/evalsite for a role that may create "
    "databases (.ci/run services does both)"
)


def _redis_url_for_worker(url: str, index: int) -> str:
    """``url`` with its database number moved up by ``index`` (redis://host:6379/0 -> /1)."""
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{base + index}"))


def pytest_configure(config: pytest.Config) -> None:
    """Under pytest-xdist (``make test`` runs the suite in one process per core), each process
    has its own test database (pytest-django adds the worker's suffix: test_evalsite_gw1) and
    here its own Redis database too: cache keys name campaigns by id, and the ids of two
    processes' databases overlap; a Celery worker started by an integration test must take
    only its own process's tasks. Subprocesses inherit the environment."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or not settings.REDIS_URL:
        return
    url = _redis_url_for_worker(settings.REDIS_URL, int(worker[2:]))
    settings.REDIS_URL = settings.CELERY_BROKER_URL = url
    settings.CACHES["default"]["LOCATION"] = url
    os.environ["REDIS_URL"] = url
    from evalsite.celery import app

    app.conf.broker_url = url


def pytest_sessionstart(session: pytest.Session) -> None:
    # Fail before collecting anything: in CI the whole suite must run against PostgreSQL.
    if services_required() and not database_is_postgres():
        raise pytest.UsageError(
            f"{REQUIRE_SERVICES_VAR}=1 but the configured database is "
            f"{settings.DATABASES['default']['ENGINE']}, not PostgreSQL. {POSTGRES_REMEDY}."
        )


@pytest.fixture(autouse=True)
def _celery_tasks_run_inline(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tasks run inline in every test but the integration ones, even when REDIS_URL is set (CI).

    Otherwise, with a broker configured, ``task.delay()`` in a unit test would only put a message
    in Redis for nobody to run. Tests marked ``integration`` see the real configuration.
    """
    if request.node.get_closest_marker("integration"):
        yield
        return
    from evalsite.celery import app

    saved = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager = app.conf.task_eager_propagates = True
    try:
        yield
    finally:
        app.conf.task_always_eager, app.conf.task_eager_propagates = saved


@pytest.fixture(scope="session")
def postgres_required() -> None:
    """The configured database is PostgreSQL and its server answers.

    Session-scoped so that, listed before ``db``/``transactional_db``, it runs before
    pytest-django tries to create the test database.
    """
    if not database_is_postgres():
        require_services(
            f"This test needs PostgreSQL; the configured database is "
            f"{settings.DATABASES['default']['ENGINE']}",
            POSTGRES_REMEDY,
        )
    import psycopg2

    db = settings.DATABASES["default"]
    try:
        psycopg2.connect(
            dbname="postgres",
            user=db.get("USER") or None,
            password=db.get("PASSWORD") or None,
            host=db.get("HOST") or None,
            port=db.get("PORT") or None,
            connect_timeout=3,
        ).close()
    except psycopg2.OperationalError as error:
        require_services(
            f"PostgreSQL at {db.get('HOST')}:{db.get('PORT')} does not answer "
            f"({' '.join(str(error).split())})",
            POSTGRES_REMEDY,
        )


@pytest.fixture(scope="session")
def redis_url() -> str:
    """REDIS_URL, checked to be set and to answer a PING."""
    url = settings.REDIS_URL
    remedy = (
        "Install and start redis-server (redis-server --daemonize yes), then set "
        "REDIS_URL=redis://127.0.0.1:6379/0"
    )
    if not url:
        require_services("This test needs Redis; REDIS_URL is not set", remedy)
    import redis

    try:
        # Closed at once: a socket left to the garbage collector raises a ResourceWarning in
        # whichever later test happens to run the collection.
        with redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=3) as client:
            client.ping()
    except redis.RedisError as error:
        require_services(f"Redis at {url} does not answer a PING ({error})", remedy)
    return url


@pytest.fixture(autouse=True)
def _api_throttling_off(request: pytest.FixtureRequest) -> Iterator[None]:
    """No API request rate (issue 11 item 9) in tests but the integration ones: many tests send
    far more requests per minute than a script would, and throttle histories in the cache
    outlive a test. tests/test_security_hardening.py sets rates to show the 429."""
    if request.node.get_closest_marker("integration"):
        yield
        return
    from django.test import override_settings

    with override_settings(API_THROTTLE_RATES={}):
        yield


@pytest.fixture(autouse=True)
def _start_limit_off(request: pytest.FixtureRequest) -> Iterator[None]:
    """Issue 11 item 3: the per-client start limit (settings.START_RATE) counts in the cache,
    which outlives a test, and every test client has the same address; tests that show the
    limit (tests/judgments/test_start_limit.py) set the rate themselves."""
    if request.node.get_closest_marker("integration"):
        yield
        return
    from django.test import override_settings

    with override_settings(START_RATE=""):
        yield


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """Path of an executable Chromium: CHROMIUM_PATH, else Debian's /usr/bin/chromium."""
    path = os.environ.get("CHROMIUM_PATH", "").strip() or DEFAULT_CHROMIUM_PATH
    if not (Path(path).is_file() and os.access(path, os.X_OK)):
        require_services(
            f"This test needs Chromium; {path} is not an executable file",
            "Install it (apt-get install chromium) or set CHROMIUM_PATH to a Chromium binary",
        )
    return path
