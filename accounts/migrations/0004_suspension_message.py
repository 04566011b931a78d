"""A suspension's internal note (``reason``) and what the player is told (``message``) are kept
apart. Suspensions made before told the player their reason, so it becomes their message."""

from django.db import migrations, models

from core.migration_ops import AddFieldWhileServing
from django.db.models import F


def reason_was_the_message(apps, schema_editor):
    apps.get_model("accounts", "Suspension").objects.update(message=F("reason"))


class Migration(migrations.Migration):
    dependencies = [("accounts", "0003_user_age_confirmed_at_user_terms_accepted_at_and_more")]

    operations = [
        AddFieldWhileServing(
            model_name="suspension",
            name="message",
            field=models.CharField(
                blank=True, help_text="What the player is told when they log in or try to play.", max_length=200
            ),
        ),
        migrations.AlterField(
            model_name="suspension",
            name="reason",
            field=models.CharField(help_text="Internal note: staff see it, the player never does.", max_length=200),
        ),
        migrations.RunPython(reason_was_the_message, migrations.RunPython.noop),
    ]
