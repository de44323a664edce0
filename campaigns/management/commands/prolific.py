"""manage.py prolific: the command-line twin of the admin's "Prolific" page.

manage.py prolific study-url CAMPAIGN            the URL to paste into the Prolific study
manage.py prolific export CAMPAIGN [-o FILE]     the approvals as CSV
manage.py prolific export CAMPAIGN --ids-only    the participant ids to approve, one a line
"""

from __future__ import annotations

from contextlib import ExitStack

from django.core.management.base import BaseCommand, CommandError

from campaigns import links
from campaigns.models import Campaign


class Command(BaseCommand):
    help = (
        "Prolific studies: print a campaign's study URL (study-url), or export its "
        "submissions with the decision to approve or reject each (export)."
    )

    def add_arguments(self, parser):
        commands = parser.add_subparsers(
            dest="subcommand", metavar="{study-url,export}", required=True
        )
        study_url = commands.add_parser(
            "study-url",
            help="Print the study URL, with Prolific's placeholders, for the study's settings.",
        )
        study_url.add_argument("campaign", metavar="CAMPAIGN", help="The campaign's name or id.")
        export = commands.add_parser(
            "export",
            help="Write the approvals: CSV (participant_id, study_id, session_id, status, "
            "submitted_at, decision, reason), or with --ids-only the participant ids to "
            "approve, one per line, for Prolific's bulk approval.",
        )
        export.add_argument("campaign", metavar="CAMPAIGN", help="The campaign's name or id.")
        export.add_argument(
            "-o", "--output", metavar="FILE", help="Write here instead of to standard output."
        )
        export.add_argument(
            "--ids-only",
            action="store_true",
            help="Only the participant ids whose submissions to approve, one per line.",
        )

    def handle(self, *args, **options):
        try:
            campaign = links.campaign_by_name_or_id(options["campaign"])
        except (Campaign.DoesNotExist, Campaign.MultipleObjectsReturned) as error:
            raise CommandError(str(error)) from error
        if options["subcommand"] == "study-url":
            self.stdout.write(links.prolific_study_url(campaign))
            self._warn_about_codes(campaign)
            return
        submissions = links.prolific_approvals(campaign)
        with ExitStack() as stack:
            out = links.open_output(options["output"], stack, self.stdout)
            if options["ids_only"]:
                ids = links.participant_ids_to_approve(submissions)
                if ids:  # nothing at all when there is nobody to approve, not a blank line
                    out.write("".join(f"{pid}\n" for pid in ids))
            else:
                rows = (submission.as_row() for submission in submissions)
                links.write_csv(out, links.PROLIFIC_COLUMNS, rows)
        counts = links.decision_counts(submissions)
        self.stderr.write(
            f'Campaign "{campaign}": {len(submissions)} Prolific submission(s): '
            f"{counts['approve']} to approve, {counts['reject']} to reject, "
            f"{counts['wait']} still working, {counts['none']} left unfinished.",
            self.style.SUCCESS,
        )

    def _warn_about_codes(self, campaign: Campaign) -> None:
        if not campaign.prolific_completion_code:
            self.stderr.write(
                "The campaign has no Prolific completion code: participants who finish are "
                "asked to message you on Prolific. Set prolific_completion_code to the code "
                "in the study's settings.",
                self.style.WARNING,
            )
        note = links.status_note(campaign)
        if note:
            self.stderr.write(note, self.style.WARNING)
