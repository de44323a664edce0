"""The README's two commands as the Makefile runs them (make -n: printed, not run)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def dry_run(*args: str, **env: str) -> list[str]:
    environment = {k: v for k, v in os.environ.items() if k != "PUBLIC_BASE_URL"}
    environment.update(env)
    printed = subprocess.run(
        ["make", "-n", *args],
        cwd=REPO_ROOT,
        env=environment,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [line for line in printed.splitlines() if "manage.py" in line]


def test_make_run_on_another_port_links_to_that_port():
    # Issue 17: `make run PORT=8101` gave worker links and Prolific URLs on :8000.
    assert dry_run("run", "PORT=8101") == [
        ".venv/bin/python manage.py demo --base-url http://127.0.0.1:8101",
        "PUBLIC_BASE_URL=http://127.0.0.1:8101 .venv/bin/python manage.py runserver 127.0.0.1:8101",
    ]


def test_public_base_url_from_the_environment_wins():
    assert dry_run("run", "PORT=8101", PUBLIC_BASE_URL="https://eval.example.org") == [
        ".venv/bin/python manage.py demo --base-url https://eval.example.org",
        "PUBLIC_BASE_URL=https://eval.example.org .venv/bin/python manage.py runserver "
        "127.0.0.1:8101",
    ]
