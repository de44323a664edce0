"""The site-wide Content-Security-Policy and the client address used by login throttling.

Content-Security-Policy
    :class:`ContentSecurityPolicyMiddleware` writes ``settings.CONTENT_SECURITY_POLICY`` (a dict
    of directive → sources) on every response Django makes. Scripts come only from this site's
    own files (``script-src 'self'``): no template of the project has an inline script or an
    ``on...=`` handler, and Django's admin (5.2) passes its data to its scripts in
    ``data-`` attributes of ``<script src=...>`` tags, so it needs no nonce. Styles allow
    ``'unsafe-inline'``: Django's admin (change_list.html), drf-spectacular's Swagger page and
    some of the project's admin panels have ``<style>`` blocks, and a style cannot run code.

    ``frame-ancestors`` is not set here: :class:`judgments.entry.framing.FrameAncestorsMiddleware`
    (listed before this middleware, so it sees the response after it) adds it to the same header,
    MTurk's hosts on task pages and ``'none'`` elsewhere. On those task pages ``form-action``
    also lists ``settings.MTURK_SUBMIT_HOSTS``, where the completion page posts the assignment.
    One header, one policy.

Client address
    :func:`client_ip` is django-axes' ``AXES_CLIENT_IP_CALLABLE``: ``REMOTE_ADDR``, or, behind
    ``settings.TRUSTED_PROXY_COUNT`` proxies, the address the outermost trusted proxy saw (the
    entry that many places from the right of ``X-Forwarded-For``; entries further left are
    written by the client and are not trusted).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase

from judgments.entry.framing import CSP_HEADER, FRAMEABLE_BY_MTURK, with_frame_ancestors


def policy_text(directives: Mapping[str, Sequence[str]]) -> str:
    """``{"script-src": ["'self'"], ...}`` as a header value: ``script-src 'self'; ...``."""
    return "; ".join(f"{name} {' '.join(sources)}".strip() for name, sources in directives.items())


def policy_for(response: HttpResponseBase) -> str:
    """The policy of one response, without ``frame-ancestors`` (the framing middleware's)."""
    directives = {name: list(sources) for name, sources in settings.CONTENT_SECURITY_POLICY.items()}
    if getattr(response, FRAMEABLE_BY_MTURK, False):
        form_action = directives.setdefault("form-action", ["'self'"])
        form_action.extend(h for h in settings.MTURK_SUBMIT_HOSTS if h not in form_action)
    return policy_text(directives)


class ContentSecurityPolicyMiddleware:
    """Sets ``Content-Security-Policy`` from ``settings.CONTENT_SECURITY_POLICY``; a
    ``frame-ancestors`` already on the response (set by a view) is kept."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        existing = response.headers.get(CSP_HEADER, "")
        frame_ancestors = [
            part.strip()
            for part in existing.split(";")
            if part.strip().lower().startswith("frame-ancestors")
        ]
        policy = policy_for(response)
        if frame_ancestors:
            sources = frame_ancestors[-1].split(None, 1)[1:] or ["'none'"]
            policy = with_frame_ancestors(policy, sources[0])
        response.headers[CSP_HEADER] = policy
        return response


def client_ip(request: HttpRequest) -> str:
    """The client's address as this site's trusted proxies saw it (see the module docstring)."""
    remote = request.META.get("REMOTE_ADDR", "")
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies <= 0:
        return remote
    forwarded = [
        part.strip()
        for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if part.strip()
    ]
    if len(forwarded) < proxies:
        return remote  # not through every proxy (a direct request): its own address
    return forwarded[-proxies]
