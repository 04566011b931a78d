"""The table's socket opens from the page's head (``static/js/early.js``, inlined there), before the
table's code has arrived, and the table adopts it: one socket a page, its snapshot shown.

With the table's own code held back, the page still opens its table socket (the early one); with it,
the page opens exactly one, whose first frames (the snapshot, brought before the table's code ran)
the table shows. An early socket lost before the code arrives is replaced by one of the table's own,
on a page opened before the game started, which then shows the deal. And the first state comes with
the page itself: the hand shows before the socket has brought anything.
"""

from __future__ import annotations

from typing import Any

import pytest

from tables.game.selectors import table_snapshot
from tables.models import PoolGame
from tests.e2e.conftest import PHONE
from tests.e2e.pages import Player, join_by_form, make_user, pool_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _table_sockets(player: Player) -> list[str]:
    """The table sockets ``player``'s page opens from now on, as they open."""
    opened: list[str] = []
    player.page.on("websocket", lambda ws: opened.append(ws.url) if "/ws/tables/" in ws.url else None)
    return opened


def test_the_table_socket_opens_before_the_tables_code_and_the_table_adopts_it(
    live_server_url: str, browser: Any
) -> None:
    table = pool_table("Early", 2, entry_fee=0, start_countdown_seconds=0)
    users = [make_user("early-a", "Asha"), make_user("early-b", "Bala")]
    for user in users:
        join_by_form(user, table)

    held = Player(browser, live_server_url, "Asha, the table's code held back", PHONE)
    held_sockets = _table_sockets(held)
    held.page.route("**/js/table.js", lambda route: route.abort())
    held.log_in(users[0])
    held.goto(f"/tables/{table.pk}/")
    held.page.wait_for_function("() => window.rummyEarlySocket && window.rummyEarlySocket.brought.length > 0")
    assert len(held_sockets) == 1  # early.js's, with the snapshot in it
    assert held.page.evaluate("() => JSON.parse(window.rummyEarlySocket.brought[0].data).type") == "snapshot"
    held.close()

    asha = Player(browser, live_server_url, "Asha", PHONE)
    sockets = _table_sockets(asha)
    asha.open_table(users[0], table.pk)
    assert len(asha.hand()) == 13
    asha.page.wait_for_function("() => window.rummyTable.socket.isOpen()")
    assert sockets == [f"{live_server_url.replace('http', 'ws', 1)}/ws/tables/{table.pk}/"]
    assert asha.page.evaluate("() => window.rummyEarlySocket === undefined")  # taken by the table
    asha.assert_clean()
    asha.close()


def test_an_early_socket_lost_before_the_code_arrives_is_replaced_and_the_game_starts_under_the_page(
    live_server_url: str, browser: Any
) -> None:
    """Opened before the game starts; the signal drops the early socket while the table's code is
    still on its way: the table opens a socket of its own and shows the deal when it comes."""
    table = pool_table("Early, lost", 2, entry_fee=0, start_countdown_seconds=0)
    asha_user, bala_user = make_user("lost-a", "Asha"), make_user("lost-b", "Bala")
    join_by_form(asha_user, table)

    asha = Player(browser, live_server_url, "Asha", PHONE)
    sockets = _table_sockets(asha)
    asha.page.route("**/js/table.js", lambda route: route.abort())
    asha.log_in(asha_user)
    asha.goto(f"/tables/{table.pk}/")
    asha.page.wait_for_function("() => window.rummyEarlySocket && window.rummyEarlySocket.brought.length > 0")
    asha.page.evaluate(
        """() => new Promise((done) => {
             const ws = window.rummyEarlySocket.ws;
             ws.addEventListener("close", () => done());
             ws.close();
           })"""
    )
    # the table's code arrives now
    asha.page.unroute("**/js/table.js")
    asha.errors.clear()  # the held-back script's failure, which a real slow link does not cause
    src = asha.page.evaluate("() => document.querySelector('script[type=module][src*=\"/js/table\"]').src")
    asha.page.add_script_tag(url=src, type="module")
    asha.page.wait_for_function("() => window.rummyTable && window.rummyTable.socket.isOpen()")
    assert len(sockets) == 2  # the lost early socket, then the table's own
    assert asha.page.evaluate("() => window.rummyEarlySocket === undefined")

    join_by_form(bala_user, table)  # the second seat is taken: the deal comes to the open page
    asha.page.wait_for_selector("#groups .card")
    assert len(asha.hand()) == 13
    assert len(sockets) == 2
    asha.assert_clean()
    asha.close()


def test_the_hand_shows_from_the_page_itself_before_the_socket_brings_anything(
    live_server_url: str, browser: Any
) -> None:
    """The table's first state comes with the page: with a socket that opens and then says nothing,
    the dealt hand still shows, the server's own, at the game's version."""
    table = pool_table("Early, silent", 2, entry_fee=0, start_countdown_seconds=0)
    users = [make_user("silent-a", "Asha"), make_user("silent-b", "Bala")]
    for user in users:
        join_by_form(user, table)
    game = PoolGame.objects.get(table=table)
    served = table_snapshot(table=table, user=users[0], game=game)

    asha = Player(browser, live_server_url, "Asha", PHONE)
    mocked: list[str] = []
    # never connected to the server: the page's socket opens, and nothing comes through it
    asha.page.route_web_socket("**/ws/tables/**", lambda ws: mocked.append(ws.url))
    asha.open_table(users[0], table.pk)
    assert sorted(asha.hand()) == sorted(served["view"]["hand"])
    assert asha.page.evaluate("() => window.rummyTable.state.version") == served["version"] == game.version
    assert mocked, "the page's socket was not the silent one"
    asha.assert_clean()
    asha.close()
