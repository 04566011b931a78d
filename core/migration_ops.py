"""Migration operations the apps share. Here, in the lowest app, so that every app's migrations may
use them (the apps are layered, pyproject.toml's import-linter contract).

Each one leaves the same schema state as Django's own operation (the models and later migrations
see no difference) but changes the database without holding a big table's writes: indexes built
``CONCURRENTLY``, a new column's default kept in the database for the code still running."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, transaction
from django.db.migrations.operations.base import Operation


@contextmanager
def no_lock_timeout(schema_editor: Any) -> Iterator[None]:
    """``lock_timeout`` off for a ``CONCURRENTLY`` build: it waits for the transactions already open
    on the table (holding no lock that queries queue behind), and one stopped by the timeout leaves
    an invalid index behind that makes running the migration again fail."""
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        (before,) = cursor.fetchone()
        cursor.execute("SET lock_timeout = 0")
    try:
        yield
    finally:
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SELECT set_config('lock_timeout', %s, false)", [before])


def build_concurrently(schema_editor: Any, statements: list[Any]) -> None:
    """Run Django's ``CREATE INDEX`` statements as ``CREATE INDEX CONCURRENTLY`` (same names)."""
    with no_lock_timeout(schema_editor):
        for statement in statements:
            sql = str(statement)
            if not sql.startswith("CREATE INDEX "):
                raise ValueError(f"not a plain CREATE INDEX: {sql}")
            schema_editor.execute(sql.replace("CREATE INDEX ", "CREATE INDEX CONCURRENTLY ", 1), params=None)


class AddIndexWhileServing(AddIndexConcurrently):
    """``CREATE INDEX CONCURRENTLY`` on PostgreSQL, so that building an index on a big table does
    not hold its writes (the tables keep playing); a plain ``CREATE INDEX`` elsewhere (SQLite, the
    embedded setup). Its migration must say ``atomic = False``."""

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            with no_lock_timeout(schema_editor):
                super().database_forwards(app_label, schema_editor, from_state, to_state)
            return
        model = to_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            schema_editor.add_index(model, self.index)

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            with no_lock_timeout(schema_editor):
                super().database_backwards(app_label, schema_editor, from_state, to_state)
            return
        model = from_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            index = from_state.models[app_label, self.model_name_lower].get_index_by_name(self.index.name)
            schema_editor.remove_index(model, index)


class AddFieldWhileServing(migrations.AddField):
    """``AddField`` (the same state) whose column keeps its default in the database, where Django
    drops it right after adding the column: the code still running during a rolling restart does not
    know the column and inserts rows without it, which a ``NOT NULL`` column without a default
    refuses. On PostgreSQL the field's indexes are built ``CONCURRENTLY`` (an indexed field's
    migration must then say ``atomic = False``); elsewhere as Django builds them."""

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        to_model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, to_model):
            return
        model = from_state.apps.get_model(app_label, self.model_name)
        field = copy.copy(to_model._meta.get_field(self.name))
        if not self.preserve_default:  # as AddField: the default only fills the rows already there
            field.default = self.field.default
        field = _with_db_default(field)
        if schema_editor.connection.vendor != "postgresql":
            schema_editor.add_field(model, field)
            return
        indexes = schema_editor._field_indexes_sql(model, field)
        field.db_index = False
        schema_editor.add_field(model, field)
        build_concurrently(schema_editor, indexes)


class AddUniqueIndexWhileServing(migrations.AddConstraint):
    """``AddConstraint`` (the same state) of a ``UniqueConstraint`` that PostgreSQL keeps as a unique
    index (one on expressions or with a condition), built ``CREATE UNIQUE INDEX CONCURRENTLY``: the
    table's writes go on while it is built. A build that failed (a duplicate written meanwhile) left an
    invalid index of that name: it is dropped first, so the migration can be run again. Elsewhere as
    ``AddConstraint``. Its migration must say ``atomic = False``."""

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
            return
        model = to_state.apps.get_model(app_label, self.model_name)
        if not self.allow_migrate_model(schema_editor.connection.alias, model):
            return
        sql = str(self.constraint.create_sql(model, schema_editor))
        if not sql.startswith("CREATE UNIQUE INDEX "):
            raise ValueError(f"PostgreSQL keeps this constraint as a table constraint, not an index: {sql}")
        name = self.constraint.name
        with schema_editor.connection.cursor() as cursor:
            cursor.execute(
                "SELECT 1 FROM pg_index WHERE indexrelid = to_regclass(%s) AND NOT indisvalid",
                [schema_editor.quote_name(name)],
            )
            left_invalid = cursor.fetchone() is not None
        with no_lock_timeout(schema_editor):
            if left_invalid:
                schema_editor.execute(
                    f"DROP INDEX CONCURRENTLY {schema_editor.quote_name(name)}", params=None
                )
            schema_editor.execute(
                sql.replace("CREATE UNIQUE INDEX ", "CREATE UNIQUE INDEX CONCURRENTLY ", 1), params=None
            )

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        if schema_editor.connection.vendor != "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
            return
        model = to_state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            with no_lock_timeout(schema_editor):
                name = schema_editor.quote_name(self.constraint.name)
                schema_editor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}", params=None)


