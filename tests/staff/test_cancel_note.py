"""Cancel: staff's internal note never reaches a player; the message to the players does (issue 23).

An administrator logs in at /admin/login/ and posts the real cancel form, with CSRF checks on,
while every player has a table socket open. The note (it names two players) is then looked for
everywhere a player can read: every frame of every player's socket, the stored event, the game's
result, the history and replay APIs, the history and table pages, the wallet page and API, and the
memo of every ledger transaction. It is in the audit trail only. The money of the cancellation is
moved by the staff member who cancelled (the transactions' ``caused_by``).
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connections
from django.test import Client
from django.urls import reverse

from accounts.models import User
from staff.models import StaffAction
from tables.game.staffops import TABLE_CLOSED_MESSAGE
from tables.models import Deal, GameEvent, PoolGame, Table
from tests.sockets import open_table
from tests.staff.conftest import make_staff
from tests.tables.conftest import make_player, make_table
from tests.tables.games import drop_until_the_first_deal_ends
from wallet.audit import check_ledger
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)
NOTE = "Suspected collusion between Asha and Ravi (internal note)"
MESSAGE = "Staff stopped this game after a fault at the table."
STAFF_PASSWORD = "boss-Pass-2026"


def _token(html: str) -> str:
    found = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html)
    assert found, "no CSRF token in the form"
    return found.group(1)


def _admin_cancels(game_id: int) -> Client:
    """The administrator logs in and cancels through the admin's forms, CSRF checks on."""
    boss = make_staff("boss", "Administrator")
    boss.set_password(STAFF_PASSWORD)
    boss.save()
    client = Client(enforce_csrf_checks=True)
    login = client.get("/admin/login/").content.decode()
    response = client.post(
        "/admin/login/",
        {
            "username": "boss",
            "password": STAFF_PASSWORD,
            "csrfmiddlewaretoken": _token(login),
            "next": "/admin/",
        },
    )
    assert response.status_code == 302, response.content.decode()[:500]
    url = reverse("admin:tables_poolgame_cancel", args=[game_id])
    form = client.get(url).content.decode()
    assert "Internal note" in form and "Message to the players" in form
    assert client.post(url, {"reason": NOTE, "message": MESSAGE}).status_code == 403  # no token: refused
    assert PoolGame.objects.get(pk=game_id).status == PoolGame.Status.RUNNING
    response = client.post(url, {"reason": NOTE, "message": MESSAGE, "csrfmiddlewaretoken": _token(form)})
    assert response.status_code == 302, response.content.decode()[:2000]
    return client


async def _frames_until_waiting(
    communicator: WebsocketCommunicator, within: float = 10
) -> list[dict[str, Any]]:
    """Every frame up to the cancel notice and the snapshot of the table waiting again after it."""
    frames: list[dict[str, Any]] = []
    deadline = asyncio.get_running_loop().time() + within
    while True:
        left = deadline - asyncio.get_running_loop().time()
        assert left > 0, f"no cancel notice and waiting table in {frames}"
        frames.append(await communicator.receive_json_from(timeout=left))
        noticed = any(f.get("type") == "notice" and f.get("kind") == "game_cancelled" for f in frames)
        last = frames[-1]
        if (
            noticed
            and last.get("type") in ("snapshot", "update")
            and (last.get("game") or {}).get("status")
            in (
                None,
                "cancelled",
            )
        ):
            return frames


def _started(settlement: str) -> tuple[Table, PoolGame, list[User]]:
    table = make_table(fee=1_000, seats=3, seed=7)
    players = [make_player(n) for n in ("asha", "ravi", "meena")]
    for p in players:
        client = Client()
        client.force_login(p)
        assert client.post(f"/tables/{table.pk}/join/").status_code == 302
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    if settlement == "split":
        drop_until_the_first_deal_ends(game)  # after the first deal: the pool is shared
    return table, game, players


def _what_a_player_reads(client: Client, game: PoolGame, table: Table) -> dict[str, str]:
    """Every page and API answer of a player that could carry the cancellation's words."""
    reads = {
        "game history API": client.get(f"/api/history/games/{game.pk}/"),
        "game history page": client.get(f"/history/games/{game.pk}/"),
        "table API": client.get(f"/api/tables/{table.pk}/"),
        "table page": client.get(f"/tables/{table.pk}/"),
        "wallet API": client.get("/api/wallet/transactions/"),
        "wallet page": client.get("/wallet/"),
    }
    for deal in Deal.objects.filter(game=game, finished_at__isnull=False):
        reads[f"replay API of deal {deal.number}"] = client.get(f"/api/history/deals/{deal.pk}/")
        reads[f"replay page of deal {deal.number}"] = client.get(f"/history/deals/{deal.pk}/")
    for what, response in reads.items():
        assert response.status_code == 200, what
    return {what: response.content.decode() for what, response in reads.items()}


@pytest.mark.parametrize("settlement", ["refund", "split"])
async def test_the_internal_note_never_reaches_the_players_and_the_message_does(settlement: str) -> None:
    try:
        await _cancel_and_look_everywhere(settlement)
    finally:
        # the thread that ran the ORM keeps its own connection: close it, or PostgreSQL
        # cannot drop the test database at the end of the run
        await sync_to_async(connections.close_all)()


