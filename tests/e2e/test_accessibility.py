"""axe-core finds no WCAG 2.2 A/AA violation on any page a player sees, at desktop and phone sizes.

axe-core comes from npm (package.json pins it; ``scripts/test`` runs ``npm ci`` when
node_modules is missing or older than the lock) and runs inside Debian's Chromium on
the landing, sign-up, lobby, table (mid-deal, and between deals with the result sheet
up), wallet, history, game, replay and rules pages, the lobby and wallet of a player whose
address waits for confirmation (its banner), the confirmation link's page and the page that
objects to a staff change of an address, at 1366×768 and 375×740. The
context bypasses the Content-Security-Policy only so that the test may inject axe's
script; the policy itself is tested in test_site_pages.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from accounts import emailchange
from accounts.models import User
from accounts.services import confirmation_token
from game_engine.game import GameState
from tables import services
from tables.models import Deal, PoolGame, Seat, Table
from tests.e2e.axe import AXE, RUN_AXE, TAGS
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.pages import DEALER_OVER_NAME, VIEWPORTS, wait_still
from tests.e2e.stacking import ASHA_HAND, RAVI_HAND, stack_hands
from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

DEVICES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1366, "height": 768}},
    "phone": VIEWPORTS["375x740"],
}


@pytest.fixture
def a11y_rows(transactional_db: None) -> dict[str, Any]:
    """Made before the browser starts: a deal over (its game between deals), and a deal running."""
    table = make_table(seats=2, seed=11, pause_seconds=600, declare_seconds=600)
    asha, ravi = make_player("asha"), make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)
    # a stacked deal: Asha draws, declares with pure sequences and a set, Ravi shows (a result
    # sheet with every kind of group label, and a replay with moves on both sides of its cursor)
    stack_hands(table, [ASHA_HAND, RAVI_HAND])
    game = PoolGame.objects.get(table=table)

    def act(user: Any, rid: str, action: dict[str, Any]) -> None:
        answer = services.game_act(game_id=game.pk, user=user, request_id=rid, action=action)
        assert answer["ok"], answer

    act(asha, "d", {"type": "draw", "source": "closed"})  # QC
    groups = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7S", "7D", "7C"], ["9C", "10C", "JC", "QC"]]
    act(asha, "f", {"type": "finish", "card": "KD", "groups": groups})
    act(ravi, "s", {"type": "show", "groups": [RAVI_HAND[0:4], RAVI_HAND[4:8], RAVI_HAND[8:]]})
    deal = Deal.objects.get(game=game, number=1)

    running = make_table(seats=2, seed=5, turn_seconds=600, extra_time_seconds=60)
    meera, tara = make_player("meera"), make_player("tara")
    services.table_join(table_id=running.pk, user=meera)
    services.table_join(table_id=running.pk, user=tara)

    # a new player whose address is not confirmed yet (the banner on the lobby and the wallet, then
    # the page of the mailed link), and a player whose address staff changed (the objection page)
    nina = make_player("nina", chips=0)
    nina.email = "nina@example.com"
    nina.save(update_fields=["email"])
    omar = make_player("omar", chips=0)
    omar.email = "omar@elsewhere.example"
    omar.save(update_fields=["email"])
    staff = User.objects.create_user("helpdesk", password="x-staff-2026", is_staff=True)
    change = emailchange.hold(user=omar, old_email="omar@example.com", new_email=omar.email, changed_by=staff)
    return {
        "deal": deal.pk,
        "game": game.pk,
        "table": table.pk,
        "running": running.pk,
        "confirm": f"/accounts/confirm/{confirmation_token(nina)}/",
        "object": f"/accounts/email/keep/{emailchange.objection_token(change)}/",
    }


def _violations(page: Any, url: str, shot: str) -> list[str]:
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    page.wait_for_load_state("networkidle")
    wait_still(page)  # the table's deal animation, a sheet's entrance
    page.screenshot(path=str(ARTIFACTS / f"a11y-{shot}.png"), full_page=True)
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN_AXE, TAGS)
    return [f"{v['id']} ({v['impact']}, {v['count']} nodes): " + " | ".join(v["nodes"]) for v in found]


def _assert_touch_targets_and_dealer_badge(page: Any, device: str) -> None:
    """Issue 41: the header's tools are touch targets of at least 24×24 px, and the dealer badge
    leaves the first letter of its seat's name in view, at either seat (the badge moved there
    through the page's state; the clock repaints it)."""
    tools = page.eval_on_selector_all(
        ".tbl-tools .tool",
        "ts => ts.filter((t) => t.offsetWidth).map((t) => [t.id, t.offsetWidth, t.offsetHeight])",
    )
    assert tools and all(w >= 24 and h >= 24 for _, w, h in tools), f"{device}: header tools {tools}"
    for seat in (0, 1):
        page.evaluate("(seat) => { window.rummyTable.state.view.dealer = seat; }", seat)
        page.wait_for_selector(f".seat[data-seat='{seat}'] .dealer", state="attached")
        assert page.evaluate(DEALER_OVER_NAME) == [], f"{device}: the dealer badge over a name"


