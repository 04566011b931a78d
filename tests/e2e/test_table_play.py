"""Two players play a whole deal of a 101 pool in real browsers, through the page only.

Asha plays on a desktop (1280×800) and Ravi on a phone (375×740). Each signs up
on the sign-up page, claims the daily chips on the wallet page and joins the
same two-seat 101 table from the lobby; the second seat starts the game at once.

The seeded shuffle of this test: as soon as the game has started, the test
replaces the game's engine state with a *stacked* first deal built by
``game_engine.scenario.scripted_game`` (same players, ids = ``str(user.pk)``,
same rules), saved into ``PoolGame.state`` with the next ``version``, and both
pages reload to get a fresh snapshot. Asha holds a hand one card away from a
valid show and the top of the closed deck is QC then KS, so every move below is
known in advance; every move is still made by clicking and dragging in the page:

1. Asha sorts her hand, drags 7S and 7C next to 7D (the arrangement is sent with
   ``arrange`` and kept by the server), drags the closed deck onto her clubs
   (QC), selects KD and presses Discard;
2. Ravi taps the open pile (KD) and drags QD onto the open pile;
3. Asha taps the closed deck (KS), drags KS onto the finish slot, checks the
   engine's verdict in the dialog and presses Declare;
4. Ravi presses Show with his current arrangement; both see the result sheet.

Every WebSocket frame each page receives and the page's DOM are checked for the
other player's cards. Screenshots go to ``artifacts/e2e/``.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import pytest
from django.db import connections

from accounts.models import User
from game_engine.game import GameState
from tables.models import Deal, PoolGame, Table, TableSettings
from tests.e2e import pages
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE
from tests.e2e.pages import CARD_SPOT, Player, assert_dom_holds_only_public_cards, game_of
from tests.e2e.stacking import stack_deal, state_of
from tests.helpers import card_lists
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

TIMEOUT = 15_000


# --------------------------------------------------------------------------- helpers
def sign_up(player: Player, username: str, display: str) -> None:
    pages.sign_up(player.page, player.base, username, display)
    pages.confirm_address(player.page, username)  # the sign-up chips pay the table's entry fee
    page = player.page
    # the wallet: claim the daily chips
    player.goto("/wallet/")
    before = page.text_content("[data-testid=wallet-balance]")
    page.click("text=Claim daily chips")
    page.wait_for_selector("text=Daily chips claimed")
    assert page.text_content("[data-testid=wallet-balance]") != before


def assert_never_sent_foreign_cards(
    player: Player, own_seat: int, seen_hands: dict[int, list[Counter[str]]]
) -> None:
    """No frame holds another player's hand as a list; every hand in a view is this player's own."""
    assert player.frames, f"{player.name}'s page received no frame"
    for frame in player.frames:
        lists = [Counter(lst) for lst in card_lists(frame)]
        for seat, hands in seen_hands.items():
            if seat == own_seat:
                continue
            for hand in hands:
                assert hand not in lists, f"{player.name} was sent seat {seat}'s hand in {frame.get('type')}"
        view = frame.get("view") or {}
        if view.get("hand") is not None:
            assert view["seat"] == own_seat
            assert Counter(view["hand"]) in seen_hands[own_seat], "a view held a hand that was not mine"


# --------------------------------------------------------------------------- fixtures
@pytest.fixture
def pool_table() -> Table:
    """A two-seat 101 pool table; its first game has a fixed seed; clocks long enough not to interfere."""
    settings = TableSettings.objects.create(
        name="101 Pool · e2e",
        format="101",
        entry_fee=1_000,
        seats=2,
        turn_seconds=90,
        extra_time_seconds=30,
        declare_seconds=90,
        pause_seconds=120,
        rake_bp=1_000,
    )
    table = Table.objects.create(settings=settings, name="Green Baize 101")
    PoolGame.objects.create(table=table, seed=2026)
    return table


# --------------------------------------------------------------------------- the test
def test_two_players_play_a_deal_to_the_result_sheet(
    live_server_url: str, browser: Any, pool_table: Table
) -> None:
    started = time.monotonic()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    asha = Player(browser, live_server_url, "Asha", DESKTOP)
    ravi = Player(browser, live_server_url, "Ravi", PHONE)
    try:
        play_the_deal(live_server_url, pool_table, asha, ravi)
    except BaseException:
        for p in (asha, ravi):  # what each player saw when it went wrong
            p.page.screenshot(path=str(ARTIFACTS / f"failed-{p.name.lower()}.png"))
        raise
    finally:
        # Inside Playwright's sync API the ORM may have opened its own connection: close it,
        # or PostgreSQL cannot drop the test database at the end of the run.
        connections.close_all()
    print(f"e2e deal played in {time.monotonic() - started:.1f}s")
    asha.context.close()
    ravi.context.close()


def play_the_deal(live_server_url: str, pool_table: Table, asha: Player, ravi: Player) -> None:

    sign_up(asha, "asha", "Asha")
    sign_up(ravi, "ravi", "Ravi")

    # The lobby, live: Ravi's lobby sees Asha's seat appear without a reload.
    ravi.goto("/")
    ravi.page.wait_for_selector(f".table-tile[data-table-id='{pool_table.pk}']")
    asha.goto("/")
    asha.shot("lobby-desktop")
    ravi.shot("lobby-phone")
    asha.page.click(f".table-tile[data-table-id='{pool_table.pk}'] .join-btn")
    asha.page.wait_for_url(f"{live_server_url}/tables/{pool_table.pk}/")
    asha.page.wait_for_selector("#waiting:not([hidden])")
    asha.page.wait_for_selector("text=1 / 2")
    ravi.page.wait_for_selector(f".table-tile[data-table-id='{pool_table.pk}'] >> text=1 / 2")
    asha.shot("waiting-desktop")

    ravi.page.click(f".table-tile[data-table-id='{pool_table.pk}'] .join-btn")
    ravi.page.wait_for_url(f"{live_server_url}/tables/{pool_table.pk}/")
    wait_until(lambda: game_of(pool_table).status == PoolGame.Status.RUNNING, "the game to start")

    # The seeded shuffle (see the module doc), then fresh snapshots.
    users = {u.username: u for u in User.objects.filter(username__in=["asha", "ravi"])}
    seen_hands: dict[int, list[Counter[str]]] = {0: [], 1: []}

    def record() -> GameState:
        state = state_of(pool_table)
        if state.deal is not None and state.phase == "playing":
            for s, hand in state.deal.hands.items():
                counted = Counter(c.code for c in hand)
                if counted not in seen_hands[s]:
                    seen_hands[s].append(counted)
        return state

    record()  # the hands of the random deal, before it is replaced
    stacked = stack_deal(pool_table)
    seat = {
        name: next(i for i, p in enumerate(stacked.players) if p.id == str(users[name].pk)) for name in users
    }
    assert seat == {"asha": 0, "ravi": 1}, "the first to sit is engine seat 0 and plays first"
    record()
    for p in (asha, ravi):
        p.page.reload()
        p.page.wait_for_selector("#groups .card")
    page = asha.page
    page.wait_for_selector("text=Your turn: draw")
    assert page.locator("#groups .card").count() == 13
    assert page.locator("#closed-deck.can").count() == 1
    ravi.page.wait_for_selector("text=Asha's turn")

    # A bad move is refused in the page; one that slips through is explained by the server's message.
    ravi.page.click("#closed-deck")
    ravi.page.wait_for_selector(".toast >> text=not your turn to draw")
    ravi.page.evaluate("window.rummyTable.send({type: 'draw', source: 'closed'})")
    ravi.page.wait_for_selector(".toast.error >> text=/turn/i")
    # A dropped connection comes back by itself, with a visible banner and a fresh snapshot.
    before = len(ravi.frames)
    ravi.page.evaluate("window.rummyTable.socket.ws.close()")
    ravi.page.wait_for_selector("#reconnect-banner >> text=Reconnecting")
    ravi.page.wait_for_selector("#reconnect-banner", state="hidden")
    # the frames list grows only while Playwright runs: wait in the page, not in time.sleep
    wait_until(
        lambda: (
            ravi.page.wait_for_timeout(100) or any(f.get("type") == "snapshot" for f in ravi.frames[before:])
        ),
        "a snapshot after reconnecting",
    )

    # 1. Asha sorts, rearranges by drag and drop, draws by dragging the deck, discards.
    page.click("#btn-sort-suit")
    wait_until(
        lambda: (
            asha.hand_dom()
            == [["AS", "2S", "3S", "7S"], ["4H", "5H", "6H"], ["7D", "KD"], ["7C", "9C", "10C", "JC"]]
        ),
        "the sorted hand",
    )
    asha.drag(
        page.locator("#groups .card[data-code='7S']"),
        page.locator("#groups .card[data-code='KD']"),
        to_end=True,
    )
    wait_until(lambda: "7S" in asha.hand_dom()[2], f"7S to join 7D (hand {asha.hand_dom()})")
    asha.drag(
        page.locator("#groups .card[data-code='7C']"),
        page.locator("#groups .card[data-code='7S']"),
        to_end=True,
    )
    wait_until(
        lambda: sorted(asha.hand_dom()[2]) == ["7C", "7D", "7S", "KD"],
        f"the sevens together (hand {asha.hand_dom()})",
    )
    page.wait_for_selector("#groups .group:nth-child(1) .group-label.kind-pure_sequence")
    page.wait_for_selector("#groups .group:nth-child(3) .group-label.kind-invalid")

    # the server keeps the arrangement (it is what gets scored if Asha does not show in time)
    def kept_arrangement() -> bool:
        deal = state_of(pool_table).deal
        groups = deal.arrangements.get(0, []) if deal is not None else []
        return any(sorted(c.code for c in g) == ["7C", "7D", "7S", "KD"] for g in groups)

    wait_until(kept_arrangement, "the arrangement to reach the server")
    page.click("#closed-deck")
    page.wait_for_selector("#groups .card[data-code='QC'].fresh")
    clubs = page.locator("#groups .group-cards", has=page.locator(".card[data-code='JC']"))
    asha.drag(page.locator("#groups .card[data-code='QC']"), clubs, to_end=True)
    wait_until(lambda: "QC" in [g for g in asha.hand_dom() if "JC" in g][0], "QC to join the clubs")
    page.wait_for_selector("text=Your turn: discard")
    asha.shot("table-desktop")
    record()
    assert_dom_holds_only_public_cards(asha, state_of(pool_table), 0)
    page.click("#groups .card[data-code='KD']", position=CARD_SPOT)
    page.click("#btn-discard")
    page.wait_for_selector("#open-pile .card.top[data-code='KD']")
    asha.confirmed()
    wait_until(lambda: not any("KD" in g for g in asha.hand_dom()), "KD to leave the hand")
    for nth in (1, 2, 4):
        page.wait_for_selector(f"#groups .group:nth-child({nth}) .group-label.kind-pure_sequence")
    page.wait_for_selector("#groups .group:nth-child(3) .group-label.kind-set")
    record()

    # 2. Ravi (phone) taps the open pile, then drags QD onto it.
    rp = ravi.page
    rp.wait_for_selector("text=Your turn: draw")
    rp.wait_for_selector("#open-pile.can .card.top[data-code='KD']")
    ravi.shot("table-phone")
    rp.click("#open-pile .card.top")
    rp.wait_for_selector("#groups .card[data-code='KD']")
    ravi.confirmed()
    record()
    assert_dom_holds_only_public_cards(ravi, state_of(pool_table), 1)
    ravi.drag(rp.locator("#groups .card[data-code='QD']"), rp.locator("#open-pile"))
    rp.wait_for_selector("#open-pile .card.top[data-code='QD']")
    ravi.confirmed()
    record()

    # 3. Asha taps the deck (KS), drags KS onto the finish slot and declares.
    page.wait_for_selector("text=Your turn: draw")
    page.wait_for_selector("#open-pile.can")  # QD may be picked
    page.click("#closed-deck")
    page.wait_for_selector("#groups .card[data-code='KS']")
    asha.confirmed()
    record()
    asha.drag(page.locator("#groups .card[data-code='KS']"), page.locator("#finish-slot"))
    page.wait_for_selector("#modal:not([hidden]) >> text=Valid declaration")
    assert page.locator("#modal .sheet-group .group-label.kind-pure_sequence").count() == 3
    assert page.locator("#modal .sheet-group .group-label.kind-set").count() == 1
    page.click("#declare-confirm")

    # 4. Ravi shows his current arrangement; both see the result sheet.
    rp.wait_for_selector("#btn-show:not([hidden])")
    rp.wait_for_selector("#declared >> text=Asha declared")
    rp.click("#btn-show")
    for p in (asha, ravi):
        p.page.wait_for_selector("#modal:not([hidden]) #result-table")
        p.page.wait_for_selector("#result-table tr.winner >> text=Asha")
        p.page.wait_for_selector("#result-table .group-label.kind-set")
    state = state_of(pool_table)
    assert state.phase == "between_deals"
    assert state.last_result is not None
    ravi_points = state.last_result["players"]["1"]["points"]
    assert ravi_points > 0 and state.players[1].score == ravi_points and state.players[0].score == 0
    row = page.locator("#result-table tr[data-seat='1']")
    assert row.locator(".ppoints").inner_text().strip() == str(ravi_points)
    assert row.locator(".pscore").inner_text().strip() == str(ravi_points)
    page.wait_for_selector("#sheet-countdown >> text=Next deal in")
    asha.shot("result-desktop")
    ravi.shot("result-phone")

    # Nobody's page ever held the other player's cards.
    assert_never_sent_foreign_cards(asha, 0, seen_hands)
    assert_never_sent_foreign_cards(ravi, 1, seen_hands)
    # The group labels came over the table socket, not from an HTTP request each; Asha's
    # arrangements were private: Ravi's page never heard of them (no version moved for them).
    for p in (asha, ravi):
        assert any(f.get("type") == "evaluation" for f in p.frames), p.name
        assert not [r for r in p.requests if "/groups/evaluate/" in r], p.name
    assert any(m.get("action", {}).get("type") == "arrange" for m in asha.sent)
    updates = [f for f in ravi.frames if f.get("type") == "update" and not f.get("rebuilt")]
    assert updates and all(f["events"] for f in updates), [f["version"] for f in updates if not f["events"]]
    assert not [f for f in ravi.frames if f.get("type") == "view"]

    # Hand history: the deal is there, with its result sheet and every move.
    deal = Deal.objects.get(game=game_of(pool_table), number=1)
    assert deal.finished_at is not None
    page.click("#modal-x")
    asha.goto("/history/")
    page.click(f"a[href='/history/deals/{deal.pk}/']")
    page.wait_for_selector("#deal-result >> text=Ravi")
    page.wait_for_selector("#deal-result .rgroup.kind-set")
    page.click("#replay-controls >> text=Next")
    page.click("#replay-controls >> text=Next")
    page.wait_for_selector("#replay-step >> text=move 3 of")
    page.wait_for_selector("#deal-events li.current")
    asha.shot("replay-desktop")

    asha.assert_clean()
    ravi.assert_clean()
