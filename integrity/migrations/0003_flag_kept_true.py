"""Flags keep what they were raised with and follow a state (open, weakened, lapsed), with a trail of
updates. Flags raised before were never updated: their figures are their first ones. The flag
table is written by every integrity scan while games go on, so the migration is not atomic: the
state column's indexes are built concurrently and the backfill commits batch by batch."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F, IntegerField
from django.db.models.expressions import RawSQL

from core.migration_ops import AddFieldWhileServing, InOneTransaction, in_batches

#: How many games a flag lists: the length of its ``games`` JSON array (0 when it is not an array).
GAMES_TOTAL = {
    "postgresql": "CASE WHEN jsonb_typeof(games) = 'array' THEN jsonb_array_length(games) ELSE 0 END",
    "sqlite": "CASE WHEN json_type(games) = 'array' THEN json_array_length(games) ELSE 0 END",
}


def keep_what_flags_were_raised_with(apps, schema_editor):
    """Flags raised before this migration were never updated: their figures are their first ones."""
    Flag = apps.get_model("integrity", "Flag")
    games_total = RawSQL(GAMES_TOTAL[schema_editor.connection.vendor], [], output_field=IntegerField())
    in_batches(
        Flag.objects.using(schema_editor.connection.alias),
        lambda batch: batch.update(
            first_figures=F("figures"),
            first_summary=F("summary"),
            first_score=F("score"),
            games_total=games_total,
        ),
    )


class Migration(migrations.Migration):
    atomic = False  # CREATE INDEX CONCURRENTLY and a backfill committed batch by batch

    dependencies = [
        ('integrity', '0002_alter_flag_signal_alter_signalrow_signal'),
    ]

    operations = [
        # quick changes of the flag table together: stopped by lock_timeout, none has happened
        InOneTransaction(
            AddFieldWhileServing(
                model_name='flag',
                name='first_figures',
                field=models.JSONField(blank=True, default=dict),
            ),
            AddFieldWhileServing(
                model_name='flag',
                name='first_score',
                field=models.FloatField(default=0.0),
            ),
            AddFieldWhileServing(
                model_name='flag',
                name='first_summary',
                field=models.CharField(blank=True, max_length=300),
            ),
            AddFieldWhileServing(
                model_name='flag',
                name='games_total',
                field=models.PositiveIntegerField(default=0),
            ),
            AddFieldWhileServing(
                model_name='flag',
                name='lapse_reason',
                field=models.CharField(blank=True, max_length=300),
            ),
            AddFieldWhileServing(
                model_name='flag',
                name='lapsed_at',
                field=models.DateTimeField(blank=True, null=True),
            ),
        ),
        AddFieldWhileServing(
            model_name='flag',
            name='state',
            field=models.CharField(choices=[('open', 'Open'), ('weakened', 'Weakened: the signal no longer flags it'), ('lapsed', 'Lapsed: closed by the scan')], db_index=True, default='open', max_length=8),
        ),
        InOneTransaction(
            AddFieldWhileServing(
                model_name='flag',
                name='weakened_at',
                field=models.DateTimeField(blank=True, null=True),
            ),
            migrations.AlterField(
                model_name='flag',
                name='games',
                field=models.JSONField(default=list, help_text='Ids of the games listed: the first ones and the latest (at most 50).'),
            ),
            migrations.CreateModel(
                name='FlagUpdate',
                fields=[
                    ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                    ('at', models.DateTimeField()),
                    ('kind', models.CharField(choices=[('raised', 'Raised'), ('updated', 'Evidence changed'), ('weakened', 'Weakened'), ('strengthened', 'Flagged again'), ('lapsed', 'Lapsed'), ('reopened', 'Reopened')], max_length=12)),
                    ('summary', models.CharField(blank=True, max_length=300)),
                    ('figures', models.JSONField(blank=True, default=dict)),
                    ('score', models.FloatField(default=0.0)),
                    ('games_total', models.PositiveIntegerField(default=0)),
                    ('note', models.CharField(blank=True, max_length=300)),
                    ('flag', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='updates', to='integrity.flag')),
                ],
                options={
                    'verbose_name': 'flag update',
                    'ordering': ['at', 'id'],
                },
            ),
        ),
        migrations.RunPython(keep_what_flags_were_raised_with, migrations.RunPython.noop),
    ]
