"""What the browser tests share: a player's browser, waiting, signing up, playing a turn.

Every page fails its test on a console error, an uncaught exception or a JavaScript
dialog (``alert`` from a player's name would be one): see ``Player.assert_clean``.
"""

from __future__ import annotations

import json
import re
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from django.test import Client
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from accounts.models import User
from accounts.services import confirm_email
from game_engine.game import GameState
from tables.models import PoolGame, Table, TableSettings
from tests.e2e.conftest import ARTIFACTS, MAIL_DIR
from tests.helpers import session_cookie
from tests.waiting import wait_until

PASSWORD = "felt-and-cards-2026"
#: Playwright's timeout: generous, as the suite's workers share a small machine (waits end when met).
TIMEOUT = 30_000
#: Where a player taps a card of their hand: on its index, the strip the fan always shows (a phone's
#: hand in many groups fans its cards tighter, static/js/hand.js fitHand, so the next card covers the middle).
CARD_SPOT = {"x": 8, "y": 20}

#: Nothing on the page moves: every CSS animation and transition that ends has ended (a pulse that
#: repeats for ever, the clock's last seconds, is not waited for).
STILL = """() => document.getAnimations().every(
  (a) => a.playState !== "running" || a.effect.getTiming().iterations === Infinity)"""


def wait_still(page: Any, timeout: float = 5_000) -> None:
    """Until nothing on ``page`` moves, as a screenshot or an audit of what is shown wants."""
    page.wait_for_function(STILL, timeout=timeout)