@pytest.mark.parametrize("device", list(DEVICES))
def test_no_wcag22_aa_violation_on_any_page(
    a11y_rows: dict[str, Any], live_server_url: str, browser: Any, device: str
) -> None:
    assert AXE.exists(), f"{AXE} is missing: npm ci (scripts/test runs it)"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    base = live_server_url
    found: dict[str, list[str]] = {}

    visitor = browser.new_context(**DEVICES[device], bypass_csp=True)
    page = visitor.new_page()
    for path, name in (("/", "landing"), ("/accounts/signup/", "signup")):
        found[name] = _violations(page, base + path, f"{device}-{name}")
    visitor.close()

    for username, pages in (
        (
            "asha",
            {
                "lobby": "/",
                "result sheet": f"/tables/{a11y_rows['table']}/",
                "wallet": "/wallet/",
                "history": "/history/",
                "game": f"/history/games/{a11y_rows['game']}/",
                "replay": f"/history/deals/{a11y_rows['deal']}/",
                "rules": "/rules/",
            },
        ),
        ("meera", {"table mid-deal": f"/tables/{a11y_rows['running']}/"}),
        (
            "nina",  # in this order: the link confirms the address, and the banner goes
            {
                "lobby, address unconfirmed": "/",
                "wallet, address unconfirmed": "/wallet/",
                "address confirmed": a11y_rows["confirm"],
            },
        ),
        ("omar", {"e-mail change objection": a11y_rows["object"]}),
    ):
        context = browser.new_context(**DEVICES[device], bypass_csp=True)
        name, value = session_cookie(User.objects.get(username=username)).split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": base}])
        page = context.new_page()
        for where, path in pages.items():
            found[where] = _violations(page, base + path, f"{device}-{where.replace(' ', '-')}")
            if where == "table mid-deal":
                _assert_touch_targets_and_dealer_badge(page, device)
            if where == "replay":  # axe passes small targets with room around them: the issue asks 24×24
                sizes = page.eval_on_selector_all(
                    "#replay-marks .mark", "ms => ms.map(m => [m.offsetWidth, m.offsetHeight])"
                )
                assert sizes and all(w >= 24 and h >= 24 for w, h in sizes), f"replay markers {sizes}"
        context.close()

    bad = {where: v for where, v in found.items() if v}
    if bad:
        pytest.fail(f"{device}: " + "\n".join(f"{where}:\n  " + "\n  ".join(v) for where, v in bad.items()))


#: Suits and the wild mark as drawn on a card: none of them may reach a screen reader.
GLYPHS = re.compile(r"[♠♥♦♣★]")
ACTIVE = "() => { const a = document.activeElement; return a ? (a.id || a.tagName) : null; }"


def _logged_in(browser: Any, base: str, username: str) -> Any:
    context = browser.new_context(**DEVICES["desktop"])
    name, value = session_cookie(User.objects.get(username=username)).split("=", 1)
    context.add_cookies([{"name": name, "value": value, "url": base}])
    return context


