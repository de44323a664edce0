"""The API tests' fixed cast and hand-worked campaigns (tests/analytics/api/conftest.py)."""

from tests.analytics.api.conftest import cast, ranking, ranking_cast, small  # noqa: F401
