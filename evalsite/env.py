"""Small readers for environment variables that fail loudly on bad values.

Modelled on healthchecks' ``envbool``: a typo such as ``DEBUG=yes-ish`` must stop the process
with a message naming the variable, never silently turn into True or False.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default).strip()


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    word = raw.strip().lower()
    if word in TRUE_WORDS:
        return True
    if word in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name}={raw!r} is not a boolean. Use one of: "
        f"{', '.join(sorted(TRUE_WORDS))} or {', '.join(sorted(FALSE_WORDS))}."
    )


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip())
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a whole number.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be at least {minimum}.")
    return value


def env_list(name: str) -> list[str]:
    """A comma-separated list; blanks between commas are dropped."""
    return [part.strip() for part in os.environ.get(name, "").split(",") if part.strip()]


def env_url(name: str, *, schemes: tuple[str, ...]) -> str:
    """A URL whose scheme must be one of ``schemes``; empty string when unset."""
    value = env_str(name)
    if value and value.split("://", 1)[0] not in schemes:
        raise ImproperlyConfigured(
            f"{name} must start with {' or '.join(s + '://' for s in schemes)}; got {value!r}."
        )
    return value
