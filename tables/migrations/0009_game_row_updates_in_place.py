"""Every table action rewrites its game's row: let PostgreSQL do it in place.

- ``deadline_at`` loses its index: every action moves the deadline, and an update of an indexed
  column cannot be a heap-only tuple (HOT) update, so each one added an entry to each of the
  row's seven indexes. The sweeps that read it (``tables.game.timers``, the staff dashboard) ask for
  open games, which the partial index ``tables_game_open`` finds.
- ``fillfactor`` 50: room on the row's page for its next version, which HOT needs.
- The state (5-12 KB of JSON) and the answers were compressed with pglz and moved out of line, so
  every action wrote them again as TOAST rows and deleted the last ones (the "5.7 rows inserted per
  table action" of bench/load/README.md's seventh round). Now they stay in the row (storage MAIN:
  out of line only if the row would not fit a page), compressed with lz4.

SQLite has none of these: there the migration only drops the index.
"""

from django.db import DatabaseError, migrations, models, transaction

POSTGRES_FORWARD = [
    "ALTER TABLE tables_poolgame SET (fillfactor = 50)",
    "ALTER TABLE tables_poolgame ALTER COLUMN state SET STORAGE MAIN, ALTER COLUMN answers SET STORAGE MAIN",
]
#: lz4 where the server was built with it (PostgreSQL's packages are); pglz, the default, where not
LZ4 = "ALTER TABLE tables_poolgame ALTER COLUMN state SET COMPRESSION lz4, ALTER COLUMN answers SET COMPRESSION lz4"
POSTGRES_BACKWARD = [
    "ALTER TABLE tables_poolgame RESET (fillfactor)",
    "ALTER TABLE tables_poolgame ALTER COLUMN state SET STORAGE EXTENDED, ALTER COLUMN state SET COMPRESSION DEFAULT",
    "ALTER TABLE tables_poolgame ALTER COLUMN answers SET STORAGE EXTENDED, "
    "ALTER COLUMN answers SET COMPRESSION DEFAULT",
]


def forward(apps, schema_editor):  # type: ignore[no-untyped-def]  # a migration's callables: Django passes untyped apps and schema_editor
    if schema_editor.connection.vendor != "postgresql":
        return
    for sql in POSTGRES_FORWARD:
        schema_editor.execute(sql)
    try:
        with transaction.atomic(using=schema_editor.connection.alias):
            schema_editor.execute(LZ4)
    except DatabaseError:
        pass  # a server built without lz4 keeps pglz


def backward(apps, schema_editor):  # type: ignore[no-untyped-def]  # a migration's callables: Django passes untyped apps and schema_editor
    if schema_editor.connection.vendor != "postgresql":
        return
    for sql in POSTGRES_BACKWARD:
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("tables", "0008_dashboard_indexes")]

    operations = [
        migrations.AlterField(
            model_name="poolgame",
            name="deadline_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(forward, backward),
    ]
