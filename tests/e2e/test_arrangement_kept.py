"""The player's arrangement is theirs: an answer of the server never reorders it (issue 41).

The table page's own modules (static/js/table/: state, dispatch, moves, echo, and the socket of
static/js/socket.js) run in Chromium as the page wires them (static/js/table.js), with a socket
whose server is this test: the frames the page sends are read, and the server's messages come in
the order a loaded server sends them. No Django server: the page's files are served from disk.

A player who arranges and at once draws has the arrangement sent on its way behind the draw, with
the hand as it was; the server, past the draw, refuses it, and its refusal comes ahead of the
draw's update (the answer goes straight back, the update by the channel layer). Whatever the
order, the hand stays as the player left it, with the drawn card added, and the arrangement goes
to the server again with the new hand. Likewise for a card moved while the page's own move waits
for its answer, and for another tab's older arrangement, which does not replace one the server
has not acknowledged yet.
"""

from __future__ import annotations

import mimetypes
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import DESKTOP

pytestmark = pytest.mark.e2e

STATIC = Path(__file__).resolve().parents[2] / "static"
ORIGIN = "http://table.test"

#: The table page's pieces, wired as static/js/table.js wires them, over a socket this test plays
#: the server of (a WebSocket stand-in: it opens when told and hands the page what the test sends).
HARNESS = """async () => {
  class TestSocket {
    static CONNECTING = 0; static OPEN = 1; static CLOSING = 2; static CLOSED = 3;
    constructor(url) { this.url = url; this.readyState = 0; window.__sockets.push(this); }
    send(data) { window.__frames.push(JSON.parse(data)); }
    close() { this.readyState = 3; }
  }
  window.__sockets = []; window.__frames = [];
  window.WebSocket = /** @type {any} */ (TestSocket);
  const { newState } = await import("/static/js/table/state.js");
  const { createUi } = await import("/static/js/table/ui.js");
  const { createVerdicts } = await import("/static/js/table/verdicts.js");
  const { createDispatch } = await import("/static/js/table/dispatch.js");
  const { createMoves } = await import("/static/js/table/moves.js");
  const { TableSocket } = await import("/static/js/socket.js");
  const S = newState(null, { muted: true, notify: false });
  const toasts = [];
  const ui = { ...createUi(S, () => {}), toast: (text) => toasts.push(text), flash() {}, deal() {} };
  ui.start();
  const verdicts = createVerdicts(() => null, () => {});
  let moves;
  const dispatch = createDispatch(__DISPATCH_DEPS__);
  const socket = new TableSocket("/ws/tables/1/", {
    state(state) {
      if (state === "open" && S.conn !== "open" && S.snap && S.version >= 0) socket.raw({ type: "snapshot", since: S.version });
      S.conn = state;
    },
    fatal() {},
    message: dispatch,
  });
  moves = createMoves({ S, cfg: {}, socket, ui });
  socket.connect();
  const ws = () => window.__sockets[window.__sockets.length - 1];
  window.t = {
    S, moves, socket, toasts,
    open() { const w = ws(); w.readyState = 1; w.onopen(); },
    drop() { const w = ws(); w.readyState = 3; w.onclose({ code: 1006 }); },
    serve(msg) { ws().onmessage({ data: JSON.stringify(msg) }); },
    frames: () => window.__frames.filter((f) => f.type === "action"),
    groups: () => S.groups,
  };
}"""

#: How table.js hands dispatch.js its callbacks into the moves (the one place the test must follow it).
DISPATCH_DEPS = """{
    S, ui, verdicts, resync: () => socket.raw({ type: "snapshot" }), yourTurn: () => {},
    arrangeAnswered: (groups, ok, code) => moves.arrangeAnswered(groups, ok, code),
    viewTaken: () => moves.sendOwedArrangement(),
  }"""

#: The debounce before an arrangement is sent (static/js/table/moves.js), and a little more.
SETTLE_MS = 450

HAND = ["AS", "2S", "3S", "7S", "4H", "5H", "6H", "7D", "KD", "7C", "9C", "10C", "JC"]
BY_SUIT = [["AS", "2S", "3S", "7S"], ["4H", "5H", "6H"], ["7D", "KD"], ["7C", "9C", "10C", "JC"]]
#: The sevens together, as the keyboard journey leaves them before its draw.
SEVENS = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "KD", "7S", "7C"], ["9C", "10C", "JC"]]


