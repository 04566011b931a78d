"""Linked accounts never play in one game (issue 37, finding 2), wherever a game can start with
them: two players who sat at a waiting table and were linked afterwards (a log-in from a shared
device, staff linking them in the admin) are parted at once, the later-seated one with the fee
back and told why; a link that raced a join is caught when the game starts, by the third
player's join or by the countdown; a link made while they play goes to the review queue and the
game goes on; and a rejoin beside a linked account is refused."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection, transaction
from django.test import Client
from django.urls import reverse

from accounts.models import User
from integrity import links
from integrity.models import AccountLink, Flag
from integrity.seating import REFUSAL, sent_away
from staff.models import StaffAction
from tables import clock as table_clock
from tables import services
from tables.clock import OffsetClock
from tables.game import timers
from tables.models import GameEvent, PoolGame, Seat, Table
from tests.sockets import Message, of_type, open_table, until
from tests.tables.games import game_in_rejoin_window
from wallet.selectors import wallet_balance

from .conftest import player

pytestmark = pytest.mark.django_db

CHIPS, FEE = 100_000, 1_000


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> OffsetClock:
    fake = OffsetClock()
    monkeypatch.setattr(table_clock, "now", fake.now)
    return fake


def log_in(client: Client, user: User) -> None:
    """The log-in form, as the player's browser posts it (its device cookie goes with it)."""
    answer = client.post("/accounts/login/", {"username": user.username, "password": "x-player-2026"})
    assert answer.status_code == 302, answer.content[:300]


def join(client: Client, table: Table) -> None:
    """The lobby's join, over the API, as the page sends it."""
    answer = client.post(f"/api/tables/{table.pk}/join/", content_type="application/json")
    assert answer.status_code < 300, answer.content[:300]


def staff_link(staff: User, a: User, b: User, reason: str) -> Any:
    """*Linked accounts -> Link two accounts* in the admin, with CSRF checks on."""
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff)
    url = reverse("admin:integrity_accountlink_link")
    assert browser.get(url).status_code == 200
    token = browser.cookies["csrftoken"].value
    return browser.post(
        url, {"first": a.username, "second": b.username, "reason": reason, "csrfmiddlewaretoken": token}
    )


def open_seats(table: Table) -> list[str]:
    return list(
        Seat.objects.filter(game__table=table, left_at__isnull=True)
        .order_by("position")
        .values_list("user__username", flat=True)
    )


def event_types(game: PoolGame) -> list[str]:
    return list(GameEvent.objects.filter(game=game).values_list("type", flat=True))


def started_with(game: PoolGame) -> list[str]:
    game.refresh_from_db()
    assert game.status == PoolGame.Status.RUNNING
    return sorted(p["name"] for p in game.state["players"])


def test_a_log_in_from_a_shared_device_parts_two_seated_players_at_once(table):
    asha, ravi, meera = player("asha"), player("ravi"), player("meera")
    ashas_browser, ravis_browser = Client(), Client()
    log_in(ashas_browser, asha)
    log_in(ravis_browser, ravi)
    join(ashas_browser, table)
    join(ravis_browser, table)
    assert open_seats(table) == ["asha", "ravi"]

    # ravi logs in from asha's browser: one device, one person (or household): linked at this log-in
    ashas_browser.post("/accounts/logout/")
    page = ashas_browser.post(
        "/accounts/login/", {"username": "ravi", "password": "x-player-2026"}, follow=True
    )
    assert sent_away(table.name) in page.content.decode(), "told why on the page after his log-in"
    assert "asha" not in sent_away(table.name)

    assert AccountLink.objects.get().source == AccountLink.Source.DEVICE
    assert open_seats(table) == ["asha"], "ravi, seated later, was sent away at once"
    assert wallet_balance(user=ravi) == CHIPS, "with his entry fee back"
    assert wallet_balance(user=asha) == CHIPS - FEE
    game = table.games.get()
    assert game.status == PoolGame.Status.WAITING
    assert game.deadline_at is None, "one player left: the countdown stops, as when players leave"
    left = GameEvent.objects.filter(game=game, type="seat_left").get()
    assert left.data["name"] == ravi.table_name

    # meera's join fills no table with two linked accounts: two seated, the countdown runs again
    meeras_browser = Client()
    log_in(meeras_browser, meera)
    join(meeras_browser, table)
    assert open_seats(table) == ["asha", "meera"]
    game.refresh_from_db()
    assert game.deadline_kind == "start" and game.deadline_at is not None


