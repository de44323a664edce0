"""The review workflow's fixtures (the Stubber, the exclusion announcements), for every test
module here; they live in review_support.py with the builders, which other folders import."""

from tests.campaigns.platforms.review_support import announced, mturk_stub  # noqa: F401
