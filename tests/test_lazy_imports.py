"""A web worker imports no statistics, AWS or Celery library it does not use (issue 16 item 4).

scipy (about 70 MiB per process with scipy.stats), choix (which imports scipy), sacrebleu,
numba, matplotlib and boto3 are imported by the code that computes results, scores text or
calls MTurk, on first use (``analytics.stats._lazy.lazy_module`` or an import inside the
function), never by loading the WSGI application or its URLconf. Celery (celery, kombu and
what they import: some 12 MiB) and redis-py (7 MiB) are not imported at start either: the
Celery app is created on the first ``import celery`` (:mod:`evalsite`), which a web worker
makes when it first enqueues a task; redis-py is imported by Django's Redis cache on its first
use. numpy (about 10 MiB) is imported by some 70 modules the URLconf loads, but a web process
runs its code only on first use (evalsite/wsgi.py defers it: :mod:`evalsite.deferred_imports`),
so "imported" below means "its code has run". The checks run in a fresh interpreter, as a
gunicorn worker starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What only computing, MTurk or plotting needs: never on a worker's task pages, not even when a
# submission enqueues its campaign's recompute.
NOT_FOR_A_SUBMISSION = (
    "scipy",
    "choix",
    "sacrebleu",
    "boto3",
    "botocore.client",
    "numba",
    "matplotlib",
    "redis",
    "numpy",
    "asyncpg",  # the statistics' loads only (analytics.copies)
)
# Celery is imported by the first task a process sends, never at start.
NOT_ON_THE_WEB_PATH = (*NOT_FOR_A_SUBMISSION, "celery", "kombu", "billiard")

PROBE = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
from evalsite.wsgi import application
from django.urls import get_resolver
get_resolver().url_patterns  # every view module, as after the first request
from evalsite.deferred_imports import is_deferred
print(json.dumps(sorted(m for m in {names!r} if m in sys.modules and not is_deferred(m))))
"""


def _run_probe(code: str, *, timeout: int = 120, **extra_env: str):
    """Run ``code`` in a fresh interpreter (as a gunicorn or Celery worker starts), without the
    test run's database and broker unless given, and return the JSON its last line prints."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    env.update(extra_env)
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _imported_by_the_web_app(names: tuple[str, ...]) -> list[str]:
    return _run_probe(PROBE.format(names=names))


def test_web_app_imports_no_statistics_aws_or_celery_library():
    assert _imported_by_the_web_app(NOT_ON_THE_WEB_PATH) == []


# A worker's pages served in a fresh interpreter: an in-memory SQLite database whose tables are
# made from the models (no migrations: seconds instead of a minute), Celery not eager with an
# in-memory broker, as production sends the recompute to Redis.
SERVE = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
from evalsite.wsgi import application
from django.apps import apps
from django.conf import settings
from django.core.management import call_command
from django.urls import get_resolver, reverse
get_resolver().url_patterns
from evalsite.deferred_imports import is_deferred
WATCH = {names!r}
def loaded():
    return sorted(m for m in WATCH if m in sys.modules and not is_deferred(m))
seen = {{"started": loaded()}}
settings.MIGRATION_MODULES = {{config.label: None for config in apps.get_app_configs()}}
call_command("migrate", run_syncdb=True, verbosity=0)
settings.CELERY_TASK_ALWAYS_EAGER = False
from django.test import Client
from judgments import tokens
from tests.factories import AssignmentFactory, CampaignFactory, HitFactory, HitSlotFactory
campaign = CampaignFactory(redundancy=1)
hit = HitFactory(campaign=campaign, number=1)
for position in (1, 2, 3):
    HitSlotFactory(hit=hit, position=position)
assignment = AssignmentFactory(hit=hit)
token = tokens.assignment_token(assignment.pk, assignment.worker_id)
client = Client(HTTP_X_FORWARDED_PROTO="https")
statuses = [
    client.get(reverse("judgments:campaign-entry", args=[campaign.pk])).status_code,
    client.get(reverse("judgments:task", args=[token])).status_code,
    client.get(reverse("judgments:task-item", args=[token])).status_code,
]
seen["served"] = loaded()
statuses.append(client.post(
    reverse("judgments:task-submit", args=[token]),
    data=json.dumps({{"position": 1, "score": 70}}),
    content_type="application/json",
).status_code)
seen["submitted"] = loaded()
from evalsite.celery import app
from kombu.transport.memory import Channel
sent = [Channel.queues[name].get_nowait() for name in sorted(Channel.queues)]
print(json.dumps({{
    "statuses": statuses,
    "broker": app.conf.broker_url,
    "sent": [(message["headers"]["task"], message["headers"]["argsrepr"]) for message in sent],
    "campaign": campaign.pk,
    **seen,
}}))
"""


