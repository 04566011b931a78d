"""A lost signal seen at once on the phone, and the player's own move shown at once (issue 41).

The player on turn (whom the toss chose) is on a phone. The link goes silent without closing, as a
phone's does when its signal goes: Chromium's network emulation (CDP ``Network.emulateNetworkConditions`` offline) holds every frame of the open socket
and fails new ones, and the page hears no close. Within a few seconds the page shows the loss
(the dot, a banner in words saying what happens to the turn, the polite live region), keeps the
player's input (an arrangement made meanwhile, a card chosen), and while it is away the server's
timer plays the turn; back online, it is in play again within a second or two and says what happened.
A move of the player's own (a draw from the open pile, a discard) is on the page before the server
answers; one the server refuses is put back with its reason. An arrangement made just before a draw
stays as the player made it when the server's answers come late and out of order.
Screenshots: artifacts/e2e/lost-signal-*.png.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.db import connections

from accounts.models import User
from game_engine.game import GameState
from tables.models import PoolGame
from tests.e2e.axe import AXE, RUN_AXE, TAGS
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE
from tests.e2e.pages import Player, join_by_form
from tests.tables.conftest import make_player, make_table
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: The page's heartbeat (static/js/socket.js): a silent link is shown lost after SILENT_MS (4 s) and a
#: tick; the issue asks for 5 s. A shared, loaded machine gets a second more.
SHOWN_WITHIN = 6.0
#: Back in play after the signal returns: the issue's target is 1 s; a loaded machine gets more.
BACK_WITHIN = 3.0
BANNER = "#reconnect-banner.conn-lost"


def _game(turn_seconds: int) -> tuple[PoolGame, User, User]:
    """A 2-seat free game, dealt: the game, the player on turn (whom the toss chose) and the other."""
    table = make_table(fee=0, seats=2, seed=9, turn_seconds=turn_seconds, extra_time_seconds=0)
    users = {u.pk: u for u in (make_player("asha"), make_player("ravi"))}
    for user in users.values():
        join_by_form(user, table)
    game = table.games.get()
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    mover = users[int(state.players[state.deal.turn].id)]
    other = next(u for u in users.values() if u.pk != mover.pk)
    connections.close_all()
    return game, mover, other


@pytest.fixture
def short_turns(transactional_db: None) -> tuple[PoolGame, User, User]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    return _game(turn_seconds=30)


@pytest.fixture
def long_turns(transactional_db: None) -> tuple[PoolGame, User, User]:
    return _game(turn_seconds=600)


def _turn_of(game_id: int) -> tuple[int | None, int]:
    """The seat on turn in the database, and the game's version."""
    game = PoolGame.objects.get(pk=game_id)
    state = GameState.from_dict(game.state)
    return (state.deal.turn if state.deal else None), game.version


def _network(cdp: Any, *, offline: bool) -> None:
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def _axe(page: Any) -> list[str]:
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN_AXE, TAGS)
    return [f"{v['id']} ({v['impact']}): " + " | ".join(v["nodes"]) for v in found]


