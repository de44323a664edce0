"""The MTurk service-layer tests' fixtures: a real boto3 MTurk client on the sandbox endpoint
(``client``) and botocore's Stubber on it (``stub``), which checks every expected call was
made. No network."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from campaigns.platforms import mturk


@pytest.fixture
def client():
    return boto3.client(
        "mturk",
        region_name="us-east-1",
        endpoint_url=mturk.SANDBOX_ENDPOINT,
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="not-a-secret",
    )


@pytest.fixture
def stub(client):
    with Stubber(client) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()