def test_cards_seats_and_verdicts_are_heard_in_words_and_focus_starts_at_the_hand(
    a11y_rows: dict[str, Any], live_server_url: str, browser: Any
) -> None:
    """Issue 41: the accessibility tree names every card in words (never its glyphs, the wild mark
    once, as "wild joker"), a seat reads as separate facts with "on turn", the declaration's verdict
    is the dialog's description; focus is on the hand at load, the skip link is the first Tab stop,
    and the hand's cursor is on the card just drawn."""
    base = live_server_url
    context = _logged_in(browser, base, "asha")
    try:
        page = context.new_page()
        page.goto(base + f"/tables/{a11y_rows['table']}/")
        page.wait_for_selector("#modal #result-table")
        sheet = page.locator("#modal .modal-box").aria_snapshot()
        assert not GLYPHS.search(sheet), sheet
        assert "queen of clubs" in sheet and "ace of spades; two of spades; three of spades." in sheet, sheet
        # the deal's page: its result sheet's cards (drawn by replay.js) and its moves, in words too
        page.goto(base + f"/history/deals/{a11y_rows['deal']}/")
        page.wait_for_selector("#replay-timeline")
        page.wait_for_selector("#deal-result .mini-card[role=img]")
        replay = page.locator("main").aria_snapshot()
        assert not GLYPHS.search(replay), [line for line in replay.splitlines() if GLYPHS.search(line)][:8]
        assert "Dropped" in replay or "Shown" in replay, replay[:600]
    finally:
        context.close()

    running = Table.objects.get(pk=a11y_rows["running"])
    state = GameState.from_dict(PoolGame.objects.get(table=running).state)
    assert state.deal is not None
    username = Seat.objects.get(game__table=running, engine_seat=state.deal.turn).user.username
    context = _logged_in(browser, base, username)
    try:
        page = context.new_page()
        page.goto(base + f"/tables/{running.pk}/")
        page.wait_for_selector("#groups .card")
        wait_until(
            lambda: page.evaluate(ACTIVE) == "groups",
            f"focus on the hand at load, not {page.evaluate(ACTIVE)}",
        )
        # the skip link is the page's first Tab stop, and takes the player to the hand
        first = page.evaluate(
            "() => Array.from(document.querySelectorAll('a[href], button, [tabindex]')).find((e) => e.tabIndex >= 0).id"
        )
        assert first == "skip-to-hand", first
        page.focus("#skip-to-hand")
        box = page.locator("#skip-to-hand").bounding_box()
        assert box is not None and box["y"] >= 0, box  # shown while it has focus
        page.keyboard.press("Enter")
        assert page.evaluate(ACTIVE) == "groups"

        # a card of the hand: its name in words, no description after it
        option = page.locator("#groups [role=option]").first
        name = option.evaluate("o => o.textContent")
        expect(option).to_have_accessible_name(
            re.compile(r"^[a-z]+ of [a-z]+(, wild joker)?$|^printed joker$")
        )
        expect(option).to_have_accessible_description("")
        assert not GLYPHS.search(page.locator("#groups").aria_snapshot()), name

        # the seats: score, drops and cards as separate words, the seat on turn says so
        seat = page.locator("#seats .seat").first
        words = seat.aria_snapshot()
        assert re.search(r"Score \d+ of 101 ?; \d+ drops? ?; 13 cards ?\.", words), words
        mine = page.locator(".hand-head .seat.me").aria_snapshot()
        assert "on turn" in mine and "on turn" not in words, (mine, words)

        # a draw puts the hand's cursor on the card drawn
        page.keyboard.press("d")
        page.wait_for_selector("#groups .card.fresh")
        fresh = page.get_attribute("#groups .card.fresh", "id")
        wait_until(
            lambda: page.get_attribute("#groups", "aria-activedescendant") == fresh,
            "the cursor on the drawn card",
        )

        # Space selects it, F opens the declaration: its verdict is the dialog's description
        page.keyboard.press("Space")
        page.keyboard.press("f")
        page.wait_for_selector("#modal[data-kind=declare] #declare-verdict:not(.muted)")
        verdict = page.inner_text("#declare-verdict")
        assert "valid show" in verdict or "Valid declaration" in verdict, verdict
        expect(page.locator("#modal .modal-box")).to_have_accessible_description(verdict.replace(" ✓", ""))
        assert not GLYPHS.search(page.locator("#modal .modal-box").aria_snapshot())
    finally:
        context.close()
