"""Django's Redis cache with one Redis client per connection pool instead of one per call.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` for every cache call, and
``redis.Redis.__init__`` fills a table of some 170 response callbacks each time: on a worker's
submit (whose only cache call is the recompute flag's ``add``, analytics.actions) that was about
a tenth of the request's Python time (issue 16, profiled with bench/worker_profile.py). A
``redis.Redis`` is safe to share between threads (each command takes a connection from the
pool), and its pool reconnects in a forked child, so one client per pool is kept. Everything
else, options and errors included, is Django's.
"""

from __future__ import annotations

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient


class RedisCacheClient(DjangoRedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            # Two threads may both build one here; either is fine, the last one is kept.
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient
