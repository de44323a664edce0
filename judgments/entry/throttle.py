"""The start limit: how many tasks one client may start in a period (issue 11, item 3).

A start is what takes a task out of the pool for somebody new: a pseudonymous worker created
at ``/work/<campaign>/start``, a Prolific visit that is handed a new (or restarted) task, or
an MTurk accept that takes one of a HIT's places (``judgments.entry.mturk``: its ids can be
made up).
Each counts against the client's address (``evalsite.security.client_ip``: ``REMOTE_ADDR``,
or ``X-Forwarded-For`` behind ``TRUSTED_PROXY_COUNT`` trusted proxies) in a fixed window of
``settings.START_RATE`` ("10/10m": 10 starts per 10 minutes; s, m or h; empty: no limit),
across all campaigns. Over the limit the visitor gets 429 with a page (and ``Retry-After``)
saying when to try again; nothing is written. A visit that only resumes the worker's own
task gives its start back (:meth:`StartTicket.give_back`), so reloading a link is never
limited.

The counters live in Django's cache (Redis in production). When the cache is down, starts
are let through (a warning is logged): the first-touch timeout still releases tasks nobody
opens (``judgments.actions.handout``).
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import HttpRequest, HttpResponse
from django.utils.translation import npgettext, pgettext_lazy

from campaigns.models import Campaign
from evalsite.cachesafe import cache_decr, cache_incr
from evalsite.security import client_ip
from judgments.entry.pages import message_page
from judgments.entry.words import campaign_words

RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*([smh])\s*$")
UNITS = {"s": 1, "m": 60, "h": 3600}

# Translators: {wait} is "3 minutes" or "40 seconds".
TOO_MANY_STARTS = pgettext_lazy(
    "entry page",
    "Too many tasks were started from your network in a short time. Please try again in "
    "{wait}. If you were working on a task, go back to its page: it is still yours.",
)


def parse_rate(text: str) -> tuple[int, int] | None:
    """``"10/10m"`` as (10, 600) (count, seconds); None for an empty rate (no limit)."""
    if not text.strip():
        return None
    match = RATE.match(text)
    if match is None or int(match.group(1)) < 1:
        raise ImproperlyConfigured(
            f"START_RATE {text!r} is not a rate: write <count>/<period>, for example 10/10m "
            "(periods in s, m or h), or leave it empty for no limit."
        )
    count, amount, unit = int(match.group(1)), int(match.group(2) or 1), match.group(3)
    return count, max(amount, 1) * UNITS[unit]


@dataclass(frozen=True)
class StartTicket:
    """A start that was counted (``key`` None: not counted, e.g. no limit or no cache)."""

    key: str | None = None

    def give_back(self) -> None:
        """The visit started nothing new after all (it resumed a task, or got none)."""
        if self.key is not None:
            cache_decr(self.key)


@dataclass(frozen=True)
class StartRefused:
    retry_after: int  # seconds

    def response(self, request: HttpRequest, campaign: Campaign) -> HttpResponse:
        """429, in the campaign's language, saying how long to wait."""
        minutes = math.ceil(self.retry_after / 60)
        with campaign_words(campaign):
            if self.retry_after < 60:
                wait = npgettext("entry page", "{n} second", "{n} seconds", self.retry_after)
                wait = wait.format(n=self.retry_after)
            else:
                wait = npgettext("entry page", "{n} minute", "{n} minutes", minutes).format(
                    n=minutes
                )
            message = TOO_MANY_STARTS.format(wait=wait)
        page = message_page(request, message, campaign=campaign, status=429)
        page["Retry-After"] = str(self.retry_after)
        return page


def take_start(request: HttpRequest, now: float | None = None) -> StartTicket | StartRefused:
    """Count one start of the requesting client; StartRefused when over ``START_RATE``."""
    rate = parse_rate(settings.START_RATE)
    if rate is None:
        return StartTicket()
    limit, period = rate
    now = time.time() if now is None else now
    window = int(now // period)
    key = f"evalsite:start-rate:{period}:{client_ip(request) or 'unknown'}:{window}"
    count = cache_incr(key, period + 5)
    if count is None:  # the cache is down: let the start through
        return StartTicket()
    if count > limit:
        cache_decr(key)  # a refused start takes nothing, so it does not count
        return StartRefused(retry_after=max(1, math.ceil((window + 1) * period - now)))
    return StartTicket(key)
