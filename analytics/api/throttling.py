"""Request rates of the API (DRF throttles), per token or session user and per anonymous client.

The rates are ``settings.API_THROTTLE_RATES`` (``{"user": "1200/minute", "anon": "60/minute"}``
by default; the environment variables API_THROTTLE_USER and API_THROTTLE_ANON override them),
read on every request rather than once at import as DRF's own classes do, so a settings override
applies at once. A request over the rate gets 429 with a ``Retry-After`` header.

The request history lives in the default cache (Redis in production, so the limit holds across
gunicorn workers). When the cache cannot be reached the request is let through and the failure
logged: a broken cache must not close the API.
"""

from __future__ import annotations

import logging

from django.conf import settings
from rest_framework.throttling import AnonRateThrottle, UserRateThrottle

log = logging.getLogger(__name__)


class _SettingsRate:
    """Reads the scope's rate from ``settings.API_THROTTLE_RATES`` per request; fails open."""

    scope: str

    def get_rate(self) -> str | None:
        return settings.API_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view) -> bool:
        try:
            return super().allow_request(request, view)
        except Exception:  # the cache (Redis) is down: serve the request, say so in the log
            log.warning(
                "API throttle %r skipped: the cache is unavailable", self.scope, exc_info=True
            )
            return True


class ApiUserRateThrottle(_SettingsRate, UserRateThrottle):
    """Requests of one authenticated user (a token or a session), ``API_THROTTLE_RATES["user"]``."""


class ApiAnonRateThrottle(_SettingsRate, AnonRateThrottle):
    """Requests of one anonymous client address, ``API_THROTTLE_RATES["anon"]``."""
