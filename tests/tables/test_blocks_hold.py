"""Blocks hold on every path (issue 23): arriving as the attacker did, over the table socket.

A self-excluded or suspended player opened a new table socket in the rejoin window, sent
``rejoin`` and paid the fee; a player whose account staff deactivated kept acting on an
open socket. Every socket action now asks first whether its user may play
(``tables.game.restrictions.check_may_play``): refused with ``play_blocked``, nothing written,
no chip moved. A suspended or self-excluded player may still ``leave`` (a forfeit).
"""

from __future__ import annotations

from typing import Any

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection, transaction
from django.test import Client
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from accounts import play
from accounts.models import Suspension, User
from game_engine.game import GameState
from tables import services
from tables.errors import PlayBlocked
from tables.game import restrictions
from tables.models import PoolGame, Seat, Table
from tables.realtime import sockets
from tests.sockets import ORIGIN, open_socket
from tests.tables.conftest import make_player, make_table
from tests.tables.games import game_fingerprint, game_in_rejoin_window, regrouped, two_seat_game
from wallet.models import Account, Entry, LedgerTransaction

pytestmark = pytest.mark.django_db(transaction=True)


def ledger() -> tuple[Any, ...]:
    """Every chip: how many transactions and entries, and each account's balance."""
    balances = sorted(Account.objects.values_list("pk", "balance"))
    return LedgerTransaction.objects.count(), Entry.objects.count(), balances


def suspend(user: User, reason: str = "Chip dumping under review") -> None:
    """What staff's Suspend does (``staff.services.suspend``): the row, then ``play_blocked`` after commit."""
    staff = User.objects.filter(username="support").first() or User.objects.create_user(
        "support", is_staff=True
    )
    with transaction.atomic():
        Suspension.objects.create(user=user, reason=reason, starts_at=timezone.now(), created_by=staff)
        play.announce_block(user.pk)


def logged_in(user: User) -> tuple[Client, bytes]:
    client = Client()
    client.force_login(user)
    return (
        client,
        f"{settings.SESSION_COOKIE_NAME}={client.cookies[settings.SESSION_COOKIE_NAME].value}".encode(),
    )


async def result_of(page: WebsocketCommunicator, request_id: str, action: dict[str, Any]) -> dict[str, Any]:
    """Send ``action``; its ``result`` (updates and views on the way are skipped)."""
    await page.send_json_to({"type": "action", "request_id": request_id, "action": action})
    while True:
        message: dict[str, Any] = await page.receive_json_from(timeout=10)
        if message["type"] == "result":
            assert message["request_id"] == request_id, message
            return message


async def closed_with(page: WebsocketCommunicator) -> int:
    """The close code the server sends next, skipping the messages before it."""
    while True:
        output = await page.receive_output(timeout=10)
        if output["type"] == "websocket.close":
            return int(output["code"])


def seat_state(game_id: int, user: User) -> Any:
    state = GameState.from_dict(PoolGame.objects.get(pk=game_id).state)
    return next(p for p in state.players if p.id == str(user.pk))


@pytest.mark.parametrize("block", ["self-exclusion", "suspension"])
async def test_a_blocked_player_cannot_rejoin_from_a_new_socket_nor_pay_the_fee(block: str) -> None:
    game, (rejoiner, *_) = await sync_to_async(game_in_rejoin_window)()
    client, cookie = await sync_to_async(logged_in)(rejoiner)
    if block == "self-exclusion":  # the player's own break, from the profile page
        response = await sync_to_async(client.post)(
            "/accounts/profile/break/", {"period": "1d", "confirm": "on"}
        )
        assert response.status_code == 302
    else:
        await sync_to_async(suspend)(rejoiner)
    game_before, ledger_before = (
        await sync_to_async(game_fingerprint)(game.pk),
        await sync_to_async(ledger)(),
    )

    page = await open_socket(rejoiner, f"/ws/tables/{game.table_id}/", headers=[ORIGIN, (b"cookie", cookie)])
    snapshot = await page.receive_json_from(timeout=5)
    assert snapshot["type"] == "snapshot" and snapshot["view"]["rejoin_offer"]["seats"] == [0], snapshot[
        "view"
    ]
    answer = await result_of(page, "rejoin-1", {"type": "rejoin"})

    assert answer["ok"] is False and answer["error"]["code"] == "play_blocked", answer
    expected = "break from play" if block == "self-exclusion" else "suspended"
    assert expected in answer["error"]["message"], answer
    assert await sync_to_async(ledger)() == ledger_before, "no fee was taken"
    assert await sync_to_async(game_fingerprint)(game.pk) == game_before, "the game did not change"
    assert (await sync_to_async(seat_state)(game.pk, rejoiner)).eliminated
    await page.disconnect()


