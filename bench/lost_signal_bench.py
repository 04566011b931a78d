"""A lost signal and a move on a phone: how soon the table shows them (issue 41).

    .venv/bin/python bench/lost_signal_bench.py [--losses 10,40] [--stalls 8] [--profiles none,fast3g,slow3g]

Serves this checkout's site (one Daphne, production settings, ``DEBUG`` off after
``collectstatic``; PostgreSQL database ``rummy_signal``, Redis database 13, or ``--db-name`` and
``--redis-db``) with a two-seat game
dealt, and drives Debian's Chromium at 375x740 (touch, scale 2) on the table page of the player on
turn, with the Chrome DevTools Protocol's throttling: ``fast3g`` is 150 ms round trip and 1.6 Mbps
down, ``slow3g`` 400 ms and 400 kbps, both with the CPU slowed 4x (the issue's profiles). For each
profile and each loss (seconds) it silences the link (``Network.emulateNetworkConditions``
offline: the open socket stays open and carries nothing, new ones fail) and prints:

- ``shown_s``: from the signal going to the page showing the loss (its banner);
- ``back_s``: from the signal returning to the page in play again (its socket open, the banner gone);
- ``caught_up_s``: to the page showing the game's current version again (its catch-up answered).

Then, for each stall (seconds), the server made slow rather than the link lost: every frame the
server sends is held in the page for that long (its socket open, the network as it was), and it
prints ``shown_s`` as above, ``socket_kept`` (the page waited on the socket it had rather than
opening another, which would add to a loaded server's work) and ``back_s`` from the frames coming
to the page in play again.

Then, per profile, a draw from the open pile and a discard: ``shown_ms`` from the tap to the card
on the page, and ``confirmed_ms_at_most`` to the server's answer (polled: an upper bound). One
JSON line per measurement. Loopback only (the throttling stands for the network); the Daphne is
always stopped. Chromium's throttling delays a socket's handshake but not its frames, so the
confirmation here is a loopback round trip, not a 3G one: on a real Slow 3G link it is 400 ms and
more, which is what the page showed a move after before it drew the move itself.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from phone import PHONE, PROFILES, add_arguments, network, served_site, throttle, until  # noqa: E402

#: Holds every frame the server sends to the page's socket until ``window.__release()``.
HOLD = """() => {
  const ws = window.rummyTable.socket.ws;
  const deliver = ws.onmessage;
  const held = [];
  window.__heldSocket = ws;
  ws.onmessage = (ev) => { held.push(ev); };
  window.__release = () => {
    ws.onmessage = deliver;
    for (const ev of held.splice(0)) deliver.call(ws, ev);
  };
}"""
BANNER = "document.querySelector('#reconnect-banner.conn-lost') !== null"
IN_PLAY = "!document.querySelector('#reconnect-banner') && !!document.querySelector('#conn.conn-open')"


def stalled(page: Any, profile_name: str, stall: float) -> None:
    """The server's frames held ``stall`` seconds: the loss shown, the socket kept, back in play."""
    page.wait_for_timeout(3000)
    page.evaluate(HOLD)
    went = time.monotonic()
    shown = until(page, BANNER)
    time.sleep(max(0.0, stall - (time.monotonic() - went)))
    kept = page.evaluate("window.rummyTable.socket.ws === window.__heldSocket")
    page.evaluate("window.__release ? window.__release() : null")
    back = until(page, IN_PLAY)
    line = {"profile": profile_name, "stall_s": stall, "shown_s": round(shown, 2), "socket_kept": kept}
    print(json.dumps({**line, "back_s": round(back, 2)}), flush=True)


def game_version(database_url: str, game_id: int) -> int:
    """The game's version in the database (psycopg: Django refuses its ORM beside Playwright's loop)."""
    import psycopg

    from tables.models import PoolGame

    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            f"SELECT version FROM {PoolGame._meta.db_table} WHERE id = %s", [game_id]
        ).fetchone()
    assert row is not None
    return int(row[0])


