"""The table page on a phone over mobile data: how soon it is playable (issue 41).

    .venv/bin/python bench/page_load_bench.py [--profiles none,fast3g,slow3g] [--repeat 3] [--db-name rummy_pageload]

Serves this checkout's production build: ``collectstatic``, ``DEBUG`` off, two Daphnes behind the
shipped nginx site (deploy/nginx/rummy.conf, TLS and HTTP/2 on loopback with a self-signed
certificate, as tests/e2e/test_production.py runs it), with a two-seat game dealt for each profile
(bench/phone.py). Debian's Chromium at 375x740 (touch, scale 2) opens the table page of the player
on turn with the Chrome DevTools Protocol's throttling (``fast3g``: 150 ms round trip, 1.6 Mbps
down; ``slow3g``: 400 ms, 400 kbps; both with the CPU slowed 4x). Chromium is given the
certificate's key hash (``--ignore-certificate-errors-spki-list``), so it treats the site as a
valid one and caches its files as a phone would (it caches nothing from a site whose certificate
error it merely ignores).

"Playable" is the page's own clock (``performance.now()``, from the navigation's start) when 13
cards are in the hand, the socket is open and the deck can be drawn from; a MutationObserver set
before the page's first byte notes the moment. For each profile, one JSON line per visit:

- ``cold``: a fresh browser context (an empty cache);
- ``second``: the page opened again in that context right after (the cache as the first visit left it);
- ``stale``: opened again once every cached answer with a lifetime under ten minutes has expired:
  the benchmark reads the ``max-age`` of every answer of the earlier visits and waits out the
  longest one that is under ten minutes (WhiteNoise gives the files whose names carry no hash
  60 s), plus a second. A cache entry is fresh or stale by its age against its lifetime, so after
  that wait every entry is fresh or stale exactly as it is ten minutes later (those with a
  lifetime under the wait are stale either way, the others fresh either way; every answer here
  has a ``max-age``, so no heuristic lifetime enters). The lifetimes seen are printed. Chromium's
  cache cannot be aged otherwise without editing it.

Each visit is made ``--repeat`` times, each time by a fresh phone, and the medians come last.
Each line gives ``playable_s``, with ``hand_s`` and ``open_s`` (when the 13 cards first showed, and
the socket first showed open), ``asked_s`` (when the page made its first socket) and ``frame_s`` (when
its first message came); ``requests`` (sent to the network before playable, revalidations
counted), ``from_cache`` (answered by the cache without asking), ``bytes`` (as received, headers
included), ``round_trips`` (the longest chain of network requests each started by the one before it,
by the initiators Chromium reports, from the page itself; the socket's handshake counts after the
longest chain that ended before it began, as whatever opens it may have waited for those),
``files_done_s`` (when the last of those requests ended) and ``socket_s`` (when the socket's
handshake began), both from the navigation's start and the
protocols seen. TCP and TLS handshakes are not in these figures: the browser's connection to nginx
is opened before the throttled page is measured (a real first visit adds two or three round trips).
Loopback only; nginx and the Daphnes are always stopped.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
from phone import PHONE, PROFILES, add_arguments, served_site, throttle  # noqa: E402

from tests.e2e.nginx_site import (  # noqa: E402
    self_signed_certificate,
    shipped_daphne_ports,
    spki_hash,
    write_nginx_site,
)

HOST = "localhost"
TEN_MINUTES = 600

#: Notes when the page is playable: 13 cards in the hand, the socket open, the deck live; and when
#: the page first asked for a socket.
WATCH_PLAYABLE = """(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      if (window.__asked === undefined) window.__asked = performance.now();
      this.addEventListener("message", () => {
        if (window.__frame === undefined) window.__frame = performance.now();
      });
    }
  };
  const check = () => {
    if (window.__playable !== undefined) return;
    const hand = document.querySelectorAll('#groups .card').length === 13;
    const open = document.querySelector('#conn.conn-open') !== null;
    if (hand && window.__hand === undefined) window.__hand = performance.now();
    if (open && window.__open === undefined) window.__open = performance.now();
    if (hand && open && document.querySelector('#closed-deck.can')) {
      window.__playable = performance.now();
      observer.disconnect();
    }
  };
  const observer = new MutationObserver(check);
  observer.observe(document, {subtree: true, childList: true, attributes: true});
})();"""


class Recorder:
    """The page's network as the DevTools Protocol tells it, for one visit."""

    def __init__(self, cdp: Any) -> None:
        self.requests: dict[str, dict[str, Any]] = {}
        self.sockets: list[dict[str, Any]] = []
        self.raw_status: dict[str, int] = {}
        cdp.on("Network.requestWillBeSent", self._sent)
        cdp.on("Network.requestServedFromCache", self._cached)
        cdp.on("Network.responseReceived", self._response)
        cdp.on("Network.responseReceivedExtraInfo", self._raw_status)
        cdp.on("Network.loadingFinished", self._finished)
        cdp.on("Network.webSocketCreated", self._socket)
        cdp.on("Network.webSocketWillSendHandshakeRequest", self._socket_started)

    def _sent(self, ev: dict[str, Any]) -> None:
        self.requests[ev["requestId"]] = {
            "url": ev["request"]["url"],
            "start": ev["timestamp"],
            "initiator": initiator_url(ev.get("initiator") or {}),
            "cached": False,
            "bytes": 0,
        }

    def _cached(self, ev: dict[str, Any]) -> None:
        if ev["requestId"] in self.requests:
            self.requests[ev["requestId"]]["cached"] = True

    def _response(self, ev: dict[str, Any]) -> None:
        r = self.requests.get(ev["requestId"])
        if r is None:
            return
        response = ev["response"]
        r["status"] = response.get("status")
        r["protocol"] = response.get("protocol")
        r["cached"] = r["cached"] or bool(response.get("fromDiskCache") or response.get("fromMemoryCache"))
        headers = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
        r["cache_control"] = headers.get("cache-control", "")

    def _raw_status(self, ev: dict[str, Any]) -> None:
        # the status on the wire: a revalidated entry's 304 (responseReceived says the cached 200)
        self.raw_status[ev["requestId"]] = ev.get("statusCode")

    def _finished(self, ev: dict[str, Any]) -> None:
        r = self.requests.get(ev["requestId"])
        if r is not None:
            r["bytes"] = ev.get("encodedDataLength", 0)
            r["end"] = ev["timestamp"]

    def _socket(self, ev: dict[str, Any]) -> None:
        self.sockets.append({"id": ev["requestId"], "url": ev["url"]})

    def _socket_started(self, ev: dict[str, Any]) -> None:
        for s in self.sockets:
            if s["id"] == ev["requestId"]:
                s["start"] = ev["timestamp"]

    def summary(self, navigation: float, playable_at: float) -> dict[str, Any]:
        """Requests, bytes and the chain of round trips before ``playable_at``, and when the last
        file came and the socket began, from ``navigation`` (the protocol's clock)."""
        before = [r for r in self.requests.values() if r["start"] <= playable_at]
        fetched = [r for r in before if not r["cached"] and not r["url"].startswith("data:")]
        by_url = {r["url"]: r for r in before}

        def chain(url: str | None, seen: frozenset[str] = frozenset()) -> list[str]:
            """The network requests from the page to ``url``, each started by the one before."""
            r = by_url.get(url or "")
            if r is None or url in seen:
                return []
            up = chain(r["initiator"], seen | {url or ""})
            return up if r["cached"] else [*up, urlsplit(r["url"]).path]

        files = [chain(r["url"]) for r in before]
        chains = list(files)
        # the socket may be opened by code that came before it: it follows every request that
        # ended before its handshake began
        for sock in self.sockets:
            if sock.get("start", playable_at) <= playable_at:
                ended = [
                    c
                    for r, c in zip(before, files, strict=True)
                    if r.get("end", sock["start"]) < sock["start"]
                ]
                chains.append([*max(ended, key=len, default=[]), urlsplit(sock["url"]).path])
        longest = max(chains, key=len, default=[])
        return {
            "requests": len(fetched),
            "from_cache": len(before) - len(fetched),
            "revalidated": sum(
                1 for i, r in self.requests.items() if r in fetched and self.raw_status.get(i) == 304
            ),
            "bytes": sum(r["bytes"] for r in fetched),
            "round_trips": len(longest),
            "protocols": sorted({r.get("protocol") or "?" for r in fetched}),
            "files_done_s": round(
                max((r.get("end", navigation) for r in before), default=navigation) - navigation, 2
            ),
            "socket_s": round(
                min((s.get("start", playable_at) for s in self.sockets), default=playable_at) - navigation, 2
            ),
            "longest_chain": longest,
            "files": [
                {
                    "path": urlsplit(r["url"]).path,
                    "bytes": r["bytes"],
                    "cached": r["cached"],
                    "start_s": round(r["start"] - navigation, 2),
                    "end_s": round(r.get("end", navigation) - navigation, 2),
                }
                for r in sorted(before, key=lambda r: r["start"])
                if not r["url"].startswith("data:")
            ],
        }

    def max_ages(self) -> list[int]:
        """Every answer's ``max-age`` (seconds)."""
        ages = []
        for r in self.requests.values():
            m = re.search(r"max-age=(\d+)", r.get("cache_control") or "")
            if m:
                ages.append(int(m.group(1)))
        return ages


