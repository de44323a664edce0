"""evalsite.redis_cache: Django's Redis cache, with one Redis client per pool (issue 16)."""

from __future__ import annotations

import threading

from evalsite.redis_cache import RedisCache


def test_one_client_per_pool_and_the_cache_works_as_djangos(redis_url):
    cache = RedisCache(redis_url, {"KEY_PREFIX": "test-redis-cache", "OPTIONS": {}})
    cache.delete("flag")
    first = cache._cache.get_client("flag", write=True)
    assert cache._cache.get_client("other", write=True) is first
    assert cache._cache.get_client("flag") is first  # one server: reads use the same pool

    assert cache.add("flag", "one", 30) is True
    assert cache.add("flag", "two", 30) is False
    assert cache.get("flag") == "one"
    assert cache._cache.get_client("flag", write=True) is first

    # Threads share the client (each command takes its own connection from the pool).
    seen = []

    def add(n: int) -> None:
        seen.append(cache.add(f"thread-{n}", n, 30))

    for n in range(8):
        cache.delete(f"thread-{n}")
    threads = [threading.Thread(target=add, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [True] * 8
    assert [cache.get(f"thread-{n}") for n in range(8)] == list(range(8))
    cache.delete_many(["flag", *(f"thread-{n}" for n in range(8))])
