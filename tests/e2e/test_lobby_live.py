"""An open lobby page follows the tables as other players take seats, without a reload.

Asha keeps the lobby open on a phone; other players join tables from their own lobby
pages (the tile's Join button). Her tiles show each seat taken from the rows the
lobby socket carries (``tables.realtime.lobbyfeed``: one message a second at most, listing
every table changed, with its row), so her page asks the server for nothing. With a
filter on ("Open" tables) her page filters those rows itself, by the server's rules: a table
whose game starts leaves her list, and still she asks nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.pages import Player, join_from_lobby, make_user, pool_table
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def seat_count(player: Player, table_id: int) -> str | None:
    return player.page.text_content(f".table-tile[data-table-id='{table_id}'] .seat-count", timeout=500)


def tile_ids(player: Player) -> list[int]:
    return player.page.eval_on_selector_all(
        "#lobby-tables .table-tile", "tiles => tiles.map(t => Number(t.dataset.tableId))"
    )


def lobby_requests(player: Player) -> list[str]:
    return [r for r in player.requests if "/api/tables/" in r]


def test_an_open_lobby_follows_the_seats_others_take(live_server_url: str, browser: Any) -> None:
    tables = [pool_table(f"Live {i}", seats=3) for i in range(3)]
    asha = Player(browser, live_server_url, "Asha", PHONE)
    asha.log_in(make_user("asha", "Asha"))
    asha.goto("/")
    asha.page.wait_for_selector("#lobby-live.on")
    wait_until(lambda: len(lobby_requests(asha)) == 1, "the list loaded once the socket is open")
    assert all(seat_count(asha, t.pk) == "0 / 3" for t in tables)

    others: list[Player] = []

    def join(table_index: int) -> None:
        other = Player(browser, live_server_url, f"Player{len(others)}", DESKTOP)
        other.log_in(make_user(f"player{len(others)}", f"Player {len(others)}"))
        join_from_lobby(other, tables[table_index])
        others.append(other)

    for i in range(3):
        join(i)
    for table in tables:
        wait_until(lambda: seat_count(asha, table.pk) == "1 / 3", f"Asha's tile of {table.name}")  # noqa: B023
    asha.page.wait_for_timeout(1200)  # anything still on its way
    updates = [f for f in asha.frames if f.get("type") == "lobby_update"]
    assert {t for f in updates for t in f["tables"]} >= {t.pk for t in tables}
    assert 1 <= len(updates) <= len(tables), updates
    # the rows came with the updates: the page asked the server for nothing more
    assert lobby_requests(asha) == lobby_requests(asha)[:1], lobby_requests(asha)

    # "Open" tables only: a tap on the filter loads that list; then the rows the updates carry are
    # filtered by the page itself, so it asks the server for nothing more
    asha.page.tap("#lobby-filters label:has(input[name=status][value=open])")
    wait_until(lambda: any("status=open" in r for r in lobby_requests(asha)), "the filtered list")
    before = len(lobby_requests(asha))
    join(0)
    wait_until(lambda: seat_count(asha, tables[0].pk) == "2 / 3", "the second seat of the first table")
    join(0)  # the table is full: its game starts, so it is no longer open
    wait_until(lambda: tables[0].pk not in tile_ids(asha), "the started table leaving the open list")
    assert sorted(tile_ids(asha)) == sorted(t.pk for t in tables[1:])
    assert lobby_requests(asha)[before:] == [], lobby_requests(asha)[before:]
    assert asha.page.url.endswith("/?status=open")  # the same page all along, its filter in the address
    # "Playing" tables: the same page shows the started table alone
    asha.page.tap("#lobby-filters label:has(input[name=status][value=playing])")
    wait_until(lambda: tile_ids(asha) == [tables[0].pk], "the playing list")

    for player in [asha, *others]:
        player.assert_clean()
        player.close()
