"""Heavy modules imported on first use, not when a module that names them is imported.

A web worker imports every kind's statistics modules when the URLconf loads, but serves task
pages and submissions, which use none of scipy or sacrebleu (issue 16 item 4: scipy.stats alone
is about 70 MiB per worker). A module writes ``stats = lazy_module("scipy.stats")`` where it
wrote ``from scipy import stats``; the first attribute access (``stats.norm``) imports it.
tests/test_lazy_imports.py checks that loading the web application imports none of them.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for the module ``name``; imports it on the first attribute access."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attribute: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attribute)

    def __repr__(self) -> str:
        state = "imported" if self._module is not None else "not imported yet"
        return f"<lazy module {self._name!r} ({state})>"


def lazy_module(name: str) -> Any:
    """A stand-in for ``import name`` that imports on first use (typed ``Any``, like a module
    attribute access)."""
    return LazyModule(name)
