"""manage.py worker_links: the command-line twin of the admin's "Create direct worker links"."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from campaigns import links
from campaigns.models import Campaign

# Below this many links the command finishes in a blink: no progress bar.
PROGRESS_FROM = 1000


class Command(BaseCommand):
    help = (
        "Create per-worker links to a campaign: one new pseudonymous worker per link, each link "
        "a signed token (never a password). Writes CSV (worker_id, label, link) to --output or "
        "standard output."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", metavar="CAMPAIGN", help="The campaign's name or id.")
        parser.add_argument(
            "--count",
            type=int,
            metavar="N",
            help=f"How many links (1 to {links.MAX_LINKS:,}). With --labels: the total, the "
            "first ones labelled.",
        )
        parser.add_argument(
            "--labels",
            metavar="FILE",
            help="A UTF-8 text file with one label per line (whom each link is for; '-' reads "
            "standard input). Blank lines are skipped.",
        )
        parser.add_argument(
            "-o",
            "--output",
            metavar="FILE",
            help="Write the CSV here instead of to standard output.",
        )

    def handle(self, *args, **options):
        try:
            campaign = links.campaign_by_name_or_id(options["campaign"])
        except (Campaign.DoesNotExist, Campaign.MultipleObjectsReturned) as error:
            raise CommandError(str(error)) from error
        labels = self._read_labels(options["labels"]) if options["labels"] else []
        try:
            planned = links.planned_labels(options["count"], labels)
            links.check_campaign_takes_links(campaign)
        except links.LinkRequestError as error:
            raise CommandError(f"{error.message} Nothing was created.") from error

        with ExitStack() as stack:
            # Opened before any worker is created: a path that cannot be written fails first.
            out = links.open_output(
                options["output"], stack, self.stdout, nothing_done="Nothing was created."
            )
            bar = stack.enter_context(
                tqdm(
                    total=len(planned),
                    unit="link",
                    desc="Creating workers",
                    file=sys.stderr,
                    disable=len(planned) < PROGRESS_FROM or None,
                )
            )
            rows = links.create_direct_links(campaign, planned, on_progress=bar.update)
            links.write_csv(out, links.LINK_COLUMNS, links.link_rows(rows))
        where = options["output"] or "standard output"
        self.stderr.write(
            f'Created {len(rows)} link(s) to campaign "{campaign}" (workers {rows[0].worker_id} '
            f"to {rows[-1].worker_id}); written to {where}.",
            self.style.SUCCESS,
        )
        note = links.status_note(campaign)
        if note:
            self.stderr.write(note, self.style.WARNING)

    def _read_labels(self, name: str) -> list[str]:
        try:
            if name == "-":
                text = sys.stdin.read()
            else:
                text = Path(name).read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as error:
            raise CommandError(
                f"Cannot read the labels file {name}: {error}. Give a UTF-8 text file with one "
                "label per line. Nothing was created."
            ) from error
        try:
            return links.parse_labels(text)
        except links.LinkRequestError as error:
            raise CommandError(f"{name}: {error.message} Nothing was created.") from error
