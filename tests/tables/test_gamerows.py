"""The game row's hand-written statements store and read exactly what the ORM would."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection, transaction
from django.forms.models import model_to_dict
from django.test.utils import CaptureQueriesContext

from game_engine.events import Discard, Draw
from tables.game import gamerows
from tables.models import GameEvent, PoolGame
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db


def _game() -> PoolGame:
    from tables import services

    table = make_table(seats=2, seed=5)
    services.table_join(table_id=table.pk, user=make_player("asha"))
    services.table_join(table_id=table.pk, user=make_player("ravi"))
    return table.games.get()


def _fields(game: PoolGame) -> dict[str, object]:
    return {f.attname: getattr(game, f.attname) for f in PoolGame._meta.concrete_fields}


def test_lock_game_reads_every_field_as_the_orm_does() -> None:
    game = _game()
    with transaction.atomic():
        locked = gamerows.lock_game(game.pk)
    assert _fields(locked) == _fields(PoolGame.objects.get(pk=game.pk))
    assert isinstance(locked.state, dict) and locked.state["version"] == locked.version
    with pytest.raises(PoolGame.DoesNotExist):
        gamerows.lock_game(10**9)


def test_update_game_writes_only_the_fields_named() -> None:
    game = _game()
    before = PoolGame.objects.get(pk=game.pk)
    game.state = {**game.state, "note": "ünïcode ' quote \\ \" $1 %s", "big": 2**70}  # past orjson's ints
    game.version += 1
    game.deadline_at = datetime(2026, 11, 21, 12, 30, 15, 123000, tzinfo=UTC)
    game.answers = {"7": [["r-1", {"ok": True, "version": game.version}]]}
    game.deadline_kind = "not saved"
    with transaction.atomic():
        gamerows.update_game(game, ("state", "version", "deadline_at", "answers"))
    after = PoolGame.objects.get(pk=game.pk)
    assert after.state == game.state
    assert (after.version, after.deadline_at, after.answers) == (game.version, game.deadline_at, game.answers)
    assert after.deadline_kind == before.deadline_kind  # not named: not written


def test_append_events_numbers_them_in_order() -> None:
    game = _game()
    first = game.event_count
    events = [Draw(seat=1, source="closed"), Discard(seat=1, card="KS", auto=False)]
    with transaction.atomic():
        added = gamerows.append_events(
            game_id=game.pk, deal_number=3, version=99, first_seq=first, events=events
        )
        assert gamerows.append_events(game_id=game.pk, deal_number=3, version=99, first_seq=0, events=[]) == 0
    assert added == 2
    rows = GameEvent.objects.filter(game=game, seq__gte=first).order_by("seq")
    assert [model_to_dict(r, fields=["deal_number", "version", "seq", "type", "data"]) for r in rows] == [
        {
            "deal_number": 3,
            "version": 99,
            "seq": first,
            "type": "draw",
            "data": {"seat": 1, "source": "closed"},
        },
        {
            "deal_number": 3,
            "version": 99,
            "seq": first + 1,
            "type": "discard",
            "data": {"seat": 1, "card": "KS", "auto": False},
        },
    ]
    assert all(r.created_at is not None for r in rows)


def test_the_statements_are_seen_by_query_logging_and_errors_become_djangos() -> None:
    """Written past the ORM, but not past Django: ``CaptureQueriesContext`` (the no-write tests
    of refusals rely on it) sees them, and a failing statement raises Django's error."""
    game = _game()
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        gamerows.lock_game(game.pk)
        gamerows.update_game(game, ("version",))
    assert [q["sql"].split()[0] for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))] == [
        "SELECT",
        "UPDATE",
    ]
    with pytest.raises(IntegrityError), transaction.atomic():  # NOT NULL: the database refuses at once
        gamerows.append_events(
            game_id=game.pk,
            deal_number=None,  # type: ignore[arg-type]
            version=1,
            first_seq=0,
            events=[Draw(seat=0, source="closed")],
        )


def test_read_game_reads_the_row_as_lock_game_does_without_a_lock() -> None:
    game = _game()
    with CaptureQueriesContext(connection) as queries:
        read = gamerows.read_game(game.pk)
    assert _fields(read) == _fields(PoolGame.objects.get(pk=game.pk))
    assert "FOR " not in queries.captured_queries[-1]["sql"].upper().split("WHERE")[-1]
    with pytest.raises(PoolGame.DoesNotExist):
        gamerows.read_game(10**9)


@pytest.mark.usefixtures("require_postgres")
def test_an_actions_update_of_the_game_row_can_be_done_in_place_and_keeps_the_state_in_the_row() -> None:
    """Migration 0009: no column an action writes is indexed (an indexed one makes every update of
    the row a non-HOT one, a new entry in each index); the table leaves room on each page for the
    row's next version; the state, kept in the row, writes no TOAST rows."""
    from tables.game.record import _SAVED_FIELDS

    written = {PoolGame._meta.get_field(name).column for name in (*_SAVED_FIELDS, "answers", "timer_at")}
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
            "AND (a.attnum = ANY(i.indkey) OR pg_get_expr(i.indpred, i.indrelid) LIKE '%%' || a.attname || '%%') "
            "WHERE i.indrelid = 'tables_poolgame'::regclass"
        )
        indexed = {row[0] for row in cursor.fetchall()}
        cursor.execute(
            "SELECT c.reloptions, c.reltoastrelid::regclass::text, a.attstorage, format_type(a.atttypid, NULL) "
            "FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'state' "
            "WHERE c.oid = 'tables_poolgame'::regclass"
        )
        options, toast, storage, kind = cursor.fetchone()
    assert indexed and not indexed & written, indexed & written
    # migration 0010: json (kept as text, never parsed into jsonb's tree), still in the row
    assert "fillfactor=50" in options and storage == "m" and kind == "json"

    game = _game()
    for n in range(3):  # a state past the size PostgreSQL would compress and move out of the row
        game.state = {**game.state, f"padding{n}": [f"card-{i}-{n}" for i in range(250)]}
        game.version += 1
        with transaction.atomic():
            gamerows.update_game(game, ("state", "version"))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_column_size(state), octet_length(state::text) FROM tables_poolgame WHERE id = %s",
            [game.pk],
        )
        stored, text = cursor.fetchone()
        cursor.execute(f"SELECT count(*) FROM {toast}")  # noqa: S608 - the table's own TOAST relation
        assert cursor.fetchone()[0] == 0
    assert text > 4 * 2_032 and stored < text  # past twice the size that went out of the row, compressed
    assert PoolGame.objects.get(pk=game.pk).state == game.state
