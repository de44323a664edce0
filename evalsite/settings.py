"""evalsite settings: one module, driven by environment variables.

With no environment at all you get the embedded default: an SQLite file in the project folder,
Celery tasks run inline (eager), DEBUG on and a generated development secret kept in
``.dev-secret-key``. Production sets DATABASE_URL (PostgreSQL), REDIS_URL (Celery broker and
cache), DEBUG=0, SECRET_KEY and ALLOWED_HOSTS; the README lists every variable.
"""

from __future__ import annotations

import secrets
import warnings
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from evalsite.env import env_bool, env_int, env_list, env_str, env_url

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", default=True)


def _secret_key() -> str:
    configured = env_str("SECRET_KEY")
    if configured:
        return configured
    if not DEBUG:
        raise ImproperlyConfigured(
            "SECRET_KEY is not set. With DEBUG off, set SECRET_KEY to a long random string "
            "(for example: python -c 'import secrets; print(secrets.token_urlsafe(50))')."
        )
    # Development only: a secret generated once and kept beside the code (git-ignored), so
    # sessions and signed worker links survive a restart of the dev server.
    key_file = BASE_DIR / ".dev-secret-key"
    if not key_file.exists():
        key_file.write_text(secrets.token_urlsafe(50))
    return key_file.read_text().strip()


SECRET_KEY = _secret_key()

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS")
if not ALLOWED_HOSTS:
    if not DEBUG:
        raise ImproperlyConfigured(
            "ALLOWED_HOSTS is not set. With DEBUG off, set ALLOWED_HOSTS to the comma-separated "
            "host names this site is served under (for example: evalsite.example.org)."
        )
    ALLOWED_HOSTS = ["localhost", "127.0.0.1", "[::1]", "testserver"]
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")

# The public address workers reach (used in MTurk ExternalQuestion URLs and direct links).
PUBLIC_BASE_URL = env_url("PUBLIC_BASE_URL", schemes=("http", "https")) or "http://127.0.0.1:8000"

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "campaigns",
    "judgments",
    "analytics",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "judgments.entry.framing.FrameAncestorsMiddleware",
]