async def _cancel_and_look_everywhere(settlement: str) -> None:
    table, game, players = await sync_to_async(_started)(settlement)
    sockets = [await open_table(p, table.pk) for p in players]
    try:
        for s in sockets:
            assert (await s.receive_json_from(timeout=5))["type"] == "snapshot"

        await sync_to_async(_admin_cancels)(game.pk)

        for player, s in zip(players, sockets, strict=True):
            frames = await _frames_until_waiting(s)
            text = json.dumps(frames, ensure_ascii=False)
            assert NOTE not in text and "collusion" not in text, f"{player.username}'s socket got the note"
            notice = next(f for f in frames if f.get("type") == "notice")
            assert notice["kind"] == "game_cancelled" and notice["message"] == MESSAGE
            assert notice["settlement"] == settlement and str(player.pk) in notice["payouts_display"]
    finally:
        for s in sockets:
            await s.disconnect()

    @sync_to_async
    def check_what_is_stored_and_served() -> None:
        game.refresh_from_db()
        assert game.status == PoolGame.Status.CANCELLED and game.result["settlement"] == settlement
        assert game.result["message"] == MESSAGE and NOTE not in json.dumps(game.result)
        event = GameEvent.objects.get(game=game, type="game_cancelled")
        assert event.data["message"] == MESSAGE and NOTE not in json.dumps(event.data)

        for p in players:
            client = Client()
            client.force_login(p)
            for what, body in _what_a_player_reads(client, game, table).items():
                assert NOTE not in body and "collusion" not in body, (
                    f"{p.username}: the note is in the {what}"
                )
            history = client.get(f"/api/history/games/{game.pk}/").json()["result"]
            assert history["cancelled"] is True and history["message"] == MESSAGE
            assert MESSAGE in client.get(f"/history/games/{game.pk}/").content.decode()
            memos = [row["memo"] for row in client.get("/api/wallet/transactions/").json()["results"]]
            assert any(MESSAGE in memo for memo in memos), memos

        assert not [m for m in LedgerTransaction.objects.values_list("memo", flat=True) if "collusion" in m]
        cancel = LedgerTransaction.objects.get(idempotency_key=f"cancel:{game.pk}")
        assert cancel.kind == ("refund" if settlement == "refund" else "settlement")
        assert cancel.caused_by is not None and cancel.caused_by.username == "boss"
        assert MESSAGE in cancel.memo

        entry = StaffAction.objects.get(verb="cancel_game")
        assert entry.staff.username == "boss" and entry.reason == NOTE
        assert entry.after["message"] == MESSAGE and entry.after["settlement"] == settlement
        assert check_ledger() == []

    await check_what_is_stored_and_served()


def test_a_cancel_without_a_note_or_without_a_message_is_refused_and_changes_nothing() -> None:
    table, game, _players = _started("refund")
    boss = make_staff("boss", "Administrator")
    client = Client()
    client.force_login(boss)
    url = reverse("admin:tables_poolgame_cancel", args=[game.pk])
    for data in ({"reason": NOTE, "message": "  "}, {"reason": " ", "message": MESSAGE}, {"reason": NOTE}):
        response = client.post(url, data)
        assert response.status_code == 200 and response.context["form"].errors
    game.refresh_from_db()
    assert game.status == PoolGame.Status.RUNNING
    assert not StaffAction.objects.filter(verb="cancel_game").exists()
    assert table.games.filter(status=PoolGame.Status.CANCELLED).count() == 0


def test_a_table_after_a_cancelled_game_waits_for_players_not_an_older_result() -> None:
    """The table page after a cancellation: waiting for players, even where a game finished before."""
    table, game, players = _started("refund")
    PoolGame.objects.filter(pk=game.pk).update(status=PoolGame.Status.FINISHED)  # as if played to its end
    for p in players:
        client = Client()
        client.force_login(p)
        assert client.post(f"/tables/{table.pk}/join/").status_code == 302
    second = table.games.exclude(pk=game.pk).get()
    boss = make_staff("boss", "Administrator")
    staff_client = Client()
    staff_client.force_login(boss)
    staff_client.post(
        reverse("admin:tables_poolgame_cancel", args=[second.pk]), {"reason": NOTE, "message": MESSAGE}
    )
    second.refresh_from_db()
    assert second.status == PoolGame.Status.CANCELLED
    client = Client()
    client.force_login(players[0])
    snapshot = client.get(f"/api/tables/{table.pk}/").json()
    assert snapshot["game"] is None and snapshot["view"] is None


def test_closing_a_table_tells_its_waiting_players_why_and_its_refund_names_the_staff_member() -> None:
    table = make_table(fee=1_000, seats=3)
    early = make_player("early")
    client = Client()
    client.force_login(early)
    assert client.post(f"/tables/{table.pk}/join/").status_code == 302
    waiting = table.games.get()
    boss = make_staff("boss", "Administrator")
    staff_client = Client()
    staff_client.force_login(boss)
    response = staff_client.post(
        reverse("admin:tables_table_changelist"),
        {"action": "close_tables", "_selected_action": [table.pk], "apply": "1", "reason": "dealer fault"},
    )
    assert response.status_code == 302
    waiting.refresh_from_db()
    assert waiting.status == PoolGame.Status.CANCELLED
    assert waiting.result["message"] == TABLE_CLOSED_MESSAGE and "reason" not in waiting.result
    refund = LedgerTransaction.objects.get(idempotency_key=f"cancel:{waiting.pk}")
    assert refund.caused_by == boss and TABLE_CLOSED_MESSAGE in refund.memo and "dealer" not in refund.memo
