"""The hand history's replay (game_engine/replay.py) through the API: who sees it, and a changed history caught."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.models import User
from game_engine.game import GameState
from tables import services
from tables.models import Deal, GameEvent, PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table
from tests.tables.games import one_finished_deal
from tests.tables.scenarios import three_player_game

pytestmark = pytest.mark.django_db


def test_a_player_of_the_game_gets_the_replay_to_the_result_sheet(client: Client, clock: FakeClock) -> None:
    deal, users = one_finished_deal()
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
    # each hand as its player last grouped it, recorded at the deal's end (the same cards as held)
    groups = detail["result"]["arrangements"]
    assert {seat: sorted(c for g in gs for c in g) for seat, gs in groups.items()} == {
        seat: sorted(hand) for seat, hand in steps[-1]["hands"].items()
    }


def test_a_player_of_another_game_and_a_spectator_get_nothing(client: Client, clock: FakeClock) -> None:
    deal, _ = one_finished_deal()
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
    deal, users = one_finished_deal()
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


def test_a_player_who_left_the_game_still_replays_its_later_deals(client: Client, clock: FakeClock) -> None:
    """docs/rules.md §10.3: players of the game, not only of the deal, see its finished deals."""
    game, users, _ = three_player_game(clock)
    meera = next(u for u in users.values() if u.username == "meera")
    second = Deal.objects.get(game=game, number=2)
    assert second.finished_at is not None and meera not in second.players.all()

    client.force_login(meera)
    detail = client.get(f"/api/history/deals/{second.pk}/")
    assert detail.status_code == 200 and detail.json()["replay_error"] is None
    assert client.get(f"/history/deals/{second.pk}/").status_code == 200  # the replay page too


def test_a_deal_in_progress_is_nobodys_to_replay_and_staff_see_it_in_the_admin(
    client: Client, clock: FakeClock
) -> None:
    table = make_table(seats=2)
    asha, ravi = make_player("asha"), make_player("ravi")
    for u in (asha, ravi):
        services.table_join(table_id=table.pk, user=u)
    game = PoolGame.objects.get(table=table)
    running = Deal.objects.get(game=game, number=1)
    client.force_login(asha)
    assert client.get(f"/api/history/deals/{running.pk}/").status_code == 404
    assert client.get(f"/admin/tables/poolgame/{game.pk}/change/").status_code == 302  # to the admin login

    staff = User.objects.create_user("support", password="x-rummy-2026", is_staff=True, is_superuser=True)
    client.force_login(staff)
    assert 'id="closed-deck"' not in client.get(f"/admin/tables/poolgame/{game.pk}/change/").content.decode()
    page = client.get(f"/admin/tables/poolgame/{game.pk}/live/", {"reason": "a dispute"}).content.decode()
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    shown = page[page.index('id="closed-deck"') :]
    shown = shown[: shown.index("</p>")]
    assert re.findall(r'title="([^"]+)"', shown) == [c.code for c in reversed(state.deal.closed)]
    assert client.get(f"/admin/tables/deal/{running.pk}/change/").status_code == 200
