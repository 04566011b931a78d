"""Accounts made before issue 37 had their sign-up bonus at sign-up: their mailboxes count as
having had it (the oldest account of a mailbox holds it), so a new account on one earns none."""

from django.db import migrations

from accounts.emails import email_key


def claim_existing_mailboxes(apps, schema_editor):
    User = apps.get_model("accounts", "User")
    BonusMailbox = apps.get_model("accounts", "BonusMailbox")
    taken = set(BonusMailbox.objects.values_list("key", flat=True))
    rows = []
    for pk, email in User.objects.filter(is_bot=False).exclude(email="").order_by("pk").values_list("pk", "email"):
        key = email_key(email)
        if key and key not in taken:
            taken.add(key)
            rows.append(BonusMailbox(key=key, user_id=pk))
    BonusMailbox.objects.bulk_create(rows, batch_size=1000)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0008_email_confirmation"),
    ]

    operations = [migrations.RunPython(claim_existing_mailboxes, migrations.RunPython.noop)]
