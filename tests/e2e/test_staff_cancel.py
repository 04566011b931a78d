"""Staff cancel a running game in the admin, and every player's open table page says so in words
(issue 23).

Three players sit at a 101 table with a ₹10 entry fee, each in their own browser: Asha and Meena
on a desktop (1280×800), Ravi on a phone (375×740); each has the running game open on the table
page. An administrator logs in at /admin/, opens the game from the Pool games list, presses
"Cancel this game", writes an internal note that names two players and a message to the players,
and submits. Every player's page then shows a banner that says staff cancelled the game, with the
message (shown as text, markup and all) and their own ₹10.00 back; the banner stays until it is dismissed (OK, or Escape), the
table shows it is waiting for players, and the internal note is nowhere in the page or in any
frame the page received. Screenshots: artifacts/e2e/cancel-*.png.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from django.test import Client

from accounts.models import User
from tables.models import PoolGame
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE
from tests.e2e.pages import Player
from tests.e2e.watch import watch
from tests.tables.conftest import make_player, make_table
from tests.waiting import wait_until
from wallet.audit import check_ledger
from wallet.models import LedgerTransaction
from wallet.selectors import wallet_balance

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.fresh_server]

NOTE = "Suspected collusion between Asha and Ravi (internal note)"
#: with markup in it, which every page must show as text
MESSAGE = "We stopped this game after a problem at the table. <b>Sorry!</b>"
BOSS_PASSWORD = "boss-Pass-2026"


@pytest.fixture
def running_game(transactional_db: None) -> tuple[PoolGame, list[User]]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    table = make_table(fee=1_000, seats=3, seed=11)
    players = [make_player(n) for n in ("asha", "ravi", "meena")]
    for p in players:
        client = Client()
        client.force_login(p)
        assert client.post(f"/tables/{table.pk}/join/").status_code == 302
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    boss = User.objects.create_user("boss", password=BOSS_PASSWORD, is_staff=True)
    boss.groups.add(Group.objects.get(name="Administrator"))
    return game, players


def _banner(player: Player) -> Any:
    return player.page.locator("#notices .notice-banner[data-kind='game_cancelled']")


def _until_dismissed(player: Player) -> None:
    wait_until(lambda: _banner(player).count() == 0, f"{player.name}'s banner dismissed")


def _staff_cancels(browser: Any, base: str, game: PoolGame) -> None:
    """The administrator's browser: log in at /admin/, open the game, cancel it with both texts."""
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page)
    try:
        page.goto(f"{base}/admin/")
        page.fill("#id_username", "boss")
        page.fill("#id_password", BOSS_PASSWORD)
        page.click("input[type=submit]")
        page.goto(f"{base}/admin/tables/poolgame/")
        page.click(f"#result_list a[href$='/poolgame/{game.pk}/change/']")
        page.click("#cancel-link")
        assert page.input_value("#id_message") == "Staff cancelled this game."  # the suggested words
        assert "never" in page.text_content("#id_reason_helptext")
        page.fill("#id_reason", NOTE)
        page.fill("#id_message", MESSAGE)
        page.screenshot(path=str(ARTIFACTS / "cancel-form.png"), full_page=True)
        page.click("#cancel-form input[type=submit]")
        page.wait_for_selector("#game-result")
        assert page.text_content("#game-status").strip() == "Cancelled"
        seen.assert_clean("staff pages")
    finally:
        context.close()