def view(
    hand: list[str],
    arrangement: list[list[str]],
    *,
    drawn: str | None = None,
    open_pile: list[str] | None = None,
    turn: int = 0,
) -> dict[str, Any]:
    """Seat 0's view as the server sends it: on turn before or after drawing (``drawn``)."""
    pile = open_pile if open_pile is not None else ["KH"]
    mine = turn == 0
    legal = ["arrange", "leave", "auto_drop"] + (
        (["discard", "finish"] if drawn else ["draw", "drop"]) if mine else []
    )
    players = [
        {"id": 1, "name": "Asha", "score": 0, "status": "playing", "eliminated": False, "extra_ms": 0},
        {"id": 2, "name": "Ravi", "score": 0, "status": "playing", "eliminated": False, "extra_ms": 0},
    ]
    return {
        "seat": 0, "players": players, "phase": "playing", "deal_phase": "turn", "deal_no": 1,
        "turn": turn, "hand": hand, "arrangement": arrangement, "arranged": True,
        "has_drawn": bool(drawn), "drawn_card": drawn, "legal": legal, "wild_rank": 8,
        "open_pile": pile, "open_top": pile[-1] if pile else None, "can_pick_open": mine and not drawn,
        "closed_count": 20,
    }  # fmt: skip


def snapshot(version: int, v: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "snapshot", "version": version, "game": {"id": 7}, "seats": [], "table": None,
        "you": {"user_id": 1}, "view": v, "presence": {},
    }  # fmt: skip


def update(version: int, v: dict[str, Any], events: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"type": "update", "version": version, "events": events or [], "view": v, "game": {"id": 7}}


def result(request_id: str, *, ok: bool, version: int | None = None, code: str = "") -> dict[str, Any]:
    if ok:
        return {"type": "result", "request_id": request_id, "ok": True, "version": version}
    message = "arrange must contain exactly the 14 cards of the hand, got 13 cards"
    return {
        "type": "result",
        "request_id": request_id,
        "ok": False,
        "error": {"code": code, "message": message},
    }


class Table:
    """The page's pieces in a browser tab, and this test as their server."""

    def __init__(self, page: Any) -> None:
        self.page = page

    def js(self, expression: str, arg: Any = None) -> Any:
        return self.page.evaluate(expression, arg)

    def serve(self, *messages: dict[str, Any]) -> None:
        for msg in messages:
            self.js("(m) => window.t.serve(m)", msg)

    def groups(self) -> list[list[str]]:
        return self.js("window.t.groups()")  # type: ignore[no-any-return]

    def actions(self) -> list[dict[str, Any]]:
        return self.js("window.t.frames()")  # type: ignore[no-any-return]

    def last(self, kind: str) -> dict[str, Any]:
        sent = [f for f in self.actions() if f["action"]["type"] == kind]
        assert sent, f"no {kind} sent: {self.actions()}"
        return sent[-1]

    def arranges(self) -> list[list[list[str]]]:
        return [f["action"]["groups"] for f in self.actions() if f["action"]["type"] == "arrange"]

    def move(self, card: str, to_group: int, to_index: int) -> None:
        """The player moves ``card`` (a drag, or Shift and the arrows: both call moves.moveCard)."""
        self.js(
            """([card, tg, ti]) => { const g = window.t.groups();
                 const fg = g.findIndex((x) => x.includes(card));
                 window.t.moves.moveCard(fg, g[fg].indexOf(card), tg, ti); }""",
            [card, to_group, to_index],
        )

    def settle(self) -> None:
        """Past the debounce, so that an arrangement made is sent."""
        self.page.wait_for_timeout(SETTLE_MS)

    def toasts(self) -> list[str]:
        return self.js("window.t.toasts")  # type: ignore[no-any-return]


def _serve_static(route: Any) -> None:
    path = route.request.url.removeprefix(ORIGIN).split("?", 1)[0]
    if path.startswith("/static/"):
        file = (STATIC / path.removeprefix("/static/")).resolve()
        if STATIC in file.parents and file.is_file():
            kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
            route.fulfill(status=200, body=file.read_bytes(), content_type=kind)
            return
        route.fulfill(status=404, body="not found")
        return
    route.fulfill(status=200, body="<!doctype html><title>table</title>", content_type="text/html")


