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

exec gunicorn evalsite.wsgi:application \
  --bind "0.0.0.0:${PORT:-8000}" \
  --workers "${WEB_CONCURRENCY:-3}" \
  --access-logfile - \
  "$@"
