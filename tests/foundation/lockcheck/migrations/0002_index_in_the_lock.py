from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("lockcheck", "0001_initial")]

    operations = [migrations.AddIndex(model_name="round", index=models.Index(fields=["score"], name="round_score"))]