@pytest.fixture
def table(browser: Any) -> Iterator[Table]:
    context = browser.new_context(**DESKTOP)
    try:
        context.route(f"{ORIGIN}/**", _serve_static)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{ORIGIN}/")
        page.evaluate(HARNESS.replace("__DISPATCH_DEPS__", DISPATCH_DEPS))
        t = Table(page)
        t.js("window.t.open()")
        t.serve(snapshot(5, view(HAND, BY_SUIT)))
        assert t.groups() == BY_SUIT
        yield t
        assert errors == [], errors
    finally:
        context.close()


def _arrange_the_sevens(t: Table) -> None:
    t.move("7S", 2, 2)
    t.move("7C", 2, 3)
    assert t.groups() == SEVENS


@pytest.mark.parametrize("update_first", [False, True], ids=["refusal-first", "update-first"])
def test_an_arrangement_sent_behind_a_draw_and_refused_is_kept_and_sent_again(
    table: Table, update_first: bool
) -> None:
    """The keyboard journey's draw: arrange, then D at once; the arrangement is sent behind the draw."""
    t = table
    _arrange_the_sevens(t)
    t.js("window.t.moves.drawFrom('closed')")
    draw = t.last("draw")
    t.settle()
    stale = t.last("arrange")
    assert sorted(c for g in stale["action"]["groups"] for c in g) == sorted(HAND)  # the hand before the draw
    drawn = update(6, view([*HAND, "QC"], [*BY_SUIT, ["QC"]], drawn="QC"))  # the server's older one
    refusal = result(stale["request_id"], ok=False, code="invalid_arrangement")
    t.serve(result(draw["request_id"], ok=True, version=6))
    t.serve(*([drawn, refusal] if update_first else [refusal, drawn]))
    assert t.groups() == [*SEVENS, ["QC"]], t.groups()
    t.settle()
    again = t.last("arrange")
    assert again["request_id"] != stale["request_id"]
    assert again["action"]["groups"] == [*SEVENS, ["QC"]]
    t.serve(result(again["request_id"], ok=True, version=6))
    t.settle()
    assert len(t.arranges()) == 2, t.arranges()  # accepted: nothing more to send
    assert t.groups() == [*SEVENS, ["QC"]]
    assert not [text for text in t.toasts() if "arrangement" in text], t.toasts()


def test_a_card_moved_while_an_own_draw_waits_for_its_answer_stays_where_it_was_put(table: Table) -> None:
    """The play journey's: the card drawn is put with its suit before the server has answered."""
    t = table
    t.js("window.t.moves.drawFrom('closed')")
    draw = t.last("draw")
    t.serve(result(draw["request_id"], ok=True, version=6))
    t.serve(update(6, view([*HAND, "QC"], [*BY_SUIT, ["QC"]], drawn="QC")))
    t.move("QC", 3, 4)  # with the clubs
    t.move("KD", 0, 0)
    mine = [["KD", "AS", "2S", "3S", "7S"], ["4H", "5H", "6H"], ["7D"], ["7C", "9C", "10C", "JC", "QC"]]
    assert t.groups() == mine
    # the arrangement goes; before its answer, the server's word on the hand comes again (a snapshot
    # the page asked for, a resync): the arrangement the server holds is older than the page's
    t.settle()
    sent = t.last("arrange")
    t.serve(snapshot(6, view([*HAND, "QC"], [*BY_SUIT, ["QC"]], drawn="QC")))
    assert t.groups() == mine
    t.serve(result(sent["request_id"], ok=True, version=6))
    assert t.groups() == mine


def test_a_card_moved_while_an_open_pile_draw_is_shown_before_its_answer_is_kept(table: Table) -> None:
    """The open pile's card is in the hand at once (echo.js); the player puts it with the hearts, then
    moves another card, before the server answers; its answer and update keep both."""
    t = table
    t.js("window.t.moves.drawFrom('open')")
    draw = t.last("draw")
    assert t.groups() == [*BY_SUIT, ["KH"]]
    t.move("KH", 1, 3)
    t.move("AS", 0, 3)
    mine = [["2S", "3S", "7S", "AS"], ["4H", "5H", "6H", "KH"], ["7D", "KD"], ["7C", "9C", "10C", "JC"]]
    assert t.groups() == mine
    t.settle()
    t.serve(result(draw["request_id"], ok=True, version=6))
    t.serve(update(6, view([*HAND, "KH"], [*BY_SUIT, ["KH"]], drawn="KH", open_pile=[])))
    assert t.groups() == mine
    t.serve(result(t.last("arrange")["request_id"], ok=True, version=6))
    assert t.groups() == mine


