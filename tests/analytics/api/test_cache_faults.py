"""Issue 11, item 10: with Redis down, /api/.../segments/ answered 500. A cache that fails is a
miss: the table is computed from the judgments, a warning is logged, and the answer is the
same as with the cache."""

from __future__ import annotations

import logging
from unittest import mock

import pytest
from django.core.cache import cache
from django.test import override_settings
from redis.exceptions import ConnectionError as RedisConnectionError

from analytics.api.queries import segment_scores

pytestmark = pytest.mark.django_db

UNREACHABLE_REDIS = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        # Port 1 of this machine: nothing listens there, the connection is refused at once.
        "LOCATION": "redis://127.0.0.1:1/0",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
}


def segments(cast):
    url = f"/api/campaigns/{cast.campaign.pk}/segments/?page_size=100"
    return cast.client("owner").get(url)


def test_segments_answer_with_an_unreachable_redis_as_the_cache(cast, caplog):
    cache.clear()
    expected = segments(cast).json()

    with override_settings(CACHES=UNREACHABLE_REDIS), caplog.at_level(logging.WARNING):
        response = segments(cast)

    assert response.status_code == 200
    assert response.json() == expected
    warnings = [r.getMessage() for r in caplog.records if r.name == "evalsite.cachesafe"]
    assert any("Cache unavailable (get of analytics:api:segments" in m for m in warnings)
    assert any("Cache unavailable (set of analytics:api:segments" in m for m in warnings)
    assert not any("127.0.0.1:1" in m for m in warnings)  # no server address in the log


@pytest.mark.parametrize("failing", ["get", "set"])
def test_a_cache_that_raises_on_get_or_set_is_computed_around(cast, small, failing):
    cache.clear()
    expected = segment_scores(small.campaign, include_all=False)[0:100]
    cache.clear()
    with mock.patch.object(cache, failing, side_effect=RedisConnectionError("Redis is down")):
        table = segment_scores(small.campaign, include_all=False)
    assert table[0:100] == expected


def test_errors_that_are_bugs_still_raise(cast, small):
    cache.clear()
    with (
        mock.patch.object(cache, "get", side_effect=TypeError("a bug")),
        pytest.raises(TypeError),
    ):
        segment_scores(small.campaign, include_all=False)
