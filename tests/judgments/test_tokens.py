"""Signed worker and assignment links: only this site can make them, and each opens one door."""

import pytest
from django.core import signing
from django.test import override_settings

from judgments import tokens


def test_a_worker_token_reads_back_as_its_worker_and_campaign():
    token = tokens.worker_token(12, 34)
    assert tokens.read_worker_token(token) == tokens.WorkerLink(worker_id=12, campaign_id=34)
    assert tokens.worker_token(12, 34) == token  # no timestamp: the link stays the same


def test_an_assignment_token_reads_back_as_its_assignment_and_worker():
    token = tokens.assignment_token(56, 12)
    assert tokens.read_assignment_token(token) == tokens.AssignmentLink(
        assignment_id=56, worker_id=12
    )


@pytest.mark.parametrize(
    "tamper",
    [
        lambda token: token[:-1] + ("A" if token[-1] != "A" else "B"),  # signature changed
        lambda token: signing.b64_encode(b"[99,12]").decode() + token[token.index(":") :],
        lambda token: token.split(":")[0],  # signature removed
        lambda token: "",
        lambda token: "not-a-token",
        lambda token: token + ":extra",
    ],
    ids=["signature", "payload", "unsigned", "empty", "garbage", "appended"],
)
def test_a_tampered_token_is_refused(tamper):
    token = tokens.assignment_token(56, 12)
    with pytest.raises(tokens.BadToken):
        tokens.read_assignment_token(tamper(token))


def test_a_worker_token_is_not_an_assignment_token_and_back():
    with pytest.raises(tokens.BadToken):
        tokens.read_assignment_token(tokens.worker_token(56, 12))
    with pytest.raises(tokens.BadToken):
        tokens.read_worker_token(tokens.assignment_token(56, 12))


def test_a_token_signed_with_another_salt_is_refused():
    forged = signing.Signer(salt="someone-else").sign_object([56, 12])
    with pytest.raises(tokens.BadToken):
        tokens.read_assignment_token(forged)
    default_salt = signing.Signer().sign_object([56, 12])
    with pytest.raises(tokens.BadToken):
        tokens.read_assignment_token(default_salt)


def test_a_token_signed_with_another_secret_key_is_refused():
    with override_settings(SECRET_KEY="another-site-entirely-" * 3):
        foreign = tokens.assignment_token(56, 12)
    with pytest.raises(tokens.BadToken):
        tokens.read_assignment_token(foreign)


@pytest.mark.parametrize(
    "payload", [[56], [56, 12, 1], ["56", 12], [56, True], [0, 12], [-1, 12], {"a": 56}]
)
def test_a_correctly_signed_but_malformed_payload_is_refused(payload):
    token = signing.Signer(salt=tokens.ASSIGNMENT_LINK_SALT).sign_object(payload)
    with pytest.raises(tokens.BadToken):
        tokens.read_assignment_token(token)


def test_a_good_token_read_again_is_not_checked_again():
    token = tokens.assignment_token(91, 17)
    tokens._checked.cache_clear()
    assert tokens.read_assignment_token(token) == tokens.AssignmentLink(91, 17)
    assert tokens.read_assignment_token(token) == tokens.AssignmentLink(91, 17)
    info = tokens._checked.cache_info()
    assert (info.hits, info.misses) == (1, 1)


def test_a_token_checked_once_is_refused_under_another_secret_key():
    # The kept links are kept per key: a link checked once is not good under a new key.
    token = tokens.assignment_token(92, 18)
    assert tokens.read_assignment_token(token) == tokens.AssignmentLink(92, 18)
    with override_settings(SECRET_KEY="another-site-entirely-" * 3):
        with pytest.raises(tokens.BadToken):
            tokens.read_assignment_token(token)
    assert tokens.read_assignment_token(token) == tokens.AssignmentLink(92, 18)


def test_a_bad_token_is_refused_every_time():
    forged = signing.Signer(salt="someone-else").sign_object([93, 19])
    tokens._checked.cache_clear()
    for _ in range(2):
        with pytest.raises(tokens.BadToken):
            tokens.read_assignment_token(forged)
    assert tokens._checked.cache_info().currsize == 0
