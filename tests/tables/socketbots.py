"""Players over real WebSockets for the process tests: each a socket to whichever Daphne is up.

A bot reconnects when its socket drops (a Daphne killed or restarted), as the page does, and
records what it was shown and which of its moves were acknowledged, so that a test can check
afterwards that no acknowledged move was lost and no missed turn was charged to a player who
was never shown the turn (``charged_behind``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from tables.models import GameEvent, PoolGame
from tests.tables.turns import Turns

#: A bot's pause before it acts: games last long enough for what a test does to the servers.
THINK = 0.5


@dataclass
class Bot:
    """One player: a socket to whichever Daphne is up, reconnecting when it drops."""

    name: str
    cookie: str
    strategy: str  # "drop" or "play"
    sessions: list[list[int]] = field(default_factory=list)  # versions shown, per connection
    acked: list[tuple[str, int]] = field(default_factory=list)  # (request id, version) of accepted moves
    over: bool = False
    over_at: float = 0.0
    #: A "drop" player plays on (draws and discards) until this says yes: the games must still be
    #: going when the last fault comes, however slowly a loaded machine gets through the faults.
    may_drop: Callable[[], bool] = lambda: True
    #: Back on a new socket, ask ``snapshot`` ``since`` the version last shown, as the page does.
    resume: bool = False
    #: The first message of each connection (``snapshot`` at connect, then the answer to ``since``).
    firsts: list[dict[str, Any]] = field(default_factory=list)
    turns: Turns = field(init=False)

    def __post_init__(self) -> None:
        self.turns = Turns(self.name)

    def last_shown(self) -> int | None:
        shown = [v for session in self.sessions for v in session]
        return shown[-1] if shown else None

    async def play(self, table_id: int, ports: list[int], until: float, *, first: int = 0) -> None:
        """Play until the game is over, on ``ports[first]`` first, then on the next one at each
        reconnection; ``ports`` (the Daphnes') may change meanwhile."""
        attempt = first
        while not self.over:
            if time.monotonic() > until:
                raise TimeoutError(f"{self.name}: no game_over in time")
            port = ports[attempt % len(ports)]
            attempt += 1
            try:
                await self._session(table_id, port, until)
            except (ConnectionClosed, OSError, TimeoutError):
                await asyncio.sleep(0.5)  # time passes on purpose: a page waits a moment before it reconnects

    async def _session(self, table_id: int, port: int, until: float) -> None:
        async with connect(
            f"ws://127.0.0.1:{port}/ws/tables/{table_id}/",
            origin=Origin(f"http://127.0.0.1:{port}"),
            additional_headers={"Cookie": self.cookie},
            proxy=None,
            open_timeout=5,
        ) as ws:
            before = self.last_shown()
            if self.resume and before is not None:
                await ws.send(json.dumps({"type": "snapshot", "since": before}))
            shown: list[int] = []
            self.sessions.append(shown)
            turns = self.turns
            turns.reconnected()
            while not self.over and time.monotonic() < until:
                try:
                    message = json.loads(await asyncio.wait_for(ws.recv(), timeout=2))
                except TimeoutError:
                    message = None
                if message is not None:
                    pending = turns.pending
                    answered = turns.take(message)
                    if answered is not None and answered.get("ok") and pending is not None:
                        self.acked.append((pending, int(answered["version"])))
                    if message.get("type") in ("snapshot", "update"):
                        if not shown:
                            self.firsts.append(message)
                        shown.append(int(message["version"]))
                        over = any(e["type"] == "game_over" for e in message.get("events") or [])
                        if over or (message.get("game") or {}).get("status") == "finished":
                            self.over, self.over_at = True, time.monotonic()
                view = turns.view()
                action = self.choose(view) if view is not None else None
                if action is None:
                    continue
                await asyncio.sleep(THINK)  # time passes on purpose: the bot thinks, so the game lasts
                await ws.send(turns.act(action))

    def choose(self, view: dict[str, Any] | None) -> dict[str, Any] | None:
        if view is None or view.get("phase") != "playing" or view.get("deal_phase") != "turn":
            return None
        if view.get("turn") != view.get("seat"):
            return None
        if not view["has_drawn"]:
            # a drop comes before drawing (docs/rules.md §6.7): one who drew when may_drop turned
            # yes discards first, or its refused drop would be sent again until the turn ran out
            if self.strategy == "drop" and self.may_drop():
                return {"type": "drop"}
            return {"type": "draw", "source": "closed"}
        return {"type": "discard", "card": view["drawn_card"]}


def failure_report(
    exc: BaseException, games: Iterable[PoolGame], procs: Iterable[Any], label: str, log: Any
) -> str:
    """What a process test's failure says: the error, each game's status and version, what was done
    to the servers (``label``: ``log``) and the last lines of each process."""
    states = [(g.pk, *PoolGame.objects.values_list("status", "version").get(pk=g.pk)) for g in games]
    tails = "\n".join(p.tail(30) for p in procs)
    return f"{exc!r}\ngames {states}\n{label} {log}\n{tails}"


def acked_missing(bots: Iterable[tuple[Bot, PoolGame]]) -> list[str]:
    """The moves acknowledged to a bot that are not in its game's event log."""
    return [
        f"{bot.name} {request_id} v{version}"
        for bot, game in bots
        for request_id, version in bot.acked
        if not GameEvent.objects.filter(game=game, version=version).exists()
    ]


def charged_behind(games: Iterable[PoolGame], bot_of: Mapping[int, Bot]) -> list[str]:
    """Missed turns charged to a player whose connected socket was behind: shown a version before
    the turn began and one after it was charged, but never the version that started the turn.

    ``bot_of``: each player's bot by user id.
    """
    found: list[str] = []
    for game in games:
        for miss in GameEvent.objects.filter(game=game, type="turn_missed"):
            bot = bot_of[game.seats.get(engine_seat=miss.data["seat"]).user_id]
            for shown in bot.sessions:
                before = [v for v in shown if v < miss.version - 1]
                after = [v for v in shown if v >= miss.version]
                if before and after and (miss.version - 1) not in shown:
                    found.append(f"{bot.name} at v{miss.version}: shown {shown}")
    return found
