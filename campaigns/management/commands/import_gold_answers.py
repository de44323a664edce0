"""manage.py import_gold_answers: the command-line twin of the gold answers' "Import gold
answers" page (campaigns/kinds/ranking/gold_import.py)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from campaigns.importers.problems import ImportFailed
from campaigns.kinds.ranking.gold_import import FORMATS, import_gold_answers
from campaigns.management.arguments import NOTHING_IMPORTED, campaign_argument, file_argument


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
        campaign = campaign_argument(options["campaign"])
        path = file_argument(options["file"])
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
            raise CommandError(NOTHING_IMPORTED, returncode=1) from None
        self.stdout.write(summary.message)