async def test_deactivating_an_account_closes_its_sockets_at_once_and_drops_it_at_its_tables() -> None:
    table, game, (asha, _ravi) = await sync_to_async(two_seat_game)()
    page = await open_socket(asha, f"/ws/tables/{table.pk}/")
    lobby = await open_socket(asha, "/ws/lobby/")
    await page.receive_json_from(timeout=5)

    def deactivate() -> None:  # as the user admin saves it: the form's instance, in a transaction
        with transaction.atomic():
            user = User.objects.get(pk=asha.pk)
            user.is_active = False
            user.save()

    await sync_to_async(deactivate)()
    for socket in (page, lobby):
        assert await closed_with(socket) == sockets.CLOSE_SIGNED_OUT
    assert (await sync_to_async(seat_state)(game.pk, asha)).auto_drop, "auto drop is on for the seat"


async def test_an_action_on_a_socket_that_survived_a_deactivation_is_refused_and_changes_nothing() -> None:
    table, game, (asha, _ravi) = await sync_to_async(two_seat_game)()
    page = await open_socket(asha, f"/ws/tables/{table.pk}/")
    hand = (await page.receive_json_from(timeout=5))["view"]["hand"]
    # no signal: a bulk update (or raw SQL) closes no socket, so this one stays open
    await sync_to_async(User.objects.filter(pk=asha.pk).update)(is_active=False)
    before = await sync_to_async(game_fingerprint)(game.pk)

    for n, action in enumerate(
        (
            {"type": "auto_drop", "on": True},
            {"type": "arrange", "groups": regrouped(hand)},
            {"type": "drop"},
            {"type": "leave"},  # not even leaving: the auto drop carries a closed account's seat
        )
    ):
        answer = await result_of(page, f"a{n}", action)
        assert answer["ok"] is False and answer["error"]["code"] == "play_blocked", (action, answer)
        assert "deactivated" in answer["error"]["message"]
    assert await sync_to_async(game_fingerprint)(game.pk) == before
    await page.disconnect()


async def test_a_suspended_player_may_still_leave_but_not_turn_the_auto_drop_off() -> None:
    table, game, (asha, ravi) = await sync_to_async(two_seat_game)()
    await sync_to_async(suspend)(asha)
    page = await open_socket(asha, f"/ws/tables/{table.pk}/")  # a new socket: the old ones were closed
    await page.receive_json_from(timeout=5)

    for n, action in enumerate(({"type": "auto_drop", "on": False}, {"type": "im_back"})):
        answer = await result_of(page, f"b{n}", action)
        assert answer["ok"] is False and answer["error"]["code"] == "play_blocked", answer
    answer = await result_of(page, "leave", {"type": "leave"})
    assert answer["ok"] is True, answer

    game = await sync_to_async(PoolGame.objects.get)(pk=game.pk)
    assert game.status == PoolGame.Status.FINISHED  # two seats: whoever stays wins
    assert str(ravi.pk) in {k for k, v in game.result["payouts"].items() if v}
    await page.disconnect()


