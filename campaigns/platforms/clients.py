"""The one place the Django side builds an MTurk client, so tests replace it at the network
edge (a botocore ``Stubber`` on a real client) by patching :func:`mturk_client`."""

from __future__ import annotations

from typing import Any

from campaigns.platforms import mturk


def mturk_client(sandbox: bool) -> Any:
    """A boto3 MTurk client for the sandbox or production, with boto3's credential chain."""
    return mturk.client_for(sandbox)


class MTurkClients:
    """One client per environment, built on first use, for an operation that works on HITs
    or workers of both environments (publishing, expiring, syncing, reviewing). A client the
    caller injected (the tests, or a caller that already holds one) serves every environment.
    """

    def __init__(self, client: Any = None) -> None:
        self.injected = client
        self.built: dict[bool, Any] = {}

    def get(self, sandbox: bool) -> Any:
        if self.injected is not None:
            return self.injected
        if sandbox not in self.built:
            # Looked up on the module at call time, so that patching mturk_client works.
            self.built[sandbox] = mturk_client(sandbox)
        return self.built[sandbox]
