"""campaigns.platforms.mturk.client: the boto3 client for the sandbox and production endpoints
(us-east-1 only) and the workers' preview URLs. No network, no database."""

from __future__ import annotations

import pytest

from campaigns.platforms import mturk
from tests.campaigns.platforms.mturk.support import GROUP_ID


def test_client_for_sandbox_and_production_endpoints():
    assert mturk.client_for(sandbox=True).meta.endpoint_url == (
        "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
    )
    assert mturk.client_for(sandbox=False).meta.endpoint_url == (
        "https://mturk-requester.us-east-1.amazonaws.com"
    )
    assert mturk.client_for(sandbox=True).meta.region_name == "us-east-1"


def test_client_for_refuses_other_regions():
    with pytest.raises(ValueError, match="only in us-east-1"):
        mturk.client_for(sandbox=True, region="eu-west-1")


def test_preview_url_per_environment():
    assert mturk.preview_url(GROUP_ID, sandbox=True) == (
        f"https://workersandbox.mturk.com/projects/{GROUP_ID}/tasks"
    )
    assert mturk.preview_url(GROUP_ID, sandbox=False) == (
        f"https://worker.mturk.com/projects/{GROUP_ID}/tasks"
    )
