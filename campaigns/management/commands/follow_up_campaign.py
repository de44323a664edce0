"""manage.py follow_up_campaign: the command-line twin of the campaign page's "Create follow-up
campaign" (issue 17): a new draft campaign with the settings of a campaign whose HITs are
frozen and the segments none of its HITs shows."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from campaigns.actions import FollowUpError, create_follow_up
from campaigns.models import Campaign
from campaigns.names import campaign_by_name_or_id


class Command(BaseCommand):
    help = (
        "Create a follow-up campaign (a draft, owned like the campaign) with a campaign's "
        "settings and the segments no HIT of it shows, e.g. segments imported after workers "
        "started its HITs. Then build its HITs."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", help="The campaign's name or id.")

    def handle(self, *args, **options):
        try:
            campaign = campaign_by_name_or_id(options["campaign"])
        except (Campaign.DoesNotExist, Campaign.MultipleObjectsReturned) as error:
            raise CommandError(str(error)) from None
        try:
            new = create_follow_up(campaign)
        except FollowUpError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f'Created campaign {new.pk} "{new}" (draft) with the settings of "{campaign}" and '
            f"its {new.segments.count()} segment(s) that no HIT showed. Build its HITs next "
            "(admin: the campaign page's checklist)."
        )
