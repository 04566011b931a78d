"""The load clients: one asyncio process that plays many tables' seats over real WebSockets.

Started by ``run.py`` (never on its own): it reads a JSON spec on stdin's first
line (tables, seats, session cookies, Daphne ports, think time, duration),
connects every seat, prints ``READY``, waits for ``GO`` on stdin, plays for the
duration, checks that every seat reached the same version, and prints one
``RESULT {...}`` line. Every wait is bounded; it targets 127.0.0.1 only.

Each seat plays from its own view (the ``view`` of its last snapshot or update),
and a table makes one action about every ``think`` seconds. For each action the
latency is the time from sending it to EVERY seat at the table having received
an update (or snapshot) of the resulting version.

Like people at the table page (bench/load/page_rates.py measured it), the seats also
rearrange their hands (``arrange``) and ask for the evaluation of their groups
(``evaluate``) at ``arranges_per_turn`` and ``evaluations_per_turn`` (a turn is a draw
and a discard, about 2 x ``think``), mostly the player on turn; every player keeps a
lobby socket open (on another Daphne than their table socket); a ``reconnect_fraction``
of the seats closes its table socket once at a random moment and opens it again.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

try:  # a lean client: orjson parses a view about 5x faster than json
    import orjson

    loads = orjson.loads

    def dumps(obj: Any) -> str:
        return orjson.dumps(obj).decode()

except ImportError:  # pragma: no cover - the stdlib fallback
    loads = json.loads
    dumps = json.dumps

from websockets.asyncio.client import connect  # noqa: E402
from websockets.exceptions import ConnectionClosed  # noqa: E402

#: Actions that are always allowed and never need a player's attention.
PASSIVE = frozenset({"arrange", "auto_drop", "im_back", "leave"})
HOST = "127.0.0.1"  # loopback only


async def open_ws(
    port: int, path: str, *, cookie: str | None = None, open_timeout: float = 60, deflate: bool = False
) -> Any:
    """A WebSocket to the Daphne on ``port``, as every benchmark opens one: no pings (they would be
    load of their own) and no compression unless ``deflate`` (offered as a browser offers it);
    with ``cookie``, a logged-in page of that site."""
    return await connect(
        f"ws://{HOST}:{port}{path}",
        additional_headers={"Cookie": cookie} if cookie else None,
        origin=f"http://{HOST}:{port}" if cookie else None,  # type: ignore[arg-type]
        compression="deflate" if deflate else None,
        open_timeout=open_timeout,
        ping_interval=None,
        close_timeout=2,
        max_size=2**22,
    )


def light_action(
    view: dict[str, Any], rng: random.Random, drop_rate: float, wrong_finish_rate: float, drew_open: bool
) -> dict[str, Any] | None:
    """A cheap, legal player: draw closed, discard the drawn card, sometimes drop or finish wrongly."""
    legal = view["legal"]
    if "split_accept" in legal:
        return {"type": "split_accept"}
    if "rejoin" in legal:
        return {"type": "rejoin" if rng.random() < 0.5 else "leave"}
    hand = view.get("hand") or []
    if "show" in legal:
        return {"type": "show", "groups": [hand]}
    if "draw" in legal:
        if rng.random() < drop_rate:
            return {"type": "drop"}
        return {"type": "draw", "source": "closed" if view.get("closed_count") else "open"}
    if "discard" in legal:
        drawn = view.get("drawn_card")
        card = drawn if drawn and not drew_open else next((c for c in hand if c != drawn), hand[0])
        if rng.random() < wrong_finish_rate:
            rest = list(hand)
            rest.remove(card)
            return {"type": "finish", "card": card, "groups": [rest]}
        return {"type": "discard", "card": card}
    return None


class Stats:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.actions = 0
        self.errors = 0
        self.error_kinds: collections.Counter[str] = collections.Counter()
        self.lost = 0
        self.duplicated = 0
        self.rebuilt = 0
        self.updates = 0
        self.snapshots = 0
        self.unexpected_closes = 0
        self.connect_failures = 0
        self.reseats = 0
        self.timeouts = 0
        self.samples: list[dict[str, Any]] = []
        self.turns = 0  # draws answered ok
        self.arranges = 0
        self.evaluations = 0
        self.private_latencies: dict[str, list[float]] = {"arrange": [], "evaluate": []}
        self.private_refused: collections.Counter[str] = collections.Counter()
        self.views = 0  # private ``view`` messages (another socket of the same player: none here)
        self.lobby_sockets = 0
        self.lobby_updates = 0
        self.reconnects = 0

    def error(self, kind: str) -> None:
        self.errors += 1
        self.error_kinds[kind] += 1


class Seat:
    def __init__(self, table: Table, index: int, spec: dict[str, Any]) -> None:
        self.table = table
        self.index = index
        self.user_id = spec["user_id"]
        self.cookie = spec["cookie"]
        self.port = spec["port"]
        self.ws: Any = None
        self.game_id: int | None = None
        self.game_status: str | None = None
        self.version = -1
        self.view: dict[str, Any] | None = None
        self.history: collections.deque[tuple[int, float]] = collections.deque(maxlen=32)
        self.drew_open = False
        self.closing = False
        self.reconnecting = False
        self.connected = asyncio.Event()
        self.lobby_port = spec.get("lobby_port", self.port)
        self.lobby_ws: Any = None
        self.lobby_ready = asyncio.Event()

    async def _connect(self, sem: asyncio.Semaphore, port: int, path: str) -> Any:
        """A WebSocket with this player's session, or ``None`` (counted as an error)."""
        stats = self.table.stats
        try:
            async with sem:
                return await open_ws(
                    port, path, cookie=self.cookie, deflate=self.table.cfg.get("deflate", False)
                )
        except Exception as exc:  # counted, the run goes on with the others
            stats.connect_failures += 1
            stats.error(f"connect:{type(exc).__name__}")
            return None

    async def run(self, sem: asyncio.Semaphore, stop: asyncio.Event) -> None:
        stats = self.table.stats
        while True:
            ws = await self._connect(sem, self.port, f"/ws/tables/{self.table.id}/")
            if ws is None:
                self.ws = None
                self.connected.set()
                return
            self.ws = ws
            self.closing = False
            try:
                async for raw in ws:
                    now = time.perf_counter()
                    self.on_message(loads(raw), now)
                    if not self.connected.is_set() and self.version >= 0:
                        self.connected.set()
            except ConnectionClosed:
                pass
            finally:
                self.connected.set()
            if self.reconnecting and not stop.is_set():
                self.reconnecting = False
                stats.reconnects += 1
                continue  # the page comes back: a new socket, a new snapshot
            if not self.closing and not stop.is_set():
                stats.unexpected_closes += 1
                stats.error("unexpected_close")
            return

    async def reconnect(self) -> None:
        """Drop the table socket (a phone changing networks); ``run`` opens a new one."""
        if self.ws is None or self.closing:
            return
        self.reconnecting = self.closing = True  # not a live seat until it is back
        with contextlib.suppress(Exception):
            await self.ws.close()

    async def lobby(self, sem: asyncio.Semaphore, stop: asyncio.Event) -> None:
        """The lobby socket a player keeps open; it only listens (``lobby_update``)."""
        stats = self.table.stats
        ws = await self._connect(sem, self.lobby_port, "/ws/lobby/")
        self.lobby_ready.set()
        if ws is None:
            return
        self.lobby_ws = ws
        stats.lobby_sockets += 1
        try:
            async for raw in ws:
                if loads(raw).get("type") == "lobby_update":
                    stats.lobby_updates += 1
        except ConnectionClosed:
            pass
        if not stop.is_set():
            stats.unexpected_closes += 1
            stats.error("unexpected_close:lobby")

    def on_message(self, msg: dict[str, Any], now: float) -> None:
        kind = msg.get("type")
        stats = self.table.stats
        if kind == "snapshot":
            stats.snapshots += 1
            game = msg.get("game")
            self.game_id = game["id"] if game else None
            self.game_status = game["status"] if game else None
            self.version = int(msg["version"])
            self.view = msg.get("view")
            self.history.append((self.version, now))
            self.table.on_version(self, now)
        elif kind == "update":
            stats.updates += 1
            version = int(msg["version"])
            game = msg.get("game")
            gid = game["id"] if game else self.game_id
            if gid != self.game_id:  # a new game: start counting again
                self.game_id = gid
            elif version == self.version + 1:
                pass
            elif version <= self.version:
                stats.duplicated += 1
            elif msg.get("rebuilt"):
                stats.rebuilt += 1  # a gap the server repaired
            else:
                stats.lost += version - self.version - 1
            self.game_status = game["status"] if game else self.game_status
            self.version = max(self.version, version)
            self.view = msg.get("view")
            self.history.append((version, now))
            self.table.on_version(self, now)
        elif kind == "result":
            if msg.get("request_id") in self.table.private:
                self.table.on_private(msg, now, "arrange")
            else:
                self.table.on_result(self, msg, now)
        elif kind == "evaluation":
            self.table.on_private(msg, now, "evaluate")
        elif kind == "view":
            stats.views += 1
        elif kind == "error":
            stats.error(f"error:{msg.get('error', {}).get('code')}")