def initiator_url(initiator: dict[str, Any]) -> str | None:
    """The URL of whatever started a request: the document's parser, or the script that imported it."""
    if initiator.get("url"):
        return str(initiator["url"])
    stack = initiator.get("stack") or {}
    while stack:
        for frame in stack.get("callFrames") or []:
            if frame.get("url"):
                return str(frame["url"])
        stack = stack.get("parent") or {}
    return None


def hot_functions(profile: dict[str, Any], top: int = 12) -> list[dict[str, Any]]:
    """The functions the sampling profile ``profile`` (the DevTools Protocol's) spent most time in,
    their own time alone, in milliseconds."""
    deltas = dict.fromkeys(profile["samples"], 0)
    for sample, delta in zip(profile["samples"], profile["timeDeltas"], strict=True):
        deltas[sample] += delta
    own: dict[str, float] = {}
    for node in profile["nodes"]:
        frame = node["callFrame"]
        where = f"{frame['functionName'] or '(anonymous)'} {urlsplit(frame['url']).path}:{frame['lineNumber'] + 1}"
        own[where] = own.get(where, 0) + deltas.get(node["id"], 0) / 1000
    ranked = sorted(own.items(), key=lambda kv: -kv[1])[:top]
    return [{"ms": round(ms, 1), "function": where} for where, ms in ranked]


