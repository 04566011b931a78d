from django.db import migrations


def double_scores(apps, schema_editor):
    Round = apps.get_model("lockcheck", "Round")
    for row in Round.objects.all():
        row.score *= 2
        row.save(update_fields=["score"])


class Migration(migrations.Migration):
    dependencies = [("lockcheck", "0004_not_null_without_default")]

    operations = [migrations.RunPython(double_scores, migrations.RunPython.noop)]
