"""The game row's state as ``json`` on PostgreSQL, not ``jsonb`` (``tables.fields.JSONTextField``).

Every action and arrangement writes the state whole and reads it whole; nothing queries inside
it. ``jsonb`` parsed it into a tree at each write and printed it back at each read: 20-25 % of
PostgreSQL's CPU for the row (``bench/load/state_column.py``). SQLite: nothing changes (the field is
JSONField's text there).

Changing the column's type in place would rewrite the game table under its exclusive lock, every
game waiting until the last row is written. So the new column is filled beside the old one while
the games go on, and takes its place in one short transaction (the migration is not atomic):

1. a ``json`` column ``state_json``, nullable (no row is rewritten), kept equal to ``state`` by a
   trigger on every insert and every change of ``state``;
2. the rows already there copied a batch at a time, each batch in its own transaction;
3. ``state_json IS NOT NULL`` checked as a ``NOT VALID`` constraint, then validated (a read of the
   table that blocks no write);
4. in one transaction, an instant each: ``SET NOT NULL`` (the validated check spares the read of
   every row), the trigger and the old column dropped, ``state_json`` renamed ``state``, migration
   0009's storage MAIN and lz4 set on it (a new column has the defaults).

Each step can be run again, so a migration stopped part way (``lock_timeout``, docs/operations.md,
"Upgrades") is run again from the start. The code still running writes ``state`` as ``jsonb``
throughout; PostgreSQL casts it to ``json`` on assignment.
"""

from django.db import DatabaseError, migrations, transaction

import tables.fields

#: Game rows copied in one transaction.
BATCH = 500

STORAGE = "ALTER TABLE tables_poolgame ALTER COLUMN state SET STORAGE MAIN"
LZ4 = "ALTER TABLE tables_poolgame ALTER COLUMN state SET COMPRESSION lz4"

BESIDE = [
    "ALTER TABLE tables_poolgame ADD COLUMN IF NOT EXISTS state_json json",
    """CREATE OR REPLACE FUNCTION tables_poolgame_state_json() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.state_json := NEW.state::json;
        RETURN NEW;
    END;
    $$""",
    "DROP TRIGGER IF EXISTS tables_poolgame_state_json ON tables_poolgame",
    """CREATE TRIGGER tables_poolgame_state_json BEFORE INSERT OR UPDATE OF state ON tables_poolgame
    FOR EACH ROW EXECUTE FUNCTION tables_poolgame_state_json()""",
]
COPY_BATCH = """
UPDATE tables_poolgame SET state_json = state::json
WHERE id IN (SELECT id FROM tables_poolgame WHERE id > %s AND state_json IS NULL ORDER BY id LIMIT %s)
RETURNING id
"""
CHECKED = [
    "ALTER TABLE tables_poolgame DROP CONSTRAINT IF EXISTS tables_poolgame_state_json_set",
    "ALTER TABLE tables_poolgame ADD CONSTRAINT tables_poolgame_state_json_set CHECK (state_json IS NOT NULL) "
    "NOT VALID",
    "ALTER TABLE tables_poolgame VALIDATE CONSTRAINT tables_poolgame_state_json_set",
]
SWAP = [
    "ALTER TABLE tables_poolgame ALTER COLUMN state_json SET NOT NULL",
    "DROP TRIGGER tables_poolgame_state_json ON tables_poolgame",
    "DROP FUNCTION tables_poolgame_state_json()",
    "ALTER TABLE tables_poolgame DROP COLUMN state",
    "ALTER TABLE tables_poolgame RENAME COLUMN state_json TO state",
    "ALTER TABLE tables_poolgame DROP CONSTRAINT tables_poolgame_state_json_set",
    STORAGE,
]


def keep_in_row(schema_editor):  # type: ignore[no-untyped-def]  # a migration's callables: Django passes untyped apps and schema_editor
    """Migration 0009's lz4 on the state column, where the server has it (else pglz)."""
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute(LZ4)
    except DatabaseError:
        pass  # a server built without lz4 keeps pglz


def state_as_json(apps, schema_editor):  # type: ignore[no-untyped-def]  # a migration's callables: Django passes untyped apps and schema_editor
    if schema_editor.connection.vendor != "postgresql":
        return
    alias = schema_editor.connection.alias
    for sql in BESIDE:
        schema_editor.execute(sql, params=None)
    last = 0
    while True:  # one short transaction a batch: a game waits for its row at most one batch long
        with transaction.atomic(using=alias), schema_editor.connection.cursor() as cursor:
            cursor.execute(COPY_BATCH, [last, BATCH])
            copied = [row_id for (row_id,) in cursor.fetchall()]
        if not copied:
            break
        last = max(copied)
    for sql in CHECKED:
        schema_editor.execute(sql, params=None)
    with transaction.atomic(using=alias):
        for sql in SWAP:
            schema_editor.execute(sql, params=None)
        keep_in_row(schema_editor)


def state_as_jsonb(apps, schema_editor):  # type: ignore[no-untyped-def]  # a migration's callables: Django passes untyped apps and schema_editor
    """Back: the type changed in place (a rewrite under the table's lock, as going back allows)."""
    if schema_editor.connection.vendor != "postgresql":
        return
    with transaction.atomic(using=schema_editor.connection.alias):
        schema_editor.execute("ALTER TABLE tables_poolgame ALTER COLUMN state TYPE jsonb USING state::jsonb")
        schema_editor.execute(STORAGE)
        keep_in_row(schema_editor)


class Migration(migrations.Migration):
    atomic = False  # the copy commits batch by batch; the swap is one short transaction of its own

    dependencies = [("tables", "0009_game_row_updates_in_place")]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="poolgame",
                    name="state",
                    field=tables.fields.JSONTextField(blank=True, default=dict),
                ),
            ],
        ),
        migrations.RunPython(state_as_json, state_as_jsonb),
    ]