ROOT_URLCONF = "evalsite.urls"
WSGI_APPLICATION = "evalsite.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = env_url("DATABASE_URL", schemes=("postgres", "postgresql", "sqlite"))
if DATABASE_URL:
    DATABASES = {"default": dj_database_url.parse(DATABASE_URL, conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": BASE_DIR / "db.sqlite3",
            "OPTIONS": {
                # The dev server, the demo loader and eager tasks write concurrently: WAL lets
                # readers proceed during a write, IMMEDIATE takes the write lock up front so a
                # transaction never fails half-way with "database is locked".
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Celery and cache -----------------------------------------------------------------------
REDIS_URL = env_url("REDIS_URL", schemes=("redis", "rediss"))
CELERY_BROKER_URL = REDIS_URL or "memory://"
# Without a broker every task runs inline, in the request that queued it.
CELERY_TASK_ALWAYS_EAGER = not REDIS_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True  # a worker killed mid-task leaves the message for another worker
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# Periodic sweeps (celery beat). Later features add their entries here; every entry must be
# idempotent, since beat may fire while the previous run is still going.
CELERY_BEAT_SCHEDULE = {
    "expire-abandoned-assignments": {
        "task": "judgments.tasks.expire_abandoned_assignments",
        "schedule": 60.0,
    },
    # Repairs what a lost recompute message missed (results reflect fewer judgments than exist,
    # are older than the newest judgment, or predate an exclusion or rejection).
    "recompute-stale-campaign-results": {
        "task": "analytics.tasks.recompute_stale_campaigns",
        "schedule": 300.0,
    },
    # Reconciles our assignments with MTurk's (submitted, approved, rejected) for every
    # campaign with published HITs; see campaigns.platforms.review.
    "sync-mturk-assignments": {
        "task": "campaigns.tasks.sync_mturk_campaigns",
        "schedule": 300.0,
    },
}

if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "evalsite",
        }
    }
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

# --- Auth, i18n, static ---------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
# The worker pages' translations (locale/README.md): gettext catalogs compiled by `make run`,
# `make test` and the Docker build. A page is shown in a campaign's instructions language when
# a catalog here offers it (judgments/i18n.py); translation.override works for any language
# with a catalog, so LANGUAGES (the admin's languages) is left at Django's default.
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT") or BASE_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
if DEBUG:
    # In development static files come from the apps (WhiteNoise finders); STATIC_ROOT only
    # exists after collectstatic, and WhiteNoise's warning about it would only be noise.
    WHITENOISE_USE_FINDERS = True
    warnings.filterwarnings("ignore", message="No directory at: ", category=UserWarning)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- REST API (analytics.api) ----------------------------------------------------------------
# Scripts authenticate with a token ("Authorization: Token <key>", created in the admin or with
# `manage.py api_token`); a requester logged in to the admin may also browse the API and its
# documentation with their session. Nobody anonymous sees anything.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "analytics.api.pagination.PageNumberPagination",
    "PAGE_SIZE": 100,
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "evalsite API",
    "DESCRIPTION": (
        "Read a campaign's results (systems and their scores, significance, workers and their "
        "reliability or trust, HITs, assignments, judgments), stream exports, and import "
        "published judgment files. Authenticate with 'Authorization: Token <key>'."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # The documentation page's JavaScript and CSS come from drf-spectacular-sidecar's static
    # files: nothing is fetched from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
}

# Admin uploads of segment files are read in memory up to this size, then spooled to disk.
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024

# --- Security -------------------------------------------------------------------------------
# Every page refuses to be framed (X-Frame-Options DENY and CSP frame-ancestors 'none'), except
# the worker's task pages, which MTurk shows in an iframe: those list MTURK_FRAME_ANCESTORS in
# their CSP frame-ancestors (judgments.entry.framing).
X_FRAME_OPTIONS = "DENY"
MTURK_FRAME_ANCESTORS = env_list("MTURK_FRAME_ANCESTORS") or [
    "https://worker.mturk.com",
    "https://workersandbox.mturk.com",
    "https://www.mturk.com",
]
# Where a finished MTurk task may post (turkSubmitTo + /mturk/externalSubmit): MTurk's two
# submission hosts; any other turkSubmitTo is refused, so a forged link cannot make the page
# post a worker's assignment id elsewhere.
MTURK_SUBMIT_HOSTS = env_list("MTURK_SUBMIT_HOSTS") or [
    "https://www.mturk.com",
    "https://workersandbox.mturk.com",
]
# Prolific sends a finished participant here with the study's completion code.
PROLIFIC_COMPLETION_URL = (
    env_url("PROLIFIC_COMPLETION_URL", schemes=("https",))
    or "https://app.prolific.com/submissions/complete"
)
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
HTTPS = env_bool("HTTPS", default=not DEBUG)
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
if HTTPS:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- evalsite -------------------------------------------------------------------------------
# Live statistics: a burst of submissions is gathered for this many seconds into one
# recompute of its campaign (analytics.actions.schedule_recompute).
ANALYTICS_RECOMPUTE_COUNTDOWN = env_int("ANALYTICS_RECOMPUTE_COUNTDOWN", 5, minimum=0)
# The Celery queue of the recompute task; empty: Celery's default queue.
ANALYTICS_RECOMPUTE_QUEUE = env_str("ANALYTICS_RECOMPUTE_QUEUE")
# An assignment nobody has touched for this long is expired and its HIT returns to the pool.
ASSIGNMENT_TIMEOUT_SECONDS = env_int("ASSIGNMENT_TIMEOUT_SECONDS", 2 * 60 * 60, minimum=60)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO").upper()},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
