"""The boto3 client for MTurk's requester API, sandbox or production.

MTurk's requester API lives in one region, us-east-1 (both endpoints below are the ones in
MTurk's developer guide and API reference samples). Credentials come from boto3's usual chain
(``AWS_ACCESS_KEY_ID``/``AWS_SECRET_ACCESS_KEY``, a profile, an instance role); this module
never reads or stores them.
"""

from __future__ import annotations

from typing import Any

REGION = "us-east-1"
SANDBOX_ENDPOINT = "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
PRODUCTION_ENDPOINT = "https://mturk-requester.us-east-1.amazonaws.com"

# Where a worker finds a published HIT group (for the admin's "preview on MTurk" link).
SANDBOX_WORKER_SITE = "https://workersandbox.mturk.com"
PRODUCTION_WORKER_SITE = "https://worker.mturk.com"

# botocore's "standard" retry mode retries throttling ("Rate exceeded") and transient errors
# with exponential back-off; a call that still fails raises, and errors.translate explains it.
RETRIES = {"max_attempts": 8, "mode": "standard"}


def endpoint_url(sandbox: bool, region: str = REGION) -> str:
    if region != REGION:
        raise ValueError(f"MTurk's requester API exists only in {REGION}; got region {region!r}.")
    return SANDBOX_ENDPOINT if sandbox else PRODUCTION_ENDPOINT


def client_for(sandbox: bool, region: str = REGION, *, session: Any = None) -> Any:
    """A boto3 MTurk client for the sandbox (``sandbox=True``) or production marketplace."""
    # boto3 is imported here, not with the module: every web worker imports this module, but
    # only the admin's and the Celery tasks' MTurk calls need boto3 (about 24 MiB; issue 16).
    import boto3
    from botocore.config import Config

    factory = session if session is not None else boto3
    return factory.client(
        "mturk",
        region_name=region,
        endpoint_url=endpoint_url(sandbox, region),
        config=Config(retries=RETRIES),
    )


def preview_url(hit_group_id: str, *, sandbox: bool) -> str:
    """The worker-site page listing the tasks of one HIT group (HITs of one HIT type)."""
    site = SANDBOX_WORKER_SITE if sandbox else PRODUCTION_WORKER_SITE
    return f"{site}/projects/{hit_group_id}/tasks"