def _serve_worker_pages(names: tuple[str, ...]) -> dict:
    return _run_probe(SERVE.format(names=names), timeout=300, DATABASE_URL="sqlite://:memory:")


def test_a_worker_pages_and_submission_import_no_statistics_aws_or_plotting_library():
    seen = _serve_worker_pages(tuple(sorted({*NOT_ON_THE_WEB_PATH, "analytics.tasks"})))
    # The entry page, the task page, an item and a submission, all answered.
    assert seen["statuses"] == [200, 200, 200, 200]
    # Started and serving pages: nothing of the list, and no task module.
    assert seen["started"] == []
    assert seen["served"] == []
    # The submission enqueued its campaign's recompute (evalsite.celery.task_named): that,
    # and only that, imported Celery and the analytics tasks, which the message names.
    assert seen["broker"] == "memory://"
    assert seen["sent"] == [["analytics.tasks.recompute_campaign_results", f"[{seen['campaign']}]"]]
    assert [m for m in seen["submitted"] if m in NOT_FOR_A_SUBMISSION] == []
    assert {"celery", "kombu", "analytics.tasks"} <= set(seen["submitted"])


def test_importing_celery_first_creates_evalsites_app():
    # A tasks module imports celery before anything else did: the import hook in evalsite
    # creates evalsite's configured app, so shared tasks and current_app resolve to it (and
    # not to Celery's unconfigured default app with its amqp:// broker).
    probe = (
        "import json, os\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'evalsite.settings'\n"
        "import django; django.setup()\n"
        "import sys; before = 'celery' in sys.modules\n"
        "from campaigns.tasks.review import sync_mturk_campaign\n"
        "from celery import current_app\n"
        "import evalsite\n"
        "print(json.dumps([before, current_app.main, current_app.conf.broker_url,\n"
        "    sync_mturk_campaign.app is evalsite.celery_app,\n"
        "    'campaigns.tasks.sync_mturk_campaign' in current_app.tasks]))\n"
    )
    assert _run_probe(probe) == [
        False,
        "evalsite",
        "memory://",
        True,
        True,
    ]


def test_the_worker_finds_every_task():
    # What a Celery worker registers when it starts (its import_modules signal runs the
    # autodiscovery of evalsite.celery): every task, the kinds' own included.
    probe = (
        "import json, os\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'evalsite.settings'\n"
        "import django; django.setup()\n"
        "from evalsite.celery import app\n"
        "app.loader.import_default_modules()\n"
        "print(json.dumps(sorted(n for n in app.tasks if not n.startswith('celery.'))))\n"
    )
    assert _run_probe(probe) == [
        "analytics.kinds.post_editing.tasks.score_edit_chunk",
        "analytics.tasks.recompute_campaign_results",
        "analytics.tasks.recompute_stale_campaigns",
        "campaigns.tasks.advance_reading_comprehension",
        "campaigns.tasks.publishing.grant_mturk_qualification",
        "campaigns.tasks.publishing.publish_to_mturk",
        "campaigns.tasks.run_import_job",
        "campaigns.tasks.sync_mturk_campaign",
        "campaigns.tasks.sync_mturk_campaigns",
        "judgments.tasks.expire_abandoned_assignments",
    ]


