"""The Celery application. Tasks live in each app's ``tasks.py`` and are autodiscovered.

Without REDIS_URL the settings make every task run eagerly (inline), so the embedded default
needs no broker; with REDIS_URL, ``celery -A evalsite worker`` and ``celery -A evalsite beat``
run them.

Django's start does not import this module (see :mod:`evalsite`): the worker imports it
through ``-A evalsite`` and imports every app's ``tasks`` module when it starts (the
autodiscovery below); a web process creates the app on its first ``import celery`` and loads
a task's module when it first sends that task (:func:`task_named`).
"""

from __future__ import annotations

import importlib
import importlib.util
import os

from celery import Celery, Task

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")
# Django's system checks run where the site is deployed (deploy/web.sh's migrate runs them).
# Celery's Django fixup ran them again at every worker's start: they import the URLconf with
# every view, Pillow and DRF's schema tools, none of which a task uses, and the worker kept
# them for its life (12.7 MiB of each worker process: 104.0 -> 91.3 MiB after its tasks are
# imported; issue 16, the workers' memory). Set CELERY_SKIP_CHECKS to "" to run them.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("evalsite")
app.config_from_object("django.conf:settings", namespace="CELERY")


def _task_packages() -> list[str]:
    """Where the worker looks for ``tasks`` modules: every installed app and every kind
    package of an app (``analytics.kinds.post_editing.tasks``: a kind's task stays with its
    kind, apart from the modules a web worker loads)."""
    from django.apps import apps

    from evalsite.kinds import TASK_KINDS

    packages = [config.name for config in apps.get_app_configs()]
    for config in apps.get_app_configs():
        if importlib.util.find_spec(f"{config.name}.kinds") is None:
            continue
        for kind in TASK_KINDS:
            spec = importlib.util.find_spec(f"{config.name}.kinds.{kind}")
            if spec is not None and spec.submodule_search_locations is not None:
                packages.append(f"{config.name}.kinds.{kind}")
    return packages


# Lazy (Celery's default): the packages are listed, and their tasks imported, when the worker
# starts (its import_modules signal), after Django is set up.
app.autodiscover_tasks(_task_packages)


def task_named(name: str) -> Task:
    """The task registered under ``name``, importing the module that defines it first.

    Code that enqueues a task by its name (so that the task module may import it, and not
    the other way round) calls this instead of ``current_app.tasks[name]``: in a web process
    no ``tasks`` module is imported at start. A task's name is its module's dotted path and
    the function's name (Celery's default; explicit names in this project follow it, e.g.
    ``analytics.tasks.recompute_campaign_results``, ``campaigns.tasks.run_import_job`` whose
    package imports its submodules).
    """
    if name not in app.tasks:
        importlib.import_module(name.rpartition(".")[0])
    return app.tasks[name]