class Pending:
    def __init__(self, seat: Seat, request_id: str, sent: float) -> None:
        self.seat = seat
        self.request_id = request_id
        self.sent = sent
        self.version: int | None = None
        self.times: dict[int, float] = {}
        self.done = asyncio.Event()
        self.action: dict[str, Any] = {}


class Table:
    def __init__(self, spec: dict[str, Any], cfg: dict[str, Any], stats: Stats, run_tag: str) -> None:
        self.id = spec["id"]
        self.cfg = cfg
        self.stats = stats
        self.seats = [Seat(self, i, s) for i, s in enumerate(spec["seats"])]
        self.rng = random.Random(f"{cfg['seed']}:{self.id}")
        self.pending: Pending | None = None
        self.changed = asyncio.Event()
        self.counter = 0
        self.tag = run_tag
        self.private: dict[str, float] = {}  # request id of an arrange or evaluate -> sent at

    # ------------------------------------------------------------ incoming
    def on_version(self, seat: Seat, now: float) -> None:
        self.changed.set()
        p = self.pending
        if (
            p is not None
            and p.version is not None
            and seat.index not in p.times
            and seat.version >= p.version
        ):
            p.times[seat.index] = now
            self._maybe_done(p)

    def on_result(self, seat: Seat, msg: dict[str, Any], now: float) -> None:
        p = self.pending
        if p is None or msg.get("request_id") != p.request_id:
            self.stats.error("stray_result")
            return
        if not msg.get("ok"):
            self.stats.error(f"result:{msg.get('error', {}).get('code')}")
            if len(self.stats.samples) < 8:
                self.stats.samples.append(
                    {
                        "action": p.action,
                        "error": msg.get("error"),
                        "legal": (p.seat.view or {}).get("legal"),
                        "v": p.seat.version,
                    }
                )
            p.done.set()
            return
        p.version = int(msg["version"])
        for s in self.seats:
            t = next((t for v, t in s.history if v >= p.version and t >= p.sent), None)
            if t is not None:
                p.times[s.index] = t
        self._maybe_done(p)

    def on_private(self, msg: dict[str, Any], now: float, kind: str) -> None:
        sent = self.private.pop(msg.get("request_id", ""), None)
        if sent is None:
            self.stats.error(f"stray_{kind}")
            return
        if msg.get("ok"):
            self.stats.private_latencies[kind].append((now - sent) * 1000)
        else:  # an arrangement of a hand that changed meanwhile (a deal ended): the page's race too
            self.stats.private_refused[f"{kind}:{msg.get('error', {}).get('code')}"] += 1

    def _maybe_done(self, p: Pending) -> None:
        if len(p.times) == len(self.live_seats()):
            self.stats.actions += 1
            self.stats.latencies.append((max(p.times.values()) - p.sent) * 1000)
            p.done.set()

    def live_seats(self) -> list[Seat]:
        return [s for s in self.seats if s.ws is not None and not s.closing]

    # ------------------------------------------------------------ playing
    def actor(self) -> Seat | None:
        for s in self.seats:
            v = s.view
            if (
                v
                and s.ws is not None
                and not s.closing
                and s.game_status == "running"
                and not PASSIVE.issuperset(v["legal"])
            ):
                return s
        return None

    async def private_traffic(self, end: float) -> None:
        """Arranges and evaluations at the page's measured rates per turn (bench/load/page_rates.py).

        Mostly the player on turn, between the table's actions (so their hand is the one the
        server holds); the others now and then (their hands change only when a deal ends).
        """
        turn_s = 2 * self.cfg["think"]  # a turn is a draw and a discard
        rates = {
            "arrange": self.cfg["arranges_per_turn"] / turn_s,
            "evaluate": self.cfg["evaluations_per_turn"] / turn_s,
        }
        total = sum(rates.values())
        if total <= 0:
            return
        rng = random.Random(f"{self.cfg['seed']}:private:{self.id}")
        while True:
            await asyncio.sleep(rng.expovariate(total))
            if time.perf_counter() >= end:
                return
            kind = "arrange" if rng.random() < rates["arrange"] / total else "evaluate"
            seat = self.actor() if rng.random() < 0.8 and self.pending is None else rng.choice(self.seats)
            if seat is None or seat.ws is None or seat.closing or not seat.view:
                continue
            if self.pending is not None and self.pending.seat is seat:
                continue  # its hand is changing: the page sends its arrangement after the move
            hand = list(seat.view.get("hand") or [])
            if not hand or "arrange" not in seat.view["legal"]:
                continue
            rng.shuffle(hand)
            cut = sorted(rng.sample(range(1, len(hand)), 3))
            groups = [hand[a:b] for a, b in zip([0, *cut], [*cut, len(hand)], strict=True)]
            self.counter += 1
            rid = f"{self.tag}-{self.id}-p{self.counter}"
            if kind == "arrange":
                message = {
                    "type": "action",
                    "request_id": rid,
                    "action": {"type": "arrange", "groups": groups},
                }
                self.stats.arranges += 1
            else:
                message = {"type": "evaluate", "request_id": rid, "groups": groups}
                self.stats.evaluations += 1
            self.private[rid] = time.perf_counter()
            try:
                await seat.ws.send(dumps(message))
            except ConnectionClosed:
                self.private.pop(rid, None)

    def choose(self, seat: Seat) -> dict[str, Any] | None:
        view = seat.view
        assert view is not None
        if self.cfg["strategy"] in ("random", "smart"):
            from game_engine.bots import choose_action

            action = choose_action(view, None, self.rng, self.cfg["strategy"])
            if action is not None:
                action.pop("seat", None)
                return action
        return light_action(
            view, self.rng, self.cfg["drop_rate"], self.cfg["wrong_finish_rate"], seat.drew_open
        )

    async def play(self, end: float) -> None:
        think = self.cfg["think"]
        start = time.perf_counter()
        self.reconnect_at: float | None = None
        if self.rng.random() < self.cfg["reconnect_fraction"] * len(self.seats):
            self.reconnect_at = start + self.rng.uniform(0.1, 0.9) * (end - start)
        private = asyncio.create_task(self.private_traffic(end))
        try:
            await self._play(end, think)
        finally:
            private.cancel()

    async def _play(self, end: float, think: float) -> None:
        await asyncio.sleep(self.rng.uniform(0, think))
        while time.perf_counter() < end:
            seat = self.actor()
            if seat is None:
                if all(s.game_status in ("finished", None) for s in self.live_seats()) and self.cfg["reseat"]:
                    await self.reseat()
                self.changed.clear()
                wait = max(0.05, min(1.0, end - time.perf_counter()))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.changed.wait(), timeout=wait)
                continue
            action = self.choose(seat)
            if action is None:
                await asyncio.sleep(0.2)
                continue
            if action["type"] == "draw":
                seat.drew_open = action.get("source") == "open"
            self.counter += 1
            rid = f"{self.tag}-{self.id}-{self.counter}"
            sent = time.perf_counter()
            p = self.pending = Pending(seat, rid, sent)
            p.action = action
            try:
                await seat.ws.send(dumps({"type": "action", "request_id": rid, "action": action}))
            except ConnectionClosed:
                self.pending = None
                self.stats.error("send_closed")
                await asyncio.sleep(0.5)
                continue
            try:
                await asyncio.wait_for(p.done.wait(), timeout=self.cfg["action_timeout"])
            except TimeoutError:
                self.stats.timeouts += 1
                self.stats.error("no_update_in_time")
                if len(self.stats.samples) < 16:
                    self.stats.samples.append(
                        {
                            "timeout": p.action,
                            "version": p.version,
                            "got": sorted(p.times),
                            "seats": [(s.version, s.game_status) for s in self.seats],
                        }
                    )
            if action["type"] == "draw" and p.version is not None:
                self.stats.turns += 1
            self.pending = None
            if self.reconnect_at is not None and time.perf_counter() >= self.reconnect_at:
                self.reconnect_at = None  # one seat of this table drops its socket and comes back
                await self.rng.choice(self.seats).reconnect()
            pause = think * self.rng.uniform(0.5, 1.5) - (time.perf_counter() - sent)
            if pause > 0:
                await asyncio.sleep(min(pause, max(0.0, end - time.perf_counter())))

    async def reseat(self) -> None:
        """The game is over: everyone sits down again (through the real service) for the next one."""
        from accounts.models import User
        from tables.services import table_join

        def join_all() -> None:
            from django.db import close_old_connections

            close_old_connections()
            for s in self.seats:
                table_join(table_id=self.id, user=User.objects.get(pk=s.user_id))

        try:
            await asyncio.to_thread(join_all)
            self.stats.reseats += 1
        except Exception as exc:
            self.stats.error(f"reseat:{type(exc).__name__}")
            await asyncio.sleep(2)

    def converged(self) -> bool:
        seats = [s for s in self.live_seats() if s.game_id is not None]
        if not seats:
            return True
        top = max((s.game_id, s.version) for s in seats)
        return all((s.game_id, s.version) == top for s in seats)

    def missing(self) -> int:
        """Versions a seat never received that another seat of the same game did."""
        seats = [s for s in self.live_seats() if s.game_id is not None]
        if not seats:
            return 0
        gid = max(s.game_id for s in seats)  # type: ignore[type-var]
        same = [s for s in seats if s.game_id == gid]
        top = max(s.version for s in same)
        return sum(top - s.version for s in same)


