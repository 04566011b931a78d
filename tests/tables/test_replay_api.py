"""The hand history's replay (game_engine/replay.py) through the API: who sees it, and a changed history caught."""

from __future__ import annotations

import pytest
from django.test import Client

from game_engine.game import GameState
from tables import services
from tables.models import Deal, GameEvent, PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table

pytestmark = pytest.mark.django_db


def _one_finished_deal() -> tuple[Deal, list[object]]:
    table = make_table(seats=2)
    users = [make_player("asha"), make_player("ravi")]
    for u in users:
        services.table_join(table_id=table.pk, user=u)
    game = PoolGame.objects.get(table=table)
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    on_turn = users[state.deal.turn]
    assert services.game_act(
        game_id=game.pk, user=on_turn, request_id="d", action={"type": "draw", "source": "closed"}
    )["ok"]
    state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
    assert state.deal is not None
    card = state.deal.hands[state.deal.turn][0].code
    assert services.game_act(
        game_id=game.pk, user=on_turn, request_id="x", action={"type": "discard", "card": card}
    )["ok"]
    other = users[1 - users.index(on_turn)]
    assert services.game_act(game_id=game.pk, user=other, request_id="drop", action={"type": "drop"})["ok"]
    return Deal.objects.get(game=game, number=1), users


def test_a_player_of_the_game_gets_the_replay_to_the_result_sheet(client: Client, clock: FakeClock) -> None:
    deal, users = _one_finished_deal()
    client.force_login(users[0])
    detail = client.get(f"/api/history/deals/{deal.pk}/").json()
    assert detail["replay_error"] is None
    steps = detail["replay"]
    kinds = [s["event"]["type"] for s in steps]
    assert kinds[0] == "deal_started" and kinds[-1] == "deal_over" and "draw" in kinds and "discard" in kinds
    assert all(len(h) == 13 for h in steps[0]["hands"].values())
    assert steps[0]["hands"]["0"] + steps[0]["hands"]["1"]  # every hand open after the deal
    draw = next(s for s in steps if s["event"]["type"] == "draw")
    assert draw["drawn"] and draw["closed_count"] == steps[0]["closed_count"] - 1


def test_a_player_of_another_game_and_a_spectator_get_nothing(client: Client, clock: FakeClock) -> None:
    deal, _ = _one_finished_deal()
    client.force_login(make_player("watcher"))  # a logged-in spectator of that table
    assert client.get(f"/api/history/deals/{deal.pk}/").status_code == 404
    other = make_table(seats=2)
    outsider = make_player("elsewhere")
    services.table_join(table_id=other.pk, user=outsider)
    client.force_login(outsider)
    assert client.get(f"/api/history/deals/{deal.pk}/").status_code == 404
    client.logout()
    assert client.get(f"/api/history/deals/{deal.pk}/").status_code in (401, 403)


def test_a_changed_stored_history_is_reported_not_replayed(client: Client, clock: FakeClock) -> None:
    deal, users = _one_finished_deal()
    client.force_login(users[1])
    steps = client.get(f"/api/history/deals/{deal.pk}/").json()["replay"]
    k = next(i for i, s in enumerate(steps) if s["event"]["type"] == "discard")
    held = steps[k - 1]["hands"][str(steps[k]["event"]["seat"])]
    alien = next(
        c for c in ("PJ", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S", "10S", "JS") if c not in held
    )
    row = GameEvent.objects.filter(game=deal.game, type="discard").first()
    assert row is not None
    GameEvent.objects.filter(pk=row.pk).update(data={**row.data, "card": alien})
    detail = client.get(f"/api/history/deals/{deal.pk}/").json()
    assert detail["replay"] is None and detail["replay_error"]
