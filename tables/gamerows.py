"""The statements every move runs on the game row and the event log, written once in SQL.

Each action locks its game row, appends its events and updates the row. Through the
ORM those three cost more CPU in query building than the database spends running
them (about a third of a Daphne's CPU under load). Here the SQL is built once per
process; the values still go through each field's own conversion for the backend
(``get_db_prep_save``, the model's converters on the way back), so PostgreSQL and
SQLite store exactly what the ORM would.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from django.db import connection
from django.utils import timezone

from game_engine.events import Event
from tables.models import GameEvent, PoolGame

_EVENT_FIELDS = ("game", "deal_number", "version", "seq", "type", "data", "created_at")


@cache
def _lock_sql(lock: str) -> str:
    qn = connection.ops.quote_name
    columns = ", ".join(qn(f.column) for f in PoolGame._meta.concrete_fields)
    sql = f"SELECT {columns} FROM {qn(PoolGame._meta.db_table)} WHERE {qn(PoolGame._meta.pk.column)} = %s"
    return sql + lock


def lock_game(game_id: int) -> PoolGame:
    """The game row, locked until the transaction ends (``SELECT ... FOR NO KEY UPDATE``).

    ``NO KEY``, like every row lock of ``tables.locks``: it still serialises every writer
    of the game, but not the foreign-key checks of rows that refer to it.
    """
    features = connection.features
    lock = (
        " FOR NO KEY UPDATE"
        if features.has_select_for_no_key_update
        else " FOR UPDATE"
        if features.has_select_for_update
        else ""
    )
    rows = list(PoolGame.objects.raw(_lock_sql(lock), [game_id]))
    if not rows:
        raise PoolGame.DoesNotExist(f"PoolGame {game_id} does not exist")
    return rows[0]


@cache
def _update_sql(fields: tuple[str, ...]) -> str:
    qn = connection.ops.quote_name
    meta = PoolGame._meta
    sets = ", ".join(f"{qn(meta.get_field(name).column)} = %s" for name in fields)
    return f"UPDATE {qn(meta.db_table)} SET {sets} WHERE {qn(meta.pk.column)} = %s"


def update_game(game: PoolGame, fields: Sequence[str]) -> None:
    """Write ``fields`` of ``game`` to its row (what ``save(update_fields=...)`` writes)."""
    meta = PoolGame._meta
    params = [meta.get_field(name).get_db_prep_save(getattr(game, name), connection) for name in fields]
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(tuple(fields)), [*params, game.pk])


@cache
def _insert_sql(count: int) -> str:
    qn = connection.ops.quote_name
    meta = GameEvent._meta
    columns = ", ".join(qn(meta.get_field(name).column) for name in _EVENT_FIELDS)
    row = "(" + ", ".join(["%s"] * len(_EVENT_FIELDS)) + ")"
    return f"INSERT INTO {qn(meta.db_table)} ({columns}) VALUES " + ", ".join([row] * count)


def append_events(
    *, game_id: int, deal_number: int, version: int, first_seq: int, events: Iterable[Event]
) -> int:
    """Append ``events`` to the game's log with consecutive ``seq`` from ``first_seq``; returns how many."""
    meta = GameEvent._meta
    data_field, created_field = meta.get_field("data"), meta.get_field("created_at")
    created = created_field.get_db_prep_save(timezone.now(), connection)
    params: list[Any] = []
    for i, event in enumerate(events):
        data = data_field.get_db_prep_save(event.data, connection)
        params += [game_id, deal_number, version, first_seq + i, event.type, data, created]
    count = len(params) // len(_EVENT_FIELDS)
    if count:
        with connection.cursor() as cursor:
            cursor.execute(_insert_sql(count), params)
    return count
