from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("lockcheck", "0002_index_in_the_lock")]

    operations = [migrations.AlterField(model_name="round", name="score", field=models.BigIntegerField(default=0))]
