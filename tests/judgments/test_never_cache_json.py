"""The task page's JSON endpoints send the caching headers of Django's never_cache
(judgments.views.never_cache_json writes them at once)."""

from __future__ import annotations

from email.utils import parsedate_to_datetime

from django.http import HttpResponse, JsonResponse
from django.test import RequestFactory
from django.utils import timezone
from django.views.decorators.cache import never_cache

from judgments.views import NEVER_CACHE_CONTROL, never_cache_json


def _headers(decorator, response_of):
    response = decorator(lambda request: response_of())(RequestFactory().get("/"))
    return response.headers


def test_the_headers_are_djangos_never_cache_headers():
    ours = _headers(never_cache_json, lambda: JsonResponse({"ok": True}))
    django = _headers(never_cache, lambda: JsonResponse({"ok": True}))
    assert ours["Cache-Control"] == django["Cache-Control"] == NEVER_CACHE_CONTROL
    assert set(ours) == set(django)
    sent = parsedate_to_datetime(ours["Expires"])
    assert abs((sent - timezone.now()).total_seconds()) < 5
    assert ours["Expires"].endswith(" GMT")


def test_a_response_with_caching_headers_of_its_own_gets_djangos():
    def own():
        response = HttpResponse("x")
        response["Cache-Control"] = "public, max-age=60"
        return response

    ours = _headers(never_cache_json, own)
    django = _headers(never_cache, own)
    assert ours["Cache-Control"] == django["Cache-Control"]
    assert "no-store" in ours["Cache-Control"] and "private" in ours["Cache-Control"]