def test_a_staff_link_in_the_admin_parts_them_and_is_audited(table, investigator):
    asha, ravi, meera = player("asha"), player("ravi"), player("meera")
    for user in (asha, meera, ravi):
        services.table_join(table_id=table.pk, user=user)
    # the table is full: the game started with the three; a second table waits for players
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    other = Table.objects.create(settings=table.settings, name="Second table")
    services.table_join(table_id=other.pk, user=ravi)  # ravi first this time
    services.table_join(table_id=other.pk, user=asha)

    answer = staff_link(investigator, asha, ravi, reason="same household, reported by support")

    assert answer.status_code == 302, answer.content[:500]
    assert StaffAction.objects.filter(actor=investigator, verb="link_accounts").count() == 1
    assert open_seats(other) == ["ravi"], "asha sat later at this table: she leaves it"
    assert wallet_balance(user=ravi) == CHIPS - 2 * FEE, "ravi keeps both seats he paid for"
    assert wallet_balance(user=asha) == CHIPS - FEE, "asha's second fee is back"
    # the running game is not cancelled: it goes to the review queue, naming the game
    game.refresh_from_db()
    assert game.status == PoolGame.Status.RUNNING
    assert started_with(game) == sorted(u.table_name for u in (asha, ravi, meera))
    flag = Flag.objects.get(signal="linked_game")
    assert {flag.user_a_id, flag.user_b_id} == {asha.pk, ravi.pk}
    assert flag.games == [game.pk] and flag.open
    assert f"running game {game.pk}" in flag.summary


def _join_meanwhile(table_id: int, user_id: int) -> None:
    try:
        services.table_join(table_id=table_id, user=User.objects.get(pk=user_id))
    finally:
        connection.close()


def link_racing_a_join(table: Table, first: User, later: User) -> None:
    """The link's transaction finds ``later`` not seated yet, and ``later``'s join, on another
    connection meanwhile, reads no link yet: both sit, linked."""
    with transaction.atomic():
        links.link(first, later, source=AccountLink.Source.DEVICE, evidence="a log-in from one device")
        racer = threading.Thread(target=_join_meanwhile, args=(table.pk, later.pk))
        racer.start()
        racer.join()
    assert later.username in open_seats(table) and len(open_seats(table)) == 2
    assert links.active_between(first.pk, [later.pk])


@pytest.mark.django_db(transaction=True)
def test_a_link_that_raced_a_join_is_caught_when_the_third_join_starts_the_game(table):
    asha, ravi, meera = player("asha"), player("ravi"), player("meera")
    services.table_join(table_id=table.pk, user=asha)
    link_racing_a_join(table, asha, ravi)

    services.table_join(table_id=table.pk, user=meera)  # the last seat: the game starts

    game = table.games.get()
    assert started_with(game) == sorted([asha.table_name, meera.table_name])
    assert not Seat.objects.filter(user=ravi, left_at__isnull=True).exists()
    assert wallet_balance(user=ravi) == CHIPS, "ravi's fee is back"
    assert wallet_balance(user=asha) == wallet_balance(user=meera) == CHIPS - FEE
    types = event_types(game)
    assert types.index("seat_left") < types.index("game_started")


@pytest.mark.django_db(transaction=True)
def test_a_link_that_raced_a_join_is_caught_when_the_countdown_ends(table, clock):
    asha, ravi = player("asha"), player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    link_racing_a_join(table, asha, ravi)
    game = table.games.get()
    assert game.deadline_kind == "start" and game.deadline_at is not None

    clock.advance(table.settings.start_countdown_seconds + 1)
    assert timers.game_timeout(game_id=game.pk, version=game.version) is True  # the timer task fires

    game.refresh_from_db()
    assert game.status == PoolGame.Status.WAITING, "one player left: no game, back to waiting"
    assert game.deadline_at is None and game.state in (None, {})
    assert open_seats(table) == ["asha"]
    assert wallet_balance(user=ravi) == CHIPS
    assert event_types(game)[-1] == "seat_left"


@pytest.mark.django_db(transaction=True)
async def test_a_rejoin_beside_a_linked_account_is_refused(investigator):
    """The rejoin button on the eliminated player's table page sends the action over their socket:
    refused in words that name nobody, no fee taken, the game unchanged."""
    game, (rejoiner, still_in, _) = await sync_to_async(game_in_rejoin_window)()
    answer = await sync_to_async(staff_link)(
        investigator, rejoiner, still_in, reason="one person, two accounts: ID checked"
    )
    assert answer.status_code == 302
    before = await sync_to_async(wallet_balance)(user=rejoiner)
    version = (await PoolGame.objects.aget(pk=game.pk)).version

    page = await open_table(rejoiner, game.table_id)
    try:
        snapshot = await until(page, of_type("snapshot"))
        assert snapshot["view"]["rejoin_offer"]["seats"] == [0]
        await page.send_json_to({"type": "action", "request_id": "r1", "action": {"type": "rejoin"}})
        result = await until(page, of_type("result", request_id="r1"))
    finally:
        await page.disconnect()

    assert result["ok"] is False
    assert result["error"]["code"] == "linked_account_at_table"
    assert result["error"]["message"] == REFUSAL and still_in.username not in result["error"]["message"]
    assert await sync_to_async(wallet_balance)(user=rejoiner) == before, "no fee taken"
    game = await PoolGame.objects.aget(pk=game.pk)
    assert game.version == version
    me = next(p for p in game.state["players"] if p["id"] == str(rejoiner.pk))
    assert me["eliminated"]
    assert await Flag.objects.filter(signal="linked_game", games=[game.pk]).aexists()


