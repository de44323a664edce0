#!/usr/bin/env bash
# Production Celery worker (docker-compose's `worker` service; tests/integration/
# test_celery_worker.py runs this same script). Run as many as the load needs, on any machine
# that reaches PostgreSQL and Redis. Extra arguments are passed to `celery worker`
# (for example --concurrency=4 or -Q a-queue).
set -euo pipefail

cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-evalsite.settings}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

exec celery -A evalsite worker --loglevel=INFO "$@"
