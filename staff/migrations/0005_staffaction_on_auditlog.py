"""The staff audit trail becomes django-auditlog's log-entry model (``AUDITLOG_LOGENTRY_MODEL``), so
that changes made on any admin page land in the same append-only table as the staff services'
entries. The rows already kept move over: ``at`` -> ``timestamp``, ``staff`` -> ``actor``,
``action`` -> ``verb``, ``target`` -> ``object_repr`` (and the object it names), ``before`` and
``after`` -> ``changes`` as ``{key: [before, after]}``. The PostgreSQL trigger that refuses any
change is lifted for the move and put back after it.

The trail is written by every staff action while the site runs, so the migration is not atomic:
each change is committed on its own and holds the table's lock for an instant (indexes built and
dropped ``CONCURRENTLY``, foreign keys and ``NOT NULL`` checked without blocking writes:
``core.migration_ops.WhileServing``), and the rows move a batch at a time, each batch in its
own transaction."""

from __future__ import annotations

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from core.migration_ops import InOneTransaction, WhileServing, in_batches

DROP_TRIGGER = "DROP TRIGGER IF EXISTS staff_staffaction_append_only ON staff_staffaction;"
CREATE_TRIGGER = """
CREATE OR REPLACE FUNCTION staff_audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the staff audit trail is append-only: % on % refused', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER staff_staffaction_append_only
    BEFORE UPDATE OR DELETE ON staff_staffaction
    FOR EACH ROW EXECUTE FUNCTION staff_audit_refuse_change();
"""

#: What the old free-text targets named ("game:12 Table 1"): their model.
TARGETS = {
    "game": ("tables", "poolgame"),
    "table": ("tables", "table"),
    "settings": ("tables", "tablesettings"),
    "user": ("accounts", "user"),
}


def _sql(sql: str):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql, params=None)

    return run


def move_rows(apps, schema_editor):
    StaffAction = apps.get_model("staff", "StaffAction")
    ContentType = apps.get_model("contenttypes", "ContentType")
    fallback, _ = ContentType.objects.get_or_create(app_label="staff", model="staffaction")
    types = {}

    def type_of(prefix):
        if prefix not in types:
            app_label, model = TARGETS[prefix]
            types[prefix], _ = ContentType.objects.get_or_create(app_label=app_label, model=model)
        return types[prefix]

    def move(batch):
        rows = list(batch)
        for row in rows:
            before, after = row.before or {}, row.after or {}
            keys = [*before, *(k for k in after if k not in before)]
            row.changes = {key: [before.get(key), after.get(key)] for key in keys}
            prefix, _, rest = (row.object_repr or "").partition(":")
            pk = rest.split(" ", 1)[0]
            if prefix in TARGETS and pk.isdigit():
                row.content_type = type_of(prefix)
            else:
                row.content_type, pk = fallback, str(row.pk)
            row.object_pk, row.object_id = pk, int(pk) if pk.isdigit() else None
        StaffAction.objects.bulk_update(rows, ["changes", "content_type", "object_pk", "object_id"])

    in_batches(StaffAction.objects.using(schema_editor.connection.alias), move)


