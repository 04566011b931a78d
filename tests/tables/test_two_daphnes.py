"""A whole pool game played by two players on two different Daphne processes.

Production runs several Daphne processes behind a proxy; players at one table
may land on different ones. Here two real Daphne servers share one Redis (the
channels-redis layer and the Celery broker) and the test PostgreSQL database,
and a real Celery worker with beat runs the timers between deals. The players
use real WebSocket clients over TCP: every move one makes reaches the other
only through Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aredis
from websockets.asyncio.client import connect
from websockets.typing import Origin

from tables import services
from tables.models import PoolGame
from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table
from tests.tables.procs import Proc, start_daphne, start_worker
from tests.tables.turns import Turns
from tests.waiting import eventually
from wallet.audit import check_ledger
from wallet.selectors import wallet_balance

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.redis]

GAME_SECONDS = 120.0


@dataclass
class Player:
    """One browser: a WebSocket to one Daphne, a strategy, and everything it was sent."""

    name: str
    port: int
    cookie: str
    strategy: str  # "drop": drop at every turn; "play": draw from the closed deck and discard it
    received: list[dict[str, Any]] = field(default_factory=list)
    sent: int = 0
    game_over: dict[str, Any] | None = None

    async def play(self, table_id: int, until: float) -> None:
        url = f"ws://127.0.0.1:{self.port}/ws/tables/{table_id}/"
        async with connect(
            url,
            origin=Origin(f"http://127.0.0.1:{self.port}"),
            additional_headers={"Cookie": self.cookie},
            proxy=None,
            open_timeout=10,
        ) as ws:
            turns = Turns(self.name)
            while self.game_over is None:
                left = until - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{self.name}: no game_over within {GAME_SECONDS:.0f} s")
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=left))
                self.received.append(message)
                kind = message.get("type")
                if kind == "error":
                    raise AssertionError(f"{self.name} got an error: {message}")
                if kind == "result":
                    assert message["ok"], f"{self.name}'s action was refused: {message}"
                turns.take(message)
                if kind in ("snapshot", "update"):
                    for event in message.get("events") or []:
                        if event["type"] == "game_over":
                            self.game_over = event
                view = turns.view()
                action = self.choose(view) if view is not None else None
                if action is None:
                    continue
                await ws.send(turns.act(action))
                self.sent = turns.sent

    def choose(self, view: dict[str, Any] | None) -> dict[str, Any] | None:
        """This player's move in ``view``, or None when it is not their turn."""
        if view is None or view.get("phase") != "playing" or view.get("deal_phase") != "turn":
            return None
        if view.get("turn") != view.get("seat"):
            return None
        if self.strategy == "drop":
            return {"type": "drop"}
        if not view["has_drawn"]:
            return {"type": "draw", "source": "closed"}
        return {"type": "discard", "card": view["drawn_card"]}

    def versions(self) -> list[int]:
        return [m["version"] for m in self.received if m.get("type") in ("snapshot", "update")]


def assert_versions_complete(player: Player) -> int:
    """No version twice; every version between the first and the last was delivered or rebuilt."""
    shown = [m for m in player.received if m.get("type") in ("snapshot", "update")]
    assert shown and shown[0]["type"] == "snapshot", player.received[:3]
    versions = [m["version"] for m in shown]
    assert versions == sorted(set(versions)), f"{player.name}: duplicate or backwards versions {versions}"
    covered = {versions[0]}
    rebuilds = 0
    for previous, message in zip(shown, shown[1:], strict=False):
        version = message["version"]
        if version == previous["version"] + 1:
            covered.add(version)
            continue
        # a jump is allowed only as a rebuild from the database carrying the missed events
        assert message.get("rebuilt") is True, f"{player.name}: gap {previous['version']} -> {version}"
        rebuilds += 1
        event_versions = {e["version"] for e in message["events"]}
        assert event_versions <= set(range(previous["version"] + 1, version + 1)), message["events"]
        covered |= event_versions | {version}
    missing = set(range(versions[0], versions[-1] + 1)) - covered
    assert not missing, f"{player.name}: versions never delivered {sorted(missing)}"
    return rebuilds


