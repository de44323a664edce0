"""Create, show, revoke and list API tokens: the twin of the admin's "Tokens" page.

    python manage.py api_token create alice          # prints alice's token (creates it once)
    python manage.py api_token create bob --create-user  # a new API-only user bob, and a token
    python manage.py api_token create alice --rotate # revokes the old token, prints a new one
    python manage.py api_token revoke alice
    python manage.py api_token list

A user has at most one token (Django REST framework's ``authtoken``). The token is a
password: whoever holds it reads what the user may read.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token


class Command(BaseCommand):
    help = "Create, revoke or list API tokens (Authorization: Token <key>)."

    def add_arguments(self, parser) -> None:
        sub = parser.add_subparsers(dest="action", required=True)
        create = sub.add_parser("create", help="Print the user's token, creating it if needed.")
        create.add_argument("username")
        create.add_argument(
            "--rotate", action="store_true", help="Revoke the existing token and make a new one."
        )
        create.add_argument(
            "--create-user",
            action="store_true",
            help="Create the user if there is none: an API-only account (no password, no admin "
            "login) that sees no campaign until it is granted analyst access.",
        )
        revoke = sub.add_parser("revoke", help="Delete the user's token.")
        revoke.add_argument("username")
        sub.add_parser("list", help="List the users who have a token (not the tokens).")

    def handle(self, *args, **options) -> None:
        action = options["action"]
        if action == "list":
            rows = Token.objects.select_related("user").order_by("user__username")
            for token in rows:
                self.stdout.write(f"{token.user.get_username()}\tcreated {token.created:%Y-%m-%d}")
            if not rows:
                self.stdout.write("No API tokens yet. Create one with: api_token create <user>")
            return
        if action == "create" and options["create_user"]:
            user = self._user_created(options["username"])
        else:
            user = self._user(options["username"])
        if action == "revoke":
            deleted, _ = Token.objects.filter(user=user).delete()
            if not deleted:
                raise CommandError(f"{user.get_username()} has no API token.")
            self.stdout.write(f"Revoked the API token of {user.get_username()}.")
            return
        if options["rotate"]:
            Token.objects.filter(user=user).delete()
        token, _ = Token.objects.get_or_create(user=user)
        self.stdout.write(token.key)

    def _user(self, username: str):
        model = get_user_model()
        try:
            user = model.objects.get(**{model.USERNAME_FIELD: username})
        except model.DoesNotExist:
            raise CommandError(
                f"No user {username!r}. Add --create-user to make an API-only user of that name "
                "(then grant it analyst access on a campaign's page), or create one with a "
                "password first (python manage.py createsuperuser, or Users → Add in the admin)."
            ) from None
        if not user.is_active:
            raise CommandError(f"{username!r} is not active; activate the user in the admin.")
        return user

    def _user_created(self, username: str):
        """The user of that name, created API-only (unusable password, not staff) if new."""
        model = get_user_model()
        user = model.objects.filter(**{model.USERNAME_FIELD: username}).first()
        if user is not None:
            return self._user(username)
        user = model(**{model.USERNAME_FIELD: username})
        user.set_unusable_password()
        user.full_clean(exclude=["password"])
        user.save()
        self.stderr.write(
            f"Created the API-only user {username!r} (no password, no admin login). It sees no "
            "campaign until you grant it analyst access on the campaign's page."
        )
        return user
