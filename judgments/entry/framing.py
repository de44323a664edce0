"""Framing: task pages may be framed by MTurk's worker hosts, every other page by nobody.

MTurk shows an ExternalQuestion HIT in an iframe on its worker site, so the task pages (the
MTurk entry page, the task page and its completion page, the background form) must let MTurk
frame them; any other site framing them could overlay them (clickjacking), and every other
page (admin, home, entry pages, JSON) has no business in a frame at all.

Two headers say so. ``X-Frame-Options`` (Django's middleware, ``DENY`` by default) cannot
name a host, so frameable views are exempt from it; CSP ``frame-ancestors`` can, and it is
what browsers obey when both are present. :class:`FrameAncestorsMiddleware` writes
``frame-ancestors <MTURK_FRAME_ANCESTORS>`` on the responses of views wrapped in
:func:`allow_mturk_framing` and ``frame-ancestors 'none'`` on every other response.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponseBase
from django.views.decorators.clickjacking import xframe_options_exempt

CSP_HEADER = "Content-Security-Policy"
# Set on a response whose view MTurk may frame; read by the middleware.
FRAMEABLE_BY_MTURK = "evalsite_frameable_by_mturk"
NOBODY = "'none'"

# A CSP host-source with a scheme: "https://worker.mturk.com", "http://127.0.0.1:8001",
# "https://*.example.org". No spaces, commas or semicolons, which would end the directive
# and let a mistyped setting write another one.
_SOURCE = re.compile(r"^https?://(\*\.)?[A-Za-z0-9.-]+(:[0-9]{1,5})?/?$")
_FRAME_ANCESTORS = re.compile(r"^\s*frame-ancestors(\s|$)", re.IGNORECASE)

View = Callable[..., HttpResponseBase]


def mturk_frame_ancestors() -> str:
    """The ``frame-ancestors`` sources of frameable pages, from settings (read per response,
    so that a settings override applies at once); ImproperlyConfigured names a bad entry."""
    sources = list(settings.MTURK_FRAME_ANCESTORS)
    for source in sources:
        if not isinstance(source, str) or not _SOURCE.match(source):
            raise ImproperlyConfigured(
                f"MTURK_FRAME_ANCESTORS holds {source!r}, which is not an origin such as "
                "https://worker.mturk.com (a scheme, a host, an optional port, nothing else)."
            )
    return " ".join(sources) if sources else NOBODY


def allow_mturk_framing(view: View) -> View:
    """Let MTurk's worker hosts (``settings.MTURK_FRAME_ANCESTORS``) frame ``view``'s pages.

    Exempts the responses from X-Frame-Options and marks them for the middleware, which then
    lists the hosts in CSP ``frame-ancestors`` instead of ``'none'``. Every response of the
    view is marked, error pages included: a worker on MTurk reads the message in the frame
    instead of a browser's refusal.
    """

    @wraps(view)
    def frameable(request: HttpRequest, *args, **kwargs) -> HttpResponseBase:
        response = view(request, *args, **kwargs)
        setattr(response, FRAMEABLE_BY_MTURK, True)
        return response

    return xframe_options_exempt(frameable)


def with_frame_ancestors(policy: str | None, sources: str) -> str:
    """``policy`` (an existing CSP header, or None) with its ``frame-ancestors`` directive set
    to ``sources``; every other directive is kept as it was."""
    directives = [
        part.strip()
        for part in (policy or "").split(";")
        if part.strip() and not _FRAME_ANCESTORS.match(part)
    ]
    directives.append(f"frame-ancestors {sources}")
    return "; ".join(directives)


class FrameAncestorsMiddleware:
    """Writes CSP ``frame-ancestors`` on every response Django makes: MTurk's hosts on the
    views marked by :func:`allow_mturk_framing`, ``'none'`` on all others.

    Listed after Django's XFrameOptionsMiddleware; static files served by WhiteNoise never
    reach it (they are not pages).
    """

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        mturk_frame_ancestors()  # a bad setting fails at start-up, not on a worker's page

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        sources = (
            mturk_frame_ancestors() if getattr(response, FRAMEABLE_BY_MTURK, False) else NOBODY
        )
        response.headers[CSP_HEADER] = with_frame_ancestors(
            response.headers.get(CSP_HEADER), sources
        )
        return response