_CREATE_INDEX = re.compile(r"^CREATE (UNIQUE )?INDEX ")
_DROP_INDEX = re.compile(r"^DROP INDEX (IF EXISTS )?")
_ADD_FOREIGN_KEY = re.compile(r'^(ALTER TABLE ("[^"]+") ADD CONSTRAINT ("[^"]+") FOREIGN KEY [^;]*);?$')
_SET_NOT_NULL = re.compile(r'^ALTER TABLE "([^"]+)" ALTER COLUMN "([^"]+)" SET NOT NULL;?$')


def gentle_statements(schema_editor: Any, statements: list[str]) -> list[tuple[str, bool]]:
    """Django's SQL for a change, rewritten so that the table's reads and writes go on while it runs
    (PostgreSQL): each statement with whether it is a ``CONCURRENTLY`` one.

    - an index built or dropped ``CONCURRENTLY``;
    - a foreign key added ``NOT VALID`` and then validated (the check of the rows already there
      blocks no write);
    - ``SET NOT NULL`` after a ``CHECK (column IS NOT NULL)`` added ``NOT VALID`` and validated, which
      PostgreSQL then trusts instead of reading the whole table under its exclusive lock.
    """
    gentle: list[tuple[str, bool]] = []
    for sql in (statement.strip() for statement in statements):
        if _CREATE_INDEX.match(sql):
            gentle.append(
                (_CREATE_INDEX.sub(lambda m: f"CREATE {m.group(1) or ''}INDEX CONCURRENTLY ", sql), True)
            )
        elif _DROP_INDEX.match(sql):
            gentle.append(
                (_DROP_INDEX.sub(lambda m: f"DROP INDEX CONCURRENTLY {m.group(1) or ''}", sql), True)
            )
        elif added := _ADD_FOREIGN_KEY.match(sql):
            statement, table, name = added.groups()
            gentle.append((f"{statement} NOT VALID", False))
            gentle.append((f"ALTER TABLE {table} VALIDATE CONSTRAINT {name}", False))
        elif not_null := _SET_NOT_NULL.match(sql):
            table, column = not_null.groups()
            check = schema_editor.quote_name(
                schema_editor._create_index_name(table, [column], suffix="_notnull")
            )
            quoted_table, quoted_column = schema_editor.quote_name(table), schema_editor.quote_name(column)
            gentle += [
                (
                    f"ALTER TABLE {quoted_table} ADD CONSTRAINT {check} CHECK ({quoted_column} IS NOT NULL) NOT VALID",
                    False,
                ),
                (f"ALTER TABLE {quoted_table} VALIDATE CONSTRAINT {check}", False),
                (sql, False),
                (f"ALTER TABLE {quoted_table} DROP CONSTRAINT {check}", False),
            ]
        else:
            gentle.append((sql, False))
    return gentle


