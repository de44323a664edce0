"""Helpers for integration tests that run the production entry points (deploy/*.sh) as real
subprocesses against pytest-django's test database.

Every test in tests/integration is marked ``integration``. A subprocess sees only committed
rows, so these tests use ``transactional_db``, never ``db``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

REPO_ROOT = Path(__file__).resolve().parents[2]
DEPLOY_DIR = REPO_ROOT / "deploy"
INTEGRATION_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if INTEGRATION_DIR in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture
def subprocess_database_url(postgres_required, transactional_db) -> str:
    """A DATABASE_URL for pytest-django's test database (``test_<name>``), for subprocesses."""
    db = connection.settings_dict
    user = quote(db["USER"] or "", safe="")
    password = quote(db["PASSWORD"] or "", safe="")
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = db["HOST"] or "127.0.0.1"
    port = f":{db['PORT']}" if db["PORT"] else ""
    return f"postgres://{credentials}{host}{port}/{quote(db['NAME'], safe='')}"


@pytest.fixture
def subprocess_env(subprocess_database_url: str) -> dict[str, str]:
    """This process's environment, pointed at the test database, with this venv's scripts
    (python, celery, gunicorn) first on PATH, as the Docker image has them."""
    env = dict(os.environ)
    env["DATABASE_URL"] = subprocess_database_url
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    return env


class Service:
    """A subprocess whose output goes to a log file, stopped with SIGTERM (then SIGKILL)."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log_path: Path) -> None:
        self.name = name
        self.args = args
        self.log_path = log_path
        self._log_file = open(log_path, "wb")  # closed in stop()
        self.process = subprocess.Popen(
            args,
            cwd=REPO_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, so stop() reaches its children
        )

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def describe(self) -> str:
        return f"--- {self.name} ({' '.join(self.args)}) log:\n{self.log()}\n--- end of log"

    def running(self) -> bool:
        return self.process.poll() is None

    def wait_until(self, condition: Callable[[], bool], timeout: float, what: str) -> None:
        """Poll ``condition`` until true; fail with this service's log on timeout or exit."""
        deadline = time.monotonic() + timeout
        while True:
            if condition():
                return
            if not self.running():
                pytest.fail(
                    f"{self.name} exited with status {self.process.returncode} before {what}.\n"
                    f"{self.describe()}",
                    pytrace=False,
                )
            if time.monotonic() > deadline:
                pytest.fail(
                    f"{what} did not happen within {timeout:.0f}s.\n{self.describe()}",
                    pytrace=False,
                )
            time.sleep(0.2)

    def stop(self, timeout: float = 20) -> int:
        """SIGTERM (a clean, warm shutdown for gunicorn and celery); SIGKILL if it hangs."""
        if self.running():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(5)
        if not self._log_file.closed:
            self._log_file.close()
        return self.process.returncode


@pytest.fixture
def start_service(transactional_db, tmp_path: Path) -> Iterator[Callable[..., Service]]:
    """Start a subprocess; every one still running is stopped when the test ends, before
    pytest-django flushes (and later drops) the test database it is connected to."""
    services: list[Service] = []

    def start(name: str, args: list[str], env: dict[str, str]) -> Service:
        service = Service(name, args, env, tmp_path / f"{name}.log")
        services.append(service)
        return service

    yield start
    for service in reversed(services):
        service.stop()
        # Its group may hold children (gunicorn's workers) if the leader died first.
        try:
            os.killpg(service.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.fixture
def unique_queue(redis_url):
    """A Celery queue of this test's own, so that a stray worker on the same Redis cannot take
    its messages; the queue's Redis keys (the list and kombu's bindings) are removed after."""
    queue = f"evalsite-test-{uuid.uuid4().hex}"
    yield queue
    import redis

    with redis.Redis.from_url(redis_url) as client:
        stale = list(client.scan_iter(match=f"*{queue}*"))
        if stale:
            client.delete(*stale)
