"""manage.py import_rc_questions: the command-line twin of the reading-comprehension stages
page's "Import ready-made questions" (campaigns/kinds/reading_comprehension/imports.py)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from campaigns.importers.problems import ImportFailed
from campaigns.importers.rc_questions import FORMATS
from campaigns.kinds.reading_comprehension.imports import import_questions
from campaigns.management.arguments import NOTHING_IMPORTED, campaign_argument, file_argument


class Command(BaseCommand):
    help = (
        "Import ready-made reading-comprehension questions with sample answers into a "
        "campaign: TSV with a header row (doc_id, question, answer, optionally number) or JSON "
        "lines with the same keys. The questions are kept as they are; their articles skip "
        "writing and selection and go to review or answering. The whole file is checked first; "
        "a file with any problem imports nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", metavar="CAMPAIGN", help="The campaign's id or name.")
        parser.add_argument("file", metavar="FILE", help="The questions (.tsv or .jsonl).")
        parser.add_argument("--format", choices=FORMATS, help="Default: from the file's extension.")
        parser.add_argument(
            "--dry-run", action="store_true", help="Check everything, write nothing."
        )

    def handle(self, *args, **options):
        campaign = campaign_argument(options["campaign"])
        path = file_argument(options["file"])
        try:
            summary = import_questions(
                campaign, path, fmt=options["format"], dry_run=options["dry_run"]
            )
        except ImportFailed as failure:
            self.stderr.write(failure.headline)
            for line in failure.lines():
                self.stderr.write(line)
            raise CommandError(NOTHING_IMPORTED, returncode=1) from None
        self.stdout.write(summary.message)