def test_two_players_on_two_daphnes_play_a_game_to_the_end(redis_db: str, tmp_path: Path) -> None:
    procs: list[Proc] = []
    try:
        procs.append(start_worker(redis_db, tmp_path))
        daphne_a, port_a = start_daphne(redis_db, name="daphne-a")
        procs.append(daphne_a)
        daphne_b, port_b = start_daphne(redis_db, name="daphne-b")
        procs.append(daphne_b)

        table = make_table(seats=2, fee=1_000, seed=51, pause_seconds=1, rejoin_max_fee=1)
        dropper, winner = make_player("dropper"), make_player("winner")
        services.table_join(table_id=table.pk, user=dropper)
        services.table_join(table_id=table.pk, user=winner)
        game = table.games.get()
        assert game.status == PoolGame.Status.RUNNING
        players = [
            Player("dropper", port_a, session_cookie(dropper), "drop"),
            Player("winner", port_b, session_cookie(winner), "play"),
        ]

        async def play_all() -> None:
            until = time.monotonic() + GAME_SECONDS
            await asyncio.gather(*(p.play(table.pk, until) for p in players))

        started = time.monotonic()
        try:
            asyncio.run(play_all())
        except Exception as exc:  # anything from the sockets: fail with the servers' output
            game.refresh_from_db()
            seen = [[(m.get("type"), m.get("version")) for m in p.received[-8:]] for p in players]
            tails = "\n".join(proc.tail(40) for proc in procs)
            pytest.fail(f"{exc!r}\ngame {game.status} v{game.version}; last messages {seen}\n{tails}")
        print(f"game played in {time.monotonic() - started:.1f} s")

        game.refresh_from_db()
        assert game.status == PoolGame.Status.FINISHED, game.status
        result = game.result
        assert result is not None and result["winner"] == str(winner.pk), result
        for player in players:
            assert player.game_over is not None, f"{player.name} never received game_over"
            assert player.game_over["winner"] == str(winner.pk)
            rebuilds = assert_versions_complete(player)
            assert player.versions()[-1] == game.version, (player.name, player.versions()[-3:])
            print(f"{player.name}: {len(player.versions())} versions, {rebuilds} rebuilt")
        # the dropper's first drops (20 each) reached 101: six deals, dealt between by the worker's timers
        assert game.deals.count() == 6 and result["scores"][str(dropper.pk)] == 120, result
        assert result["rake"] == 200  # 10% of the two entry fees
        prize = 2 * 1_000 - result["rake"]
        assert result["prize_pool"] == prize and result["payouts"][str(winner.pk)] == prize
        assert wallet_balance(user=winner) == 100 * 100 - 1_000 + prize
        assert wallet_balance(user=dropper) == 100 * 100 - 1_000
        assert check_ledger() == []
        # the worker dealt the next deals (the timers of the pause between deals)
        worker = procs[0]
        timers = [
            line for line in worker.messages("enforce_deadline", "succeeded") if line.endswith(": True")
        ]
        sweeps = [
            line for line in worker.messages("sweep_deadlines", "succeeded") if not line.endswith(": 0")
        ]
        assert len(timers) + len(sweeps) >= 5, worker.tail()
    finally:
        for proc in reversed(procs):
            proc.stop()


@contextlib.asynccontextmanager
async def layer_messages(redis_url: str) -> AsyncIterator[list[bytes]]:
    """Every message the servers' channel layer publishes on ``redis_url`` from now on, as it goes by.

    The pub/sub layer's channels belong to the whole Redis server, and their prefix names the
    database (channel_layers in rummy_site/settings.py): these are this test's servers' alone.
    """
    from rummy_site.settings import channel_layers

    prefix = channel_layers(redis_url, "pubsub")["default"]["CONFIG"]["prefix"]
    client = aredis.Redis.from_url(redis_url)
    pubsub = client.pubsub()
    heard: list[bytes] = []
    subscribed = asyncio.Event()

    async def listen() -> None:
        async for message in pubsub.listen():
            if message["type"] == "psubscribe":
                subscribed.set()
            elif message["type"] == "pmessage":
                heard.append(message["data"])

    await pubsub.psubscribe(f"{prefix}*")
    listening = asyncio.create_task(listen())
    try:
        await eventually(subscribed.is_set, "the subscription to the channel layer", within=10)
        yield heard
    finally:
        listening.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await listening
        await pubsub.aclose()
        await client.aclose()