def test_a_worker_does_not_run_djangos_checks_at_its_start():
    # The checks imported the URLconf (every view, Pillow for translation's source images)
    # into every worker process; the site's deploy runs them (migrate).
    probe = (
        "import json, os, sys\n"
        "os.environ.pop('CELERY_SKIP_CHECKS', None)\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'evalsite.settings'\n"
        "import django; django.setup()\n"
        "from evalsite.celery import app\n"
        "app.loader.import_default_modules()\n"
        "print(json.dumps([os.environ['CELERY_SKIP_CHECKS'], 'PIL' in sys.modules,"
        " 'evalsite.urls' in sys.modules]))\n"
    )
    assert _run_probe(probe) == ["1", False, False]


def test_a_worker_imports_no_api_library_at_its_start():
    # The kinds' analysts' API (DRF serializers, drf-spectacular, and through DRF's compat
    # requests and pygments: 14 MiB a worker process) is imported on the first API call: a
    # Celery worker that recomputes never makes one. Its first API use still works. (yaml is
    # not watched: kombu imports it itself.)
    probe = (
        "import json, os, sys\n"
        "os.environ['DJANGO_SETTINGS_MODULE'] = 'evalsite.settings'\n"
        "import django; django.setup()\n"
        "from evalsite.celery import app\n"
        "app.loader.import_default_modules()\n"
        "watch = ('rest_framework.serializers', 'drf_spectacular.utils', 'requests',"
        " 'pygments')\n"
        "started = sorted(m for m in watch if m in sys.modules)\n"
        "from analytics.kinds import registry\n"
        "from campaigns.models import TaskKind\n"
        "fields = registry[TaskKind.DIRECT_ASSESSMENT].system_fields()\n"
        "print(json.dumps([started, 'rest_framework.serializers' in sys.modules,"
        " sorted(fields)]))\n"
    )
    assert _run_probe(probe) == [[], True, ["direct_assessment"]]


def test_the_probe_sees_what_is_imported():
    # The same probe does report modules the web app does import (so the empty list above
    # is not an artefact of the probe).
    assert _imported_by_the_web_app(("django", "numpy", "scipy")) == ["django"]


# The web application started, then eight threads of one worker (gthread) use numpy for the
# first time at once, through the statistics the dashboards call: numpy's code runs once, every
# thread gets the same right answer, and it is the real module (numba compiles against it).
FIRST_USE = """
import json, os, sys, threading
os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
from evalsite.wsgi import application
from django.urls import get_resolver
get_resolver().url_patterns
from evalsite.deferred_imports import is_deferred
import numpy
before = ["numpy" in sys.modules, is_deferred("numpy")]
start = threading.Barrier(8)
answers = []
def use():
    start.wait()
    a = numpy.array([1.0, 2.0, 3.0, 4.0])
    b = numpy.array([5.0, 6.0, 7.0, 8.0])
    answers.append(round(float(numpy.mean(b) - numpy.mean(a)), 6))
threads = [threading.Thread(target=use) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
import types
print(json.dumps({
    "before": before,
    "after": is_deferred("numpy"),
    "answers": answers,
    "real": type(numpy) is types.ModuleType and sys.modules["numpy"] is numpy,
    "version": numpy.__version__ == numpy.version.version,
}))
"""


def test_numpy_runs_on_first_use_once_from_many_threads():
    seen = _run_probe(FIRST_USE)
    assert seen["before"] == [True, True]  # imported by the statistics modules, not run
    assert seen["after"] is False
    assert seen["answers"] == [4.0] * 8
    assert seen["real"] is True
    assert seen["version"] is True


def test_lazy_module_imports_on_first_attribute_access():
    from analytics.stats._lazy import lazy_module

    proxy = lazy_module("json")
    assert "not imported yet" in repr(proxy)
    assert proxy.dumps([1]) == "[1]"
    assert proxy.loads is json.loads
    assert "imported" in repr(proxy) and "not imported" not in repr(proxy)
