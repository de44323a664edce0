#!/usr/bin/env bash
# The bare comparison app under the same gunicorn settings as deploy/web.sh (migrate, then
# gthread workers). Extra arguments are passed to gunicorn (e.g. --bind 127.0.0.1:8100).
set -euo pipefail

cd "$(dirname "$0")/.."
export DJANGO_SETTINGS_MODULE=bare_app.settings
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

python -m django migrate --noinput --verbosity 0

exec gunicorn bare_app.wsgi:application \
  --bind "0.0.0.0:${PORT:-8000}" \
  --workers "${WEB_CONCURRENCY:-3}" \
  --worker-class gthread \
  --threads "${WEB_THREADS:-4}" \
  --access-logfile - \
  "$@"
