"""evalsite settings: one module, driven by environment variables.

With no environment at all you get the embedded default: an SQLite file in the project folder,
Celery tasks run inline (eager), DEBUG on and a generated development secret kept in
``.dev-secret-key``. Production sets DATABASE_URL (PostgreSQL), REDIS_URL (Celery broker and
cache), DEBUG=0, SECRET_KEY and ALLOWED_HOSTS; the README lists every variable.
"""

from __future__ import annotations

import re
import secrets
import warnings
from datetime import timedelta
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
    "axes",  # admin login throttling (item 9 hardening block below)
    # Its catalogs name the countries of the worker's background form in the page's language.
    "django_countries",
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
    # After the framing middleware, which adds frame-ancestors to the policy it writes.
    "evalsite.security.ContentSecurityPolicyMiddleware",
    # Last, as django-axes requires: answers a locked-out login with its 429.
    "axes.middleware.AxesMiddleware",
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
    if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
        # No JIT compilation: it pays off only for long analytical scans, which evalsite does
        # in numpy, while a row estimate gone wide (a fresh table's default statistics) once
        # made the worker endpoints' one-row assignment read compile for 2.7 s (issue 16).
        # Prepared statements (only the worker endpoints' hot SQL: EVALSITE_PREPARED_STATEMENTS)
        # use their generic plan from the first execution: by default PostgreSQL plans the
        # first five anew (5-7 ms each for the assignment's read), per connection.
        # (After any `options` the DATABASE_URL gives: those of its query string are kept.)
        database_options = DATABASES["default"].setdefault("OPTIONS", {})
        database_options["options"] = (
            f"{database_options.get('options', '')} -c jit=off "
            "-c plan_cache_mode=force_generic_plan"
        ).strip()
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

# The worker endpoints' hot SQL runs as prepared statements on PostgreSQL, planned once per
# connection (evalsite/prepared_statements.py: planning was most of the database's time per
# submission). Set PREPARED_STATEMENTS=0 behind a pooler in transaction mode (PgBouncer's
# pool_mode = transaction), where the next request may get a connection that never prepared it.
EVALSITE_PREPARED_STATEMENTS = env_bool("PREPARED_STATEMENTS", default=True)

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
    # Issue 11 item 10: every ANALYTICS_SWEEP_SECONDS (15), so that a recompute lost with a
    # killed worker is repaired within 30 s (analytics.actions); one query when nothing is stale.
    "recompute-stale-campaign-results": {
        "task": "analytics.tasks.recompute_stale_campaigns",
        "schedule": float(env_int("ANALYTICS_SWEEP_SECONDS", 15, minimum=1)),
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
            # Django's Redis cache keeping one client per pool (evalsite/redis_cache.py).
            "BACKEND": "evalsite.redis_cache.RedisCache",
            "LOCATION": REDIS_URL,
            "KEY_PREFIX": "evalsite",
            # Issue 11 item 10: a Redis that is down fails fast (evalsite.cachesafe then goes on
            # without the cache) instead of holding the request.
            "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0},
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
        # DRF's token authentication with failed attempts throttled per address (guessing).
        "analytics.api.throttling.ThrottledTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "analytics.api.pagination.PageNumberPagination",
    # Rates: API_THROTTLE_RATES below (analytics.api.throttling reads them per request).
    "DEFAULT_THROTTLE_CLASSES": [
        "analytics.api.throttling.ApiAnonRateThrottle",
        "analytics.api.throttling.ApiUserRateThrottle",
    ],
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
        "published judgment files. Authenticate with `Authorization: Token <key>` (the "
        "description is Markdown: in a code span the <key> is shown, not taken for a tag)."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # Ranking's scoring methods appear as ?method=, rank_by and a score's method: one enum.
    "ENUM_NAME_OVERRIDES": {"RankingMethodEnum": "campaigns.kinds.ranking.models.RankingMethod"},
    # The schema and its documentation page need a token or an admin session, like the API.
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
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

# --- Hardening (issue 11, item 9): HTTPS, CSP, login and API throttling ------------------------
# With HTTPS on, plain-HTTP requests are redirected to HTTPS (except /healthz, which load
# balancers and the container's health check ask over HTTP) and browsers are told to use HTTPS
# only (HSTS) for HSTS_SECONDS (default one year; set 0 while trying HTTPS out).
SECURE_SSL_REDIRECT = HTTPS
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 365 * 24 * 60 * 60, minimum=0) if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", default=True)
# Joining the browsers' HSTS preload list is the domain owner's decision, not this site's: off
# unless HSTS_PRELOAD=1, and `check --deploy` is not asked to warn about it (security.W021).
SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
# How many reverse proxies that append to X-Forwarded-For stand in front of the site (the TLS
# proxy: 1). 0 (the default): the client's address is REMOTE_ADDR and X-Forwarded-For, which
# anyone can write, is ignored. Used by login throttling and the API's anonymous rate.
TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)