class Migration(migrations.Migration):
    atomic = False  # each change committed on its own, the rows moved batch by batch

    dependencies = [
        ("staff", "0004_adjustment_of_bonus_chips"),
        ("contenttypes", "0002_remove_content_type_name"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # the first locks of the trail's table: stopped by lock_timeout, none of these has happened
        InOneTransaction(
            migrations.RunPython(_sql(DROP_TRIGGER), _sql(CREATE_TRIGGER)),
            migrations.RenameField("staffaction", "at", "timestamp"),
            migrations.RenameField("staffaction", "staff", "actor"),
            migrations.RenameField("staffaction", "action", "verb"),
        ),
        # PostgreSQL keeps an index's name when its column is renamed: drop the old ``action`` index
        # here, so that the new ``action`` field below can have its own and ``verb`` gets one anew.
        WhileServing(
            migrations.AlterField("staffaction", "verb", models.CharField(max_length=40))
        ),
        migrations.RenameField("staffaction", "target", "object_repr"),
        WhileServing(
            migrations.AlterField(
                "staffaction",
                "timestamp",
                models.DateTimeField(db_index=True, default=django.utils.timezone.now, verbose_name="timestamp"),
            )
        ),
        WhileServing(
            migrations.AlterField(
                "staffaction",
                "actor",
                models.ForeignKey(
                    blank=True,
                    null=True,
                    on_delete=django.db.models.deletion.PROTECT,
                    related_name="+",
                    to=settings.AUTH_USER_MODEL,
                ),
            )
        ),
        WhileServing(
            migrations.AlterField("staffaction", "verb", models.CharField(db_index=True, max_length=60))
        ),
        migrations.AlterField(
            "staffaction", "object_repr", models.TextField(verbose_name="object representation")
        ),
        WhileServing(
            migrations.AddField(
                "staffaction",
                "content_type",
                models.ForeignKey(
                    null=True,
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="+",
                    to="contenttypes.contenttype",
                    verbose_name="content type",
                ),
            )
        ),
        WhileServing(
            migrations.AddField(
                "staffaction",
                "object_pk",
                models.CharField(db_index=True, default="", max_length=255, verbose_name="object pk"),
                preserve_default=False,
            )
        ),
        WhileServing(
            migrations.AddField(
                "staffaction",
                "object_id",
                models.BigIntegerField(blank=True, db_index=True, null=True, verbose_name="object id"),
            )
        ),
        migrations.AddField("staffaction", "serialized_data", models.JSONField(null=True)),
        WhileServing(
            migrations.AddField(
                "staffaction",
                "action",
                models.PositiveSmallIntegerField(
                    choices=[(0, "create"), (1, "update"), (2, "delete"), (3, "access")],
                    db_index=True,
                    default=1,
                    verbose_name="action",
                ),
                preserve_default=False,
            )
        ),
        migrations.AddField(
            "staffaction",
            "changes_text",
            models.TextField(blank=True, default="", verbose_name="change message"),
            preserve_default=False,
        ),
        migrations.AddField("staffaction", "changes", models.JSONField(null=True, verbose_name="change message")),
        WhileServing(
            migrations.AddField(
                "staffaction",
                "cid",
                models.CharField(blank=True, db_index=True, max_length=255, null=True, verbose_name="Correlation ID"),
            )
        ),
        migrations.AddField(
            "staffaction",
            "remote_addr",
            models.GenericIPAddressField(blank=True, null=True, verbose_name="remote address"),
        ),
        migrations.AddField(
            "staffaction",
            "remote_port",
            models.PositiveIntegerField(blank=True, null=True, verbose_name="remote port"),
        ),
        migrations.AddField(
            "staffaction",
            "additional_data",
            models.JSONField(blank=True, null=True, verbose_name="additional data"),
        ),
        migrations.AddField(
            "staffaction",
            "actor_email",
            models.CharField(blank=True, max_length=254, null=True, verbose_name="actor email"),
        ),
        migrations.RunPython(move_rows, migrations.RunPython.noop),
        migrations.RemoveField("staffaction", "before"),
        migrations.RemoveField("staffaction", "after"),
        WhileServing(
            migrations.AlterField(
                "staffaction",
                "content_type",
                models.ForeignKey(
                    on_delete=django.db.models.deletion.CASCADE,
                    related_name="+",
                    to="contenttypes.contenttype",
                    verbose_name="content type",
                ),
            )
        ),
        migrations.AlterModelOptions(
            name="staffaction",
            options={
                "get_latest_by": "timestamp",
                "ordering": ["-timestamp", "-id"],
                "permissions": [
                    ("view_dashboard", "Can see the staff dashboard"),
                    ("cancel_game", "Can cancel a game"),
                    ("close_table", "Can close and reopen tables, and create tables"),
                    ("approve_adjustment", "Can approve another staff member's wallet adjustment"),
                    (
                        "view_live_hands",
                        "Can see the hands and closed deck of a deal being played (each view recorded)",
                    ),
                ],
                "verbose_name": "staff action",
                "verbose_name_plural": "staff actions",
            },
        ),
        migrations.AddField(
            "adjustmentrequest",
            "message",
            models.CharField(
                blank=True, help_text="What the player's wallet history says about it.", max_length=200
            ),
        ),
        migrations.AlterField(
            "adjustmentrequest",
            "reason",
            models.CharField(help_text="Internal note: staff see it, the player never does.", max_length=200),
        ),
        migrations.RunPython(_sql(CREATE_TRIGGER), _sql(DROP_TRIGGER)),
    ]
