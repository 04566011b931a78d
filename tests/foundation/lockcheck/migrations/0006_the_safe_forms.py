from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models, transaction

BATCH = 1000


def halve_scores(apps, schema_editor):
    Round = apps.get_model("lockcheck", "Round")
    last = 0
    while True:  # one short transaction a batch
        with transaction.atomic():
            ids = list(Round.objects.filter(pk__gt=last).order_by("pk").values_list("pk", flat=True)[:BATCH])
            if not ids:
                return
            Round.objects.filter(pk__in=ids).update(score=models.F("score") / 2)
        last = ids[-1]


class Migration(migrations.Migration):
    atomic = False  # CONCURRENTLY cannot run in a transaction; the backfill commits batch by batch
    dependencies = [("lockcheck", "0005_backfill_row_by_row")]

    operations = [
        AddIndexConcurrently(model_name="round", index=models.Index(fields=["label"], name="round_label")),
        migrations.AddField(model_name="round", name="deals", field=models.IntegerField(db_default=0)),
        migrations.RunPython(halve_scores, migrations.RunPython.noop),
    ]
