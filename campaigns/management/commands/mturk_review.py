"""manage.py mturk_review: the command-line twin of the admin's review actions and its
"Sync with MTurk now".

    manage.py mturk_review sync [CAMPAIGN_ID ...]
    manage.py mturk_review approve ASSIGNMENT ... [--feedback TEXT]
    manage.py mturk_review reject ASSIGNMENT ... --feedback TEXT
    manage.py mturk_review bonus ASSIGNMENT ... --amount 0.50 --reason TEXT [--force]
    manage.py mturk_review block WORKER ... --reason TEXT
    manage.py mturk_review notify WORKER ... --subject TEXT --message TEXT

An ASSIGNMENT is our id or MTurk's AssignmentId; a WORKER our id or their MTurk WorkerId.
Every id is resolved before anything is done: one unknown id stops the command with nothing
changed. The command prints what was done, what failed (with what to do) and what was skipped
(with why), and exits with an error when anything failed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db.models import Q

from campaigns.models import Campaign
from campaigns.platforms import review
from judgments.models import Assignment, Worker

OPERATIONS = ("sync", "approve", "reject", "bonus", "block", "notify")
CREATED_BY = "mturk_review command"


def _resolve(model: type, tokens: list[str], external_field: str, what: str) -> list[Any]:
    """Rows for ``tokens`` (our ids or the platform's ids), in the given order, one query.

    A token matching one row by our id and another by the platform's id is refused, like an
    unknown one: a script must never act on a row it did not mean.
    """
    numbers = [int(token) for token in tokens if token.isdigit()]
    rows = list(model.objects.filter(Q(pk__in=numbers) | Q(**{f"{external_field}__in": tokens})))
    by_pk = {row.pk: row for row in rows}
    by_external = {getattr(row, external_field): row for row in rows}
    found, unknown, ambiguous = [], [], []
    for token in dict.fromkeys(tokens):
        by_id = by_pk.get(int(token)) if token.isdigit() else None
        by_name = by_external.get(token)
        if by_id and by_name and by_id.pk != by_name.pk:
            ambiguous.append(token)
        elif by_id or by_name:
            found.append(by_id or by_name)
        else:
            unknown.append(token)
    problems = []
    if unknown:
        problems.append(f"No {what} with the id(s) {', '.join(unknown)}.")
    if ambiguous:
        problems.append(
            f"{', '.join(ambiguous)} name(s) two different {what}s (our id and the platform's)."
        )
    if problems:
        raise CommandError(" ".join(problems) + " Nothing was done.")
    return list(dict.fromkeys(found))


class Command(BaseCommand):
    help = (
        "Review crowd work: sync campaigns with MTurk, approve or reject assignments, pay "
        "bonuses, block or e-mail MTurk workers. Assignments by our id or MTurk AssignmentId, "
        "workers by our id or MTurk WorkerId, campaigns by id (sync without ids: every campaign "
        "the periodic sync reads)."
    )

    def add_arguments(self, parser):
        parser.add_argument("operation", choices=OPERATIONS)
        parser.add_argument(
            "ids", nargs="*", metavar="ID", help="Campaign, assignment or worker ids."
        )
        parser.add_argument("--feedback", default="", help="approve/reject: shown to the worker.")
        parser.add_argument("--amount", help="bonus: US dollars per assignment, e.g. 0.50.")
        parser.add_argument("--reason", default="", help="bonus (shown to the worker), block.")
        parser.add_argument(
            "--force",
            action="store_true",
            help="bonus: pay again where the same bonus was already paid, or retry a payment "
            "left unconfirmed for more than a day (check on requester.mturk.com first).",
        )
        parser.add_argument("--subject", default="", help="notify: the e-mail's subject.")
        parser.add_argument("--message", default="", help="notify: the e-mail's text.")

    def handle(self, *args: Any, **options: Any) -> None:
        operation, ids = options["operation"], options["ids"]
        if operation == "sync":
            self._sync(ids)
            return
        if not ids:
            kind = "worker" if operation in ("block", "notify") else "assignment"
            raise CommandError(f"Give the {kind} id(s) to {operation}.")
        if operation == "bonus" and not options["amount"]:
            raise CommandError("Give the bonus with --amount, e.g. --amount 0.50.")
        try:
            result = self._review(operation, ids, options)
        except ValueError as problem:
            raise CommandError(f"{problem} Nothing was done.") from problem
        self._print(result)
        if result.failed:
            raise CommandError(
                f"{len(result.failed)} item(s) failed and were left unchanged here; see what "
                "to do above, then run the command again for them."
            )

    def _review(self, operation: str, ids: list[str], options: dict[str, Any]):
        if operation in ("block", "notify"):
            workers = _resolve(Worker, ids, "external_id", "worker")
            if operation == "block":
                return review.block_workers(workers, options["reason"])
            return review.notify_workers(workers, options["subject"], options["message"])
        assignments = _resolve(Assignment, ids, "platform_assignment_id", "assignment")
        if operation == "approve":
            return review.approve_assignments(assignments, options["feedback"])
        if operation == "reject":
            return review.reject_assignments(assignments, options["feedback"])
        return review.send_bonuses(
            assignments, options["amount"], options["reason"], CREATED_BY, force=options["force"]
        )

    def _print(self, result: review.ReviewResult) -> None:
        self.stdout.write(f"Done ({len(result.done)}):")
        for item in result.done:
            self.stdout.write(f"  {item}")
        self.stdout.write(f"Failed ({len(result.failed)}):")
        for failure in result.failed:
            self.stdout.write(f"  {failure}")
        self.stdout.write(f"Skipped ({len(result.skipped)}):")
        for item, reason in result.skipped:
            self.stdout.write(f"  {item}: {reason}")

    def _sync(self, ids: list[str]) -> None:
        if ids:
            bad = [token for token in ids if not token.isdigit()]
            if bad:
                raise CommandError(f"Campaign ids are numbers: {', '.join(bad)}.")
            wanted = list(dict.fromkeys(int(token) for token in ids))
            known = set(Campaign.objects.filter(pk__in=wanted).values_list("pk", flat=True))
            missing = [str(pk) for pk in wanted if pk not in known]
            if missing:
                raise CommandError(f"No campaign with the id(s) {', '.join(missing)}.")
        else:
            wanted = review.campaigns_to_sync()
            if not wanted:
                self.stdout.write("No campaign has MTurk HITs to sync.")
                return
        failed = 0
        for campaign_id in wanted:
            report = review.sync_campaign(campaign_id)
            self.stdout.write(f"Campaign {campaign_id}: {report.summary()}")
            for note in report.notes:
                self.stdout.write(f"  Needs a person: {note.message} {note.what_to_do}")
            for failure in report.failed:
                self.stdout.write(f"  Failed: {failure}")
            failed += len(report.failed)
        if failed:
            raise CommandError(f"{failed} MTurk call(s) failed; see what to do above.")