def test_another_tabs_arrangement_waits_for_this_pages_own_to_be_acknowledged(table: Table) -> None:
    """A ``view`` from the player's other tab, made before this page's arrangement reached the server,
    does not replace it; one that comes after this page's is acknowledged is shown (test_two_tabs.py)."""
    t = table
    _arrange_the_sevens(t)
    older = [["AS", "2S", "3S", "7S", "4H"], ["5H", "6H"], ["7D", "KD"], ["7C", "9C", "10C", "JC"]]
    t.serve({"type": "view", "version": 5, "view": view(HAND, older)})  # before the debounce
    assert t.groups() == SEVENS
    t.settle()
    sent = t.last("arrange")
    assert sent["action"]["groups"] == SEVENS
    t.serve({"type": "view", "version": 5, "view": view(HAND, older)})  # before its answer
    assert t.groups() == SEVENS
    t.serve(result(sent["request_id"], ok=True, version=5))
    t.serve({"type": "view", "version": 5, "view": view(HAND, older)})  # the other tab, later
    assert t.groups() == older


def test_a_card_moved_before_a_lost_connection_keeps_its_place_after_the_catch_up(table: Table) -> None:
    """The open pile's card is shown in the hand at once and put with the hearts; the connection goes
    before the server's answer. The new socket's first word is the snapshot of the game as it was
    (the draw, resent, comes behind it): the move stays shown, the card where the player put it, and
    the draw's update keeps it there."""
    t = table
    t.js("window.t.moves.drawFrom('open')")
    draw = t.last("draw")
    t.move("KH", 1, 3)
    mine = [["AS", "2S", "3S", "7S"], ["4H", "5H", "6H", "KH"], ["7D", "KD"], ["7C", "9C", "10C", "JC"]]
    t.settle()
    arranged = t.last("arrange")
    t.js("window.t.drop()")
    t.page.wait_for_timeout(1300)  # the socket's next try
    t.js("window.t.open()")
    resent = [f["request_id"] for f in t.actions()[-2:]]
    assert resent == [draw["request_id"], arranged["request_id"]], resent
    t.serve(snapshot(5, view(HAND, BY_SUIT)))  # read as the socket opened: before the draw
    assert t.groups() == mine, t.groups()
    assert t.js("window.t.S.view.hand.includes('KH') && window.t.S.view.open_pile.length === 0")
    t.serve(result(draw["request_id"], ok=True, version=6))
    t.serve(update(6, view([*HAND, "KH"], [*BY_SUIT, ["KH"]], drawn="KH", open_pile=[])))
    t.serve(result(arranged["request_id"], ok=True, version=6))
    assert t.groups() == mine, t.groups()


#: After drawing the queen of clubs: the seven of spades a group by itself, between two others.
ALONE = [["AS", "2S", "3S"], ["7S"], ["4H", "5H", "6H"], ["7D", "KD"], ["7C", "9C", "10C", "JC", "QC"]]


def _drawn_and_arranged(t: Table, arrangement: list[list[str]]) -> None:
    """On turn after drawing, the hand arranged so (as the player left it: the page's, not the server's)."""
    t.serve(update(6, view([*HAND, "QC"], [*BY_SUIT, ["QC"]], drawn="QC")))
    t.js("(groups) => { window.t.S.groups = groups; }", arrangement)
    assert t.groups() == arrangement


@pytest.mark.parametrize("where", [0, 1, 4], ids=["first", "between", "last"])
def test_a_refused_discard_of_a_card_alone_in_its_group_puts_its_group_back(table: Table, where: int) -> None:
    """The discard is shown at once, its group gone; refused, the card comes back as that group, in
    its place, not into a neighbour."""
    t = table
    arrangement = [g[:] for g in ALONE]
    lone = arrangement.pop(1)
    arrangement.insert(where, lone)
    _drawn_and_arranged(t, arrangement)
    t.js("window.t.moves.discard('7S')")
    sent = t.last("discard")
    assert t.groups() == [g for g in arrangement if g != ["7S"]]
    t.serve(result(sent["request_id"], ok=False, code="not_your_turn"))
    assert t.groups() == arrangement, t.groups()


def test_a_cancelled_finish_of_a_card_alone_in_its_group_puts_its_group_back(table: Table) -> None:
    t = table
    _drawn_and_arranged(t, ALONE)
    t.js("window.t.moves.startFinish('7S', {g: 1, i: 0})")
    assert t.groups() == [g for g in ALONE if g != ["7S"]]
    t.js("window.t.moves.cancelFinish()")
    assert t.groups() == ALONE, t.groups()
