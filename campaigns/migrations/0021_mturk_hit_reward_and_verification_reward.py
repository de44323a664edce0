"""What work pays: the reward each MTurk HIT was published with (MTurk fixes it per HIT, so
a later change of the campaign's reward must not re-price it), and post-editing's own reward
for verification HITs (until now they silently paid the editing reward).

HITs published before this migration get the reward they would have been published with: the
HIT's own, else the campaign's (``campaigns.platforms.publishing.planning`` publishes only HITs
whose own reward is empty or the campaign's). A campaign's reward changed after publishing
cannot be told from here; its value today is the best there is.
"""

import django.core.validators
from decimal import Decimal
from django.db import migrations, models
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce


def published_rewards(apps, schema_editor):
    MTurkHit = apps.get_model("campaigns", "MTurkHit")
    Hit = apps.get_model("campaigns", "Hit")
    hit = Hit.objects.filter(pk=OuterRef("hit_id"))
    MTurkHit.objects.filter(reward__isnull=True).update(
        reward=Coalesce(
            Subquery(hit.values("reward")[:1]),
            Subquery(hit.values("campaign__reward")[:1]),
            output_field=models.DecimalField(max_digits=8, decimal_places=2),
        )
    )


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0020_output_system_id_covering_index'),
    ]

    operations = [
        migrations.AddField(
            model_name='mturkhit',
            name='reward',
            field=models.DecimalField(blank=True, decimal_places=2, help_text="The reward per assignment the HIT was published with, in US dollars: what MTurk pays its workers whatever the campaign's reward is now.", max_digits=8, null=True),
        ),
        migrations.AddField(
            model_name='posteditingsettings',
            name='verification_reward',
            field=models.DecimalField(blank=True, decimal_places=2, help_text="Pay for one verification HIT (one edit's segments, two yes/no questions each), in US dollars. Empty: the campaign's reward, as an editing HIT. A change reaches verification HITs still to be taken; assignments already taken keep theirs.", max_digits=8, null=True, validators=[django.core.validators.MinValueValidator(Decimal('0'))]),
        ),
        migrations.RunPython(published_rewards, migrations.RunPython.noop, elidable=True),
    ]
