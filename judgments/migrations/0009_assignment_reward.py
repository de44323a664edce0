"""Each assignment keeps the reward it was taken at (``Assignment.reward``): until now the
report and the API priced every assignment at its HIT's or the campaign's reward of the day,
so raising the reward re-priced work already submitted at the old one.

Assignments made before this migration get what they were most likely offered: the reward
their HIT was published on MTurk with (campaigns 0021), else the HIT's own, else the
campaign's. Imported judgments (workers of platform "imported") were paid elsewhere and keep
no reward, as new imports do. Reversing drops the column.
"""

import django.core.validators
from decimal import Decimal
from django.db import migrations, models
from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce


def rewards_taken_at(apps, schema_editor):
    Assignment = apps.get_model("judgments", "Assignment")
    Worker = apps.get_model("judgments", "Worker")
    Hit = apps.get_model("campaigns", "Hit")
    MTurkHit = apps.get_model("campaigns", "MTurkHit")
    Campaign = apps.get_model("campaigns", "Campaign")
    Assignment.objects.filter(
        reward__isnull=True,
        worker_id__in=Worker.objects.exclude(platform="imported").values("pk"),
    ).update(
        reward=Coalesce(
            Subquery(MTurkHit.objects.filter(hit_id=OuterRef("hit_id")).values("reward")[:1]),
            Subquery(Hit.objects.filter(pk=OuterRef("hit_id")).values("reward")[:1]),
            Subquery(Campaign.objects.filter(pk=OuterRef("campaign_id")).values("reward")[:1]),
            output_field=models.DecimalField(max_digits=8, decimal_places=2),
        )
    )


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0021_mturk_hit_reward_and_verification_reward'),
        ('judgments', '0008_handout_frontier'),
    ]

    operations = [
        migrations.AddField(
            model_name='assignment',
            name='reward',
            field=models.DecimalField(blank=True, decimal_places=2, help_text="Pay for this assignment in US dollars, fixed when the worker took it (the HIT's reward then, else the campaign's; on MTurk the reward the HIT was published with). Empty: imported judgments, paid elsewhere.", max_digits=8, null=True, validators=[django.core.validators.MinValueValidator(Decimal('0'))]),
        ),
        migrations.RunPython(rewards_taken_at, migrations.RunPython.noop, elidable=True),
    ]
