"""manage.py api_token: the README's way to a token for scripts."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.authtoken.models import Token

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("api_token", *args, stdout=out, stderr=err)
    return out.getvalue().strip(), err.getvalue().strip()


def test_create_prints_the_users_one_token_rotate_replaces_it_revoke_deletes_it():
    alice = get_user_model().objects.create_user("alice", password="a long password 1")
    key, _ = run("create", "alice")
    assert key == Token.objects.get(user=alice).key
    assert run("create", "alice")[0] == key  # created once
    rotated, _ = run("create", "alice", "--rotate")
    assert rotated != key and Token.objects.get(user=alice).key == rotated
    assert run("list")[0].startswith("alice\tcreated ")
    assert run("revoke", "alice")[0] == "Revoked the API token of alice."
    assert not Token.objects.exists()
    assert run("list")[0] == "No API tokens yet. Create one with: api_token create <user>"


def test_an_unknown_user_is_refused_with_the_ways_to_make_one():
    # Issue 17: the README's `api_token create alice` failed with "No user 'alice'" alone.
    with pytest.raises(CommandError) as refused:
        run("create", "alice")
    assert str(refused.value) == (
        "No user 'alice'. Add --create-user to make an API-only user of that name (then grant "
        "it analyst access on a campaign's page), or create one with a password first (python "
        "manage.py createsuperuser, or Users → Add in the admin)."
    )
    assert not get_user_model().objects.exists()


def test_create_user_makes_an_api_only_user_and_its_token():
    key, said = run("create", "bob", "--create-user")
    bob = get_user_model().objects.get(username="bob")
    assert Token.objects.get(user=bob).key == key
    assert (bob.has_usable_password(), bob.is_staff, bob.is_superuser, bob.is_active) == (
        False,
        False,
        False,
        True,
    )
    assert said == (
        "Created the API-only user 'bob' (no password, no admin login). It sees no campaign "
        "until you grant it analyst access on the campaign's page."
    )
    # A second time: the same user and token, nothing created.
    assert run("create", "bob", "--create-user") == (key, "")
    assert get_user_model().objects.count() == 1


def test_an_inactive_user_gets_no_token():
    get_user_model().objects.create_user("carol", is_active=False)
    with pytest.raises(CommandError, match="'carol' is not active; activate the user in the admin"):
        run("create", "carol", "--create-user")
    assert not Token.objects.exists()
