"""manage.py mturk_hits: the command-line twin of the admin's MTurk publishing pages.

    manage.py mturk_hits plan    CAMPAIGN [--hits 1-10,15]
    manage.py mturk_hits publish CAMPAIGN [--hits ...] [--yes]
    manage.py mturk_hits expire  CAMPAIGN [--hits ...] [--yes]
    manage.py mturk_hits extend  CAMPAIGN --days N [--hits ...]
    manage.py mturk_hits balance CAMPAIGN

CAMPAIGN is a campaign's name or id; ``--hits`` takes the campaign's HIT numbers (as in the
admin's HIT list). Everything goes through :mod:`campaigns.platforms.publishing`, like the
admin, so both check and report the same way.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from campaigns import links
from campaigns.models import Campaign, MTurkHit
from campaigns.platforms import publishing

ACTIONS = ("plan", "publish", "expire", "extend", "balance")


class Command(BaseCommand):
    help = (
        "Publish a campaign to Amazon Mechanical Turk (sandbox or production, as the campaign "
        "says), show what it would publish and cost, end or extend its HITs, or show the "
        "account balance."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("action", choices=ACTIONS)
        parser.add_argument("campaign", metavar="CAMPAIGN", help="The campaign's name or id.")
        parser.add_argument(
            "--hits",
            metavar="NUMBERS",
            default="",
            help="Only these HIT numbers of the campaign, e.g. 1-10,15 (default: all).",
        )
        parser.add_argument(
            "--yes", action="store_true", help="Publish or expire without asking first."
        )
        parser.add_argument(
            "--days",
            metavar="N",
            help=f"extend: keep the HITs open N days from now (1 to {publishing.MAX_EXTEND_DAYS}).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = self.find_campaign(options["campaign"])
        hit_ids = self.hit_ids(campaign, options["hits"])
        action = options["action"]
        if options["days"] is not None and action != "extend":
            raise CommandError("--days goes with extend.")
        if action == "plan":
            current, funds = self.show_plan(campaign, hit_ids)
            if current.problems:
                raise CommandError("Publishing is not possible yet: see the problems above.")
        elif action == "balance":
            self.show_balance(campaign)
        elif action == "publish":
            self.publish(campaign, hit_ids, options)
        else:
            self.expire_or_extend(campaign, hit_ids, action, options)

    # --- arguments ----------------------------------------------------------------------------

    def find_campaign(self, value: str) -> Campaign:
        try:
            return links.campaign_by_name_or_id(value)
        except (Campaign.DoesNotExist, Campaign.MultipleObjectsReturned) as error:
            raise CommandError(str(error)) from None

    def hit_ids(self, campaign: Campaign, text: str) -> list[int] | None:
        if not text.strip():
            return None
        try:
            numbers = publishing.parse_hit_numbers(text)
            if not numbers:
                raise ValueError("--hits names no HIT number.")
            return publishing.hit_ids_for_numbers(campaign, numbers)
        except ValueError as error:
            raise CommandError(str(error)) from None

    def confirm(self, question: str, options: dict[str, Any]) -> None:
        if options["yes"]:
            return
        try:
            answer = input(f"{question} Type yes to go on: ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes"):
            raise CommandError("Nothing was done (not confirmed; add --yes to skip the question).")

    # --- actions ------------------------------------------------------------------------------

    def show_plan(
        self, campaign: Campaign, hit_ids: list[int] | None
    ) -> tuple[publishing.Plan, publishing.Funds]:
        """Print the same summary as the admin's confirmation page, with the balance."""
        current = publishing.plan(campaign, hit_ids)
        for line in current.summary_lines():
            self.stdout.write(line)
        funds = publishing.check_funds(campaign)
        self.stdout.write(funds.summary(current.total_cost))
        return current, funds

    def show_balance(self, campaign: Campaign) -> None:
        funds = publishing.check_funds(campaign)
        if funds.error is not None:
            raise CommandError(funds.summary(Decimal(0)))
        self.stdout.write(funds.summary(Decimal(0)))

    def publish(self, campaign: Campaign, hit_ids: list[int] | None, options) -> None:
        current, funds = self.show_plan(campaign, hit_ids)
        if current.problems:
            raise CommandError("Nothing was published: fix the problems listed above first.")
        if not current.hit_count:
            self.stdout.write("Nothing to publish: every HIT is already on MTurk.")
            return
        if not funds.covers(current.total_cost):
            raise CommandError("Nothing was published: " + funds.summary(current.total_cost))
        self.confirm(
            f"Publish {current.hit_count} HIT(s) to MTurk's {current.environment.upper()} for at "
            f"most ${current.total_cost:.2f}?",
            options,
        )
        stream = getattr(self.stderr, "_out", self.stderr)
        with tqdm(
            total=current.hit_count,
            desc="publishing",
            unit=" HITs",
            file=stream,
            disable=None if options["verbosity"] > 0 else True,  # None: off without a terminal
            leave=False,
        ) as bar:
            result = publishing.publish(
                campaign.pk,
                [hit.pk for hit in current.hits],
                progress=lambda done, total: bar.update(done - bar.n),
                # What was printed and confirmed, or nothing: the campaign may change while
                # the question waits for an answer.
                expected=current.fingerprint(),
            )
        if not result.ok:
            raise CommandError(result.message())
        self.stdout.write(result.message())
        for url in result.preview_urls:
            self.stdout.write(f"See them as workers do: {url}")

    def expire_or_extend(
        self, campaign: Campaign, hit_ids: list[int] | None, action: str, options
    ) -> None:
        rows = MTurkHit.objects.filter(hit__campaign=campaign).order_by("hit__number")
        if hit_ids is not None:
            rows = rows.filter(hit_id__in=hit_ids)
        if action == "expire":
            rows = rows.filter(expired_by_requester_at__isnull=True)
            count = rows.count()
            if not count:
                self.stdout.write("No MTurk HIT to end: none published, or all already ended.")
                return
            self.confirm(
                f"End {count} MTurk HIT(s) of {campaign.name} on MTurk's "
                f"{publishing.environment_label(campaign.mturk_sandbox).upper()} now?",
                options,
            )
            result = publishing.expire(rows)
        else:
            if options["days"] is None:
                raise CommandError("extend needs --days N (the new expiry, in days from now).")
            try:
                until = publishing.days_from_now(options["days"])
            except ValueError as error:
                raise CommandError(str(error)) from None
            if not rows.exists():
                self.stdout.write("No MTurk HIT to extend: nothing of this campaign is published.")
                return
            result = publishing.extend(rows, until)
        if result.failed:
            raise CommandError(result.message())
        self.stdout.write(result.message())
