"""Play without a mouse and without sight (issue 25), in real Chromium.

The two-seat 101 deal of ``test_table_play`` (the same stacked shuffle: Asha is one card away
from a valid show, the closed deck's top is QC then KS), played again with the keyboard alone:
no ``click``, ``tap``, ``mouse`` or ``hover`` anywhere in this file, only ``page.keyboard``,
``locator.press`` and ``focus``. Both players join with the keyboard, arrange, draw, discard,
take the open card, declare and show; what they hear is read from the page's one polite live
region (``#announcer``): every line added to it is recorded by a ``MutationObserver`` installed
before the page's own scripts run.

Also: Enter and Space on the closed deck, the open pile and the finish slot act; dialogs take
focus, keep Tab inside and give focus back; no live region ever holds a ticking clock, and the
player's own time left is said at 10 and 5 seconds.
"""

from __future__ import annotations

import contextlib
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connections

from tables.models import PoolGame, Table, TableSettings
from tests.e2e.conftest import DESKTOP, PHONE
from tests.e2e.pages import Player, assert_dom_holds_only_public_cards, game_of, make_user
from tests.e2e.stacking import stack_deal, state_of
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: Installed before the page's scripts: every line the live region ``#announcer`` gains, in order.
HEARD = """
window.__heard = [];
new MutationObserver((muts) => {
  for (const m of muts) for (const n of m.addedNodes) {
    const el = n.nodeType === 1 ? n : n.parentElement;
    if (el && el.closest && el.closest('#announcer') && el.id !== 'announcer') window.__heard.push(n.textContent);
  }
}).observe(document, {subtree: true, childList: true});
"""

#: Every live region's text now (aria-live, or a role that is one).
LIVE_TEXT = """() => Array.from(document.querySelectorAll(
  '[aria-live]:not([aria-live=off]), [role=status], [role=log], [role=alert], [role=timer]'
)).map((el) => (el.id || el.className) + ': ' + el.textContent)"""

ACTIVE = "() => { const a = document.activeElement; return a ? (a.id || a.tagName) : null; }"
IN_MODAL = "() => !!(document.activeElement && document.activeElement.closest('#modal .modal-box'))"
CURSOR = """() => { const g = document.getElementById('groups'); const id = g && g.getAttribute('aria-activedescendant');
  const el = id && document.getElementById(id); return el ? el.dataset.code : null; }"""


def make_table(name: str, **extra: Any) -> Table:
    """A two-seat 101 pool table, its first game seeded; clocks long unless told."""
    settings = TableSettings.objects.create(
        name=name,
        format="101",
        entry_fee=1_000,
        seats=2,
        turn_seconds=extra.pop("turn_seconds", 90),
        extra_time_seconds=extra.pop("extra_time_seconds", 30),
        declare_seconds=90,
        pause_seconds=extra.pop("pause_seconds", 120),
    )
    table = Table.objects.create(settings=settings, name=name)
    PoolGame.objects.create(table=table, seed=2026)
    return table


def listener(browser: Any, base: str, name: str, device: dict[str, Any]) -> Player:
    player = Player(browser, base, name, device)
    player.context.add_init_script(HEARD)
    player.log_in(make_user(name.lower(), name))
    return player


def join_by_keyboard(player: Player, table: Table) -> None:
    """Open the table and press Enter on its Join button."""
    player.goto(f"/tables/{table.pk}/")
    player.page.wait_for_selector("#join-form button")
    player.page.focus("#join-form button")
    player.page.keyboard.press("Enter")
    player.page.wait_for_selector("#leave-form, #groups .card")


