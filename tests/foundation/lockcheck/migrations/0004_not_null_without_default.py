from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("lockcheck", "0003_type_change")]

    operations = [
        migrations.AddField(
            model_name="round", name="seats", field=models.IntegerField(default=2), preserve_default=False
        )
    ]
