"""Private actions stay private, and groups are evaluated over the table socket.

An ``arrange`` is kept (a player who does not show in time is scored on it,
docs/rules.md §5) but nobody else can see it: it must not move the game's version,
reach another seat's socket or disturb a timer armed at that version. Only the
player's own other sockets hear of it. ``evaluate`` answers from the socket's memory.
Everything arrives as the page does: over the table socket, with the lobby socket open.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.urls import reverse

from accounts.models import User
from tables import services, tasks
from tables.game import notify
from tables.models import Table
from tests.sockets import open_socket, still_open
from tests.tables.conftest import FakeClock, make_player, make_table
from tests.tables.games import game_fingerprint, regrouped

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def _started(fmt: str = "101", **settings: Any) -> tuple[Table, list[User]]:
    table = make_table(fmt, seats=2, seed=7, **settings)
    users = [make_player("asha"), make_player("ravi")]
    for user in users:
        services.table_join(table_id=table.pk, user=user)
    return table, users


async def _snapshot(page: WebsocketCommunicator) -> dict[str, Any]:
    message: dict[str, Any] = await page.receive_json_from(timeout=5)
    assert message["type"] == "snapshot", message
    return message


async def _answer(page: WebsocketCommunicator, kind: str, request_id: str) -> dict[str, Any]:
    """The next ``kind`` message answering ``request_id``; any other message fails the test."""
    message: dict[str, Any] = await page.receive_json_from(timeout=5)
    assert message["type"] == kind and message.get("request_id") == request_id, message
    return message


async def test_an_arrangement_reaches_only_the_players_other_sockets_and_keeps_the_version() -> None:
    table, (asha, ravi) = await _started(turn_seconds=60)
    path = f"/ws/tables/{table.pk}/"
    lobby = await open_socket(asha, "/ws/lobby/")  # the page keeps one open
    tab_a, tab_b, other = (
        await open_socket(asha, path),
        await open_socket(asha, path),
        await open_socket(ravi, path),
    )
    try:
        first = await _snapshot(tab_a)
        await _snapshot(tab_b)
        seen_by_ravi = await _snapshot(other)
        game_id, version = first["game"]["id"], first["version"]
        before = await sync_to_async(game_fingerprint)(game_id)
        groups = regrouped(first["view"]["hand"])

        action = {"type": "arrange", "groups": groups}
        await tab_a.send_json_to({"type": "action", "request_id": "arr-1", "action": action})
        result = await _answer(tab_a, "result", "arr-1")
        assert result["ok"] and result["version"] == version, result

        # her other tab gets her view at the same version, with the arrangement
        view = await tab_b.receive_json_from(timeout=5)
        assert view["type"] == "view" and view["version"] == version, view
        assert view["view"]["arrangement"] == groups and view["view"]["arranged"] is True
        # nobody else hears anything; the tab that sent it, only its result; the lobby nothing
        assert await other.receive_nothing(timeout=1), await other.receive_json_from()
        assert await tab_a.receive_nothing(timeout=0.2), await tab_a.receive_json_from()
        assert await lobby.receive_nothing(timeout=0.2), await lobby.receive_json_from()
        await still_open(lobby)

        # kept in the state, without a new version or event
        after = await sync_to_async(game_fingerprint)(game_id)
        assert after[0] == before[0] == version and after[3] == before[3]
        assert after[1] != before[1]
        # a repeated request id answers the first answer and changes nothing
        await tab_a.send_json_to({"type": "action", "request_id": "arr-1", "action": action})
        again = await _answer(tab_a, "result", "arr-1")
        assert again["ok"] and again["repeated"] and again["version"] == version
        assert await tab_b.receive_nothing(timeout=0.5)
        assert await sync_to_async(game_fingerprint)(game_id) == after

        # a reconnect shows it (disconnection protection); ravi's view never changed
        await tab_a.disconnect()
        tab_a = await open_socket(asha, path)
        back = await _snapshot(tab_a)
        assert back["version"] == version and back["view"]["arrangement"] == groups
        await other.send_json_to({"type": "snapshot"})
        again_ravi = await _snapshot(other)
        assert again_ravi["view"] == seen_by_ravi["view"]
    finally:
        for page in (tab_a, tab_b, other, lobby):
            await page.disconnect()


async def test_an_arrangement_is_told_to_the_players_other_sockets_only_while_there_are_any(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Most players have one socket at a table: their arrangements publish no notice at all. A second
    tab at the table makes the first tell it (and it the first); once it closes, nothing is told."""
    told: list[str] = []
    seat_view = notify.seat_view

    def recording(**kwargs: Any) -> None:
        told.append(kwargs["request_id"])
        seat_view(**kwargs)

    monkeypatch.setattr(notify, "seat_view", recording)
    table, (asha, _ravi) = await _started(turn_seconds=60)
    path = f"/ws/tables/{table.pk}/"
    tab_a = await open_socket(asha, path)
    tab_b: WebsocketCommunicator | None = None
    try:
        hand = (await _snapshot(tab_a))["view"]["hand"]

        async def arrange(page: WebsocketCommunicator, rid: str, groups: list[list[str]]) -> None:
            await page.send_json_to(
                {"type": "action", "request_id": rid, "action": {"type": "arrange", "groups": groups}}
            )
            assert (await _answer(page, "result", rid))["ok"]

        await arrange(tab_a, "alone-1", regrouped(hand))
        assert told == []  # one socket: nobody to tell
        tab_b = await open_socket(asha, path)
        await _snapshot(tab_b)
        await arrange(tab_a, "two-1", [sorted(hand)])
        view = await tab_b.receive_json_from(timeout=5)
        assert view["type"] == "view" and view["view"]["arrangement"] == [sorted(hand)], view
        await arrange(tab_b, "two-2", regrouped(hand))  # the newer tab knows of the older one too
        view = await tab_a.receive_json_from(timeout=5)
        assert view["type"] == "view" and view["view"]["arrangement"] == regrouped(hand), view
        assert told == ["two-1", "two-2"]
        await tab_b.disconnect()
        tab_b = None
        await arrange(tab_a, "alone-2", [sorted(hand)])
        assert told == ["two-1", "two-2"]  # the other tab said goodbye
    finally:
        for page in (tab_a, tab_b):
            if page is not None:
                await page.disconnect()