@contextlib.contextmanager
def seated(
    browser: Any, base: str, table: Table, ravi_device: dict[str, Any] = DESKTOP
) -> Iterator[tuple[Player, Player]]:
    """Asha and Ravi listening: both join with the keyboard, the deal is replaced by the stacked
    one, both pages reload; their browsers close after, whatever happened."""
    asha = listener(browser, base, "Asha", DESKTOP)
    ravi = listener(browser, base, "Ravi", ravi_device)
    try:
        join_by_keyboard(asha, table)
        join_by_keyboard(ravi, table)
        wait_until(lambda: game_of(table).status == PoolGame.Status.RUNNING, "the game to start")
        stack_deal(table)
        for p in (asha, ravi):
            p.page.reload()
            p.page.wait_for_selector("#groups .card")
        yield asha, ravi
    finally:
        asha.close()
        ravi.close()
        connections.close_all()


def heard(player: Player) -> list[str]:
    return player.page.evaluate("window.__heard")  # type: ignore[no-any-return]


def hears(player: Player, words: str, timeout: float = 15) -> None:
    wait_until(
        lambda: any(words in line for line in heard(player)),
        f"{player.name} to hear {words!r}: {heard(player)}",
        timeout,
    )


def cursor_to(player: Player, code: str) -> None:
    """Walk the hand's cursor with the arrow keys to ``code``."""
    page = player.page
    page.keyboard.press("h")
    page.keyboard.press("Home")
    for _ in range(16):
        if page.evaluate(CURSOR) == code:
            return
        page.keyboard.press("ArrowRight")
    pytest.fail(f"{player.name}'s cursor never reached {code}: {player.hand_dom()}")


def select(player: Player, code: str) -> None:
    cursor_to(player, code)
    player.page.keyboard.press("Space")
    player.page.wait_for_selector(f"#groups .card[data-code='{code}'][aria-selected=true]")