def main_thread_time(trace: bytes, top: int = 12) -> list[dict[str, Any]]:
    """The kinds of work (script, style, layout, parsing...) that held the page's main thread,
    each its own time alone in milliseconds, from a Chromium trace."""
    events = json.loads(trace)["traceEvents"]
    mains = {
        (e["pid"], e["tid"])
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name" and e["args"].get("name") == "CrRendererMain"
    }
    spans = sorted(
        (e["ts"], e["ts"] + e["dur"], e["name"])
        for e in events
        if e.get("ph") == "X" and (e["pid"], e["tid"]) in mains and e.get("dur")
    )
    own: dict[str, float] = {}
    stack: list[list[Any]] = []  # [end, name, own time so far]

    def close(until: float) -> None:
        while stack and stack[-1][0] <= until:
            end, name, mine = stack.pop()
            own[name] = own.get(name, 0) + mine

    for start, end, name in spans:
        close(start)
        if stack:
            stack[-1][2] -= min(end, stack[-1][0]) - start  # the parent's time that is this child's
        stack.append([end, name, end - start])
    close(float("inf"))
    ranked = sorted(own.items(), key=lambda kv: -kv[1])[:top]
    return [{"ms": round(us / 1000, 1), "work": name} for name, us in ranked]


def visit(
    context: Any, url: str, profile: dict[str, Any] | None, js_profile: bool = False, trace: bool = False
) -> tuple[dict[str, Any], list[int]]:
    """One visit to the table page in ``context``: seconds to playable with what was fetched before,
    and the lifetimes (``max-age``) of every answer; with ``js_profile``, where the page's
    JavaScript spent its time until then."""
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    recorder = Recorder(cdp)
    throttle(cdp, profile)
    if trace:
        context.browser.start_tracing(page=page, categories=["devtools.timeline", "v8", "blink"])
    if js_profile:
        cdp.send("Profiler.enable")
        cdp.send("Profiler.setSamplingInterval", {"interval": 200})
        cdp.send("Profiler.start")
    page.goto(url, wait_until="commit", timeout=120_000)
    page.wait_for_function("() => window.__playable !== undefined", timeout=120_000, polling=100)
    hot = hot_functions(cdp.send("Profiler.stop")["profile"]) if js_profile else None
    work = main_thread_time(context.browser.stop_tracing()) if trace else None
    seconds = page.evaluate("() => window.__playable") / 1000
    marks = page.evaluate("() => [window.__hand, window.__open, window.__asked, window.__frame]")
    page.wait_for_timeout(200)  # the last events of requests started before playable
    page.close()
    # the document's request is the navigation's start on the protocol's clock
    navigation = min(r["start"] for r in recorder.requests.values())
    hand, opened, asked, frame = (None if ms is None else round(ms / 1000, 2) for ms in marks)
    return {
        "playable_s": round(seconds, 2),
        "hand_s": hand,
        "open_s": opened,
        "asked_s": asked,
        # null: playable on the page's own first state, before the socket's first message came
        "frame_s": frame,
        **recorder.summary(navigation, navigation + seconds),
        **({"hot": hot} if hot is not None else {}),
        **({"main_thread": work} if work is not None else {}),
    }, recorder.max_ages()


def warm_connection(context: Any, base: str) -> None:
    """The context's HTTP/2 connection to nginx opened before anything is measured (no throttle)."""
    page = context.new_page()
    page.goto(f"{base}/healthz")
    page.close()