async def test_a_signed_out_session_is_refused_even_by_a_socket_still_open() -> None:
    """The session row is what log-out deletes: an open socket of that session may do nothing after it."""
    table, game, (asha, _ravi) = await sync_to_async(two_seat_game)()
    client, cookie = await sync_to_async(logged_in)(asha)
    page = await open_socket(asha, f"/ws/tables/{table.pk}/", headers=[ORIGIN, (b"cookie", cookie)])
    other_device = await open_socket(asha, f"/ws/tables/{table.pk}/")  # another session of hers
    await page.receive_json_from(timeout=5)
    await other_device.receive_json_from(timeout=5)
    before = await sync_to_async(game_fingerprint)(game.pk)

    # what log-out does to the session, without the close it sends: as if that message were late
    await sync_to_async(client.session.flush)()
    answer = await result_of(page, "late", {"type": "auto_drop", "on": True})
    assert answer["ok"] is False and answer["error"]["code"] == "play_blocked", answer
    assert "signed out" in answer["error"]["message"]
    assert await sync_to_async(game_fingerprint)(game.pk) == before

    answer = await result_of(other_device, "fine", {"type": "auto_drop", "on": True})
    assert answer["ok"] is True, answer  # her other device is still logged in
    for socket in (page, other_device):
        await socket.disconnect()


async def test_a_password_change_signs_out_the_other_sessions_sockets_too() -> None:
    """As HTTP does (the session's password hash no longer matches), whether or not the close came."""
    table, game, (asha, _ravi) = await sync_to_async(two_seat_game)()
    page = await open_socket(asha, f"/ws/tables/{table.pk}/")
    await page.receive_json_from(timeout=5)
    # a bulk update sends no signal, so nothing closes the socket: only the check can hold
    await sync_to_async(User.objects.filter(pk=asha.pk).update)(password="md5$new$0123456789abcdef")
    answer = await result_of(page, "x", {"type": "auto_drop", "on": True})
    assert answer["ok"] is False and answer["error"]["code"] == "play_blocked", answer
    await page.disconnect()


def test_the_check_costs_one_query_per_action() -> None:
    """Deactivated, suspended, self-excluded and the session, in one query once Django has said the
    session logs her in: its answer (a query of its own) is kept while the session's data, her
    password and the site's key stay the same."""
    table, _game, (asha, _ravi) = two_seat_game()
    _client, cookie = logged_in(asha)
    session_key = cookie.decode().split("=", 1)[1]
    with CaptureQueriesContext(connection) as first:
        restrictions.check_may_play(asha, session_key=session_key, action="draw")
    assert len(first) == 2, [q["sql"] for q in first]  # the block's row, then Django's get_user
    for _ in range(3):
        with CaptureQueriesContext(connection) as queries:
            restrictions.check_may_play(asha, session_key=session_key, action="draw")
        assert len(queries) == 1, [q["sql"] for q in queries]


def session_row(key: str) -> tuple[str, Any]:
    from django.contrib.sessions.models import Session

    row = Session.objects.get(session_key=key)
    return row.session_data, row.expire_date


def test_a_session_signed_under_a_retired_key_still_plays_and_the_check_leaves_it_as_it_was() -> None:
    """Django logs a request in whose session hash was made with a key now in
    ``SECRET_KEY_FALLBACKS``, and gives that session a new key (a new cookie). A socket has no cookie
    to give: its check says yes, and the session, its key and its data stay as the page's."""
    asha = make_player("asha")
    _client, cookie = logged_in(asha)
    key = cookie.decode().split("=", 1)[1]
    before = session_row(key)
    with override_settings(SECRET_KEY="a new key for the site", SECRET_KEY_FALLBACKS=[settings.SECRET_KEY]):
        assert play.play_block(asha, session_key=key) is None
    assert session_row(key) == before
    with override_settings(SECRET_KEY="a new key for the site", SECRET_KEY_FALLBACKS=[]):
        block = play.play_block(asha, session_key=key)
    assert block is not None and block.signed_out, block
    assert session_row(key) == before  # refused, and still not the socket's to end


