"""A bare Django project for side-by-side benchmarks (issue 16): one view, one INSERT.

Run it as deploy/web.sh runs evalsite (same gunicorn settings)::

    bench/bare_app/web.sh --bind 127.0.0.1:8100

or import it with ``bench/`` on sys.path: DJANGO_SETTINGS_MODULE=bare_app.settings,
WSGI application ``bare_app.wsgi:application``. DATABASE_URL as evalsite reads it
(PostgreSQL or SQLite; default: a SQLite file next to this package, bare_app.sqlite3).

The only URL, ``POST /insert/`` (any method works), stores one ``Row`` (table
``bare_app_row``: id, value, created_at) in one INSERT and answers ``{"id": <id>}``.
A form or query field ``value`` (an integer, default 0) is stored as given, so a benchmark
can count rows afterwards with plain SQL: no loss, no duplicate.
"""