async def test_a_timer_armed_before_arrangements_still_fires_at_its_version(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    timers: list[tuple[int, int, datetime]] = []

    def record(*, game_id: int, version: int, eta: datetime) -> None:
        timers.append((game_id, version, eta))

    monkeypatch.setattr(notify, "schedule_timeout", record)
    table, (asha, ravi) = await _started(turn_seconds=30, extra_time_seconds=0)
    path = f"/ws/tables/{table.pk}/"
    pages = {asha.pk: await open_socket(asha, path), ravi.pk: await open_socket(ravi, path)}
    try:
        snapshots = {pk: await _snapshot(page) for pk, page in pages.items()}
        game_id, version, eta = timers[-1]
        assert version == snapshots[asha.pk]["version"]
        # both players rearrange, several times, while the turn's timer is armed
        last: dict[int, list[list[str]]] = {}
        for n in range(3):
            for pk, page in pages.items():
                rid = f"arr-{pk}-{n}"
                hand = snapshots[pk]["view"]["hand"]
                groups = last[pk] = regrouped(hand) if n % 2 == 0 else [sorted(hand)]
                await page.send_json_to(
                    {"type": "action", "request_id": rid, "action": {"type": "arrange", "groups": groups}}
                )
                assert (await _answer(page, "result", rid))["version"] == version
        assert timers[-1] == (game_id, version, eta)  # no new timer armed for an arrangement

        clock.advance(31)
        fired = await sync_to_async(tasks.enforce_deadline)(game_id, version, eta.isoformat())
        assert fired, "the timer armed at the turn's version found nothing to enforce"
        for pk, page in pages.items():
            update = await page.receive_json_from(timeout=5)
            assert update["type"] == "update" and update["version"] == version + 1, update
            assert "turn_missed" in [e["type"] for e in update["events"]], update["events"]
            assert update["view"]["arrangement"] == last[pk]  # the last one, kept
    finally:
        for page in pages.values():
            await page.disconnect()


async def test_groups_are_evaluated_over_the_table_socket_as_the_api_does() -> None:
    table, (asha, _) = await _started(turn_seconds=60)
    page = await open_socket(asha, f"/ws/tables/{table.pk}/")
    try:
        snap = await _snapshot(page)
        game_id = snap["game"]["id"]
        before = await sync_to_async(game_fingerprint)(game_id)
        groups = regrouped(snap["view"]["hand"])
        wild = snap["view"]["wild_rank"]

        @sync_to_async
        def by_http(wild_rank: int) -> dict[str, Any]:
            client = Client()
            client.force_login(asha)
            response = client.post(
                reverse("api-groups-evaluate"),
                {"groups": groups, "wild_rank": wild_rank},
                content_type="application/json",
            )
            assert response.status_code == 200
            return response.json()  # type: ignore[no-any-return]

        await page.send_json_to({"type": "evaluate", "request_id": "e-1", "groups": groups})
        answer = await _answer(page, "evaluation", "e-1")
        assert answer.pop("ok") is True
        assert {k: answer[k] for k in ("groups", "points", "valid")} == await by_http(wild)

        other_wild = wild % 13 + 1  # a past deal's result sheet names its own wild rank
        await page.send_json_to(
            {"type": "evaluate", "request_id": "e-2", "groups": groups, "wild_rank": other_wild}
        )
        answer = await _answer(page, "evaluation", "e-2")
        assert {k: answer[k] for k in ("groups", "points", "valid")} == await by_http(other_wild)

        await page.send_json_to({"type": "evaluate", "request_id": "e-3", "groups": [["ZZ"]]})
        refused = await _answer(page, "evaluation", "e-3")
        assert refused["ok"] is False and refused["error"]["code"] == "invalid_card"
        await page.send_json_to({"type": "evaluate", "request_id": "e-4", "groups": "AH", "wild_rank": 0})
        refused = await _answer(page, "evaluation", "e-4")
        assert refused["ok"] is False and refused["error"]["code"] == "bad_request"
        await page.send_json_to({"type": "evaluate", "groups": groups})
        refused = await _answer(page, "evaluation", None)  # type: ignore[arg-type]
        assert refused["ok"] is False and refused["error"]["code"] == "bad_request"

        assert await sync_to_async(game_fingerprint)(game_id) == before  # evaluating writes nothing
        assert await page.receive_nothing(timeout=0.3)
    finally:
        await page.disconnect()


async def test_the_socket_evaluation_caps_the_hand_at_its_tables_full_count() -> None:
    """docs/rules.md §5.4: a hand's points are capped at the full count, 60 in a 61 pool; the page
    shows the ``score`` the server sends and computes no cap of its own."""
    table, (asha, _) = await _started(fmt="61", turn_seconds=60)
    page = await open_socket(asha, f"/ws/tables/{table.pk}/")
    try:
        snap = await _snapshot(page)
        assert snap["view"]["rules"]["full_count"] == 60
        loose = [["KS", "QH", "JD"], ["KC", "QD", "10S"], ["9H", "8C", "KD"]]  # no group, 87 points
        await page.send_json_to({"type": "evaluate", "request_id": "e-1", "groups": loose, "wild_rank": 2})
        answer = await _answer(page, "evaluation", "e-1")
        assert (answer["ok"], answer["points"], answer["score"]) == (True, 87, 60), answer
        few = [["2S", "3D"]]  # 5 points: under the cap, the score is the count
        await page.send_json_to({"type": "evaluate", "request_id": "e-2", "groups": few, "wild_rank": 9})
        answer = await _answer(page, "evaluation", "e-2")
        assert (answer["points"], answer["score"]) == (5, 5), answer
    finally:
        await page.disconnect()


async def test_evaluate_before_any_deal_says_there_is_no_wild_rank() -> None:
    table = await sync_to_async(make_table)(seats=2)
    asha = await sync_to_async(make_player)("asha")
    page = await open_socket(asha, f"/ws/tables/{table.pk}/")
    try:
        await _snapshot(page)
        await page.send_json_to({"type": "evaluate", "request_id": "e-1", "groups": [["AH", "2H", "3H"]]})
        refused = await _answer(page, "evaluation", "e-1")
        assert refused["ok"] is False and refused["error"]["code"] == "no_game", refused
    finally:
        await page.disconnect()