def test_a_silent_link_is_shown_at_once_and_play_resumes_when_it_returns(
    live_server_url: str, short_turns: tuple[PoolGame, User, User], browser: Any
) -> None:
    game, mover_user, other_user = short_turns
    # bypass_csp only so that axe's script may be injected (test_accessibility.py)
    context = browser.new_context(**PHONE, bypass_csp=True)
    mover = Player(browser, live_server_url, "mover", PHONE, context=context)
    try:
        mover.open_table(mover_user, game.table_id)
        page = mover.page
        page.wait_for_selector("#conn.conn-open")
        page.wait_for_selector("#status-line >> text=Your turn: draw")
        seat = page.evaluate("window.rummyTable.state.view.seat")
        assert _turn_of(game.pk)[0] == seat
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")

        # the signal goes: nothing closes, frames stop
        _network(cdp, offline=True)
        went = time.monotonic()
        page.wait_for_selector(BANNER, timeout=SHOWN_WITHIN * 1000)
        shown_after = time.monotonic() - went
        assert shown_after <= SHOWN_WITHIN, shown_after
        print(f"lost signal shown after {shown_after:.2f} s")
        assert page.locator("#conn.conn-open").count() == 0
        assert page.get_attribute("#conn", "aria-label") == "Connection lost"
        assert page.inner_text("#conn-lost-title").startswith("Connection lost")
        now = page.inner_text(".conn-lost-now")
        assert now.startswith("Your turn: its clock keeps running") and "no extra time left" in now, now
        wait_until(
            lambda: "Connection lost: reconnecting." in page.inner_text("#announcer"),
            "the loss said through the polite live region",
            timeout=5,
        )
        assert page.get_attribute("#announcer", "aria-live") == "polite"
        mover.shot("lost-signal-375x740")
        page.set_viewport_size({"width": 640, "height": 360})
        mover.shot("lost-signal-640x360")
        page.set_viewport_size({"width": 375, "height": 740})
        page.click(".conn-more summary")  # what a missed turn costs, unfolded
        more = page.inner_text(".conn-more")
        for said in ("played for you", "three in a row drop you", "Your cards stay as you left them"):
            assert said in more, more
        mover.shot("lost-signal-more-375x740")
        assert _axe(page) == []

        # her input meanwhile is kept: an arrangement made while away, a card chosen
        page.click("#btn-sort-rank")
        page.locator("#groups .card").nth(2).click(position={"x": 8, "y": 20})
        page.wait_for_selector("#groups .card.selected")
        arranged = mover.hand_dom()
        chosen = page.get_attribute("#groups .card.selected", "data-code")

        # the turn goes on without her page: the server's timer plays it (no extra time at this table)
        wait_until(lambda: _turn_of(game.pk)[0] not in (None, seat), "the timer to play her turn", timeout=45)
        assert page.is_visible(BANNER)

        # the signal returns: in play again within a moment, told what happened meanwhile. Not in the
        # very moment the server plays the turn (its timer's work, in this one process, would be timed)
        page.wait_for_timeout(1000)
        _network(cdp, offline=False)
        back = time.monotonic()
        page.wait_for_selector(BANNER, state="detached", timeout=BACK_WITHIN * 1000 + 2000)
        page.wait_for_selector("#conn.conn-open")
        back_after = time.monotonic() - back
        print(f"back in play {back_after:.2f} s after the signal returned")
        assert back_after <= BACK_WITHIN, back_after
        summary = page.locator("#notices .notice-banner[data-kind='away_summary']")
        summary.wait_for()
        assert "The timer played 1 turn for you" in summary.inner_text(), summary.inner_text()
        page.wait_for_selector(f"#status-line >> text={other_user.display_name}'s turn")
        assert mover.hand_dom() == arranged
        assert page.get_attribute("#groups .card.selected", "data-code") == chosen
        # the arrangement made while away reached the server (it is what gets scored)
        flat = [c for g in arranged for c in g]

        def kept() -> bool:
            state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
            assert state.deal is not None
            return [c.code for g in state.deal.arrangement_of(seat) for c in g] == flat

        wait_until(kept, "her arrangement on the server", timeout=10)
        mover.shot("lost-signal-back-375x740")
        # the browser's own word for each try while offline: the loss itself, not a fault of the page
        mover.errors = [e for e in mover.errors if "ERR_INTERNET_DISCONNECTED" not in e]
        mover.assert_clean()
    finally:
        mover.close()
        connections.close_all()


