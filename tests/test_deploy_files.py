"""The deployment files agree with each other: docker-compose.yml runs the same deploy/*.sh
scripts that tests/integration run for real (Docker itself is not available to the tests).

PyYAML comes with drf-spectacular, a runtime dependency.
"""

import os
import re
from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = {"web": "deploy/web.sh", "worker": "deploy/worker.sh", "beat": "deploy/beat.sh"}


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((REPO_ROOT / "docker-compose.yml").read_text())


def test_compose_defines_the_production_services(compose):
    assert set(compose["services"]) == {"postgres", "redis", "web", "worker", "beat"}
    assert compose["services"]["postgres"]["image"] == "postgres:16"
    assert compose["services"]["redis"]["image"] == "redis:7"
    assert "healthcheck" in compose["services"]["postgres"]
    assert "healthcheck" in compose["services"]["redis"]
    assert "postgres-data:/var/lib/postgresql/data" in compose["services"]["postgres"]["volumes"]


@pytest.mark.parametrize("service", sorted(SCRIPTS))
def test_app_services_run_the_deploy_scripts_after_healthy_backends(compose, service):
    config = compose["services"][service]
    assert config["command"] == [SCRIPTS[service]]
    assert config["build"] == "."
    assert config["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    env = config["environment"]
    assert env["DEBUG"] == "0"
    assert env["DATABASE_URL"].startswith("postgres://evalsite:")
    assert env["DATABASE_URL"].endswith("@postgres:5432/evalsite")
    assert env["REDIS_URL"] == "redis://redis:6379/0"
    # No default secret: compose refuses to start without one.
    assert env["SECRET_KEY"].startswith("${SECRET_KEY:?")
    assert {"ALLOWED_HOSTS", "PUBLIC_BASE_URL"} <= set(env)


def test_only_web_publishes_a_port(compose):
    published = {name for name, config in compose["services"].items() if "ports" in config}
    assert published == {"web"}
    assert compose["services"]["web"]["ports"] == ["${WEB_PORT:-8000}:8000"]


@pytest.mark.parametrize("script", sorted(SCRIPTS.values()) + [".ci/run"])
def test_scripts_are_executable_strict_bash(script):
    path = REPO_ROOT / script
    assert os.access(path, os.X_OK), f"{script} is not executable (git update-index --chmod=+x)"
    text = path.read_text()
    assert text.startswith("#!/usr/bin/env bash\n")
    assert "\nset -euo pipefail\n" in text


def test_deploy_scripts_exec_the_production_processes():
    web = (REPO_ROOT / SCRIPTS["web"]).read_text()
    assert web.index("manage.py migrate --noinput") < web.index("manage.py collectstatic --noinput")
    assert "exec gunicorn evalsite.wsgi:application" in web
    # Streamed exports outlive gunicorn's 30 s timeout: threaded workers keep heartbeating.
    assert "--worker-class gthread" in web
    assert '--bind "0.0.0.0:${PORT:-8000}"' in web
    assert "exec celery -A evalsite worker" in (REPO_ROOT / SCRIPTS["worker"]).read_text()
    assert "exec celery -A evalsite beat" in (REPO_ROOT / SCRIPTS["beat"]).read_text()


def test_dockerfile_builds_a_non_root_python_311_image():
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.11-slim$", dockerfile, re.MULTILINE)
    assert re.search(r"^RUN pip install \.$", dockerfile, re.MULTILINE)
    users = re.findall(r"^USER (\S+)$", dockerfile, re.MULTILINE)
    assert users and users[-1] not in {"root", "0"}
    assert re.search(r'^CMD \["deploy/web\.sh"\]$', dockerfile, re.MULTILINE)


def test_dockerignore_keeps_local_state_out_of_the_image():
    ignored = set((REPO_ROOT / ".dockerignore").read_text().split())
    assert {".git", ".venv", "db.sqlite3", ".dev-secret-key", ".env", "staticfiles"} <= ignored


def test_ci_and_the_image_install_every_font_of_the_source_images():
    # Crowd translation's source images need each script's font and FriBiDi (raqm's bidi).
    from judgments.kinds.translation.source_image import FONTS

    packages = {font.package for font in FONTS.values()} | {"libfribidi0"}
    dockerfile = (REPO_ROOT / "Dockerfile").read_text()
    ci = (REPO_ROOT / ".ci" / "run").read_text()
    for package in sorted(packages):
        assert re.search(rf"\b{re.escape(package)}\b", dockerfile), package
        assert re.search(rf"\b{re.escape(package)}\b", ci), package
