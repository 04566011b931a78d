"""The staff actions' and staff notes' searches read trigram indexes (issue 39): Django's
``icontains`` (``UPPER(col) LIKE UPPER('%term%')``) on the object, the reason and a note's text is
served by a GIN index instead of reading the whole trail. Built concurrently (the trail is written
by every staff action), so the migration is not atomic. pg_trgm is created by accounts 0006.
SQLite gets none."""

from __future__ import annotations

from django.db import migrations

INDEXES = {
    "staff_action_object_trgm": "staff_staffaction USING gin (UPPER(object_repr) gin_trgm_ops)",
    "staff_action_reason_trgm": "staff_staffaction USING gin (UPPER(reason) gin_trgm_ops)",
    "staff_note_text_trgm": "staff_staffnote USING gin (UPPER(text) gin_trgm_ops)",
}


def forward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name, target in INDEXES.items():
            schema_editor.execute(f"CREATE INDEX CONCURRENTLY IF NOT EXISTS {name} ON {target}", params=None)


def backward(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for name in INDEXES:
            schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}", params=None)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [("staff", "0008_admin_filter_indexes"), ("accounts", "0006_user_search_trigram_indexes")]

    operations = [migrations.RunPython(forward, backward)]