def measure(args: argparse.Namespace, port: int, games: dict[str, tuple[int, str, int]]) -> None:
    """Each profile at a game of its own (its moves need the player on turn)."""
    from playwright.sync_api import sync_playwright

    base = f"http://127.0.0.1:{port}"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=args.chromium)
        for profile_name in args.profiles.split(","):
            profile = PROFILES[profile_name]
            table_id, cookie, game_id = games[profile_name]
            name, value = cookie.split("=", 1)
            context = browser.new_context(**PHONE)
            context.add_cookies([{"name": name, "value": value, "url": base}])
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            throttle(cdp, profile)
            page.goto(f"{base}/tables/{table_id}/")
            page.wait_for_selector("#groups .card", timeout=60_000)
            until(page, "document.querySelector('#conn.conn-open') !== null")
            for loss in (float(x) for x in args.losses.split(",")):
                page.wait_for_timeout(3000)  # a settled page, pinging as usual
                network(cdp, profile, offline=True)
                went = time.monotonic()
                shown = until(page, BANNER)
                time.sleep(max(0.0, loss - (time.monotonic() - went)))
                version = game_version(f"{args.pg}/{args.db_name}", game_id)
                network(cdp, profile)
                back = until(page, IN_PLAY)
                caught = back + until(page, f"window.rummyTable.state.version >= {version}")
                print(
                    json.dumps(
                        {
                            "profile": profile_name,
                            "loss_s": loss,
                            "shown_s": round(shown, 2),
                            "back_s": round(back, 2),
                            "caught_up_s": round(caught, 2),
                        }
                    ),
                    flush=True,
                )
            for stall in (float(x) for x in args.stalls.split(",") if x):
                stalled(page, profile_name, stall)
            moves(page, profile_name)
            context.close()
        browser.close()


def moves(page: Any, profile_name: str) -> None:
    """A draw from the open pile and a discard of the card drawn: time to show, time to confirm."""
    if not page.evaluate(
        "(() => { const v = window.rummyTable.state.view; return v.turn === v.seat && !v.has_drawn && v.can_pick_open; })()"
    ):
        print(json.dumps({"profile": profile_name, "moves": "not this player's turn to draw"}), flush=True)
        return
    for move, script in (
        ("draw_open", "document.querySelector('#open-pile').click()"),
        (
            "discard",
            "(() => { const c = window.rummyTable.state.lastDrawn; "
            "document.querySelector(`#groups .card[data-code='${c}']`).click(); "
            "document.querySelector('#btn-discard').click(); })()",
        ),
    ):
        before = page.evaluate("document.querySelector('#open-pile .card.top')?.dataset.code || ''")
        page.evaluate(
            """(before) => { window.__m = {};
              new MutationObserver((_, obs) => {
                const top = document.querySelector('#open-pile .card.top')?.dataset.code || '';
                if (top !== before) { window.__m.shown = performance.now(); obs.disconnect(); }
              }).observe(document.getElementById('table-app'), {subtree: true, childList: true, attributes: true}); }""",
            before,
        )
        page.evaluate("window.__m.t0 = performance.now(); " + script)  # the tap and its clock in one task
        until(page, "!window.rummyTable.state.echo && window.__m.shown !== undefined")
        page.evaluate("window.__m.confirmed = performance.now()")
        m = page.evaluate("window.__m")
        print(
            json.dumps(
                {
                    "profile": profile_name,
                    "move": move,
                    "shown_ms": round(m["shown"] - m["t0"], 1),
                    "confirmed_ms_at_most": round(m["confirmed"] - m["t0"], 1),
                }
            ),
            flush=True,
        )
        page.wait_for_timeout(500)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--losses", default="10,40", help="seconds without signal, comma-separated")
    parser.add_argument("--stalls", default="8", help="seconds the server's frames are held, comma-separated")
    add_arguments(parser, db_name="rummy_signal", redis_db=13)
    args = parser.parse_args()
    env = {"WS_IDLE_SECONDS": "20"}  # the page pings: the server's idle close as shipped
    with served_site(args, args.profiles.split(","), env, daphnes=1, tag="signal") as (ports, games):
        measure(args, ports[0], games)


if __name__ == "__main__":
    main()