def test_every_player_is_told_in_words_that_staff_cancelled_the_game(
    live_server_url: str, running_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    game, users = running_game
    devices = {"asha": DESKTOP, "ravi": PHONE, "meena": DESKTOP}
    players = [Player(browser, live_server_url, u.username, devices[u.username]) for u in users]
    try:
        for player, user in zip(players, users, strict=True):
            player.log_in(user)
            player.goto(f"/tables/{game.table_id}/")
            player.page.wait_for_selector("#groups .card")  # the running game, with this player's hand
            assert player.page.locator("#notices .notice-banner").count() == 0

        _staff_cancels(browser, live_server_url, game)

        for player in players:
            page = player.page
            banner = _banner(player)
            banner.wait_for()
            text = banner.inner_text()
            assert "Staff cancelled this game" in text, text
            assert MESSAGE in text and "refunded in full" in text, text
            assert "Your entry fee of ₹10.00 is back in your wallet." in text, text
            # read by screen readers as it appears, with a close button reached by the keyboard
            assert page.get_attribute("#notices", "aria-live") == "assertive"
            close = banner.locator("button.notice-close")
            close.focus()
            assert page.evaluate("document.activeElement.classList.contains('notice-close')")
            # the table now waits for players
            page.wait_for_selector("#waiting >> text=Waiting for players")
            player.shot(f"cancel-{player.name}")

        # the banner stays (a toast would be gone after 4.5 s)
        players[0].page.wait_for_timeout(5_000)
        for player in players:
            assert _banner(player).is_visible(), f"{player.name}'s banner went away by itself"

        # on the phone it fits the screen: no sideways scroll, the close button wholly on screen
        ravi = players[1].page
        box = _banner(players[1]).bounding_box()
        assert box and box["x"] >= 0 and box["x"] + box["width"] <= 375 + 0.5, box
        button = _banner(players[1]).locator("button.notice-close").bounding_box()
        assert button and button["x"] + button["width"] <= 375 + 0.5 and button["height"] >= 40, button
        assert (
            ravi.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth") <= 0
        )

        for player in players:
            page = player.page
            body = page.inner_text("body")
            frames = json.dumps(player.frames, ensure_ascii=False)
            assert NOTE not in body and "collusion" not in body, f"{player.name}'s page shows the note"
            assert NOTE not in frames and "collusion" not in frames, f"{player.name}'s socket got the note"
            assert page.locator("#notices b").count() == 0  # the message's markup stayed text

        # dismissed: with a tap on OK on the phone, OK with the mouse, Escape on the keyboard
        players[1].page.tap("#notices .notice-close")
        players[0].page.click("#notices .notice-close")
        players[2].page.keyboard.press("Escape")
        for player in players:
            _until_dismissed(player)
            assert player.page.is_visible("#waiting >> text=Waiting for players")
            player.assert_clean()
    finally:
        for player in players:
            player.close()
    try:
        assert [wallet_balance(user=u) for u in users] == [100_00] * 3
        refund = LedgerTransaction.objects.get(idempotency_key=f"cancel:{game.pk}")
        assert refund.caused_by is not None and refund.caused_by.username == "boss"
        assert MESSAGE in refund.memo and "collusion" not in refund.memo
        assert check_ledger() == []
    finally:
        connections.close_all()


@pytest.fixture
def reminding_server(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> str:
    """The live server with a play reminder every 3 seconds of play instead of every hour."""
    monkeypatch.setenv("PLAY_REMINDER_SECONDS", "3")
    return str(request.getfixturevalue("live_server_url"))


def test_a_play_reminder_is_shown_in_words_until_dismissed(
    reminding_server: str, running_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    """The hourly reminder (tables/realtime/reminders.py), which the table page used to drop, on a phone."""
    game, users = running_game
    player = Player(browser, reminding_server, "ravi", PHONE)
    try:
        player.log_in(users[1])
        player.goto(f"/tables/{game.table_id}/")
        player.page.wait_for_selector("#groups .card")
        reminder = player.page.locator("#notices .notice-banner[data-kind='play_reminder']")
        reminder.wait_for()
        assert "You have played for" in reminder.inner_text() and "Take a break" in reminder.inner_text()
        player.shot("cancel-reminder")
        # the next reminder replaces it: one banner, still there after its interval. (Playwright
        # records frames only while it runs, hence wait_for_timeout rather than a sleep.)
        told = len([f for f in player.frames if f.get("kind") == "play_reminder"])
        for _ in range(50):
            if len([f for f in player.frames if f.get("kind") == "play_reminder"]) > told:
                break
            player.page.wait_for_timeout(200)
        else:
            pytest.fail("no second reminder")
        assert reminder.count() == 1
        player.page.tap("#notices .notice-close")
        wait_until(lambda: reminder.count() == 0, "the reminder dismissed")
        assert player.page.is_visible("#groups .card")  # the game goes on under it
        player.assert_clean()
    finally:
        player.close()
        connections.close_all()
