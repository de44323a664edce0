"""The project package.

evalsite's Celery app (:mod:`evalsite.celery`) is not created when Django starts: a web worker
serving the task pages never touches Celery, and importing it (celery, kombu, billiard, click,
yaml, greenlet: some 12 MiB per process) made a gunicorn worker miss its memory budget (issue
16 item 4). Instead, the app is created the moment anything imports ``celery``:

- the worker and beat (``celery -A evalsite``) import ``evalsite.celery`` themselves;
- a ``tasks`` module (``from celery import shared_task``) or code that sends a task by name
  (:func:`evalsite.celery.task_named`) imports ``celery`` first: the hook below then creates
  the app before the import statement returns, so ``@shared_task`` proxies, ``.delay()`` and
  ``current_app`` resolve to evalsite's configured app (settings' ``CELERY_*``: the broker,
  eager mode without REDIS_URL) and never to Celery's unconfigured default app.

``evalsite.celery_app`` still names the app (created on first access).
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from typing import Any

__all__ = ("celery_app",)


class _CreateAppAfterCelery(importlib.abc.Loader):
    """Loads ``celery`` with its own loader, then imports :mod:`evalsite.celery` (which creates
    the app and makes it the current one) before the first ``import celery`` returns."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self.loader.exec_module(module)
        import evalsite.celery  # noqa: F401  (celery is in sys.modules by now)


def spec_from_other_finders(
    skip: importlib.abc.MetaPathFinder, name: str, path: Any = None, target: Any = None
) -> importlib.machinery.ModuleSpec | None:
    """The spec the import system would find for ``name`` without the finder ``skip`` (an
    import hook that wraps the module's own loader: this one's, evalsite.deferred_imports')."""
    for finder in sys.meta_path:
        if finder is skip or not hasattr(finder, "find_spec"):
            continue
        spec = finder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            return spec
    return None


class _CeleryImportHook(importlib.abc.MetaPathFinder):
    """Finds ``celery`` like the finders after it and wraps its loader (once)."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "celery":
            return None
        spec = spec_from_other_finders(self, name, path, target)
        if spec is not None:
            spec.loader = _CreateAppAfterCelery(spec.loader)
        return spec


if "celery" in sys.modules:  # imported before evalsite: create the app now
    import evalsite.celery  # noqa: F401
elif not any(isinstance(finder, _CeleryImportHook) for finder in sys.meta_path):
    sys.meta_path.insert(0, _CeleryImportHook())


def __getattr__(name: str) -> Any:
    if name == "celery_app":
        from evalsite.celery import app

        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