# Content-Security-Policy of every page (evalsite.security.ContentSecurityPolicyMiddleware):
# scripts only from this site's files, no inline script or handler anywhere. frame-ancestors is
# added by judgments.entry.framing (MTurk's hosts on task pages, 'none' elsewhere), and task
# pages' form-action also lists MTURK_SUBMIT_HOSTS. Styles allow 'unsafe-inline' because
# Django's admin and the API documentation page have <style> blocks (styles run no code).
CONTENT_SECURITY_POLICY = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'", "'unsafe-inline'"],
    "img-src": ["'self'", "data:"],
    "font-src": ["'self'"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
}

# Admin login throttling (django-axes): after ADMIN_LOGIN_FAILURE_LIMIT failed logins for one
# user name from one address, that pair is refused (429) for ADMIN_LOGIN_COOLOFF_MINUTES, even
# with the right password; other users and other addresses are unaffected. Failures are kept
# in the database (axes' own tables); `manage.py axes_reset` lifts every lockout at once.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ADMIN_LOGIN_COOLOFF_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "evalsite.security.client_ip"
AXES_COOLOFF_MESSAGE = "Too many failed logins for this user. Wait a few minutes and try again."

# API request rates per authenticated user (token or session) and per anonymous address
# (analytics.api.throttling; over the rate: 429 with Retry-After). "<count>/<second|minute|
# hour|day>". The user rate is generous: scripts page through results and exports.
_RATE = re.compile(r"^[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)$")


def _throttle_rate(name: str, default: str) -> str:
    rate = env_str(name, default)
    if not _RATE.match(rate):
        raise ImproperlyConfigured(
            f"{name}={rate!r} is not a request rate. Write it as <count>/<period>, for example "
            "1200/minute (periods: second, minute, hour, day)."
        )
    return rate


API_THROTTLE_RATES = {
    "user": _throttle_rate("API_THROTTLE_USER", "1200/minute"),
    "anon": _throttle_rate("API_THROTTLE_ANON", "60/minute"),
}
# The anonymous rate counts per address: the same proxies as above are trusted, and no more.
REST_FRAMEWORK["NUM_PROXIES"] = TRUSTED_PROXY_COUNT
# --- end of issue 11 item 9 ------------------------------------------------------------------

# --- evalsite -------------------------------------------------------------------------------
# Live statistics: a burst of submissions is gathered for this many seconds into one
# recompute of its campaign (analytics.actions.schedule_recompute).
ANALYTICS_RECOMPUTE_COUNTDOWN = env_int("ANALYTICS_RECOMPUTE_COUNTDOWN", 5, minimum=0)
# The Celery queue of the recompute task; empty: Celery's default queue.
ANALYTICS_RECOMPUTE_QUEUE = env_str("ANALYTICS_RECOMPUTE_QUEUE")
# Issue 16 item 3 (analytics.incremental): a Celery worker process keeps the arrays of the
# campaigns it recomputed, up to this many MiB, and later recomputes read only the judgments
# added since. Off: every recompute reads the whole campaign. On by default with a broker
# only: without one, tasks run inline in the web process (and SQLite may reuse deleted ids).
ANALYTICS_INCREMENTAL = env_bool("ANALYTICS_INCREMENTAL", default=bool(REDIS_URL))
ANALYTICS_CACHE_MIB = env_int("ANALYTICS_CACHE_MIB", 128, minimum=0)
# Inter-annotator agreement (half of a DA recompute's statistics at a million judgments) is
# computed at most this often; the runs in between carry it over and say from when.
ANALYTICS_AGREEMENT_SECONDS = env_int("ANALYTICS_AGREEMENT_SECONDS", 60, minimum=0)
# The coalescing window of a campaign recomputed incrementally (its runs cost what is new):
# seconds, instead of ANALYTICS_RECOMPUTE_COUNTDOWN (analytics.actions.recompute_countdown).
ANALYTICS_INCREMENTAL_COUNTDOWN = env_int("ANALYTICS_INCREMENTAL_COUNTDOWN", 0, minimum=0)
# ...and two of its runs start at least this many milliseconds apart: with no window, a steady
# stream of submissions started a run as soon as the last one began, each paying a task's fixed
# costs for a handful of judgments (a 9,000-judgment campaign at 130 judgments/s: 3.6 ms of the
# worker's CPU and 2 ms of the web process's per judgment, on the machine the submissions share).
# 700: a million-judgment campaign taking 200 judgments a second on two cores (bench/freshness.py)
# had results 1.83 and 2.23 s old at the 95th percentile, against 2.65 at 1,000 ms and 2.48 at
# 500 (more runs, each costing what is fixed: the worker's CPU 0.41 s/s against 0.34 at 1,000).
ANALYTICS_INCREMENTAL_SPACING_MS = env_int("ANALYTICS_INCREMENTAL_SPACING_MS", 700, minimum=0)
# An incremental recompute's significance (pairwise tests, clusters, rank ranges) is computed
# at most this often while the systems' order stays; the runs in between carry it over.
ANALYTICS_SIGNIFICANCE_SECONDS = env_int("ANALYTICS_SIGNIFICANCE_SECONDS", 10, minimum=0)
# One worker process recomputes a busy campaign run after run for at most this long, then
# gives its turn back (analytics.incremental.turns): the longest other tasks wait when every
# worker process holds a busy campaign.
ANALYTICS_TURN_HOLD_SECONDS = env_int("ANALYTICS_TURN_HOLD_SECONDS", 60, minimum=0)
# An assignment nobody has touched for this long is expired and its HIT returns to the pool.
ASSIGNMENT_TIMEOUT_SECONDS = env_int("ASSIGNMENT_TIMEOUT_SECONDS", 2 * 60 * 60, minimum=60)

