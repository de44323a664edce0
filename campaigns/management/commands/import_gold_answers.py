"""manage.py import_gold_answers: the command-line twin of the gold answers' "Import gold
answers" page (campaigns/kinds/ranking/gold_import.py)."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from campaigns.importers.problems import ImportFailed
from campaigns.kinds.ranking.gold_import import FORMATS, import_gold_answers
from campaigns.models import Campaign
from campaigns.names import campaign_by_name_or_id

NEXT_STEP = (
    "Nothing was imported. Fix the problems listed above in the file and run the command "
    "again (add --dry-run to check the file without importing)."
)


class Command(BaseCommand):
    help = (
        "Import a ranking campaign's gold answers: TSV or CSV with a header row naming doc_id, "
        "seg_id, best_system and optionally worst_system, one gold segment per row. The whole "
        "file is checked first; a file with any problem imports nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", metavar="CAMPAIGN", help="The campaign's id or name.")
        parser.add_argument("file", metavar="FILE", help="The gold answers (.tsv or .csv).")
        parser.add_argument("--format", choices=FORMATS, help="Default: from the file's extension.")
        parser.add_argument(
            "--replace",
            action="store_true",
            help="Delete the campaign's gold answers and keep the file's only.",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Check everything, write nothing."
        )

    def handle(self, *args, **options):
        value = options["campaign"]
        try:
            campaign = campaign_by_name_or_id(value)
        except Campaign.MultipleObjectsReturned as error:
            raise CommandError(str(error)) from None
        except Campaign.DoesNotExist:
            raise CommandError(f'No campaign named or numbered "{value}".') from None
        path = Path(options["file"])
        if not path.is_file():
            raise CommandError(f"No file {path}.")
        try:
            summary = import_gold_answers(
                campaign,
                path,
                fmt=options["format"],
                replace=options["replace"],
                dry_run=options["dry_run"],
            )
        except ImportFailed as failure:
            self.stderr.write(failure.headline)
            for line in failure.lines():
                self.stderr.write(line)
            raise CommandError(NEXT_STEP, returncode=1) from None
        self.stdout.write(summary.message)
