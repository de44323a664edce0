# Issue 12: the score systems are ranked by, and the human reference of WMT's ranking files,
# left out of the tables as WMT does.

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0008_kind_settings"),
    ]

    operations = [
        migrations.AddField(
            model_name="rankingsettings",
            name="rank_by",
            field=models.CharField(
                choices=[
                    ("win_ratio_geq", "Win ratio, ties count as wins (000, WMT08)"),
                    ("win_ratio_gt", "Win ratio, ties do not count (002)"),
                    (
                        "win_ratio_wmt12",
                        "Win ratio, ties left out: wins / (wins + losses) (WMT12)",
                    ),
                    ("expected_wins", "Expected Wins (WMT13)"),
                    ("bradley_terry", "Bradley-Terry log-strength"),
                    ("trueskill", "TrueSkill mu (WMT14 settings)"),
                ],
                default="expected_wins",
                help_text="The score that ranks the systems in the results, the API and the "
                "exports (every score is computed and shown): WMT08-11 ranked by ties-as-wins, "
                "WMT12 by '> others' with ties left out, WMT13 by Expected Wins, WMT14-16 by "
                "TrueSkill.",
                max_length=16,
            ),
        ),
        migrations.AddField(
            model_name="rankingsettings",
            name="reference_system",
            field=models.CharField(
                blank=True,
                help_text="The system that is the human reference ranked with the systems "
                "(WMT's files call it _ref or ref; imports fill this in). Blank: none.",
                max_length=200,
            ),
        ),
        migrations.AddField(
            model_name="rankingsettings",
            name="exclude_reference",
            field=models.BooleanField(
                default=True,
                help_text="Leave the reference out of the system table and of every other "
                "system's comparisons (as WMT's tables do). Off: the reference is scored like "
                "a system.",
            ),
        ),
    ]
