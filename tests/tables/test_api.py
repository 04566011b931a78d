"""The lobby, table and hand-history API, and the pages built on it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client

from game_engine.game import GameState
from tables import services
from tables.models import Deal, PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table

pytestmark = pytest.mark.django_db


def _login(client: Client, name: str, chips: int = 100) -> object:
    user = make_player(name, chips=chips)
    client.force_login(user)
    return user


def test_lobby_lists_tables_with_filters(client: Client) -> None:
    _login(client, "asha")
    t101 = make_table("101", fee=1_000, seats=6)
    t61 = make_table("61", fee=500, seats=2)
    rows = client.get("/api/tables/").json()
    assert {r["id"] for r in rows} == {t101.pk, t61.pk}
    only61 = client.get("/api/tables/?format=61").json()
    assert [r["id"] for r in only61] == [t61.pk]
    assert [r["id"] for r in client.get("/api/tables/?min_fee=800").json()] == [t101.pk]
    services.table_join(table_id=t61.pk, user=make_player("ravi"))
    services.table_join(table_id=t61.pk, user=make_player("meera"))  # full: the game starts
    playing = client.get("/api/tables/?status=playing").json()
    assert [(r["id"], r["seats_taken"], r["status"]) for r in playing] == [(t61.pk, 2, "playing")]
    assert client.get("/api/tables/?min_fee=abc").status_code == 200  # bad filters are ignored, not a 500


def test_the_lobby_refreshes_only_the_tables_a_lobby_update_named(client: Client) -> None:
    asha = _login(client, "asha")
    t101 = make_table("101", fee=1_000, seats=6)
    t61 = make_table("61", fee=500, seats=2)
    t201 = make_table("201", fee=500, seats=2)
    assert [r["id"] for r in client.get(f"/api/tables/?ids={t61.pk},{t201.pk}").json()] == [t61.pk, t201.pk]
    # the page's filters still apply: a named table that no longer matches is not in the answer
    assert [r["id"] for r in client.get(f"/api/tables/?ids={t61.pk},{t101.pk}&format=101").json()] == [
        t101.pk
    ]
    assert client.get("/api/tables/?ids=").json() == []
    assert client.get("/api/tables/?ids=999999").json() == []
    # another player's own practice table stays out, named or not
    theirs = services.practice_table_start(user=make_player("ravi"), fmt="101", seats=2)
    assert client.get(f"/api/tables/?ids={theirs.pk}").json() == []
    mine = services.practice_table_start(user=asha, fmt="61", seats=2)
    assert [r["id"] for r in client.get(f"/api/tables/?ids={mine.pk}").json()] == [mine.pk]


@pytest.mark.parametrize("fee", ["--5", "²", "9" * 5000, "1e3", " 5", "-"])
def test_hostile_fee_filters_are_ignored_not_a_server_error(client: Client, fee: str) -> None:
    _login(client, "asha")
    table = make_table("101", fee=1_000, seats=6)
    for name in ("min_fee", "max_fee"):
        answer = client.get("/api/tables/", {name: fee})
        assert answer.status_code == 200, (name, fee)
        assert [r["id"] for r in answer.json()] == [table.pk]


@pytest.mark.parametrize(
    "ids", ["abc", "1,,2", "-1", "1;2", "1 2", ",".join(["1"] * 501), "9" * 19, "²", "1,٣"]
)
def test_bad_lobby_ids_are_refused_with_a_reason(client: Client, ids: str) -> None:
    _login(client, "asha")
    answer = client.get("/api/tables/", {"ids": ids})
    assert answer.status_code == 400
    assert "ids must be up to 500 table ids" in answer.json()["message"]


def test_the_lobby_api_needs_a_login(client: Client) -> None:
    assert client.get("/api/tables/").status_code == 403


def test_join_and_leave_over_http(client: Client) -> None:
    _login(client, "asha")
    table = make_table(fee=1_000, seats=4)
    response = client.post(f"/api/tables/{table.pk}/join/")
    assert response.status_code == 201 and response.json()["position"] == 0
    again = client.post(f"/api/tables/{table.pk}/join/")
    assert again.status_code == 409 and again.json()["code"] == "already_seated"
    assert client.post("/api/tables/424242/join/").status_code == 404
    assert client.post(f"/api/tables/{table.pk}/leave/").status_code == 204
    assert client.post(f"/api/tables/{table.pk}/leave/").status_code == 409


def test_join_without_chips_is_refused_in_words(client: Client) -> None:
    _login(client, "broke", chips=0)
    table = make_table(fee=1_000)
    response = client.post(f"/api/tables/{table.pk}/join/")
    assert response.status_code == 409
    assert response.json()["code"] == "insufficient_funds"
    assert response.json()["message"]


def test_a_spectator_sees_the_public_table_only(client: Client) -> None:
    table = make_table(seats=2, seed=5)
    asha, ravi = make_player("asha"), make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)
    _login(client, "watcher")
    snapshot = client.get(f"/api/tables/{table.pk}/").json()
    assert snapshot["you"]["seat"] is None
    assert snapshot["view"]["hand"] is None and snapshot["view"]["arrangement"] is None
    assert snapshot["view"]["closed_count"] > 0 and "closed" not in snapshot["view"]
    client.force_login(asha)
    mine = client.get(f"/api/tables/{table.pk}/").json()
    assert len(mine["view"]["hand"]) == 13


def _page_config(client: Client, table_id: int) -> dict[str, Any]:
    """The table page's ``table-config`` JSON, as the page's script reads it."""
    page = client.get(f"/tables/{table_id}/").content.decode()
    (text,) = re.findall(r'<script id="table-config" type="application/json">(.*?)</script>', page, re.S)
    config: dict[str, Any] = json.loads(text)
    return config


def test_the_table_page_carries_what_its_viewer_may_see_of_the_table_now(client: Client) -> None:
    """The page's first state is the socket's snapshot (its presence aside), each seat's own: the
    hand shows before the socket has brought anything."""
    table = make_table(seats=2, seed=5)
    asha, ravi = make_player("asha"), make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)
    hands = {}
    for user in (asha, ravi):
        client.force_login(user)
        first = _page_config(client, table.pk)["snapshot"]
        assert first == client.get(f"/api/tables/{table.pk}/").json()
        assert first["type"] == "snapshot" and first["you"]["user_id"] == user.pk and "presence" not in first
        hands[user.username] = first["view"]["hand"]
    assert len(hands["asha"]) == len(hands["ravi"]) == 13 and hands["asha"] != hands["ravi"]
    _login(client, "watcher")
    watched = _page_config(client, table.pk)["snapshot"]
    assert watched["you"]["seat"] is None and watched["view"]["hand"] is None
    assert "closed" not in watched["view"]
    empty = make_table(seats=2)
    assert _page_config(client, empty.pk)["snapshot"]["view"] is None


def _finish_one_deal(clock: FakeClock) -> tuple[PoolGame, list[object]]:
    table = make_table(seats=2, seed=9)
    users = [make_player("asha"), make_player("ravi")]
    for u in users:
        services.table_join(table_id=table.pk, user=u)
    game = PoolGame.objects.get(table=table)
    state = GameState.from_dict(game.state)
    on_turn = users[state.deal.turn]
    assert services.game_act(game_id=game.pk, user=on_turn, request_id="drop", action={"type": "drop"})["ok"]
    return game, users


def test_hand_history_lists_and_opens_my_deals_only(client: Client, clock: FakeClock) -> None:
    game, users = _finish_one_deal(clock)
    deal = Deal.objects.get(game=game, number=1)
    assert deal.finished_at is not None
    client.force_login(users[0])
    listing = client.get("/api/history/deals/").json()
    assert [d["id"] for d in listing["results"]] == [deal.pk]
    detail = client.get(f"/api/history/deals/{deal.pk}/").json()
    types = [e["type"] for e in detail["events"]]
    assert "deal_started" in types and "drop" in types and "deal_over" in types
    assert set(detail["result"]["players"]) == {"0", "1"}
    assert client.get("/history/").status_code == 200
    page = client.get(f"/history/deals/{deal.pk}/")
    assert page.status_code == 200 and b"deal_over" in page.content
    _login(client, "stranger")
    assert client.get(f"/api/history/deals/{deal.pk}/").status_code == 404
    assert client.get(f"/history/deals/{deal.pk}/").status_code == 404


def test_lobby_page_lists_tables_and_joins(client: Client) -> None:
    _login(client, "asha")
    table = make_table(fee=1_000, seats=4)
    page = client.get("/")
    assert page.status_code == 200 and table.name.encode() in page.content
    response = client.post(f"/tables/{table.pk}/join/")
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/"
    assert client.get(f"/tables/{table.pk}/").status_code == 200


def test_openapi_schema_documents_the_table_endpoints(client: Client) -> None:
    _login(client, "asha")
    schema = client.get("/api/schema/").content.decode()
    for path in ("/api/tables/", "/api/tables/{table_id}/join/", "/api/history/deals/", "/api/wallet/"):
        assert path in schema
