"""The statements every move runs on the game row and the event log, written once in SQL.

Each action locks its game row, appends its events and updates the row. Through the
ORM those three cost more CPU in query building than the database spends running
them (about a third of a Daphne's CPU under load). Here the SQL is built once per
process; the values still go through each field's own conversion for the backend
(``get_db_prep_save``, the model's converters on the way back), so PostgreSQL and
SQLite store exactly what the ORM would.

On PostgreSQL the JSON columns (the state, some kilobytes, and the answers) are the
rest of the cost: the standard library's ``json`` both ways, and psycopg's
client-side binding quoting the whole text into the statement. There they are
written and read as JSON text made by orjson, and the statements are sent with
server-side binding (the values travel apart from the SQL, unquoted).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from functools import cache
from typing import Any

import orjson
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.utils import timezone

from core.boundsql import bound_cursor
from game_engine.events import Event
from tables.fields import JSONTextField
from tables.models import GameEvent, PoolGame

_EVENT_FIELDS = ("game", "deal_number", "version", "seq", "type", "data", "created_at")


def _db() -> Any:
    """This thread's connection, looked up once per statement: every ``connection.x`` through
    Django's proxy is a thread-local lookup, a few dozen of them per action."""
    return connections[DEFAULT_DB_ALIAS]


def _fast(db: Any) -> bool:
    """PostgreSQL: JSON by orjson, server-side binding (see the module's docstring)."""
    return db.vendor == "postgresql"


def _json_text(value: Any) -> str | None:
    """What a JSON column stores, as text (``::jsonb`` in the SQL); the stdlib for what orjson refuses."""
    if value is None:
        return None
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # an int past 64 bits and the like
        return json.dumps(value)


def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    """A column's field by its name (every name asked for here is one of the model's columns)."""
    field = model._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def _column(field: models.Field[Any, Any] | None) -> str:
    """The name of a column field's column (every field named here has one)."""
    if field is None or field.column is None:
        raise TypeError(f"{field} has no column")
    return field.column


def _placeholder(field: models.Field[Any, Any]) -> str:
    if not _fast(connection) or not isinstance(field, models.JSONField):
        return "%s"
    return "%s::json" if isinstance(field, JSONTextField) else "%s::jsonb"


def _prep(field: models.Field[Any, Any], value: Any, db: Any) -> Any:
    if _fast(db) and isinstance(field, models.JSONField):
        return _json_text(value)
    return field.get_db_prep_save(value, db)


@cache
def _lock_sql(lock: str) -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(qn(_column(f)) for f in PoolGame._meta.concrete_fields)
    sql = f"SELECT {columns} FROM {qn(PoolGame._meta.db_table)} WHERE {qn(_column(PoolGame._meta.pk))} = %s"
    return sql + lock


Converter = Callable[[Any, Any, Any], Any]


@cache
def _readers() -> tuple[tuple[str, ...], tuple[tuple[Any, tuple[Converter, ...]], ...]]:
    """Each column's attribute name and the converters the ORM would apply (JSON: orjson)."""
    names: list[str] = []
    readers: list[tuple[Any, tuple[Converter, ...]]] = []
    for field in PoolGame._meta.concrete_fields:
        names.append(field.attname)
        if isinstance(field, models.JSONField):
            readers.append((None, ()))
            continue
        col = field.get_col(PoolGame._meta.db_table)
        converters = connection.ops.get_db_converters(col) + field.get_db_converters(connection)
        readers.append((col, tuple(converters)))
    return tuple(names), tuple(readers)


def _read_row(row: Sequence[Any], db: Any) -> PoolGame:
    names, readers = _readers()
    values = []
    for value, (col, converters) in zip(row, readers, strict=True):
        if col is None:  # a JSON column: psycopg hands Django's connections the text
            value = orjson.loads(value) if isinstance(value, str | bytes) else value
        else:
            for convert in converters:
                value = convert(value, col, db)
        values.append(value)
    return PoolGame.from_db(db.alias, list(names), values)


def lock_game(game_id: int) -> PoolGame:
    """The game row, locked until the transaction ends (``SELECT ... FOR NO KEY UPDATE``).

    ``NO KEY``, like every row lock of ``tables.game.locks``: it still serialises every writer
    of the game, but not the foreign-key checks of rows that refer to it.
    """
    features = _db().features
    lock = (
        " FOR NO KEY UPDATE"
        if features.has_select_for_no_key_update
        else " FOR UPDATE"
        if features.has_select_for_update
        else ""
    )
    return _select_game(game_id, lock)


