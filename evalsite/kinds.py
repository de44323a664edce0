"""Task kinds as modules: the one registration line, and the registry every app uses.

A task kind (direct assessment, ranking, post-editing, ...) keeps everything that differs
between kinds in its own named place in each app, the way Django's admin registers a
ModelAdmin for a model:

- ``campaigns/kinds/<kind>/``: its settings (a model joined one-to-one to Campaign) and their
  validation, its admin fieldsets, its HIT builder, what its judgment imports need;
- ``judgments/kinds/<kind>.py``: what a worker's browser receives, how an answer is checked
  and stored;
- ``analytics/kinds/<kind>/``: how its judgments are loaded for the pure statistics, how the
  results are stored, its admin results panel, its API serializers and exports.

Each app defines a small base class saying what every kind provides and a :class:`Registry`
of them; a kind module registers its implementation with ``@registry.register``. The shared
machinery (hand-out, submission, recompute, API plumbing, exports) asks the registry and
never compares a campaign's kind with a particular kind. docs/task-kinds.md walks through it.

Adding a kind: write its modules, then add its name to :data:`TASK_KINDS` below (the one
registration line). Each app's ``ready()`` imports its kind module for every listed name
that the app has one for (``campaigns.kinds.<name>.kind``, ``judgments.kinds.<name>``,
``analytics.kinds.<name>``), and ``campaigns/models.py`` imports the settings models
``campaigns.kinds.<name>.models``.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator
from typing import Generic, TypeVar

# The registration line: the task kinds this installation knows, by TaskKind value (which is
# also the module name in every app).
TASK_KINDS: tuple[str, ...] = (
    "direct_assessment",
    "ranking",
    "post_editing",
    "reading_comprehension",
    "translation",
)


class KindNotAvailable(LookupError):
    """No module of this app handles the kind (yet): e.g. no HIT builder or statistics."""


K = TypeVar("K")


class Registry(Generic[K]):
    """Maps a TaskKind value to one app's implementation of that kind.

    :meth:`load` imports ``module.format(name=...)`` for each name in :data:`TASK_KINDS` whose
    module exists, and those modules call :meth:`register`.
    """

    def __init__(self, module: str, what: str) -> None:
        self.module = module  # e.g. "judgments.kinds.{name}"
        self.what = what  # for error messages: "HIT builder", "task page", "statistics"
        self._kinds: dict[str, K] = {}

    def register(self, implementation: K) -> K:
        """Class decorator (or call with an instance): register under its ``kind``."""
        kind = str(implementation.kind)  # type: ignore[attr-defined]
        if kind not in TASK_KINDS:
            raise ValueError(f"{kind!r} is not in evalsite.kinds.TASK_KINDS")
        instance = implementation() if isinstance(implementation, type) else implementation
        existing = self._kinds.get(kind)
        if existing is not None and type(existing) is not type(instance):
            raise ValueError(f"{self.module}: {kind!r} is registered twice")
        self._kinds[kind] = instance
        return implementation

    def load(self) -> None:
        for name in TASK_KINDS:
            module = self.module.format(name=name)
            if importlib.util.find_spec(module) is not None:
                importlib.import_module(module)

    def get(self, kind: str) -> K | None:
        return self._kinds.get(str(kind))

    def __getitem__(self, kind: str) -> K:
        try:
            return self._kinds[str(kind)]
        except KeyError:
            raise KindNotAvailable(f"No {self.what} for {kind!r} campaigns yet.") from None

    def __contains__(self, kind: object) -> bool:
        return str(kind) in self._kinds

    def __iter__(self) -> Iterator[K]:
        return iter(self._kinds.values())

    def kinds(self) -> tuple[str, ...]:
        """Registered kind values, in TASK_KINDS order."""
        return tuple(name for name in TASK_KINDS if name in self._kinds)
