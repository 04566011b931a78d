"""Simultaneous writers on one game, on the real PostgreSQL: the game row lock serialises them.

Each writer is a real thread with its own database connection (opened before a
barrier releases them together, closed when the thread ends). Only PostgreSQL's
row locks make these pass: without ``select_for_update`` two draws read the
same version and both apply, or both write ``version + 1``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial
from typing import Any

import pytest
from django.db import connection

from game_engine.game import GameState
from game_engine.views import view_for
from tables import services
from tables.models import GameEvent, PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table
from wallet.audit import check_ledger

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def run_together(calls: list[Callable[[], Any]], timeout: float = 30) -> list[Any]:
    """Run each call in its own thread, released together by a barrier; returns their results."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index: int, call: Callable[[], Any]) -> None:
        try:
            connection.ensure_connection()  # this thread's own connection, opened before the race
            barrier.wait(timeout=timeout)
            results[index] = call()
        except BaseException as exc:  # reported to the test thread below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i, c), name=f"racer-{i}") for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout)
    assert not any(t.is_alive() for t in threads), "a racing thread did not finish in time"
    if errors:
        raise errors[0]
    return results


def _state(game: PoolGame) -> GameState:
    game.refresh_from_db()
    return GameState.from_dict(game.state)


def _running_game(seats: int, seed: int) -> tuple[PoolGame, dict[str, Any]]:
    table = make_table(seats=seats, seed=seed)
    users = [make_player(f"p{seed}x{i}") for i in range(seats)]
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    return game, {str(u.pk): u for u in users}


def test_six_conflicting_actions_on_one_turn_apply_exactly_once(require_postgres: None) -> None:
    game, users = _running_game(seats=4, seed=31)
    rounds = 0
    while rounds < 4:
        state = _state(game)
        if state.phase != "playing":
            break
        deal = state.deal
        assert deal is not None and deal.drawn is None
        seat = deal.turn
        user = users[state.players[seat].id]
        open_source = "open" if view_for(state, seat)["can_pick_open"] else "closed"
        actions: list[dict[str, Any]] = [
            {"type": "draw", "source": "closed"},
            {"type": "draw", "source": "closed"},
            {"type": "draw", "source": open_source},
            {"type": "drop"},
            {"type": "drop"},
            {"type": "draw", "source": open_source},
        ]
        before_version, before_events = game.version, game.event_count
        ids = [f"race{rounds}-{i}" for i in range(len(actions))]
        answers = run_together(
            [
                partial(services.game_act, game_id=game.pk, user=user, request_id=rid, action=act)
                for rid, act in zip(ids, actions, strict=True)
            ]
        )
        applied = [a for a in answers if a["ok"]]
        refused = [a for a in answers if not a["ok"]]
        assert len(applied) == 1, f"round {rounds}: {answers}"
        assert applied[0]["version"] == before_version + 1
        for answer in refused:
            assert answer["error"]["message"], answer
            assert answer["error"]["code"], answer
        game.refresh_from_db()
        assert game.version == before_version + 1, f"round {rounds}: the version moved by more than one"
        new_events = list(GameEvent.objects.filter(game=game, seq__gte=before_events).order_by("seq"))
        assert len(new_events) == game.event_count - before_events
        assert {e.version for e in new_events} == {before_version + 1}
        assert sum(e.type in ("draw", "drop") for e in new_events) == 1, [e.type for e in new_events]
        answered = [asked for asked, _ in game.answers[str(user.pk)]]
        winner = ids[answers.index(applied[0])]
        assert answered[-1] == winner and not set(answered) & (set(ids) - {winner}), answered
        # the winner drew: discard the drawn card so the next round is someone's fresh turn
        state = _state(game)
        if state.phase == "playing" and state.deal is not None and state.deal.drawn is not None:
            answer = services.game_act(
                game_id=game.pk,
                user=user,
                request_id=f"discard{rounds}",
                action={"type": "discard", "card": state.deal.drawn.code},
            )
            assert answer["ok"], answer
            game.refresh_from_db()
        rounds += 1
    assert rounds >= 2, "the deal ended before two racing rounds were played"
    assert check_ledger() == []


def test_the_same_request_sent_twice_at_once_applies_once(require_postgres: None) -> None:
    game, users = _running_game(seats=2, seed=32)
    state = _state(game)
    assert state.deal is not None
    user = users[state.players[state.deal.turn].id]
    before = game.version

    def send() -> dict[str, Any]:
        return services.game_act(
            game_id=game.pk, user=user, request_id="twice", action={"type": "draw", "source": "closed"}
        )

    first, second = run_together([send, send])
    assert first["ok"] is True and second["ok"] is True, (first, second)
    assert sorted([first.get("repeated", False), second.get("repeated", False)]) == [False, True]
    strip = {k: v for k, v in first.items() if k != "repeated"}
    assert strip == {k: v for k, v in second.items() if k != "repeated"}
    assert strip["version"] == before + 1
    game.refresh_from_db()
    assert game.version == before + 1
    assert [asked for asked, _ in game.answers[str(user.pk)]].count("twice") == 1
    assert GameEvent.objects.filter(game=game, version=before + 1, type="draw").count() == 1
    deal = _state(game).deal
    assert deal is not None and deal.drawn is not None  # one card drawn, not two
    assert len(deal.hands[deal.turn]) == 14


def test_concurrent_timers_and_sweeps_for_one_deadline_apply_once(
    require_postgres: None, clock: FakeClock
) -> None:
    game, _ = _running_game(seats=2, seed=33)
    game.refresh_from_db()
    # the turn time (30 s) runs out: the extra-time bank starts; then the bank (60 s) runs out: a missed turn
    for advance, expected in ((31, "extra_time"), (61, "turn_missed")):
        version = game.version
        clock.advance(advance)
        timers: list[Callable[[], Any]] = [
            partial(services.game_timeout, game_id=game.pk, version=version) for _ in range(4)
        ]
        sweeps: list[Callable[[], Any]] = [services.deadlines_sweep for _ in range(2)]
        results = run_together(timers + sweeps)
        assert sum(int(r) for r in results) == 1, results
        game.refresh_from_db()
        assert game.version == version + 1
        types = list(GameEvent.objects.filter(game=game, version=version + 1).values_list("type", flat=True))
        assert types.count(expected) == 1, types
        # the same timer once more, later: stale, nothing happens
        assert services.game_timeout(game_id=game.pk, version=version) is False
        game.refresh_from_db()
        assert game.version == version + 1
