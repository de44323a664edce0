"""What the campaign commands take from their command line, checked the same way everywhere:
a campaign by name or id, an existing file (a CommandError that says what is wrong)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import CommandError

from campaigns.models import Campaign
from campaigns.names import campaign_by_name_or_id

# What an import command says under its problems (the file was checked whole first).
NOTHING_IMPORTED = (
    "Nothing was imported. Fix the problems listed above in the file and run the command "
    "again (add --dry-run to check the file without importing)."
)


def campaign_argument(value: str) -> Campaign:
    """The campaign named, else numbered, ``value``."""
    try:
        return campaign_by_name_or_id(value)
    except Campaign.MultipleObjectsReturned as error:  # the message lists them and their ids
        raise CommandError(str(error)) from None
    except Campaign.DoesNotExist:
        raise CommandError(f'No campaign named or numbered "{value}".') from None


def file_argument(value: str) -> Path:
    """The path ``value``, which must be a file."""
    path = Path(value)
    if not path.is_file():
        raise CommandError(f"No file {path}.")
    return path