def test_a_whole_deal_played_with_the_keyboard_alone_and_heard(live_server_url: str, browser: Any) -> None:
    table = make_table("Keyboard 101")
    with seated(browser, live_server_url, table, PHONE) as (asha, ravi):
        page, rp = asha.page, ravi.page
        page.wait_for_selector("#status-line >> text=Your turn: draw")
        hears(asha, "Your turn.")
        polite = page.eval_on_selector_all(
            "[aria-live=polite], [role=status], [role=log], [role=timer], [role=marquee]",
            "els => els.map(e => e.id)",
        )
        assert polite == ["announcer"], f"one polite live region, not {polite}"

        # the hand is a listbox of named cards: H focuses it, the cursor is its active option
        page.keyboard.press("h")
        assert page.evaluate(ACTIVE) == "groups"
        assert page.get_attribute("#groups", "role") == "listbox"
        labels = page.eval_on_selector_all(
            "#groups [role=option]", "os => os.map(o => o.querySelector('.sr-only').textContent)"
        )
        assert len(labels) == 13 and "ace of spades" in labels and "seven of diamonds" in labels, labels
        assert page.evaluate(CURSOR) == "AS"
        # the keyboard's card is ringed (a tap's is not: tests/e2e/test_table_layout.py)
        ring = page.eval_on_selector("#groups .card.cursor", "c => getComputedStyle(c).outlineStyle")
        assert ring == "solid", ring
        ravi_labels = rp.eval_on_selector_all(
            "#groups [role=option]", "os => os.map(o => o.querySelector('.sr-only').textContent)"
        )
        assert "eight of hearts, wild joker" in ravi_labels and "ten of diamonds" in ravi_labels, ravi_labels
        names = page.evaluate(
            "import(new URL('cards.js', document.querySelector('script[type=module]').src).href).then(m => ['PJ', 'QS', '10C', '7H'].map(c => m.spokenCard(c, 7)))"
        )
        assert names == ["printed joker", "queen of spades", "ten of clubs", "seven of hearts, wild joker"], (
            names
        )

        # 1. Asha sorts (S), moves 7S and 7C next to 7D (Shift + arrows), draws (D), places QC, discards KD (X)
        page.keyboard.press("s")
        wait_until(
            lambda: (
                asha.hand_dom()
                == [["AS", "2S", "3S", "7S"], ["4H", "5H", "6H"], ["7D", "KD"], ["7C", "9C", "10C", "JC"]]
            ),
            f"the sorted hand ({asha.hand_dom()})",
        )
        cursor_to(asha, "7S")
        page.keyboard.press("Shift+ArrowDown")
        hears(asha, "Moved: seven of spades, group 2, card 4 of 4.")
        page.keyboard.press("Shift+ArrowDown")
        hears(asha, "Moved: seven of spades, group 3, card 3 of 3.")
        cursor_to(asha, "7C")
        page.keyboard.press("Shift+ArrowUp")
        hears(asha, "Moved: seven of clubs, group 3, card 4 of 4.")
        assert asha.hand_dom()[2] == ["7D", "KD", "7S", "7C"], asha.hand_dom()
        page.keyboard.press("d")
        hears(asha, "You drew the queen of clubs from the deck.")
        page.wait_for_selector(
            "#groups .card[data-code='QC'] .sr-only:text-is('queen of clubs, just drawn')", state="attached"
        )
        cursor_to(asha, "QC")
        page.keyboard.press("Shift+ArrowUp")
        wait_until(
            lambda: asha.hand_dom()[3] == ["9C", "10C", "JC", "QC"], f"QC with the clubs ({asha.hand_dom()})"
        )
        # the server's check of the new groups first (the read says "not checked yet" until it comes)
        page.wait_for_selector("#groups .group-label.pending", state="detached")
        page.keyboard.press("r")  # read the table
        hears(asha, "Group 1, pure sequence: ace of spades; two of spades; three of spades.")
        read = next(line for line in heard(asha) if "Group 1, pure sequence" in line)
        for words in (
            "Your turn: discard",
            "invalid",
            "Open card: king of hearts.",
            "Cut joker: eight of diamonds",
            "Scores, of 101: You 0, Ravi 0.",
            "seconds left",
        ):
            assert words in read, (words, read)
        select(asha, "KD")
        page.keyboard.press("x")
        hears(asha, "You discarded the king of diamonds.")
        page.wait_for_selector("#open-pile .card.top[data-code='KD']")
        asha.confirmed()
        assert_dom_holds_only_public_cards(asha, state_of(table), 0)

        # 2. Ravi (a phone, a keyboard) takes KD from the open pile (O) and discards QD
        rp.wait_for_selector("#status-line >> text=Your turn: draw")
        hears(ravi, "Asha discarded the king of diamonds. Your turn.")
        rp.keyboard.press("o")
        rp.wait_for_selector("#groups .card[data-code='KD']")
        ravi.confirmed()
        hears(asha, "Ravi picked the king of diamonds from the open pile.")
        select(ravi, "QD")
        rp.keyboard.press("x")
        hears(asha, "Ravi discarded the queen of diamonds. Your turn.")
        rp.wait_for_selector("#groups .card[data-code='QD']", state="detached")  # Ravi's page has it too
        ravi.confirmed()
        assert_dom_holds_only_public_cards(ravi, state_of(table), 1)

        # 3. Asha draws KS, selects it, F puts it in the finish slot; the dialog has focus; Declare
        page.keyboard.press("d")
        hears(asha, "You drew the king of spades from the deck.")
        asha.confirmed()
        select(asha, "KS")
        page.keyboard.press("f")
        page.wait_for_selector("#modal:not([hidden]) >> text=Valid declaration")
        assert page.evaluate(IN_MODAL), page.evaluate(ACTIVE)
        for _ in range(4):
            if page.evaluate(ACTIVE) == "declare-confirm":
                break
            page.keyboard.press("Tab")
        assert page.evaluate(ACTIVE) == "declare-confirm"
        page.keyboard.press("Enter")

        # 4. Ravi is told to show, and shows with F; the result sheet takes both players' focus
        hears(ravi, "Asha declared: valid.")
        hears(ravi, "press F to show them")
        rp.keyboard.press("f")
        for p in (asha, ravi):
            p.page.wait_for_selector("#modal:not([hidden]) #result-table tr.winner >> text=Asha")
            wait_until(lambda: p.page.evaluate(IN_MODAL), f"{p.name}'s focus in the result sheet")  # noqa: B023
        hears(asha, "Ravi showed:")
        hears(asha, "Deal 1 is over: you won it.")
        hears(ravi, "Deal 1 is over: Asha won it.")
        state = state_of(table)
        assert state.phase == "between_deals" and state.players[0].score == 0 < state.players[1].score

        # between deals the next deal counts down on screen, but no live region ticks
        page.wait_for_selector("#status-countdown >> text=Next deal in")
        samples = set()
        for _ in range(14):
            samples.update(page.evaluate(LIVE_TEXT))
            page.wait_for_timeout(250)
        ticking = [t for t in samples if re.search(r"\d:\d\d", t)]
        assert ticking == [], ticking
        asha.shot("keyboard-result-desktop")
        print("Asha heard:", *heard(asha), sep="\n  ")
        asha.assert_clean()
        ravi.assert_clean()


