"""manage.py import_judgments: the command-line twin of the admin's "Import judgments" page.

    python manage.py import_judgments --format wmt-da ad-csen-good-raw.csv --name "WMT21 cs-en"
    python manage.py import_judgments --format wmt-da ad-csen-good-stnd.csv --standardised \\
        --name "WMT21 cs-en (z)"
    python manage.py import_judgments --format wmt10-rr wmt12.RNK_results.csv --name "WMT12" \\
        --source-language cs --target-language en
    python manage.py import_judgments --format mturk-batch Batch_123_batch_results.csv
"""

from __future__ import annotations

import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from campaigns.importers.judgments import (
    MTURK_BATCH,
    ImportFailed,
    ImportOptions,
    check_judgment_import,
    judgment_formats,
    write_checked_judgments,
)
from campaigns.management.progress import ProgressBar
from campaigns.models import Campaign

NEXT_STEP = (
    "Nothing was imported. Fix the problems listed above and run the command again (add "
    "--dry-run to check the files without importing)."
)


class Command(BaseCommand):
    help = (
        "Import published judgment files into a campaign of imported judgments (created, or "
        "added to when --name names one), then compute its statistics. Formats: wmt-da, "
        "appraise, wmt08-rr, wmt10-rr, post-edits; mturk-batch reconciles MTurk's batch "
        "results with our own assignments. See docs/judgment-formats.md. Every file "
        "is checked completely "
        "first; an import with any problem writes nothing."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument(
            "--format", required=True, choices=tuple(judgment_formats()), dest="fmt"
        )
        parser.add_argument("files", nargs="+", metavar="FILE", help="The file(s) to import.")
        parser.add_argument(
            "--name",
            default="",
            help="The campaign: a new name, or an existing imported campaign of the same kind "
            "to add to. Not needed for mturk-batch (the assignments say which campaign).",
        )
        parser.add_argument(
            "--campaign",
            type=int,
            metavar="ID",
            help="An existing imported campaign to add to, by id: for a name several "
            "campaigns share (names are unique per owner only).",
        )
        parser.add_argument(
            "--source-language",
            default="",
            metavar="CODE",
            help="A new campaign's source language code; default: the file's, when it names "
            "its languages by code (wmt-da, appraise).",
        )
        parser.add_argument("--target-language", default="", metavar="CODE")
        parser.add_argument(
            "--standardised",
            action="store_true",
            help="wmt-da: the scores are z-scores (WMT's *-stnd files), not raw 0-100 scores.",
        )
        parser.add_argument(
            "--language-pair",
            default="",
            metavar="PAIR",
            help="For a file holding several language pairs (e.g. de-en): import only this "
            "pair's rows; also gives a new campaign's language codes.",
        )
        parser.add_argument(
            "--reference-system",
            default="",
            metavar="SYSTEM",
            help="Ranking files: the system that is the human reference, left out of the "
            "scores as WMT does (default: the system named _ref or ref, if any).",
        )
        parser.add_argument(
            "--workers-counted",
            default="",
            choices=["reliable", "everyone"],
            help="Direct assessment: whose judgments the system table counts: reliable (test "
            "each worker on the bad references) or everyone (the file was filtered before, as "
            "WMT's good files, or holds no quality control). Default: decided from the file "
            "(everyone when it holds no bad reference, as the summary says).",
        )
        parser.add_argument(
            "--owner", metavar="USERNAME", help="The requester who owns a new campaign."
        )
        parser.add_argument("--dry-run", action="store_true", help="Check, write nothing.")

    def handle(self, *args, **options) -> None:
        missing = [path for path in options["files"] if not os.path.isfile(path)]
        if missing:
            raise CommandError("No such file: " + ", ".join(missing))
        campaign = None
        if options["campaign"] is not None:
            if options["name"].strip():
                raise CommandError("Give --name or --campaign, not both.")
            campaign = Campaign.objects.filter(pk=options["campaign"]).first()
            if campaign is None:
                raise CommandError(f"No campaign numbered {options['campaign']}.")
        elif options["fmt"] != MTURK_BATCH and not options["name"].strip():
            raise CommandError("Give the campaign a name with --name (or an id with --campaign).")
        import_options = ImportOptions(
            fmt=options["fmt"],
            name=options["name"],
            campaign=campaign,
            source_language=options["source_language"],
            target_language=options["target_language"],
            standardised=options["standardised"],
            language_pair=options["language_pair"],
            reference_system=options["reference_system"],
            workers_counted=options["workers_counted"],
            owner=self._owner(options["owner"]),
        )
        enabled = options["verbosity"] > 0
        stream = getattr(self.stderr, "_out", self.stderr)
        reading = ProgressBar("reading", "lines", stream, enabled)
        writing = ProgressBar("writing", "judgments", stream, enabled)
        try:
            try:
                checked = check_judgment_import(
                    options["files"], import_options, parse_progress=reading
                )
            finally:
                reading.close()
            if options["dry_run"]:
                summary = checked.summary
            else:
                try:
                    summary = write_checked_judgments(checked, progress=writing)
                finally:
                    writing.close()
        except ImportFailed as failure:
            self.stderr.write(failure.headline)
            for line in failure.lines():
                self.stderr.write(line)
            raise CommandError(NEXT_STEP, returncode=1) from None
        self.stdout.write(summary.message)
        if not summary.dry_run:
            self.stdout.write(f"Campaign id: {summary.campaign_id}")

    def _owner(self, username: str | None):
        if not username:
            return None
        model = get_user_model()
        try:
            return model.objects.get(**{model.USERNAME_FIELD: username})
        except model.DoesNotExist:
            raise CommandError(f"No user {username!r} to own the campaign.") from None