def test_own_moves_show_at_once_and_a_refused_one_is_put_back_with_its_reason(
    live_server_url: str, long_turns: tuple[PoolGame, User, User], browser: Any
) -> None:
    game, mover_user, other_user = long_turns
    mover = Player(browser, live_server_url, "mover", DESKTOP)
    try:
        mover.open_table(mover_user, game.table_id)
        page = mover.page
        page.wait_for_selector("#status-line >> text=Your turn: draw")

        # a discard the page lets through (its view made to say she has drawn) and the server refuses:
        # on the page at once, then put back with the server's reason
        before = mover.hand_dom()
        top = page.get_attribute("#open-pile .card.top", "data-code")
        page.evaluate(
            """() => { const S = window.rummyTable.state;
                 S.view = {...S.view, has_drawn: true, legal: S.view.legal.concat(['discard'])}; }"""
        )
        card = before[0][0]
        page.locator(f"#groups .card[data-code='{card}']").first.click(position={"x": 8, "y": 20})
        page.wait_for_selector("#btn-discard:not([disabled])")
        # the click and the page after it, in one task of the page: no answer can have come yet
        at_once = page.evaluate(
            """() => { document.querySelector('#btn-discard').click();
                 return {top: document.querySelector('#open-pile .card.top')?.dataset.code,
                         cards: document.querySelectorAll('#groups .card').length,
                         status: document.querySelector('#status-line').textContent}; }"""
        )
        assert at_once["top"] == card and at_once["cards"] == 12, at_once  # 13 less the discard
        assert at_once["status"].startswith("You discarded"), at_once
        toast = page.locator(".toast.error", has_text="Your discard of")
        toast.wait_for()
        words = toast.inner_text()
        assert "was refused:" in words and "back in your hand" in words, words
        assert page.get_attribute("#open-pile .card.top", "data-code") == top
        assert mover.hand_dom() == before  # the card back where it was
        assert any("refused" in line for line in page.locator("#announcer p").all_inner_texts())

        # a draw from the open pile: in the hand at once, then confirmed by the server's update
        page.wait_for_selector("#open-pile.can")
        at_once = page.evaluate(
            """() => { document.querySelector('#open-pile').click();
                 return {cards: Array.from(document.querySelectorAll('#groups .card')).map((c) => c.dataset.code),
                         echo: !!window.rummyTable.state.echo}; }"""
        )
        assert at_once["echo"] and len(at_once["cards"]) == 14 and top in at_once["cards"], at_once
        wait_until(
            lambda: page.evaluate(
                "(() => { const S = window.rummyTable.state; return !S.echo && S.view.has_drawn; })()"
            ),
            "the server's update to confirm the draw",
        )
        assert len(mover.hand()) == 14 and _turn_of(game.pk)[0] == page.evaluate(
            "window.rummyTable.state.view.seat"
        )

        # and a discard the server takes: shown at once, confirmed
        page.locator(f"#groups .card[data-code='{top}']").first.click(position={"x": 8, "y": 20})
        at_once = page.evaluate(
            """() => { document.querySelector('#btn-discard').click();
                 return document.querySelector('#open-pile .card.top')?.dataset.code; }"""
        )
        assert at_once == top
        page.wait_for_selector(f"#status-line >> text={other_user.display_name}'s turn")
        assert len(mover.hand()) == 13 and page.get_attribute("#open-pile .card.top", "data-code") == top
        errors = page.locator(".toast.error").all_inner_texts()
        assert all(text.startswith("Your discard of") for text in errors), errors  # the refusal's, fading
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        mover.assert_clean()
    finally:
        mover.close()
        connections.close_all()


#: Holds every frame the server sends to the page's socket until ``window.__release()``: a server
#: too loaded to answer for a while, as the page sees it (its frames come late, the socket stays open).
HOLD = """() => {
  const ws = window.rummyTable.socket.ws;
  const deliver = ws.onmessage;
  const held = [];
  window.__heldSocket = ws;
  ws.onmessage = (ev) => { if (held) held.push(ev); };
  window.__release = () => {
    ws.onmessage = deliver;
    for (const ev of held.splice(0)) deliver.call(ws, ev);
  };
}"""
#: How long the server is held silent: twice the page's SILENT_MS (the loss is shown) and short of
#: its GIVE_UP_MS (static/js/socket.js).
STALL_MS = 8000


