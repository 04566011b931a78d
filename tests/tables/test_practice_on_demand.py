"""Practice on demand: a player's own table with bots, dealt at once, private, one at a time."""

from __future__ import annotations

import pytest
from django.test import Client

from game_engine.game import GameState
from tables import services
from tables.errors import BadRequest, GameInProgress, TableError
from tables.game import selectors
from tables.models import PoolGame, Table
from tests.tables.conftest import FakeClock, make_player, make_table
from wallet.selectors import wallet_balance

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("fmt", "seats"), [("61", 2), ("101", 4), ("201", 6)])
def test_the_player_is_seated_with_bots_and_the_game_is_dealt_at_once(fmt: str, seats: int) -> None:
    asha = make_player("asha")
    before = wallet_balance(user=asha)
    table = services.practice_table_start(user=asha, fmt=fmt, seats=seats)
    assert table.owner == asha and table.settings.practice and table.settings.entry_fee == 0
    assert table.settings.format == fmt and table.settings.seats == seats
    game = PoolGame.objects.get(table=table)
    assert game.status == PoolGame.Status.RUNNING
    placed = list(game.seats.order_by("position"))
    assert [(s.user_id == asha.pk, s.is_bot) for s in placed] == [(True, False)] + [(False, True)] * (
        seats - 1
    )
    assert sorted(game.bot_seats) == list(range(1, seats))
    state = GameState.from_dict(game.state)
    assert state.phase == "playing" and len(state.deal.hands[placed[0].engine_seat]) in (13, 14)
    assert wallet_balance(user=asha) == before  # practice is free


def test_asking_again_returns_the_running_game_and_another_kind_waits() -> None:
    asha = make_player("asha")
    first = services.practice_table_start(user=asha, fmt="101", seats=3)
    assert services.practice_table_start(user=asha, fmt="101", seats=3) == first
    assert PoolGame.objects.filter(table__owner=asha).count() == 1
    with pytest.raises(GameInProgress):
        services.practice_table_start(user=asha, fmt="201", seats=3)


def test_a_player_who_left_the_practice_game_gets_a_new_one() -> None:
    asha = make_player("asha")
    first = services.practice_table_start(user=asha, fmt="61", seats=2)
    game = PoolGame.objects.get(table=first)
    answer = services.game_act(game_id=game.pk, user=asha, request_id="bye", action={"type": "leave"})
    assert answer["ok"], answer
    second = services.practice_table_start(user=asha, fmt="201", seats=2)
    assert second != first
    assert PoolGame.objects.get(table=second).status == PoolGame.Status.RUNNING


def test_a_finished_practice_table_is_dealt_again() -> None:
    asha = make_player("asha")
    table = services.practice_table_start(user=asha, fmt="61", seats=2)
    PoolGame.objects.filter(table=table).update(status=PoolGame.Status.FINISHED)
    again = services.practice_table_start(user=asha, fmt="61", seats=2)
    assert again == table and PoolGame.objects.filter(table=table).count() == 2


@pytest.mark.parametrize(("fmt", "seats"), [("points", 2), ("301", 2), ("101", 1), ("101", 7), ("", 3)])
def test_bad_requests_are_refused_and_change_nothing(fmt: str, seats: int) -> None:
    asha = make_player("asha")
    with pytest.raises(BadRequest):
        services.practice_table_start(user=asha, fmt=fmt, seats=seats)
    assert not Table.objects.exists() and not PoolGame.objects.exists()


def test_nobody_else_may_join_a_private_table_or_see_it_in_the_lobby(clock: FakeClock) -> None:
    asha, ravi = make_player("asha"), make_player("ravi")
    public = make_table(fee=1_000, seats=3)
    mine = services.practice_table_start(user=asha, fmt="101", seats=2)
    PoolGame.objects.filter(table=mine).update(status=PoolGame.Status.FINISHED)  # a seat would be free again
    with pytest.raises(TableError, match="another player's own practice table"):
        services.table_join(table_id=mine.pk, user=ravi)
    assert [r["id"] for r in selectors.lobby_tables(user=ravi)] == [public.pk]
    assert [r["id"] for r in selectors.lobby_tables()] == [public.pk]
    assert [r["id"] for r in selectors.lobby_tables(user=asha)] == [public.pk]  # her game there is over
    running = services.practice_table_start(user=asha, fmt="61", seats=3)
    rows = {r["id"]: r for r in selectors.lobby_tables(user=asha)}
    assert set(rows) == {public.pk, running.pk} and rows[running.pk]["private"] is True
    assert [r["id"] for r in selectors.lobby_tables(user=ravi)] == [public.pk]


def test_a_forged_join_of_another_players_practice_table_is_refused_and_the_snapshot_says_so() -> None:
    """What the page is told (``you.may_join``) and what the join form does agree: Ravi, who gets
    no "Join the next game" at Asha's finished practice table, is refused when he posts the form."""
    asha, ravi = make_player("asha"), make_player("ravi")
    mine = services.practice_table_start(user=asha, fmt="61", seats=2)
    PoolGame.objects.filter(table=mine).update(status=PoolGame.Status.FINISHED)
    assert selectors.table_snapshot(table=mine, user=asha)["you"]["may_join"] is True
    assert selectors.table_snapshot(table=mine, user=ravi)["you"]["may_join"] is False
    client = Client()
    client.force_login(ravi)
    answer = client.post(f"/tables/{mine.pk}/join/")
    assert answer.status_code == 302 and answer.url == "/", answer  # back to the lobby, which says why
    assert not PoolGame.objects.filter(table=mine, seats__user=ravi).exists()
    assert PoolGame.objects.filter(table=mine).count() == 1  # no new game was opened for him


def test_lobby_tiles_carry_prize_pool_decks_turn_time_and_seats(client: Client) -> None:
    asha = make_player("asha")
    table = make_table("201", fee=5_000, seats=4, decks=3, turn_seconds=25, rake_bp=1_000)
    services.table_join(table_id=table.pk, user=make_player("ravi"))
    client.force_login(asha)
    (row,) = client.get("/api/tables/").json()
    assert row["prize_pool"] == 18_000  # 4 × 50 chips less 10%
    assert (row["decks"], row["turn_seconds"], row["seats_taken"], row["seats"]) == (3, 25, 1, 4)
    page = client.get("/").content.decode()
    assert row["prize_pool_display"] in page and "25 s" in page and "1 / 4" in page


def test_the_lobby_form_deals_a_practice_table_and_opens_it(client: Client) -> None:
    asha = make_player("asha")
    client.force_login(asha)
    response = client.post("/practice/", {"format": "201", "seats": "5"})
    table = Table.objects.get(owner=asha)
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    bad = client.post("/practice/", {"format": "201", "seats": "lots"}, follow=True)
    assert b"2 to 6 seats" in bad.content and Table.objects.filter(owner=asha).count() == 1
