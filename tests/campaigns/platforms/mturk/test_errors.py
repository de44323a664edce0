"""campaigns.platforms.mturk.errors: botocore's failures that come without an answer from MTurk
(missing credentials, the network, parameter validation) translated into MTurkError. No
network, no database."""

from __future__ import annotations

import pytest
from botocore.exceptions import EndpointConnectionError, NoCredentialsError, ParamValidationError

from campaigns.platforms import mturk
from campaigns.platforms.mturk.errors import translate


def test_translate_missing_credentials():
    error = translate("create_hit_type", NoCredentialsError())
    assert error.code == "NoCredentials"
    assert "AWS_ACCESS_KEY_ID" in error.what_to_do
    assert str(error).startswith("MTurk create_hit_type failed (NoCredentials):")


def test_translate_network_failure_is_retryable():
    error = translate("get_hit", EndpointConnectionError(endpoint_url=mturk.SANDBOX_ENDPOINT))
    assert error.code == "ConnectionError"
    assert error.retryable is True


def test_translate_param_validation_is_a_bug_report():
    error = translate("get_hit", ParamValidationError(report="Invalid length for HITId"))
    assert error.code == "ParamValidation"
    assert "bug" in error.what_to_do
    assert error.retryable is False


def test_translate_refuses_non_botocore_exceptions():
    with pytest.raises(TypeError):
        translate("get_hit", RuntimeError("boom"))