def test_enter_and_space_on_the_piles_and_dialogs_keep_and_return_focus(
    live_server_url: str, browser: Any
) -> None:
    table = make_table("Keys on piles 101")
    with seated(browser, live_server_url, table) as (asha, ravi):
        page, rp = asha.page, ravi.page
        page.wait_for_selector("#closed-deck.can")

        # the Drop dialog (Asha may drop before drawing): focus in, Tab kept in, focus back
        page.focus("#btn-drop")
        page.keyboard.press("Enter")
        page.wait_for_selector("#modal[data-kind=drop]")
        assert page.evaluate(ACTIVE) == "drop-cancel"
        seen = set()
        for key in ["Tab"] * 7 + ["Shift+Tab"] * 5:
            page.keyboard.press(key)
            assert page.evaluate(IN_MODAL), f"{key} left the dialog for {page.evaluate(ACTIVE)}"
            seen.add(page.evaluate(ACTIVE))
        assert {"drop-cancel", "drop-confirm", "modal-x"} <= seen, seen
        page.keyboard.press("Escape")
        page.wait_for_selector("#modal", state="detached")
        wait_until(
            lambda: page.evaluate(ACTIVE) == "btn-drop", f"focus back on Drop, not {page.evaluate(ACTIVE)}"
        )

        # the keys sheet ("?") lists every key, and gives focus back too
        page.focus("#closed-deck")
        page.keyboard.press("?")
        page.wait_for_selector("#keys-sheet")
        assert page.evaluate(IN_MODAL)
        for key in ("Space", "Shift + ← →", "D", "O", "X", "G", "N", "S", "F", "P", "R"):
            assert (
                page.locator("#keys-sheet kbd", has_text=re.compile("^" + re.escape(key) + "$")).count() == 1
            ), key
        page.keyboard.press("Escape")
        wait_until(lambda: page.evaluate(ACTIVE) == "closed-deck", "focus back on the deck")

        # Enter on the closed deck draws; Space on the open pile discards the selected card
        page.keyboard.press("Enter")
        wait_until(lambda: len(asha.hand()) == 14, "the card drawn with Enter")
        asha.confirmed()
        select(asha, "KD")
        page.focus("#open-pile")
        page.keyboard.press("Space")
        page.wait_for_selector("#open-pile .card.top[data-code='KD']")
        wait_until(lambda: len(asha.hand()) == 13, "the discard with Space")
        asha.confirmed()

        # Enter on the open pile takes its card (Ravi)
        rp.wait_for_selector("#open-pile.can")
        rp.focus("#open-pile")
        rp.keyboard.press("Enter")
        rp.wait_for_selector("#groups .card[data-code='KD']")
        ravi.confirmed()
        select(ravi, "QD")
        rp.focus("#open-pile")
        rp.keyboard.press("Enter")
        rp.wait_for_selector("#open-pile .card.top[data-code='QD']")
        ravi.confirmed()

        # the finish slot takes Enter: the declaration dialog opens with focus; Escape cancels it,
        # the card goes back to the hand and focus back to the slot
        page.wait_for_selector("#closed-deck.can")
        page.focus("#closed-deck")
        page.keyboard.press("Space")
        wait_until(lambda: len(asha.hand()) == 14, "the card drawn with Space")
        asha.confirmed()
        select(asha, "KS")
        page.focus("#finish-slot")
        page.keyboard.press("Enter")
        page.wait_for_selector("#modal[data-kind=declare]")
        assert page.evaluate(ACTIVE) == "declare-cancel"
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Shift+Tab")
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(IN_MODAL)
        page.keyboard.press("Escape")
        page.wait_for_selector("#modal", state="detached")
        wait_until(lambda: len(asha.hand()) == 14, "KS back in the hand")
        wait_until(
            lambda: page.evaluate(ACTIVE) == "finish-slot",
            f"focus back on the slot, not {page.evaluate(ACTIVE)}",
        )

        # "+ new group" without a drag: Enter on it makes the selected cards a group
        select(asha, "AS")
        page.focus("#new-group")
        page.keyboard.press("Enter")
        wait_until(lambda: asha.hand_dom()[-1] == ["AS"], f"AS alone in a new group ({asha.hand_dom()})")
        asha.assert_clean()
        ravi.assert_clean()