def test_a_server_slow_to_answer_is_waited_for_on_the_same_socket(
    live_server_url: str, long_turns: tuple[PoolGame, User, User], browser: Any
) -> None:
    game, mover_user, _ = long_turns
    mover = Player(browser, live_server_url, "mover", DESKTOP)
    try:
        mover.open_table(mover_user, game.table_id)
        page = mover.page
        page.wait_for_selector("#conn.conn-open")
        page.wait_for_selector("#status-line >> text=Your turn: draw")
        opened: list[str] = []
        page.on("websocket", lambda ws: opened.append(ws.url))
        version = _turn_of(game.pk)[1]

        # the server goes quiet: the page says so within a few seconds, and a move made meanwhile
        # goes on the socket it has
        page.evaluate(HOLD)
        held = time.monotonic()
        page.wait_for_selector(BANNER, timeout=SHOWN_WITHIN * 1000)
        page.click("#closed-deck.can")
        wait_until(lambda: _turn_of(game.pk)[1] == version + 1, "the draw on the server")
        page.wait_for_timeout(max(0.0, STALL_MS - (time.monotonic() - held) * 1000))
        assert page.is_visible(BANNER)
        assert page.evaluate("window.rummyTable.socket.ws === window.__heldSocket"), "the socket was replaced"
        assert opened == [], f"a new socket was opened while the server was slow: {opened}"

        # its answers come: connected again on the same socket, the draw confirmed once
        page.evaluate("window.__release()")
        page.wait_for_selector(BANNER, state="detached")
        page.wait_for_selector("#conn.conn-open")
        mover.confirmed()
        assert len(mover.hand()) == 14
        draws = [m for m in mover.sent if m.get("type") == "action" and m["action"].get("type") == "draw"]
        assert len(draws) == 1, draws
        assert _turn_of(game.pk)[1] == version + 1
        assert opened == []
        mover.assert_clean()
    finally:
        mover.close()
        connections.close_all()


#: Holds the server's updates to the page's socket (its other frames, the answers to its actions among
#: them, come as they are) until ``window.__releaseUpdates()``; counts the refusals it lets through.
HOLD_UPDATES = """() => {
  const ws = window.rummyTable.socket.ws;
  const deliver = ws.onmessage;
  const held = [];
  window.__refused = 0;
  ws.onmessage = (ev) => {
    const msg = JSON.parse(ev.data);
    if (msg.type === "update") { held.push(ev); return; }
    if (msg.type === "result" && msg.ok === false) window.__refused += 1;
    deliver.call(ws, ev);
  };
  window.__releaseUpdates = () => {
    ws.onmessage = deliver;
    for (const ev of held.splice(0)) deliver.call(ws, ev);
  };
}"""


def test_an_arrangement_made_just_before_a_draw_is_kept_when_the_draw_is_answered_late(
    live_server_url: str, long_turns: tuple[PoolGame, User, User], browser: Any
) -> None:
    """The player sorts and draws at once; the arrangement goes behind the draw, with the hand as it
    was, and the server refuses it. The draw's update comes after that refusal (held here, as a loaded
    server's channel layer delays it): the hand stays sorted as the player sorted it, the drawn card
    is added, and the arrangement reaches the server with it."""
    game, mover_user, _ = long_turns
    mover = Player(browser, live_server_url, "mover", DESKTOP)
    try:
        mover.open_table(mover_user, game.table_id)
        page = mover.page
        page.wait_for_selector("#status-line >> text=Your turn: draw")
        seat = page.evaluate("window.rummyTable.state.view.seat")
        page.evaluate(HOLD_UPDATES)
        sorted_by_rank = page.evaluate(
            """() => { document.querySelector('#btn-sort-rank').click();
                 document.querySelector('#closed-deck').click();
                 return window.rummyTable.state.groups; }"""
        )
        wait_until(
            lambda: page.evaluate("window.__refused") >= 1, "the arrangement sent behind the draw refused"
        )
        assert mover.hand_dom() == sorted_by_rank  # the hand as the player left it
        page.evaluate("window.__releaseUpdates()")
        wait_until(lambda: len(mover.hand()) == 14, "the drawn card")
        mover.confirmed()
        hand = mover.hand_dom()
        assert hand[:-1] == sorted_by_rank and len(hand[-1]) == 1, hand

        def kept() -> bool:
            state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
            assert state.deal is not None
            return [[c.code for c in g] for g in state.deal.arrangement_of(seat)] == mover.hand_dom()

        wait_until(kept, "the arrangement, with the drawn card, on the server", timeout=10)
        assert not [t for t in page.locator(".toast").all_inner_texts() if "arrangement" in t]
        mover.assert_clean()
    finally:
        mover.close()
        connections.close_all()
