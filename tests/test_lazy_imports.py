"""A web worker imports no statistics or AWS library it does not use (issue 16 item 4).

scipy (about 70 MiB per process with scipy.stats), choix (which imports scipy), sacrebleu and
boto3 are imported by the code that computes results, scores text or calls MTurk, on first use
(``analytics.stats._lazy.lazy_module`` or an import inside the function), never by loading the
WSGI application or its URLconf. numpy stays: the analytics glue and the HIT builders use it at
module level (about 11 MiB). The check runs in a fresh interpreter, as a gunicorn worker starts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOT_ON_THE_WEB_PATH = ("scipy", "choix", "sacrebleu", "boto3", "botocore.client")

PROBE = """
import json, os, sys
os.environ["DJANGO_SETTINGS_MODULE"] = "evalsite.settings"
from evalsite.wsgi import application
from django.urls import get_resolver
get_resolver().url_patterns  # every view module, as after the first request
print(json.dumps(sorted(m for m in {names!r} if m in sys.modules)))
"""


def _imported_by_the_web_app(names: tuple[str, ...]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")}
    done = subprocess.run(
        [sys.executable, "-c", PROBE.format(names=names)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_web_app_imports_no_scipy_choix_sacrebleu_or_boto3():
    assert _imported_by_the_web_app(NOT_ON_THE_WEB_PATH) == []


def test_the_probe_sees_what_is_imported():
    # The same probe does report modules the web app does import (so the empty list above
    # is not an artefact of the probe).
    assert _imported_by_the_web_app(("django", "numpy", "scipy")) == ["django", "numpy"]


def test_lazy_module_imports_on_first_attribute_access():
    from analytics.stats._lazy import lazy_module

    proxy = lazy_module("json")
    assert "not imported yet" in repr(proxy)
    assert proxy.dumps([1]) == "[1]"
    assert proxy.loads is json.loads
    assert "imported" in repr(proxy) and "not imported" not in repr(proxy)