def reads_beside_lock() -> bool:
    """Whether ``lock_game_beside`` can run here (PostgreSQL; elsewhere the reads stay apart)."""
    return _fast(_db())


@cache
def _lock_beside_sql(beside: str) -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(f"g.{qn(_column(f))}" for f in PoolGame._meta.concrete_fields)
    return (
        f"SELECT {columns}, b.* FROM {qn(PoolGame._meta.db_table)} g LEFT JOIN LATERAL ({beside}) b ON TRUE"
        f" WHERE g.{qn(_column(PoolGame._meta.pk))} = %s FOR NO KEY UPDATE OF g"
    )


def lock_game_beside(game_id: int, sql: str, params: Sequence[Any]) -> tuple[PoolGame, tuple[Any, ...]]:
    """``lock_game``, and in the same statement the one row ``sql`` selects (its columns, all None
    if it finds none): a table action's may-this-user-play read (``accounts.play.BlockQuery``)
    costs no statement of its own. PostgreSQL only (``reads_beside_lock``)."""
    db = _db()
    with bound_cursor(db) as cursor:
        cursor.execute(_lock_beside_sql(sql), [*params, game_id])
        row = cursor.fetchone()
    if row is None:
        raise PoolGame.DoesNotExist(f"PoolGame {game_id} does not exist")
    width = len(PoolGame._meta.concrete_fields)
    return _read_row(row[:width], db), tuple(row[width:])


def read_game(game_id: int) -> PoolGame:
    """The game row as it is, unlocked: what a bot decides from before it acts (``tables.game.drivers``),
    read as an action reads it (its state by orjson), not through the ORM's query building."""
    return _select_game(game_id, "")


def _select_game(game_id: int, lock: str) -> PoolGame:
    db = _db()
    if not _fast(db):
        rows = list(PoolGame.objects.raw(_lock_sql(lock), [game_id]))
        if not rows:
            raise PoolGame.DoesNotExist(f"PoolGame {game_id} does not exist")
        return rows[0]
    with bound_cursor(db) as cursor:
        cursor.execute(_lock_sql(lock), [game_id])
        row = cursor.fetchone()
    if row is None:
        raise PoolGame.DoesNotExist(f"PoolGame {game_id} does not exist")
    return _read_row(row, db)


@cache
def _update_sql(fields: tuple[str, ...], vendor: str) -> str:
    qn = connection.ops.quote_name
    meta = PoolGame._meta
    sets = ", ".join(
        f"{qn(_column(_field(PoolGame, name)))} = {_placeholder(_field(PoolGame, name))}" for name in fields
    )
    return f"UPDATE {qn(meta.db_table)} SET {sets} WHERE {qn(_column(meta.pk))} = %s"


@cache
def _game_fields(names: tuple[str, ...]) -> tuple[models.Field[Any, Any], ...]:
    return tuple(_field(PoolGame, name) for name in names)


def update_game(game: PoolGame, fields: Sequence[str]) -> None:
    """Write ``fields`` of ``game`` to its row (what ``save(update_fields=...)`` writes)."""
    db = _db()
    names = tuple(fields)
    params = [
        _prep(field, getattr(game, name), db) for name, field in zip(names, _game_fields(names), strict=True)
    ]
    with bound_cursor(db) as cursor:
        cursor.execute(_update_sql(names, db.vendor), [*params, game.pk])


@cache
def _insert_sql(count: int, vendor: str) -> str:
    qn = connection.ops.quote_name
    meta = GameEvent._meta
    columns = ", ".join(qn(_column(_field(GameEvent, name))) for name in _EVENT_FIELDS)
    row = "(" + ", ".join(_placeholder(_field(GameEvent, name)) for name in _EVENT_FIELDS) + ")"
    return f"INSERT INTO {qn(meta.db_table)} ({columns}) VALUES " + ", ".join([row] * count)


def append_events(
    *, game_id: int, deal_number: int, version: int, first_seq: int, events: Iterable[Event]
) -> int:
    """Append ``events`` to the game's log with consecutive ``seq`` from ``first_seq``; returns how many."""
    meta, db = GameEvent._meta, _db()
    data_field, created_field = meta.get_field("data"), meta.get_field("created_at")
    created = created_field.get_db_prep_save(timezone.now(), db)
    params: list[Any] = []
    for i, event in enumerate(events):
        data = _prep(data_field, event.data, db)
        params += [game_id, deal_number, version, first_seq + i, event.type, data, created]
    count = len(params) // len(_EVENT_FIELDS)
    if count:
        with bound_cursor(db) as cursor:
            cursor.execute(_insert_sql(count, db.vendor), params)
    return count
