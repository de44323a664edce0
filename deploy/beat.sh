#!/usr/bin/env bash
# Celery beat: sends the periodic sweeps of settings.CELERY_BEAT_SCHEDULE to the workers.
# Run exactly ONE beat per deployment, or every sweep is sent twice (harmless, the sweeps are
# idempotent, but wasteful). The schedule file only remembers last run times; losing it is fine.
set -euo pipefail

cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-evalsite.settings}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

exec celery -A evalsite beat --loglevel=INFO \
  --schedule "${CELERY_BEAT_SCHEDULE_FILE:-/tmp/celerybeat-schedule}" "$@"
