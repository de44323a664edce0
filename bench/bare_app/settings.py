"""Settings of the bare comparison app: no middleware, one app, one URL."""

from __future__ import annotations

import os
from pathlib import Path

import dj_database_url

BASE_DIR = Path(__file__).resolve().parent
SECRET_KEY = os.environ.get("BARE_APP_SECRET_KEY", "bench-only-not-secret")
DEBUG = False
ALLOWED_HOSTS = ["*"]
INSTALLED_APPS = ["bare_app"]
MIDDLEWARE: list[str] = []
ROOT_URLCONF = "bare_app.urls"
WSGI_APPLICATION = "bare_app.wsgi.application"
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

_url = os.environ.get("DATABASE_URL")
if _url:
    # The same connection settings as evalsite (persistent connections for 60 s).
    DATABASES = {"default": dj_database_url.parse(_url, conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "bare_app.sqlite3",
            "OPTIONS": {
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
        }
    }