@pytest.mark.django_db(transaction=True)
def test_a_practice_table_waiting_for_bots_parts_linked_accounts(clock):
    """A practice table fills its empty seats with bots when its wait ends: bots are never linked,
    but two linked people seated there still do not start together."""
    from tables.models import TableSettings

    kind = TableSettings.objects.create(name="Practice 61", format="61", entry_fee=0, seats=4, practice=True)
    table = Table.objects.create(settings=kind, name="Practice table")
    asha, ravi = player("asha"), player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    link_racing_a_join(table, asha, ravi)
    game = table.games.get()
    clock.advance(kind.bot_wait_seconds + 1)
    assert timers.game_timeout(game_id=game.pk, version=game.version) is True

    game.refresh_from_db()
    names = [p["name"] for p in game.state["players"]]
    assert asha.table_name in names and ravi.table_name not in names
    assert game.status == PoolGame.Status.RUNNING and len(names) == 3  # asha and two bots


@pytest.mark.django_db(transaction=True)
async def test_the_player_sent_away_is_told_on_the_table_page_and_nobody_else_is(table, investigator):
    """Staff link two players waiting at one table: the later-seated one's open table page gets
    the notice in words (naming nobody) and sees the seat go; the other's page sees the seat go,
    and no notice."""
    asha, ravi = await sync_to_async(player)("asha"), await sync_to_async(player)("ravi")
    await sync_to_async(services.table_join)(table_id=table.pk, user=asha)
    await sync_to_async(services.table_join)(table_id=table.pk, user=ravi)
    ashas_page, ravis_page = await open_table(asha, table.pk), await open_table(ravi, table.pk)
    try:
        for page in (ashas_page, ravis_page):
            snapshot = await until(page, of_type("snapshot"))
            assert snapshot["table"]["seats_taken"] == 2

        answer = await sync_to_async(staff_link)(investigator, asha, ravi, reason="one person, two accounts")
        assert answer.status_code == 302

        seen: list[Message] = []
        notice = await until(ravis_page, of_type("notice", kind="unseated"), seen=seen)
        assert notice["message"] == REFUSAL and "asha" not in notice["message"].lower()
        assert notice["money"] == "Your entry fee of ₹10.00 is back in your wallet."
        update = await until(ravis_page, of_type("update"))
        assert update["table"]["seats_taken"] == 1
        assert [e["type"] for e in update["events"]] == ["seat_left"]

        others: list[Message] = []
        await until(ashas_page, of_type("update"), seen=others)
        assert not [m for m in others if m.get("type") == "notice"], others
        await ashas_page.send_json_to({"type": "ping"})
        others.clear()
        await until(ashas_page, of_type("pong"), seen=others)
        assert not [m for m in others if m.get("type") == "notice"], others
        assert await sync_to_async(wallet_balance)(user=ravi) == CHIPS
    finally:
        await ashas_page.disconnect()
        await ravis_page.disconnect()


@pytest.mark.django_db(transaction=True)
def test_a_link_committed_during_the_last_join_refuses_that_join(table):
    """The link commits on another connection after the joining player's seat was checked and
    before the game starts: the join that fills the table is refused as a linked seat is, and
    nothing of it is kept (no fee, no seat, no start)."""
    from tables.game.seating import seat_requested

    asha, meera, ravi = player("asha"), player("meera"), player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=meera)

    def link_meanwhile(sender: Any, user: Any, **kwargs: Any) -> None:
        def made_elsewhere() -> None:
            try:
                links.link(asha.pk, ravi.pk, source=AccountLink.Source.DEVICE, evidence="a log-in meanwhile")
            finally:
                connection.close()

        if user.pk == ravi.pk:
            racer = threading.Thread(target=made_elsewhere)
            racer.start()
            racer.join()

    seat_requested.connect(link_meanwhile, weak=False)  # after integrity's own check, which passed
    try:
        client = Client()
        client.force_login(ravi)
        answer = client.post(f"/api/tables/{table.pk}/join/", content_type="application/json")
    finally:
        seat_requested.disconnect(link_meanwhile)

    assert answer.status_code >= 400 and answer.json()["code"] == "linked_account_at_table", answer.content
    assert answer.json()["message"] == REFUSAL
    assert wallet_balance(user=ravi) == CHIPS
    assert open_seats(table) == ["asha", "meera"]
    game = table.games.get()
    assert game.status == PoolGame.Status.WAITING
    assert "seat_left" not in event_types(game) and "game_started" not in event_types(game)