class WhileServing(Operation):
    """Django's ``operation`` (the same state), its SQL run on PostgreSQL as ``gentle_statements``
    writes it, each statement committed on its own (the migration says ``atomic = False``):
    indexes built and dropped ``CONCURRENTLY``, foreign keys and ``NOT NULL`` checked without
    blocking writes. Statements that must take the table's exclusive lock (a column renamed, a
    varchar widened) take it for an instant each. Elsewhere the operation runs as it is."""

    reduces_to_sql = True  # sqlmigrate (and so the lock check) shows the rewritten SQL

    def __init__(self, operation: Operation) -> None:
        self.operation = operation

    def deconstruct(self) -> tuple[str, list[Any], dict[str, Any]]:
        return (self.__class__.__name__, [self.operation], {})

    @property
    def reversible(self) -> bool:  # type: ignore[override]  # Django's Operation has a plain attribute; here it depends on the operation's arguments
        return bool(self.operation.reversible)

    def state_forwards(self, app_label: str, state: Any) -> None:
        self.operation.state_forwards(app_label, state)

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        self._run(schema_editor, self.operation.database_forwards, app_label, from_state, to_state)

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        self._run(schema_editor, self.operation.database_backwards, app_label, from_state, to_state)

    def describe(self) -> str:
        return f"{self.operation.describe()}, while the table is in use"

    def _run(self, schema_editor: Any, change: Callable[..., None], *args: Any) -> None:
        connection = schema_editor.connection
        if connection.vendor != "postgresql":
            change(args[0], schema_editor, *args[1:])
            return
        with connection.schema_editor(collect_sql=True, atomic=False) as collector:
            change(args[0], collector, *args[1:])
        for sql, concurrently in gentle_statements(schema_editor, collector.collected_sql):
            if concurrently:
                with no_lock_timeout(schema_editor):
                    schema_editor.execute(sql, params=None)
            else:
                schema_editor.execute(sql, params=None)


class InOneTransaction(Operation):
    """``operations`` run in one transaction inside a migration that is not atomic: quick changes
    that take a table's lock for an instant each (a column added or renamed) either all happen or,
    stopped by ``lock_timeout``, none does, so the migration can be run again. Not for anything
    ``CONCURRENTLY`` or a long backfill."""

    reduces_to_sql = True

    def __init__(self, *operations: Operation) -> None:
        self.operations = list(operations)

    def deconstruct(self) -> tuple[str, list[Any], dict[str, Any]]:
        return (self.__class__.__name__, self.operations, {})

    @property
    def reversible(self) -> bool:  # type: ignore[override]  # Django's Operation has a plain attribute; here it depends on the operation's arguments
        return all(operation.reversible for operation in self.operations)

    def state_forwards(self, app_label: str, state: Any) -> None:
        for operation in self.operations:
            operation.state_forwards(app_label, state)

    def _states(self, app_label: str, start: Any) -> list[Any]:
        """``start`` and the state after each operation in turn."""
        states = [start]
        for operation in self.operations:
            state = states[-1].clone()
            operation.state_forwards(app_label, state)
            states.append(state)
        return states

    def database_forwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        states = self._states(app_label, from_state)
        with transaction.atomic(using=schema_editor.connection.alias):
            for operation, before, after in zip(self.operations, states[:-1], states[1:], strict=True):
                if schema_editor.collect_sql and not operation.reduces_to_sql:
                    continue  # sqlmigrate: Python is not run (as Django skips it at the top level)
                operation.database_forwards(app_label, schema_editor, before, after)

    def database_backwards(self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any) -> None:
        states = self._states(app_label, to_state)
        with transaction.atomic(using=schema_editor.connection.alias):
            for index in reversed(range(len(self.operations))):
                self.operations[index].database_backwards(
                    app_label, schema_editor, states[index + 1], states[index]
                )

    def describe(self) -> str:
        return "In one transaction: " + "; ".join(operation.describe() for operation in self.operations)


def _with_db_default(field: Any) -> Any:
    """``field`` (the caller's copy) given its default (or the empty string Django fills in) as its
    database default. A default computed at each save (``timezone.now``...) is left to Django: as
    a database default it would be the one value of the moment the migration ran."""
    if field.null or field.has_db_default() or field.many_to_many:
        return field
    if field.has_default() and callable(field.default) and field.default not in (dict, list):
        return field
    default = field.get_default()
    if default is None:
        return field
    field.db_default = default
    field.__dict__.pop("_db_default_expression", None)
    return field


def in_batches(queryset: Any, apply: Callable[[Any], None], *, size: int = 1000) -> int:
    """Call ``apply`` with each batch of ``queryset``'s rows (a queryset of at most ``size`` rows, in
    primary key order), each batch in its own transaction, so a backfill holds the locks of one batch
    at a time, not of the whole table until it ends (its migration says ``atomic = False``). Returns
    the number of rows."""
    if size < 1:
        raise ValueError("a batch holds at least one row")
    model, alias = queryset.model, queryset.db
    done, last = 0, None
    while True:
        with transaction.atomic(using=alias):
            page = queryset.order_by("pk") if last is None else queryset.filter(pk__gt=last).order_by("pk")
            ids = list(page.values_list("pk", flat=True)[:size])
            if not ids:
                return done
            apply(model._base_manager.using(alias).filter(pk__in=ids).order_by("pk"))
        done, last = done + len(ids), ids[-1]