async def main() -> None:
    spec = json.loads(sys.stdin.readline())
    cfg = spec["config"]
    if cfg["reseat"]:
        import django

        django.setup()
    stats = Stats()
    tables = [Table(t, cfg, stats, spec["tag"]) for t in spec["tables"]]
    stop = asyncio.Event()
    sem = asyncio.Semaphore(cfg["connect_concurrency"])
    seat_tasks = [asyncio.create_task(s.run(sem, stop)) for t in tables for s in t.seats]
    everyone = [s for t in tables for s in t.seats]
    if cfg.get("lobby", True):
        seat_tasks += [asyncio.create_task(s.lobby(sem, stop)) for s in everyone]
    try:
        await asyncio.wait_for(
            asyncio.gather(
                *(s.connected.wait() for s in everyone),
                *(s.lobby_ready.wait() for s in everyone if cfg.get("lobby", True)),
            ),
            timeout=cfg["connect_timeout"],
        )
    except TimeoutError:
        stats.error("connect_timeout")
    connected = sum(1 for s in everyone if s.ws is not None)
    print(f"READY {connected}", flush=True)
    line = await asyncio.to_thread(sys.stdin.readline)
    played = 0.0
    behind_after_play = behind_at_end = 0
    drained_s = 0.0
    if not line.startswith("GO"):
        stop.set()
    else:
        start = time.perf_counter()
        end = start + cfg["duration"]
        print("PLAYING", flush=True)
        await asyncio.gather(*(t.play(end) for t in tables))
        played = time.perf_counter() - start
        print("STOPPED", flush=True)
        # Drain: every seat of a table should reach the same version (bounded wait). Under
        # overload notices queue for seconds and the server's resync repairs a lost one within
        # two of its rounds: what is still missing after the drain counts as lost.
        drain_start = time.perf_counter()
        drain_end = drain_start + cfg["drain"]
        behind_after_play = sum(t.missing() for t in tables)
        for _ in range(int(cfg["drain"] / 0.2) + 1):  # polling many tables, bounded in count and time
            if time.perf_counter() >= drain_end or all(t.converged() for t in tables):
                break
            await asyncio.sleep(0.2)
        drained_s = time.perf_counter() - drain_start
        behind_at_end = sum(t.missing() for t in tables)
        stats.lost += behind_at_end
        stop.set()
    for s in everyone:
        s.closing = True
        for ws in (s.ws, s.lobby_ws):
            if ws is not None:
                with contextlib.suppress(Exception):
                    await ws.close()
    await asyncio.wait(seat_tasks, timeout=10)
    for task in seat_tasks:
        task.cancel()
    result = {
        "connections": connected,
        "played_s": round(played, 2),
        "latencies": stats.latencies,
        "actions": stats.actions,
        "errors": stats.errors,
        "error_kinds": dict(stats.error_kinds),
        "lost_events": stats.lost,
        "behind_after_play": behind_after_play,
        "behind_at_end": behind_at_end,
        "drain_s": round(drained_s, 1),
        "duplicated_events": stats.duplicated,
        "rebuilt": stats.rebuilt,
        "updates": stats.updates,
        "snapshots": stats.snapshots,
        "unexpected_closes": stats.unexpected_closes,
        "connect_failures": stats.connect_failures,
        "reseats": stats.reseats,
        "timeouts": stats.timeouts,
        "samples": stats.samples,
        "turns": stats.turns,
        "arranges": stats.arranges,
        "evaluations": stats.evaluations,
        "private_latencies": stats.private_latencies,
        "private_refused": dict(stats.private_refused),
        "private_unanswered": sum(len(t.private) for t in tables),
        "views": stats.views,
        "lobby_sockets": stats.lobby_sockets,
        "lobby_updates": stats.lobby_updates,
        "reconnects": stats.reconnects,
    }
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    try:
        import uvloop

        uvloop.run(main())
    except ImportError:
        asyncio.run(main())
    os._exit(0)