def test_a_players_two_tabs_on_two_daphnes_hear_each_others_arrangements(redis_db: str) -> None:
    """The tabs find each other through Redis (hello, here) and an arrangement in one reaches the
    other as its ``view``, across processes; with the second tab closed (bye) the first's next
    arrangement is still accepted, and the other player hears nothing of either."""
    procs: list[Proc] = []
    try:
        daphne_a, port_a = start_daphne(redis_db, name="daphne-a", DB_POOL_SIZE="8", WS_DB_THREADS="4")
        procs.append(daphne_a)
        daphne_b, port_b = start_daphne(redis_db, name="daphne-b", DB_POOL_SIZE="8", WS_DB_THREADS="4")
        procs.append(daphne_b)
        table = make_table(seats=2, seed=52, turn_seconds=120)
        asha, ravi = make_player("asha"), make_player("ravi")
        services.table_join(table_id=table.pk, user=asha)
        services.table_join(table_id=table.pk, user=ravi)
        cookie, ravi_cookie = session_cookie(asha), session_cookie(ravi)

        def socket(port: int, cookie: str) -> Any:
            return connect(
                f"ws://127.0.0.1:{port}/ws/tables/{table.pk}/",
                origin=Origin(f"http://127.0.0.1:{port}"),
                additional_headers={"Cookie": cookie},
                proxy=None,
                open_timeout=10,
            )

        async def next_of(ws: Any, kind: str) -> dict[str, Any]:
            while True:
                message = json.loads(await asyncio.wait_for(ws.recv(), timeout=10))
                if message["type"] == kind:
                    return message

        async def arrange(ws: Any, rid: str, groups: list[list[str]]) -> None:
            action = {"type": "arrange", "groups": groups}
            await ws.send(json.dumps({"type": "action", "request_id": rid, "action": action}))
            result = await next_of(ws, "result")
            assert result["request_id"] == rid and result["ok"], result

        async def play() -> None:
            async with (
                layer_messages(redis_db) as notices,
                socket(port_a, cookie) as tab_a,
                socket(port_b, ravi_cookie) as other,
            ):

                def published(kind: bytes) -> bool:
                    return any(kind in notice for notice in notices)

                hand = (await next_of(tab_a, "snapshot"))["view"]["hand"]
                await next_of(other, "snapshot")
                async with socket(port_b, cookie) as tab_b:
                    await next_of(tab_b, "snapshot")
                    # tab A counts tab B among its tabs before it answers B's hello, and B hears that
                    # answer before any notice A sends after it
                    await eventually(lambda: published(b"seat.here"), "tab A's answer to tab B's hello")
                    halves = [sorted(hand)[:6], sorted(hand)[6:]]
                    await arrange(tab_a, "a-1", halves)
                    view = await next_of(tab_b, "view")
                    assert view["view"]["arrangement"] == halves, view
                    await arrange(tab_b, "b-1", [sorted(hand)])
                    view = await next_of(tab_a, "view")
                    assert view["view"]["arrangement"] == [sorted(hand)], view
                await eventually(lambda: published(b"seat.bye"), "tab B's goodbye")
                await arrange(tab_a, "a-2", halves)
                heard = []  # ravi hears nothing of asha's arrangements (presence, a resync: not them)
                with contextlib.suppress(TimeoutError):
                    while True:
                        heard.append(json.loads(await asyncio.wait_for(other.recv(), timeout=1)))
                assert not [m for m in heard if m["type"] in ("view", "result")], heard  # not hers

        asyncio.run(play())
    finally:
        for proc in reversed(procs):
            proc.stop()