def test_a_session_of_a_backend_the_site_no_longer_uses_is_signed_out() -> None:
    """As ``auth.get_user`` decides: a session logged in by a backend no longer in
    ``AUTHENTICATION_BACKENDS`` logs nobody in."""
    asha = make_player("asha")
    _client, cookie = logged_in(asha)
    key = cookie.decode().split("=", 1)[1]
    assert play.play_block(asha, session_key=key) is None
    logged_in_by = SessionStore(session_key=key)[BACKEND_SESSION_KEY]
    still_used = [b for b in settings.AUTHENTICATION_BACKENDS if b != logged_in_by]
    assert still_used, settings.AUTHENTICATION_BACKENDS
    with override_settings(AUTHENTICATION_BACKENDS=still_used):
        block = play.play_block(asha, session_key=key)
    assert block is not None and block.signed_out, block


def test_an_action_reads_the_check_in_its_game_row_lock_and_still_refuses() -> None:
    """On PostgreSQL the check is read with the game row's lock, one statement for both: a table
    action runs its lock, its event and its row update, and nothing else; and the check still holds
    (a suspended player's draw is refused and writes nothing)."""
    table, game, (asha, ravi) = two_seat_game()
    state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
    mover = asha if state.players[state.deal.turn].id == str(asha.pk) else ravi
    draw = {"type": "draw", "source": "closed"}
    with CaptureQueriesContext(connection) as queries:
        assert services.game_act(game_id=game.pk, user=mover, request_id="d1", action=draw)["ok"]
    statements = [
        q["sql"].split()[0].upper() for q in queries if not q["sql"].startswith(("SAVEPOINT", "RELEASE"))
    ]
    assert statements == ["BEGIN", "SELECT", "INSERT", "UPDATE", "COMMIT"], [q["sql"][:120] for q in queries]
    lock = next(q["sql"] for q in queries if q["sql"].startswith("SELECT"))
    assert "accounts_user" in lock and "FOR NO KEY UPDATE" in lock
    suspend(mover)
    before = game_fingerprint(game.pk)
    discard = {"type": "discard", "card": state.deal.hands[state.deal.turn][0].code}
    answer = services.game_act(game_id=game.pk, user=mover, request_id="d2", action=discard)
    assert answer["ok"] is False and answer["error"]["code"] == "play_blocked", answer
    assert game_fingerprint(game.pk) == before


@pytest.mark.parametrize("block", ["self-exclusion", "suspension"])
def test_a_blocked_player_can_neither_join_nor_start_practice_over_the_api(block: str) -> None:
    table = make_table(seats=2)
    asha = make_player("asha")
    client, _cookie = logged_in(asha)
    if block == "self-exclusion":
        assert client.post("/accounts/profile/break/", {"period": "1d", "confirm": "on"}).status_code == 302
    else:
        suspend(asha)
    before = ledger()
    for path, body in (
        (f"/api/tables/{table.pk}/join/", {}),
        ("/api/practice/", {"format": "101", "seats": 2}),
    ):
        response = client.post(path, body, content_type="application/json")
        assert response.status_code == 409 and response.json()["code"] == "play_blocked", (
            path,
            response.json(),
        )
    assert ledger() == before
    assert not Table.objects.filter(owner=asha).exists() and not Seat.objects.filter(user=asha).exists()


def test_a_deactivated_account_is_refused_by_every_service_that_seats_or_charges() -> None:
    """HTTP refuses a deactivated user already; the services refuse too, whoever calls them."""
    table = make_table(seats=2)
    asha = make_player("asha")
    User.objects.filter(pk=asha.pk).update(is_active=False)
    asha.refresh_from_db()
    before = ledger()
    with pytest.raises(PlayBlocked, match="deactivated"):
        services.table_join(table_id=table.pk, user=asha)
    with pytest.raises(PlayBlocked, match="deactivated"):
        services.practice_table_start(user=asha, fmt="101", seats=2)
    assert ledger() == before
    assert not Seat.objects.filter(user=asha).exists()
