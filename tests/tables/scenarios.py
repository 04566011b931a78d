"""Games played through the services for the history tests: a few moves, by whoever is on turn."""

from __future__ import annotations

from accounts.models import User
from game_engine.game import GameState
from tables import services
from tables.models import PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table


def act(game: PoolGame, user: User, request_id: str, action: dict[str, object]) -> None:
    answer = services.game_act(game_id=game.pk, user=user, request_id=request_id, action=action)
    assert answer["ok"], answer


def on_turn_drops(game: PoolGame, users: dict[str, User], tag: str) -> int:
    """Whoever is on turn drops (with two players in the deal that ends it); returns their seat."""
    state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
    assert state.deal is not None
    seat = state.deal.turn
    act(game, users[state.players[seat].id], f"drop-{tag}", {"type": "drop"})
    return seat


def three_player_game(clock: FakeClock) -> tuple[PoolGame, dict[str, User], list[int]]:
    """Meera leaves in deal 1, deal 1 ends on a drop, deal 2 ends on a drop (returns the droppers' seats)."""
    table = make_table(seats=3, pause_seconds=1)
    asha, ravi, meera = make_player("asha"), make_player("ravi"), make_player("meera")
    for u in (asha, ravi, meera):
        services.table_join(table_id=table.pk, user=u)
    game = PoolGame.objects.get(table=table)
    users = {str(u.pk): u for u in (asha, ravi, meera)}
    act(game, meera, "bye", {"type": "leave"})
    droppers = [on_turn_drops(game, users, "1")]
    game.refresh_from_db()
    while game.deadline_kind != "turn":  # the split offer (§8.1) runs out, then the pause
        assert game.deadline_kind in ("split", "next_deal"), game.deadline_kind
        clock.advance(60)
        assert services.game_timeout(game_id=game.pk, version=game.version) is True
        game.refresh_from_db()
    droppers.append(on_turn_drops(game, users, "2"))
    return game, users, droppers