# --- Issue 11 items 3 and 10: hoarded tasks, faults ------------------------------------------
# Starts per client address (X-Forwarded-For only behind TRUSTED_PROXY_COUNT proxies): new
# workers at /work/<id>/start and Prolific visits that are handed a task, "<count>/<period>"
# with the period in s, m or h. Over it: 429 with a page saying when to try again
# (judgments.entry.throttle). Empty: no limit.
START_RATE = env_str("START_RATE", "10/10m")
# A task handed out but never opened is released after this many seconds (its deadline is
# extended to the campaign's working time when the worker first opens it).
ASSIGNMENT_FIRST_TOUCH_SECONDS = env_int("ASSIGNMENT_FIRST_TOUCH_SECONDS", 10 * 60, minimum=60)
# Issue 17: an opened task with no answer yet is released after this many seconds of no
# activity, instead of holding its HIT for the campaign's whole working time (2 hours by
# default) after one abandoned start. 30 minutes: reading the instructions and answering the
# first unit takes minutes on every page but reading comprehension's authoring (whose first
# answer is a whole article's questions, so it keeps the working time:
# TaskPage.long_first_answer); 30 minutes is several times the
# slowest of those first answers (a post-edit or translation page, about 1-2 minutes a
# sentence) yet a quarter of the default hold. Any answer gives the task its full time back.
ASSIGNMENT_UNANSWERED_HOLD_SECONDS = env_int(
    "ASSIGNMENT_UNANSWERED_HOLD_SECONDS", 30 * 60, minimum=60
)
# The worker's entry page keeps its campaign-wide facts (pay, task length, open places) this
# many seconds (judgments.entry.overview; 0: computed on every visit).
ENTRY_PAGE_FACTS_SECONDS = env_int("ENTRY_PAGE_FACTS_SECONDS", 10, minimum=0)
# A pending recompute whose flag is older than the countdown plus this is presumed lost and
# enqueued again by the sweep (analytics.actions.repair_lost_recompute).
ANALYTICS_RECOMPUTE_GRACE = env_int("ANALYTICS_RECOMPUTE_GRACE", 10, minimum=1)
# /healthz waits this many milliseconds for a Celery worker to answer its ping.
HEALTHZ_CELERY_TIMEOUT_MS = env_int("HEALTHZ_CELERY_TIMEOUT_MS", 1000, minimum=50)
# --- end of issue 11 items 3 and 10 ----------------------------------------------------------

# --- Issue 11 item 6: big imports run as Celery jobs (campaigns.import_jobs) ----------------
# Uploads (all files of one import) bigger than this are checked and written by a Celery worker
# while a job page shows the progress; smaller ones are imported inside the request.
IMPORT_INLINE_MAX_BYTES = env_int("IMPORT_INLINE_MAX_BYTES", 4 * 1024 * 1024, minimum=0)
# Where a job's uploads wait for the worker (deleted when the job ends). Never served: it is
# not under STATIC_ROOT and the site serves no media. Web and worker processes must share it.
IMPORT_UPLOAD_ROOT = Path(env_str("IMPORT_UPLOAD_ROOT") or BASE_DIR / "import-uploads")
# A running job writes its progress (and a heartbeat) at most this often...
IMPORT_JOB_PROGRESS_SECONDS = env_int("IMPORT_JOB_PROGRESS_SECONDS", 1, minimum=0)
# ...and one with no heartbeat for this long lost its worker: it is marked failed when seen.
IMPORT_JOB_STALE_SECONDS = env_int("IMPORT_JOB_STALE_SECONDS", 120, minimum=10)
# The Celery queue of import jobs; empty: Celery's default queue.
IMPORT_JOB_QUEUE = env_str("IMPORT_JOB_QUEUE")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO").upper()},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
