"""manage.py import_segments: the command-line twin of the admin's "Import segments" page."""

from __future__ import annotations

import os

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from campaigns.importers import (
    FORMATS,
    ImportFailed,
    WmtFiles,
    check_import,
    format_for_content,
    parse_system_args,
    write_checked,
)
from campaigns.kinds import new_campaign
from campaigns.management.progress import ProgressBar
from campaigns.models import AssessmentMode, Campaign, TaskKind
from campaigns.names import campaign_by_name_or_id, same_owner_campaign

NEXT_STEP = (
    "Nothing was imported. Fix the problems listed above in the files and run the command "
    "again (add --dry-run to check the files without importing)."
)


class Command(BaseCommand):
    help = (
        "Import documents, segments, references and system outputs into a campaign. Formats: "
        "tsv, csv, jsonl (one row per system output), wmt (plain-text source, reference and "
        "system files), appraise (Appraise batch JSON); see docs/import-formats.md. Every file "
        "is checked completely first; a file with any problem imports nothing."
    )

    def add_arguments(self, parser):
        target = parser.add_mutually_exclusive_group(required=True)
        target.add_argument(
            "--campaign", metavar="NAME_OR_ID", help="An existing campaign, by name or id."
        )
        target.add_argument(
            "--create",
            metavar="NAME",
            help="Create a campaign with this name (needs --kind and the languages).",
        )
        parser.add_argument("--kind", choices=TaskKind.values, help="With --create.")
        parser.add_argument("--source-language", metavar="CODE", help="With --create, e.g. de.")
        parser.add_argument("--target-language", metavar="CODE", help="With --create, e.g. en.")
        parser.add_argument(
            "--assessment-mode",
            choices=AssessmentMode.values,
            help="With --create --kind direct_assessment.",
        )
        parser.add_argument(
            "--format",
            choices=FORMATS,
            help="Default: from the file extension (.tsv .csv .jsonl, .json = appraise) or "
            "the first line (the separator of its column names), or wmt when --source is given.",
        )
        parser.add_argument(
            "files",
            nargs="*",
            metavar="FILE",
            help="The file to import (tsv, csv, jsonl, appraise).",
        )
        wmt = parser.add_argument_group("wmt plain-text files")
        wmt.add_argument("--source", metavar="FILE", help="Source segments, one per line.")
        wmt.add_argument(
            "--reference",
            metavar="FILE",
            action="append",
            default=[],
            help="A reference file (repeat for more references; the first is the main one).",
        )
        wmt.add_argument(
            "--system",
            metavar="NAME=FILE",
            action="append",
            default=[],
            help="A system's outputs (repeat for each system). A bare FILE takes its name from "
            "the file names: the dot-separated parts all system files share are dropped.",
        )
        wmt.add_argument("--docids", metavar="FILE", help="Document id of each source line.")
        parser.add_argument(
            "--dry-run", action="store_true", help="Check everything, write nothing."
        )

    def handle(self, *args, **options):
        campaign = self.campaign(options)
        fmt, files = self.files(options)
        show_bars = options["verbosity"] > 0
        stream = getattr(self.stderr, "_out", self.stderr)
        parse_bar = ProgressBar("reading", "lines", stream, show_bars)
        write_bar = ProgressBar("writing", "rows", stream, show_bars)
        try:
            try:
                checked = check_import(campaign, fmt, files, parse_progress=parse_bar)
            finally:
                parse_bar.close()
            if options["dry_run"]:
                summary = checked.summary
                if campaign.pk is None:
                    self.stdout.write(f'Campaign "{campaign.name}" would be created.')
            else:
                try:
                    summary = write_checked(checked, progress=write_bar)
                finally:
                    write_bar.close()
                if options["create"]:
                    self.stdout.write(f'Created campaign "{campaign.name}" (id {campaign.pk}).')
        except ImportFailed as failure:
            self.stderr.write(failure.headline)
            for line in failure.lines():
                self.stderr.write(line)
            raise CommandError(NEXT_STEP, returncode=1) from None
        self.stdout.write(summary.message)

    def campaign(self, options) -> Campaign:
        if options["campaign"]:
            value = options["campaign"]
            try:
                # Names are unique per owner only (issue 11 item 8): a name several campaigns
                # share is refused, listing their ids and owners.
                campaign = campaign_by_name_or_id(value)
            except Campaign.MultipleObjectsReturned as error:
                raise CommandError(str(error)) from None
            except Campaign.DoesNotExist:
                raise CommandError(
                    f'No campaign named or numbered "{value}". Use --create NAME to make one.'
                ) from None
            for option in ("kind", "source_language", "target_language", "assessment_mode"):
                if options[option]:
                    flag = "--" + option.replace("_", "-")
                    raise CommandError(f"{flag} goes with --create, not with --campaign.")
            return campaign

        missing = [
            "--" + option.replace("_", "-")
            for option in ("kind", "source_language", "target_language")
            if not options[option]
        ]
        if missing:
            raise CommandError(f"--create needs {', '.join(missing)}.")
        settings = {}
        if options["assessment_mode"]:
            settings["assessment_mode"] = options["assessment_mode"]
        try:
            created = new_campaign(
                kind=options["kind"],
                settings=settings,
                name=options["create"],
                source_language=options["source_language"],
                target_language=options["target_language"],
            )
        except (TypeError, ValueError) as error:  # a setting the kind does not have
            raise CommandError(f"Cannot create the campaign: {error}") from None
        campaign = created.campaign
        # A campaign created here has no owner: its name must be free among the campaigns
        # without owner (those of other owners do not matter; issue 11 item 8).
        clash = same_owner_campaign(campaign.name, None)
        if clash is not None:
            raise CommandError(
                f"Cannot create the campaign: campaign {clash.pk} (no owner) is named "
                f'"{campaign.name}" already; choose another name, or add to it with '
                f"--campaign {clash.pk}."
            )
        try:
            created.full_clean()
        except ValidationError as error:
            messages = [
                f"{name}: {message}" if name != "__all__" else message
                for name, messages in error.message_dict.items()
                for message in messages
            ]
            raise CommandError("Cannot create the campaign: " + " ".join(messages)) from None
        return campaign

    def files(self, options):
        wmt_given = bool(
            options["source"] or options["reference"] or options["system"] or options["docids"]
        )
        fmt = options["format"]
        if fmt is None:
            if wmt_given:
                fmt = "wmt"
            elif len(options["files"]) == 1:
                fmt = _format_of(options["files"][0])
            else:
                raise CommandError(
                    "Give one file to import (or --source, --reference and --system for wmt)."
                )

        if fmt == "wmt":
            if options["files"]:
                raise CommandError(
                    "The wmt format takes its files as --source, --reference, --system and "
                    "--docids, not as plain arguments: " + " ".join(options["files"])
                )
            if not options["source"]:
                raise CommandError("The wmt format needs --source FILE.")
            try:
                systems = parse_system_args(options["system"])
            except ValueError as error:
                raise CommandError(str(error)) from None
            paths = [options["source"], *options["reference"], *systems.values()]
            if options["docids"]:
                paths.append(options["docids"])
            _must_exist(paths)
            return fmt, WmtFiles(
                source=options["source"],
                references=list(options["reference"]),
                systems=systems,
                docids=options["docids"],
            )

        if wmt_given:
            raise CommandError(
                "--source, --reference, --system and --docids belong to the wmt format."
            )
        if len(options["files"]) != 1:
            raise CommandError(f"The {fmt} format takes exactly one file.")
        _must_exist(options["files"])
        return fmt, options["files"][0]


def _format_of(path: str) -> str:
    """The format of the file, as the admin's import page detects it: from its extension,
    else its first line; a .tsv or .csv file whose header is separated by another separator
    is what its header says (campaigns.importers.format_for_content)."""
    head = b""
    if os.path.isfile(path):  # a missing file is reported with the others
        with open(path, "rb") as file:
            head = file.read(4096)
    fmt = format_for_content(path, head)
    if fmt is None:
        raise CommandError(
            f"Cannot tell the format of {path} from its extension (.tsv .csv .jsonl .json) or "
            "its first line; give --format."
        )
    return fmt


def _must_exist(paths: list[str]) -> None:
    missing = [path for path in paths if not os.path.isfile(path)]
    if missing:
        raise CommandError("No such file: " + ", ".join(missing))
