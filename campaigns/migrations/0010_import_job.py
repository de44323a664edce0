# Issue 11 item 6: big imports run as Celery jobs (campaigns.import_jobs.models.ImportJob).

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('campaigns', '0009_ranking_reference'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ImportJob',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('segments', 'segments'), ('judgments', 'judgments')], max_length=16)),
                ('format', models.CharField(max_length=32)),
                ('options', models.JSONField(blank=True, default=dict)),
                ('files', models.JSONField(blank=True, default=list)),
                ('size', models.BigIntegerField(default=0, help_text='Bytes uploaded.')),
                ('status', models.CharField(choices=[('queued', 'waiting for a worker'), ('checking', 'checking'), ('writing', 'writing'), ('done', 'done'), ('failed', 'failed')], default='queued', max_length=16)),
                ('phase', models.CharField(blank=True, max_length=32)),
                ('done', models.BigIntegerField(default=0)),
                ('total', models.BigIntegerField(default=0)),
                ('result', models.JSONField(blank=True, null=True)),
                ('problems', models.JSONField(blank=True, default=list)),
                ('problem_total', models.PositiveIntegerField(default=0)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('started_at', models.DateTimeField(blank=True, null=True)),
                ('heartbeat_at', models.DateTimeField(blank=True, null=True)),
                ('finished_at', models.DateTimeField(blank=True, null=True)),
                ('campaign', models.ForeignKey(blank=True, help_text='The campaign imported into (for a new campaign: once it is written).', null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='import_jobs', to='campaigns.campaign')),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='import_jobs', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ('-created_at', '-pk'),
                'indexes': [models.Index(fields=['status', 'heartbeat_at'], name='importjob_running')],
            },
        ),
    ]
