"""Modules a web process imports on first use rather than at start (issue 16 item 4).

Loading the URLconf loads every kind's API and, through it, the statistics modules, which
write ``import numpy as np`` at the top (about 70 of them). A web worker serving task pages
and submissions never calls numpy, yet importing it costs about 9.5 MiB per worker, which
kept a gunicorn worker above its 80 MiB budget. :func:`defer` installs a finder that gives
such a module a lazy loader: ``import numpy as np`` binds the module object at once, and the
module's code runs on the first attribute access (``np.asarray``), in whichever view or
thread first needs it: the dashboards, the API's exports, a recompute run in eager mode.

This is the standard library's ``importlib.util.LazyLoader``, with the lock Python 3.12 added
to it: on 3.11 two threads of a gthread worker touching the module at once could both start
executing it, or the second could see a half-initialised module and raise AttributeError.
Here the first access executes the module while holding a re-entrant lock; any other thread
waits for it, and the loading thread's own nested accesses (numpy's submodules reading
``numpy.__path__``) go through as in an ordinary import.

Only web processes call :func:`defer` (evalsite/wsgi.py): Celery workers and management
commands import numpy for real, so numba sees the real module when it compiles a kernel (the
module object is the same either way: the lazy loader executes the module in place).
tests/test_lazy_imports.py checks that serving a worker's pages does not import numpy and that
the first real use works, also from several threads at once.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
import types
from typing import Any

from evalsite import spec_from_other_finders

# Every later ``import numpy`` statement reads the module's ``__spec__`` (is it still being
# initialised?): answered without running the module, or the second import would load it.
_READ_WITHOUT_LOADING = frozenset({"__spec__", "__name__", "__loader__"})


class _DeferredModule(types.ModuleType):
    """A module whose code has not run yet: the first attribute access runs it."""

    def __getattribute__(self, attribute: str) -> Any:
        if attribute in _READ_WITHOUT_LOADING:
            return object.__getattribute__(self, attribute)
        spec = object.__getattribute__(self, "__spec__")
        state = spec.loader_state
        with state["lock"]:
            # Another thread may have loaded it while this one waited for the lock.
            if object.__getattribute__(self, "__class__") is _DeferredModule:
                real_class = state["class"]
                if state["loading"]:
                    # The loading thread itself (an import inside the module's own code).
                    return real_class.__getattribute__(self, attribute)
                state["loading"] = True
                namespace = real_class.__getattribute__(self, "__dict__")
                # What was set on the module after it was created and before it ran (an
                # import of a submodule binds the submodule): kept over the module's code.
                before = state["namespace"]
                set_meanwhile = {
                    key: value
                    for key, value in namespace.items()
                    if key not in before or before[key] is not value
                }
                try:
                    spec.loader.exec_module(self)
                except BaseException:
                    state["loading"] = False
                    raise
                namespace.update(set_meanwhile)
                self.__class__ = real_class
        return getattr(self, attribute)

    def __delattr__(self, attribute: str) -> None:
        self.__getattribute__(attribute)  # load first, as importlib.util's lazy module does
        delattr(self, attribute)


class _DeferringLoader(importlib.abc.Loader):
    """Wraps a module's own loader: creating the module is the loader's, running it waits."""

    def __init__(self, loader: importlib.abc.Loader) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self.loader.create_module(spec)

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__.loader = self.loader
        module.__loader__ = self.loader
        module.__spec__.loader_state = {
            "namespace": dict(module.__dict__),
            "class": module.__class__,
            "lock": threading.RLock(),
            "loading": False,
        }
        module.__class__ = _DeferredModule


class _DeferringFinder(importlib.abc.MetaPathFinder):
    """Finds the deferred top-level modules as the finders after it do, with a lazy loader."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name not in self.names:
            return None
        spec = spec_from_other_finders(self, name, path, target)
        if spec is not None:
            spec.loader = _DeferringLoader(spec.loader)
        return spec


def defer(*names: str) -> None:
    """Make each top-level module of ``names`` run on first use instead of on import, unless
    it is imported already (then nothing changes). Idempotent."""
    pending = frozenset(name for name in names if name not in sys.modules)
    for finder in sys.meta_path:
        if isinstance(finder, _DeferringFinder):
            finder.names = finder.names | pending
            return
    if pending:
        sys.meta_path.insert(0, _DeferringFinder(pending))


def is_deferred(name: str) -> bool:
    """Whether ``name`` is imported but its code has not run yet."""
    # type() reads the object's class without an attribute access, so it loads nothing.
    return type(sys.modules.get(name)) is _DeferredModule
