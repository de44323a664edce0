"""The one place the Django side builds an MTurk client, so tests replace it at the network
edge (a botocore ``Stubber`` on a real client) by patching :func:`mturk_client`."""

from __future__ import annotations

from typing import Any

from campaigns.platforms import mturk


def mturk_client(sandbox: bool) -> Any:
    """A boto3 MTurk client for the sandbox or production, with boto3's credential chain."""
    return mturk.client_for(sandbox)
