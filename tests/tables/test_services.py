"""Seats, the start of a game, actions, request ids and timers through the service layer."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from game_engine.game import GameState
from tables import services
from tables.errors import AlreadySeated, GameInProgress, NotSeated, TableFull, TableNotFound
from tables.models import GameEvent, PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table
from wallet.audit import check_ledger
from wallet.errors import InsufficientFunds
from wallet.selectors import wallet_balance

pytestmark = pytest.mark.django_db


def _state(game: PoolGame) -> GameState:
    game.refresh_from_db()
    return GameState.from_dict(game.state)


def test_join_pays_the_entry_fee_and_takes_a_seat() -> None:
    table = make_table(fee=1_000, seats=3)
    asha = make_player("asha", chips=100)
    seat = services.table_join(table_id=table.pk, user=asha)
    assert seat.position == 0
    assert wallet_balance(user=asha) == 100 * 100 - 1_000
    assert seat.game.status == PoolGame.Status.WAITING
    assert check_ledger() == []


def test_join_refuses_a_second_seat_a_full_table_an_unknown_table_and_an_empty_wallet() -> None:
    table = make_table(fee=1_000, seats=2)
    asha, ravi, meera = make_player("asha"), make_player("ravi"), make_player("meera")
    services.table_join(table_id=table.pk, user=asha)
    with pytest.raises(AlreadySeated):
        services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)  # the last seat: the game starts
    with pytest.raises(GameInProgress):
        services.table_join(table_id=table.pk, user=meera)
    with pytest.raises(TableNotFound):
        services.table_join(table_id=999_999, user=meera)
    broke = make_player("broke", chips=0)
    other = make_table(fee=1_000, seats=6)
    with pytest.raises(InsufficientFunds):
        services.table_join(table_id=other.pk, user=broke)
    assert not other.games.filter(seats__user=broke).exists()


def test_full_table_raises_table_full_before_the_game_starts() -> None:
    table = make_table(fee=0, seats=2)
    PoolGame.objects.create(table=table)
    asha = make_player("asha")
    services.table_join(table_id=table.pk, user=asha)
    game = table.games.get()
    game.seats.create(position=1, user=make_player("ravi"))  # a seat taken behind the service's back
    with pytest.raises(TableFull):
        services.table_join(table_id=table.pk, user=make_player("meera"))


def test_leaving_before_the_start_refunds_exactly_the_fee() -> None:
    table = make_table(fee=1_500, seats=4)
    asha = make_player("asha", chips=50)
    services.table_join(table_id=table.pk, user=asha)
    services.table_leave(table_id=table.pk, user=asha)
    assert wallet_balance(user=asha) == 5_000
    with pytest.raises(NotSeated):
        services.table_leave(table_id=table.pk, user=asha)
    # joining again charges again (a new idempotency key), and leaving refunds again
    services.table_join(table_id=table.pk, user=asha)
    assert wallet_balance(user=asha) == 3_500
    services.table_leave(table_id=table.pk, user=asha)
    assert wallet_balance(user=asha) == 5_000
    assert check_ledger() == []


def test_the_game_starts_when_every_seat_is_taken() -> None:
    table = make_table(seats=3, seed=7)
    users = [make_player(n) for n in ("asha", "ravi", "meera")]
    for u in users:
        services.table_join(table_id=table.pk, user=u)
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    state = _state(game)
    assert state.phase == "playing" and state.deal_no == 1
    assert [p.id for p in state.players] == [str(u.pk) for u in users]
    assert game.deadline_kind == "turn" and game.deadline_at is not None
    assert game.deals.count() == 1
    assert GameEvent.objects.filter(game=game, type="game_started").exists()


def test_the_start_countdown_starts_a_game_of_two(clock: FakeClock) -> None:
    table = make_table(seats=6, start_countdown_seconds=20)
    asha, ravi = make_player("asha"), make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    game = table.games.get()
    assert game.deadline_at is None
    services.table_join(table_id=table.pk, user=ravi)
    game.refresh_from_db()
    assert game.deadline_kind == "start"
    assert services.game_timeout(game_id=game.pk, version=game.version) is False  # not due yet
    clock.advance(21)
    assert services.game_timeout(game_id=game.pk, version=game.version - 1) is False  # stale version
    assert services.game_timeout(game_id=game.pk, version=game.version) is True
    game.refresh_from_db()
    assert game.status == PoolGame.Status.RUNNING
    assert len(_state(game).players) == 2


def _started_game() -> tuple[PoolGame, dict[int, object]]:
    table = make_table(seats=2, seed=11)
    asha, ravi = make_player("asha"), make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)
    game = table.games.get()
    return game, {0: asha, 1: ravi}


def test_an_action_out_of_turn_is_refused_and_changes_nothing() -> None:
    game, users = _started_game()
    state = _state(game)
    waiting = next(s for s in (0, 1) if s != state.deal.turn)
    before = (game.version, game.state)
    answer = services.game_act(
        game_id=game.pk, user=users[waiting], request_id="r1", action={"type": "draw", "source": "closed"}
    )
    assert answer["ok"] is False
    assert answer["error"]["rule"].startswith("docs/rules.md §6")
    game.refresh_from_db()
    assert (game.version, game.state) == before


def test_a_repeated_request_id_applies_once_and_returns_the_first_answer() -> None:
    game, users = _started_game()
    turn = _state(game).deal.turn
    first = services.game_act(
        game_id=game.pk, user=users[turn], request_id="same", action={"type": "draw", "source": "closed"}
    )
    assert first["ok"] is True
    second = services.game_act(
        game_id=game.pk, user=users[turn], request_id="same", action={"type": "draw", "source": "closed"}
    )
    assert second["ok"] is True and second["repeated"] is True and second["version"] == first["version"]
    game.refresh_from_db()
    assert game.version == first["version"]
    assert [asked for asked, _ in game.answers[str(users[turn].pk)]] == ["same"]


def test_a_refused_request_writes_nothing_and_is_judged_again_when_repeated() -> None:
    """A refusal changes nothing and writes nothing (not even its answer); its id is not spent."""
    game, users = _started_game()
    turn = _state(game).deal.turn
    other = users[1 - turn]
    draw = {"type": "draw", "source": "closed"}
    with CaptureQueriesContext(connection) as queries:
        refused = services.game_act(game_id=game.pk, user=other, request_id="early", action=draw)
    assert refused["ok"] is False
    assert not [
        q["sql"]
        for q in queries
        if not q["sql"].lstrip().upper().startswith(("SELECT", "SAVEPOINT", "RELEASE"))
    ]
    game.refresh_from_db()
    assert str(other.pk) not in game.answers
    drawn = services.game_act(game_id=game.pk, user=users[turn], request_id="t1", action=draw)
    state = _state(game)
    assert drawn["ok"] and state.deal is not None and state.deal.drawn is not None
    services.game_act(
        game_id=game.pk,
        user=users[turn],
        request_id="t2",
        action={"type": "discard", "card": state.deal.drawn.code},
    )
    assert _state(game).deal.turn == 1 - turn  # now it is their turn: the same id is judged anew
    again = services.game_act(game_id=game.pk, user=other, request_id="early", action=draw)
    assert again["ok"] is True and "repeated" not in again
    assert GameEvent.objects.filter(game=game, type="draw").count() == 2


def test_each_player_keeps_the_answers_to_the_last_accepted_request_ids() -> None:
    game, users = _started_game()
    turn = _state(game).deal.turn
    other = users[1 - turn]
    ids = [f"auto-{i}" for i in range(services.ANSWERS_KEPT + 2)]
    for i, rid in enumerate(ids):  # always allowed: each is accepted, and remembered
        action = {"type": "auto_drop", "on": i % 2 == 0}
        assert services.game_act(game_id=game.pk, user=other, request_id=rid, action=action)["ok"] is True
    for i in range(3):  # refused: not remembered
        answer = services.game_act(game_id=game.pk, user=other, request_id=f"no-{i}", action={"type": "drop"})
        assert answer["ok"] is False
    game.refresh_from_db()
    assert [asked for asked, _ in game.answers[str(other.pk)]] == ids[-services.ANSWERS_KEPT :]
    assert str(users[turn].pk) not in game.answers


def test_strangers_refused_actions_leave_the_game_row_untouched() -> None:
    """300 accounts' refusals made the hot row's answers 430 KB: a refusal must not write at all."""
    game, _ = _started_game()
    game.refresh_from_db()
    before = (game.version, game.state, game.answers)
    strangers = [make_player(f"stranger{i}", chips=0) for i in range(5)]
    with CaptureQueriesContext(connection) as queries:
        for stranger in strangers:
            for n in range(3):
                answer = services.game_act(
                    game_id=game.pk, user=stranger, request_id=f"s{n}", action={"type": "drop"}
                )
                assert answer["error"]["code"] == "not_seated"
    writes = [
        q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(("UPDATE", "INSERT", "DELETE"))
    ]
    assert writes == []
    game.refresh_from_db()
    assert (game.version, game.state, game.answers) == before


@pytest.mark.parametrize(
    "action",
    [
        {"type": "teleport"},
        {"type": "timeout"},
        {"type": "discard", "card": "ZZ"},
        {"type": "discard"},
        "draw",
        {"type": "draw", "source": "sideways"},
    ],
)
def test_malformed_actions_get_a_clear_error_and_change_nothing(action: object) -> None:
    game, users = _started_game()
    turn = _state(game).deal.turn
    before = (game.version, game.state)
    answer = services.game_act(game_id=game.pk, user=users[turn], request_id="bad", action=action)  # type: ignore[arg-type]
    assert answer["ok"] is False and answer["error"]["message"]
    game.refresh_from_db()
    assert (game.version, game.state) == before


def test_a_card_not_in_your_hand_is_refused() -> None:
    game, users = _started_game()
    state = _state(game)
    turn = state.deal.turn
    services.game_act(
        game_id=game.pk, user=users[turn], request_id="d", action={"type": "draw", "source": "closed"}
    )
    hand = {c.code for c in _state(game).deal.hands[turn]}
    missing = next(
        c
        for c in ("AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "10H", "JD", "QC", "KS")
        if c not in hand
    )
    answer = services.game_act(
        game_id=game.pk, user=users[turn], request_id="x", action={"type": "discard", "card": missing}
    )
    assert answer["ok"] is False


def test_a_stranger_cannot_act() -> None:
    game, _ = _started_game()
    stranger = make_player("stranger")
    answer = services.game_act(game_id=game.pk, user=stranger, request_id="s", action={"type": "drop"})
    assert answer == {
        "ok": False,
        "error": {"code": "not_seated", "rule": "", "message": "you are not playing in this game"},
    }


def test_turn_timeout_is_enforced_once_and_a_stale_timer_does_nothing(clock: FakeClock) -> None:
    game, _ = _started_game()
    game.refresh_from_db()
    version = game.version
    assert game.deadline_kind == "turn"
    clock.advance(31)
    assert services.game_timeout(game_id=game.pk, version=version) is True
    game.refresh_from_db()
    assert game.deadline_kind == "extra"
    assert services.game_timeout(game_id=game.pk, version=version) is False  # the same timer again
    assert game.version == version + 1


def test_the_sweep_enforces_deadlines_whose_timer_was_lost(clock: FakeClock) -> None:
    game, _ = _started_game()
    game.refresh_from_db()
    version = game.version
    assert services.deadlines_sweep() == 0
    clock.advance(40)
    assert services.deadlines_sweep() == 1
    game.refresh_from_db()
    assert game.version == version + 1