VIEWPORTS: dict[str, dict[str, Any]] = {
    "1920x1080": {"viewport": {"width": 1920, "height": 1080}},
    "1366x768": {"viewport": {"width": 1366, "height": 768}},  # the commonest laptop screen
    "1366x650": {"viewport": {"width": 1366, "height": 650}},  # the same with the browser's bars
    "1280x800": {"viewport": {"width": 1280, "height": 800}},
    "740x360": {
        "viewport": {"width": 740, "height": 360},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
    "375x740": {
        "viewport": {"width": 375, "height": 740},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
    # many Androids are 360 px wide
    "360x740": {
        "viewport": {"width": 360, "height": 740},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 2,
    },
}


def game_of(table: Table) -> PoolGame:
    return PoolGame.objects.filter(table=table).order_by("-id").first()  # type: ignore[return-value]


def pool_table(name: str, seats: int, **extra: Any) -> Table:
    """A 101 pool table (entry ₹10 unless told); ``extra``: more of its settings."""
    settings = TableSettings.objects.create(
        name=name,
        format="101",
        entry_fee=extra.pop("entry_fee", 1_000),
        seats=seats,
        turn_seconds=extra.pop("turn_seconds", 60),
        extra_time_seconds=20,
        declare_seconds=60,
        pause_seconds=extra.pop("pause_seconds", 60),
        start_countdown_seconds=extra.pop("start_countdown_seconds", 60),
        **extra,
    )
    return Table.objects.create(settings=settings, name=name)


def join_by_form(user: User, table: Table) -> None:
    """What the lobby's Join button posts, with ``user``'s session (before the browser starts)."""
    client = Client()
    client.force_login(user)
    assert client.post(f"/tables/{table.pk}/join/").status_code == 302


def join_from_lobby(player: Player, table: Table) -> None:
    """Take a seat as people do: the lobby's tile, its Join button."""
    player.goto("/")
    # the page's first list replaces the server's tiles (``data-live`` then): a click on a tile as
    # it is replaced can be lost (a run waited 30 s for a navigation whose join was never posted)
    player.page.wait_for_selector("#lobby-tables[data-live]")
    # waiting from before the click: a wait begun after it can miss a navigation already done
    # (a run timed out 30 s on a page that had loaded the table)
    with player.page.expect_navigation(url=f"{player.base}/tables/{table.pk}/"):
        player.page.click(f".table-tile[data-table-id='{table.pk}'] .join-btn")


def play_practice_now(page: Any, fmt: str, seats: int) -> int:
    """The lobby's "Play practice now": format, seats, the button; the id of the table it deals."""
    page.select_option("#practice-format", fmt)
    page.select_option("#practice-seats", str(seats))
    page.click("#practice-start")
    page.wait_for_url(re.compile(r"/tables/\d+/$"), timeout=20_000)
    return int(page.url.rstrip("/").rsplit("/", 1)[-1])


def sign_up(page: Any, base: str, username: str, display_name: str) -> None:
    """Sign up through the form, as a visitor does (CSRF token, cookies); ends on the lobby."""
    page.goto(f"{base}/accounts/signup/")
    page.fill("#id_username", username)
    page.fill("#id_display_name", display_name)
    page.fill("#id_password1", PASSWORD)
    page.fill("#id_password2", PASSWORD)
    page.fill("#id_email", f"{username}@example.com")
    page.check("#id_confirm_age")
    page.check("#id_accept_terms")
    page.click("#signup-form button[type=submit]")
    page.wait_for_url(f"{base}/")


def confirm_address(page: Any, username: str, timeout: float = 10) -> None:
    """Open the confirmation link the server mailed to ``<username>@example.com`` (its file backend,
    ``conftest.MAIL_DIR``), as the player does from their inbox; ends on the page saying the chips are in."""
    address = f"{username}@example.com"

    def mailed_link() -> str:
        """The link of the newest mail to ``address`` that holds one; "" before it comes."""
        link = ""
        for path in sorted(MAIL_DIR.glob("*.log"), key=lambda p: p.stat().st_mtime):
            for message in path.read_text().split("-" * 79):
                if re.search(rf"^To: {re.escape(address)}$", message, re.M):
                    found = re.search(r"https?://\S+/accounts/confirm/\S+/", message)
                    link = found.group(0) if found else link
        return link

    page.goto(wait_until(mailed_link, f"a confirmation mail to {address} in {MAIL_DIR}", timeout))
    page.wait_for_selector("#confirm-result[data-outcome=bonus]")


def make_user(username: str, display_name: str = "") -> User:
    """An account as sign-up makes it, its address confirmed (so with its sign-up chips)."""
    user = User.objects.create_user(
        username=username, password=PASSWORD, display_name=display_name, email=f"{username}@example.com"
    )
    confirm_email(user=user, address=user.email)
    return user


class Player:
    """One browser: its page, every WebSocket frame the page received, and what went wrong in it."""

    def __init__(
        self, browser: Any, base: str, name: str, device: dict[str, Any], *, context: Any = None
    ) -> None:
        self.name = name
        self.base = base
        if context is None:
            context = browser.new_context(**device)
            context.set_default_timeout(TIMEOUT)
        self.context = context
        self.page = self.context.new_page()
        self.frames: list[dict[str, Any]] = []
        #: what the page sent over its sockets, and the URLs of its HTTP requests
        self.sent: list[dict[str, Any]] = []
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("websocket", self._on_socket)
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("console", self._on_console)
        self.page.on("dialog", self._on_dialog)
        self.page.on("request", lambda request: self.requests.append(f"{request.method} {request.url}"))

    def _on_console(self, msg: Any) -> None:
        if msg.type != "error":
            return
        url = (msg.location or {}).get("url", "")
        if url.endswith("/favicon.ico"):  # the site's icon is not the table page's business
            return
        self.errors.append(f"console: {msg.text} ({url})")

    def _on_dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _on_socket(self, ws: Any) -> None:
        def received(payload: Any) -> None:
            if isinstance(payload, str):
                self.frames.append(json.loads(payload))

        def sent(payload: Any) -> None:
            if isinstance(payload, str):
                self.sent.append(json.loads(payload))

        ws.on("framereceived", received)
        ws.on("framesent", sent)

    def another_tab(self) -> Player:
        """A second page of this browser (its cookies, so its session): the same player in another tab,
        with frames and errors of its own."""
        return Player(None, self.base, f"{self.name} (another tab)", {}, context=self.context)

    def log_in(self, user: User) -> None:
        """Log in with the session cookie of ``user`` (the log-in page is tested elsewhere)."""
        name, value = session_cookie(user).split("=", 1)
        self.context.add_cookies([{"name": name, "value": value, "url": self.base}])

    def goto(self, path: str) -> None:
        self.page.goto(self.base + path)

    def open_table(self, user: User, table_id: int) -> None:
        """Logged in as ``user``, the table page open on a dealt hand."""
        self.log_in(user)
        self.goto(f"/tables/{table_id}/")
        self.page.wait_for_selector("#groups .card")

    def shot(self, name: str) -> None:
        wait_still(self.page)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(ARTIFACTS / f"{name}.png"))

    def hand(self) -> list[str]:
        return self.page.eval_on_selector_all("#groups .card", "cs => cs.map(c => c.dataset.code)")

    def hand_dom(self) -> list[list[str]]:
        return self.page.eval_on_selector_all(
            "#groups .group-cards",
            "rows => rows.map(r => Array.from(r.querySelectorAll('.card')).map(c => c.dataset.code))",
        )

    def view(self) -> dict[str, Any] | None:
        return self.page.evaluate("window.rummyTable && window.rummyTable.state.view")  # type: ignore[no-any-return]

    def confirmed(self) -> None:
        """Wait for the server to have answered every move this page sent, and for the page to show
        the version the last one made. The page shows the player's own move before the server has it
        (static/js/table/echo.js): a test that reads the server, or waits for the next turn, after a
        move waits here first, not on what the page drew at once."""
        self.page.wait_for_function("() => !!window.rummyTable && window.rummyTable.settled()")

    def my_turn(self) -> bool:
        """The page shows the player on turn, with no move of theirs still waiting for the server."""
        if not self.page.evaluate("!!window.rummyTable && window.rummyTable.settled()"):
            return False
        v = self.view()
        return bool(
            v and v.get("seat") is not None and v.get("deal_phase") == "turn" and v.get("turn") == v["seat"]
        )

    def play_a_turn(self) -> str:
        """Draw from the deck and discard the card drawn, with clicks, as a player does."""
        page = self.page
        page.wait_for_selector("#closed-deck.can")
        before = len(self.hand())
        page.click("#closed-deck")
        wait_until(lambda: len(self.hand()) == before + 1, f"{self.name}'s drawn card")
        self.confirmed()
        page.wait_for_selector("#groups .card.fresh")
        code = str(page.get_attribute("#groups .card.fresh", "data-code"))
        # a tap while the hand is refitted to its rows can miss: tap again, as a player does
        for _ in range(3):
            page.click("#groups .card.fresh", position=CARD_SPOT)
            try:
                page.wait_for_selector("#groups .card.fresh.selected", timeout=5_000)
                break
            except PlaywrightTimeoutError:
                assert not page.query_selector("#groups .card.selected"), (
                    f"{self.name}: another card was selected"
                )
        else:
            raise AssertionError(f"{self.name}: three taps on the drawn card {code} did not select it")
        page.click("#btn-discard:not([disabled])")
        wait_until(lambda: len(self.hand()) == before, f"{self.name}'s discard")
        self.confirmed()  # shown at once; the server's answer is what the caller reads next
        return code

    def drag(self, source: Any, target: Any, *, to_end: bool = False) -> None:
        """Drag with the mouse, in small steps, the way a player does (SortableJS fallback mode),
        once the page has SortableJS (it comes when the page is idle after the table shows)."""
        self.page.wait_for_selector("#table-app[data-drag='ready']", state="attached")
        self.page.wait_for_timeout(150)
        for _ in range(30):  # the page may be re-rendering the hand after an update
            src, dst = source.bounding_box(), target.bounding_box()
            if src and dst:
                break
            self.page.wait_for_timeout(100)
        assert src and dst, "nothing to drag or nowhere to drop"
        mouse = self.page.mouse
        grab_x = src["x"] + min(CARD_SPOT["x"], src["width"] / 2)  # a card is held by its index
        mouse.move(grab_x, src["y"] + src["height"] / 2)
        mouse.down()
        mouse.move(grab_x + 8, src["y"] + src["height"] / 2 + 8, steps=4)
        x = dst["x"] + (dst["width"] - 5 if to_end else dst["width"] / 2)
        y = dst["y"] + dst["height"] / 2
        mouse.move(x, y, steps=14)
        self.page.wait_for_timeout(250)  # hover a moment, as a hand does (SortableJS animates the insert)
        mouse.move(x + 2, y + 1, steps=3)
        self.page.wait_for_timeout(120)
        mouse.up()
        self.page.wait_for_timeout(200)

    def assert_clean(self) -> None:
        assert self.dialogs == [], f"{self.name}'s page opened dialogs: {self.dialogs}"
        assert self.errors == [], f"{self.name}'s page logged errors: {self.errors}"

    def close(self) -> None:
        self.context.close()


#: Every link and button of the site's top bar (``.topbar``): on screen, and the element hit at its centre.
NAV_CHECK = """
() => {
  const bar = document.querySelector('.topbar');
  if (!bar || bar.getBoundingClientRect().height === 0) return {shown: false, count: 0, problems: []};
  // the layout viewport: on a phone window.innerWidth grows to fit a page that is too wide
  const W = document.documentElement.clientWidth, H = document.documentElement.clientHeight;
  const out = {shown: true, count: 0, problems: [], scroll: document.documentElement.scrollWidth - W, spread: 0};
  const middles = [];
  for (const el of bar.querySelectorAll('a, button')) {
    const r = el.getBoundingClientRect();
    if (el.closest('nav')) middles.push(r.top + r.height / 2);
    const name = JSON.stringify(el.textContent.trim());
    out.count += 1;
    if (r.width === 0 || r.height === 0) { out.problems.push(name + ' is not shown'); continue; }
    if (r.left < 0 || r.top < 0 || r.right > W + 0.5 || r.bottom > H + 0.5) {
      out.problems.push(name + ' is outside the viewport ' + JSON.stringify([r.left, r.top, r.right, r.bottom]));
      continue;
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (!hit || !(hit === el || el.contains(hit))) {
      out.problems.push(name + ' is covered at its centre by ' + (hit ? hit.outerHTML.slice(0, 80) : 'nothing'));
    }
  }
  // how far apart the middles of its links are: a line's height or more when it wraps
  if (middles.length) out.spread = Math.max(...middles) - Math.min(...middles);
  return out;
}
"""


def assert_nav_fits(page: Any, where: str, *, one_line: bool = False) -> None:
    """The top bar's every link is on screen and uncovered, and the page does not scroll sideways;
    with ``one_line``, its links keep to one line."""
    result = page.evaluate(NAV_CHECK)
    assert result["shown"], f"{where}: the top bar is not shown"
    assert result["count"] >= 4, f"{where}: {result}"  # the brand and at least three links
    assert result["problems"] == [], f"{where}: {result['problems']}"
    assert result["scroll"] <= 0, f"{where}: the page scrolls sideways by {result['scroll']}px"
    if one_line:
        assert result["spread"] < 8, f"{where}: the site bar wraps to a second line"


def others_drop_through_the_page(
    table: Table, by_seat: dict[int, Player], keeper: Player, drops: int
) -> None:
    """Every player but ``keeper`` drops when their turn comes (the Drop button, then its
    confirmation) until ``drops`` have dropped; ``keeper`` plays its turns on and wins the deal."""
    from game_engine.game import GameState

    dropped: set[str] = set()
    while len(dropped) < drops:
        state = GameState.from_dict(game_of(table).state)
        assert state.phase == "playing" and state.deal is not None, state.phase
        player = by_seat[state.deal.turn]
        wait_until(player.my_turn, f"{player.name}'s turn")
        if player is keeper:
            keeper.play_a_turn()
            continue
        player.page.click("#btn-drop:not([disabled])")
        player.page.wait_for_selector("#modal >> text=Drop this deal?")
        player.page.click("#drop-confirm")
        player.confirmed()
        dropped.add(player.name)
        seen = state.version
        wait_until(lambda: game_of(table).version > seen, "the drop")  # noqa: B023 (read at once)


#: Where the dealer badge, where shown, lies over the first letter of its seat's name: [seat, both boxes].
DEALER_OVER_NAME = """
() => Array.from(document.querySelectorAll('.seat .dealer')).filter((b) => b.getClientRects().length).flatMap((badge) => {
  const seat = badge.closest('.seat');
  const text = Array.from(seat.querySelector('.seat-name').childNodes).find((n) => n.nodeType === 3 && n.textContent.trim());
  if (!text) return [seat.dataset.seat + ': no name'];
  const first = document.createRange(), at = text.textContent.search(/\\S/);
  first.setStart(text, at);
  first.setEnd(text, at + 1);
  const a = first.getBoundingClientRect(), b = badge.getBoundingClientRect();
  const over = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  return over ? [seat.dataset.seat + ': ' + JSON.stringify([a.left, a.top, a.right, a.bottom, b.left, b.top, b.right, b.bottom].map(Math.round))] : [];
})
"""


def in_thread(work: Callable[[], Any]) -> Any:
    """Run ORM and service code off the browser's event-loop thread (the services' notices need that)."""
    out: dict[str, Any] = {}

    def run() -> None:
        from django.db import connections

        try:
            out["value"] = work()
        except BaseException as exc:  # re-raised in the test's thread
            out["error"] = exc
        finally:  # the thread's own connection, or PostgreSQL cannot drop the test database
            connections.close_all()

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(120)
    if "error" in out:
        raise out["error"]
    return out.get("value")


def assert_dom_holds_only_public_cards(player: Player, state: GameState, seat: int) -> None:
    """The page shows this player's hand, the open pile and the cut joker; never another hand."""
    deal = state.deal
    assert deal is not None
    mine = Counter(player.page.eval_on_selector_all("#groups .card", "cs => cs.map(c => c.dataset.code)"))
    assert mine == Counter(c.code for c in deal.hands[seat])
    public = {c.code for c in deal.open_pile} | {deal.cut_joker.code} | set(mine)
    shown = set(player.page.eval_on_selector_all("[data-card]", "cs => cs.map(c => c.dataset.code)"))
    assert shown <= public, f"{player.name}'s page shows cards it should not: {shown - public}"
    other = 1 - seat
    html = player.page.content()
    theirs = [c.code for c in deal.hands[other]]
    assert json.dumps(theirs) not in html