def test_time_is_said_at_thresholds_and_no_live_region_ticks(live_server_url: str, browser: Any) -> None:
    table = make_table("Clock words 101", turn_seconds=20, extra_time_seconds=5)
    with seated(browser, live_server_url, table) as (asha, ravi):
        page = asha.page
        page.wait_for_selector("#status-line >> text=Your turn: draw")
        samples: set[str] = set()
        started = time.monotonic()
        # Asha's turn runs down, her seat's clock ticking on screen, until she hears 5 seconds left
        while not any("5 seconds left" in line for line in heard(asha)):
            samples.update(page.evaluate(LIVE_TEXT))
            page.wait_for_timeout(200)
            assert time.monotonic() - started < 25, heard(asha)
        ravi_heard = heard(ravi)  # still Asha's turn: Ravi's own clock has not run
        page.wait_for_selector(".seat.me .timer-text")
        ticking = [t for t in samples if re.search(r"\d:\d\d|\b\d+ ?s\b", t)]
        assert ticking == [], ticking
        times = [line for line in heard(asha) if "seconds left" in line]
        assert times == ["10 seconds left on your turn.", "5 seconds left on your turn."], heard(asha)
        assert not [line for line in ravi_heard if "seconds left" in line], ravi_heard
        asha.assert_clean()
        ravi.assert_clean()


def test_the_next_deals_countdown_is_shown_but_never_ticks_in_a_live_region(
    live_server_url: str, browser: Any
) -> None:
    """And when the next deal is dealt, focus goes to the hand (issue 41: it landed on the
    header's "Keys ?")."""
    table = make_table("No ticking 101", pause_seconds=8)
    with seated(browser, live_server_url, table) as (asha, ravi):
        page = asha.page
        page.focus("#btn-drop")
        page.keyboard.press("Enter")
        page.wait_for_selector("#drop-confirm")
        page.focus("#drop-confirm")
        page.keyboard.press("Enter")
        wait_until(lambda: state_of(table).phase == "between_deals", "the deal to end with Asha's drop")
        page.wait_for_selector("#status-line >> text=Next deal in")
        samples: set[str] = set()
        for _ in range(16):  # four seconds: the countdown moves on screen
            samples.update(page.evaluate(LIVE_TEXT))
            page.wait_for_timeout(250)
        ticking = [t for t in samples if re.search(r"\d:\d\d", t)]
        assert ticking == [], ticking
        hears(ravi, "Asha dropped")
        # the next deal: the result sheet closes and the hand has focus, for both players
        for p in (asha, ravi):
            p.page.wait_for_selector("#deal-no >> text=Deal 2", timeout=30_000)
            p.page.wait_for_selector("#groups .card")
            wait_until(
                lambda: p.page.evaluate(ACTIVE) == "groups",  # noqa: B023
                f"{p.name}'s focus on the hand in deal 2, not {p.page.evaluate(ACTIVE)}",
                10,
            )
        asha.assert_clean()
        ravi.assert_clean()
