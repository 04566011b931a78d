"""One account per e-mail address, whatever its case (issue 27): a unique index on LOWER(email),
blank addresses (bots, staff made on the command line) not counted.

Addresses stored twice before this: the oldest account (lowest id) keeps the address; each later
account with the same address (in any case) has its e-mail cleared, so the index can be built,
and the clearing is written to the staff audit trail (verb ``clear_duplicate_email``, no actor,
before and after) so support can find those players and ask them for an address of their own
(until then they cannot reset a forgotten password by e-mail). Nothing else about the accounts
changes. The reverse migration drops the index and restores nothing.

The user table is written by every sign-in and sign-up while the site runs: the index is built
``CONCURRENTLY`` and the clearing commits a batch of accounts at a time, so the migration is not
atomic. An address stored twice between the clearing and the build makes the build fail; running
the migration again clears it too and builds the index anew.
"""

from __future__ import annotations

import django.db.models.functions.text
from django.db import migrations, models, transaction
from django.db.backends.base.schema import BaseDatabaseSchemaEditor
from django.db.migrations.state import StateApps
from django.db.models.functions import Lower

from core.migration_ops import AddUniqueIndexWhileServing

#: Accounts cleared in one transaction.
BATCH = 500

REASON = (
    "e-mail addresses are unique per account from issue 27: an older account (id {keeper}) uses "
    "this address, so it was cleared here; ask the player for an address of their own"
)


def clear_duplicates(apps: StateApps, schema_editor: BaseDatabaseSchemaEditor) -> None:
    User = apps.get_model("accounts", "User")
    StaffAction = apps.get_model("staff", "StaffAction")
    ContentType = apps.get_model("contenttypes", "ContentType")
    keeper_of: dict[str, int] = {}
    cleared = []
    rows = User.objects.exclude(email="").annotate(address=Lower("email")).order_by("id")
    for user_id, username, email, address in rows.values_list("id", "username", "email", "address").iterator():
        if address not in keeper_of:
            keeper_of[address] = user_id
            continue
        cleared.append((user_id, username, email, keeper_of[address]))
    if not cleared:
        return
    user_type, _ = ContentType.objects.get_or_create(app_label="accounts", model="user")
    for start in range(0, len(cleared), BATCH):
        batch = cleared[start : start + BATCH]
        with transaction.atomic(using=schema_editor.connection.alias):
            User.objects.filter(pk__in=[user_id for user_id, *_ in batch]).update(email="")
            StaffAction.objects.bulk_create(
                StaffAction(
                    actor=None,
                    verb="clear_duplicate_email",
                    action=1,  # update
                    content_type=user_type,
                    object_pk=str(user_id),
                    object_id=user_id,
                    object_repr=username,
                    changes={"email": [email, None]},
                    reason=REASON.format(keeper=keeper)[:300],
                )
                for user_id, username, email, keeper in batch
            )
    print(f"\n  cleared the e-mail of {len(cleared)} account(s) that shared an address with an older one")


class Migration(migrations.Migration):
    atomic = False  # CREATE UNIQUE INDEX CONCURRENTLY; the clearing commits batch by batch

    dependencies = [
        ("accounts", "0004_suspension_message"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("staff", "0005_staffaction_on_auditlog"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [
        migrations.RunPython(clear_duplicates, migrations.RunPython.noop),
        AddUniqueIndexWhileServing(
            model_name="user",
            constraint=models.UniqueConstraint(
                django.db.models.functions.text.Lower("email"),
                condition=models.Q(("email", ""), _negated=True),
                name="accounts_user_email_ci_unique",
                violation_error_message="Another account already uses this e-mail address.",
            ),
        ),
    ]
