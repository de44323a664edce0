#!/usr/bin/env bash
# Production web process (docker-compose's `web` service; tests/integration/test_web_entrypoint.py
# runs this same script): apply migrations, collect static files for whitenoise, serve with
# gunicorn. Settings come from the environment (DATABASE_URL, SECRET_KEY, ALLOWED_HOSTS, ...).
# Extra arguments are passed to gunicorn.
set -euo pipefail

cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE="${DJANGO_SETTINGS_MODULE:-evalsite.settings}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

# A no-op when the schema is current. Django takes no lock here: when scaling `web` to several
# replicas, let one container start first, then scale up.
python manage.py migrate --noinput
python manage.py collectstatic --noinput --verbosity 1

# Threaded workers: a streamed export of a million judgments takes about 30 s, and gunicorn's
# sync workers are killed after --timeout (30 s) mid-download, leaving the client a cut-off
# file with status 200. A gthread worker's heartbeat goes on while one thread streams.
# Database connections: up to WEB_CONCURRENCY x WEB_THREADS.
exec gunicorn evalsite.wsgi:application \
  --bind "0.0.0.0:${PORT:-8000}" \
  --workers "${WEB_CONCURRENCY:-3}" \
  --worker-class gthread \
  --threads "${WEB_THREADS:-4}" \
  --access-logfile - \
  "$@"
