"""The table socket's metrics: sockets open, each action by kind and outcome, updates sent."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from prometheus_client import REGISTRY

from tables import services
from tables.game.notify import table_group
from tests.sockets import of_type, open_socket, open_table, until
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


ACTIONS = "rummy_table_action_duration_seconds_count"


async def test_sockets_are_counted_open_and_closed_and_each_action_by_kind_and_outcome() -> None:
    table = await sync_to_async(make_table)("101", seats=2, seed=11)
    asha, ravi = await sync_to_async(make_player)("asha"), await sync_to_async(make_player)("ravi")
    for user in (asha, ravi):
        await sync_to_async(services.table_join)(table_id=table.pk, user=user)
    tables_open = sample("rummy_sockets_open", kind="table")
    lobbies_open = sample("rummy_sockets_open", kind="lobby")
    pages = [await open_table(asha, table.pk), await open_table(ravi, table.pk)]
    lobby = await open_socket(asha, "/ws/lobby/")
    assert sample("rummy_sockets_open", kind="table") == tables_open + 2
    assert sample("rummy_sockets_open", kind="lobby") == lobbies_open + 1
    snapshots = [await until(p, of_type("snapshot")) for p in pages]
    turn = snapshots[0]["view"]["turn"]
    on_turn = next(i for i, s in enumerate(snapshots) if s["view"]["seat"] == turn)
    mover, waiter = pages[on_turn], pages[1 - on_turn]

    ok_before = sample(ACTIONS, action="draw", outcome="ok")
    refused_before = sample(ACTIONS, action="draw", outcome="refused")
    unknown_before = sample(ACTIONS, action="unknown", outcome="refused")
    rebuilt_before = sample("rummy_table_updates_rebuilt_total")
    sent_before = sample("rummy_notices_sent_total", type="table.changed")

    draw = {"type": "draw", "source": "closed"}
    await waiter.send_json_to({"type": "action", "request_id": "w1", "action": draw})  # not their turn
    assert not (await until(waiter, of_type("result", request_id="w1")))["ok"]
    await mover.send_json_to({"type": "action", "request_id": "m1", "action": draw})
    assert (await until(mover, of_type("result", request_id="m1")))["ok"]
    await until(waiter, of_type("update"))
    await mover.send_json_to({"type": "action", "request_id": "m2", "action": {"type": "fly"}})
    await until(mover, of_type("result", request_id="m2"))

    assert sample(ACTIONS, action="draw", outcome="ok") == ok_before + 1
    assert sample(ACTIONS, action="draw", outcome="refused") == refused_before + 1
    assert sample(ACTIONS, action="unknown", outcome="refused") == unknown_before + 1
    assert sample("rummy_notices_sent_total", type="table.changed") >= sent_before + 1
    assert sample("rummy_table_updates_rebuilt_total") == rebuilt_before  # each notice came in order

    # a notice two versions ahead (one lost on the way): each socket rebuilds from the database
    layer = get_channel_layer()
    game_id = snapshots[0]["game"]["id"]
    await layer.group_send(
        table_group(table.pk),
        {"type": "table.changed", "game_id": game_id, "version": 10_000, "events": [], "game": None},
    )
    for page in pages:
        await until(page, lambda m: m.get("type") == "update" and m.get("rebuilt") is True)
    assert sample("rummy_table_updates_rebuilt_total") == rebuilt_before + 2

    for communicator in (*pages, lobby):
        await communicator.disconnect()
    assert sample("rummy_sockets_open", kind="table") == tables_open
    assert sample("rummy_sockets_open", kind="lobby") == lobbies_open
