"""The game row's state as ``json`` on PostgreSQL, not ``jsonb`` (``tables.fields.JSONTextField``).

Every action and arrangement writes the state whole and reads it whole; nothing queries inside
it. ``jsonb`` parsed it into a tree at each write and printed it back at each read: 20-25 % of
PostgreSQL's CPU for the row (``bench/load/state_column.py``). The column is rewritten once; a
type change resets its storage, so migration 0009's MAIN and lz4 are set again. SQLite: nothing
changes (the field is JSONField's text there).
"""

from django.db import DatabaseError, migrations, transaction

import tables.fields

STORAGE = "ALTER TABLE tables_poolgame ALTER COLUMN state SET STORAGE MAIN"
LZ4 = "ALTER TABLE tables_poolgame ALTER COLUMN state SET COMPRESSION lz4"


def keep_in_row(apps, schema_editor):  # type: ignore[no-untyped-def]
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(STORAGE)
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute(LZ4)
    except DatabaseError:
        pass  # a server built without lz4 keeps pglz


class Migration(migrations.Migration):
    dependencies = [("tables", "0009_game_row_updates_in_place")]

    operations = [
        migrations.AlterField(
            model_name="poolgame",
            name="state",
            field=tables.fields.JSONTextField(blank=True, default=dict),
        ),
        migrations.RunPython(keep_in_row, keep_in_row),
    ]
