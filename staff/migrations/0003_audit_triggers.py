"""PostgreSQL refuses any UPDATE or DELETE of a staff audit entry, whatever the code does
(the model and the admin refuse them too). TRUNCATE fires no row trigger, so test teardown
still works; SQLite gets the model-level refusal only."""

from __future__ import annotations

from django.db import migrations

FORWARD = """
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

BACKWARD = """
DROP TRIGGER IF EXISTS staff_staffaction_append_only ON staff_staffaction;
DROP FUNCTION IF EXISTS staff_audit_refuse_change();
"""


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(FORWARD, params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(BACKWARD, params=None)


class Migration(migrations.Migration):
    dependencies = [("staff", "0002_staff_groups")]

    operations = [migrations.RunPython(forward, backward)]
