"""The Celery application. Tasks live in each app's ``tasks.py`` and are autodiscovered.

Without REDIS_URL the settings make every task run eagerly (inline), so the embedded default
needs no broker; with REDIS_URL, ``celery -A evalsite worker`` and ``celery -A evalsite beat``
run them.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "evalsite.settings")

app = Celery("evalsite")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
