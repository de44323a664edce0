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
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle, UserRateThrottle

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


class FailedTokenThrottle(_SettingsRate, SimpleRateThrottle):
    """Failed token attempts of one client address, ``API_THROTTLE_RATES["anon"]``.

    DRF authenticates before it checks permissions and throttles, so a request with a wrong
    token is answered 401 before any throttle runs: the anonymous rate alone would never slow
    down someone guessing tokens (issue 11 item 9, found by replaying the attack). This one is
    counted by the authentication itself (:class:`ThrottledTokenAuthentication`), on failures
    only: a client with a good token is never held back by it. The address is the one the
    other throttles use (``REST_FRAMEWORK["NUM_PROXIES"]``, from TRUSTED_PROXY_COUNT)."""

    scope = "anon"

    def get_cache_key(self, request, view) -> str:
        return self.cache_format % {"scope": "failed-token", "ident": self.get_ident(request)}


class ThrottledTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, with failed attempts throttled per address: past the rate,
    429 with ``Retry-After`` instead of 401, whatever token is tried."""

    def authenticate(self, request):
        try:
            return super().authenticate(request)
        except AuthenticationFailed:
            throttle = FailedTokenThrottle()
            if not throttle.allow_request(request, None):
                log.warning("API token attempts throttled for %s", throttle.get_ident(request))
                raise Throttled(throttle.wait()) from None
            raise
