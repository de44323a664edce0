# Issue 12: WMT12's "> others" win ratio (ties left out of the denominator) is stored too.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("analytics", "0005_campaignaccess_level"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="rankingscore",
            name="ranking_score_method_valid",
        ),
        migrations.AlterField(
            model_name="rankingscore",
            name="method",
            field=models.CharField(
                choices=[
                    ("win_ratio_geq", "Win ratio, ties count as wins (000, WMT08)"),
                    ("win_ratio_gt", "Win ratio, ties do not count (002)"),
                    ("win_ratio_wmt12", "Win ratio, ties left out: wins / (wins + losses) (WMT12)"),
                    ("expected_wins", "Expected Wins (WMT13)"),
                    ("bradley_terry", "Bradley-Terry log-strength"),
                    ("trueskill", "TrueSkill mu (WMT14 settings)"),
                ],
                max_length=16,
            ),
        ),
        migrations.AddConstraint(
            model_name="rankingscore",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    (
                        "method__in",
                        [
                            "win_ratio_geq",
                            "win_ratio_gt",
                            "win_ratio_wmt12",
                            "expected_wins",
                            "bradley_terry",
                            "trueskill",
                        ],
                    )
                ),
                name="ranking_score_method_valid",
            ),
        ),
    ]