def phone_context(browser: Any, base: str, cookie: str) -> Any:
    """A fresh phone (an empty cache) signed in as the player on turn, watching for playable."""
    cookie_name, value = cookie.split("=", 1)
    context = browser.new_context(**PHONE)
    context.add_cookies([{"name": cookie_name, "value": value, "url": base, "secure": True}])
    context.add_init_script(WATCH_PLAYABLE)
    warm_connection(context, base)
    return context


def measure(args: argparse.Namespace, base: str, games: dict[str, tuple[int, str, int]], spki: str) -> None:
    """Every visit of every profile, ``--repeat`` times each (a fresh phone for each repeat), then
    the medians."""
    from playwright.sync_api import sync_playwright

    profiles = args.profiles.split(",")
    lines: list[dict[str, Any]] = []

    def note(line: dict[str, Any], files: bool) -> None:
        lines.append(line)
        print(json.dumps(line if files else {k: v for k, v in line.items() if k != "files"}), flush=True)

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=args.chromium, args=[f"--ignore-certificate-errors-spki-list={spki}"]
        )
        # the servers' first answers (templates compiled, connections opened) in no measurement
        warm = phone_context(browser, base, games[profiles[0]][1])
        visit(warm, f"{base}/tables/{games[profiles[0]][0]}/", None)
        warm.close()
        phones: list[tuple[str, Any]] = []
        ages: list[int] = []
        for _ in range(args.repeat):
            for name in profiles:
                table_id, cookie, _ = games[name]
                context = phone_context(browser, base, cookie)
                phones.append((name, context))
                for kind in ("cold", "second"):
                    line, lifetimes = visit(
                        context, f"{base}/tables/{table_id}/", PROFILES[name], args.js_profile, args.trace
                    )
                    ages += lifetimes
                    note({"profile": name, "visit": kind, **line}, args.files)
        wait = max((a for a in ages if a < TEN_MINUTES), default=0) + 1
        assert wait <= TEN_MINUTES, wait
        print(json.dumps({"stale_wait_s": wait, "lifetimes_s": sorted(set(ages))}), flush=True)
        time.sleep(wait)
        for name, context in phones:
            line, _ = visit(
                context, f"{base}/tables/{games[name][0]}/", PROFILES[name], args.js_profile, args.trace
            )
            note({"profile": name, "visit": "stale", **line}, args.files)
            context.close()
        browser.close()
    for name in profiles:
        for kind in ("cold", "second", "stale"):
            mine = [ln for ln in lines if ln["profile"] == name and ln["visit"] == kind]
            median = {
                k: statistics.median(ln[k] for ln in mine)
                for k in ("playable_s", "requests", "bytes", "round_trips")
            }
            print(json.dumps({"median_of": len(mine), "profile": name, "visit": kind, **median}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser, db_name="rummy_pageload", redis_db=12)
    parser.add_argument("--repeat", type=int, default=3, help="fresh phones per profile")
    parser.add_argument(
        "--files", action="store_true", help="each visit's line lists what it asked for: bytes, start, end"
    )
    parser.add_argument(
        "--js-profile",
        action="store_true",
        help="each visit's line names the functions the page's JavaScript spent most time in"
        " (sampled; with STATIC_MINIFY_JS=0 they keep their names)",
    )
    parser.add_argument(
        "--trace",
        action="store_true",
        help="each visit's line says what kinds of work held the page's main thread until playable",
    )
    args = parser.parse_args()
    env = {"TRUST_X_FORWARDED_PROTO": "1", "ALLOWED_HOSTS": HOST, "WS_IDLE_SECONDS": "20"}
    shipped = shipped_daphne_ports()
    with served_site(args, args.profiles.split(","), env, daphnes=len(shipped), tag="pageload") as (
        ports,
        games,
    ):
        from run import Child, free_port  # bench/load/run.py, on the path through phone.py

        workdir = Path(tempfile.mkdtemp(prefix="pageload-nginx-"))
        (workdir / "temp").mkdir()
        cert, key = self_signed_certificate(workdir, HOST)
        https_port, http_port = free_port(), free_port()
        command = write_nginx_site(
            workdir,
            host=HOST,
            cert=cert,
            key=key,
            https_port=https_port,
            http_port=http_port,
            daphne_ports={mine: str(port) for mine, port in zip(shipped, ports, strict=True)},
        )
        nginx = Child("nginx", command, {}, workdir)
        try:
            time.sleep(0.5)
            if nginx.popen.poll() is not None:
                raise RuntimeError("nginx did not start:\n" + nginx.tail())
            measure(args, f"https://{HOST}:{https_port}", games, spki_hash(cert))
        finally:
            nginx.stop()
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
