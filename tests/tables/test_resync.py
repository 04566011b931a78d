"""A socket whose notice was lost (Redis away) catches up from the database within seconds.

The move is made with the table's notices suppressed, which is what a Redis
outage does to them: the database moves on, no group message reaches the
socket. The player on turn must still see their turn, without sending anything.
"""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta
from typing import Any

import pytest
import redis
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from accounts.models import User
from tables import services
from tables.game import notify
from tables.models import GameEvent, PoolGame
from tables.realtime import presence, resync
from tests.sockets import open_table
from tests.tables.conftest import make_player, make_table
from tests.waiting import eventually

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def _move_without_notice(game_id: int, user: User) -> int:
    """The player on turn draws; the notice of it is lost. Returns the game's new version."""
    with notify.suppressed():
        answer = services.game_act(
            game_id=game_id, user=user, request_id="lost-1", action={"type": "draw", "source": "closed"}
        )
    assert answer["ok"], answer
    return int(PoolGame.objects.get(pk=game_id).version)


async def _next(communicator: WebsocketCommunicator, within: float) -> dict[str, Any] | None:
    try:
        message: dict[str, Any] = await communicator.receive_json_from(timeout=within)
    except TimeoutError:
        return None
    return message


class _RedisAway:
    """The cache with its Redis away: every call refused, as redis-py refuses it."""

    def __getattr__(self, name: str) -> Any:
        def refuse(*args: Any, **kwargs: Any) -> Any:
            raise redis.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

        async def arefuse(*args: Any, **kwargs: Any) -> Any:
            return refuse()

        return arefuse if name.startswith("a") else refuse


@pytest.mark.parametrize("cache", ["up", "away"])
async def test_a_socket_behind_after_a_lost_notice_is_rebuilt_from_the_database(
    settings: Any, monkeypatch: pytest.MonkeyPatch, cache: str
) -> None:
    """And so while Redis is away (``cache="away"``): the notices are lost then, and the sockets
    still open and are still rebuilt, presence (kept in Redis) unknown meanwhile."""
    settings.RESYNC_SECONDS = 0.3
    if cache == "away":
        monkeypatch.setattr(presence, "cache", _RedisAway())
    table = await sync_to_async(make_table)("101", seats=2, seed=5, turn_seconds=60)
    asha, ravi = await sync_to_async(make_player)("asha"), await sync_to_async(make_player)("ravi")
    await sync_to_async(services.table_join)(table_id=table.pk, user=asha)
    await sync_to_async(services.table_join)(table_id=table.pk, user=ravi)
    sockets = {asha.pk: await open_table(asha, table.pk), ravi.pk: await open_table(ravi, table.pk)}
    try:
        snapshots = {pk: await s.receive_json_from(timeout=5) for pk, s in sockets.items()}
        first = snapshots[asha.pk]
        assert first["type"] == "snapshot" and first["view"] is not None
        if cache == "away":
            assert first["presence"] == {}  # nothing known, nothing said
        on_turn = next(pk for pk, m in snapshots.items() if m["view"]["turn"] == m["view"]["seat"])
        mover = asha if on_turn == asha.pk else ravi
        game_id = first["game"]["id"]

        version = await _move_without_notice(game_id, mover)
        assert version == first["version"] + 1

        # no notice came: within a few checks each socket rebuilds, with the missed event
        for pk, communicator in sockets.items():
            message = await _next(communicator, within=10)
            assert message is not None, f"socket of user {pk} never learned of version {version}"
            assert message["type"] == "update" and message["version"] == version, message
            assert message.get("rebuilt") is True
            assert [e["version"] for e in message["events"]] == [version]
            assert message["view"]["has_drawn"] is True  # the turn they see is the mover's, drawn
            # and only once: nothing more arrives while the game stays where it is
            assert await communicator.receive_nothing(timeout=1.5), await communicator.receive_json_from()
    finally:
        for communicator in sockets.values():
            await communicator.disconnect()


async def test_a_socket_ahead_of_a_database_restored_under_it_is_shown_the_game_and_its_next_moves(
    settings: Any,
) -> None:
    """A database restored from a backup (or failed over to a replica that lagged) while sockets
    stay open holds an older game than they show. Each is sent the game as it is, and then its
    next moves: not dropped as already sent until the game passes the version the socket showed."""
    settings.RESYNC_SECONDS = 0.3
    table = await sync_to_async(make_table)("101", seats=2, seed=6, turn_seconds=60)
    asha, ravi = await sync_to_async(make_player)("asha"), await sync_to_async(make_player)("ravi")
    await sync_to_async(services.table_join)(table_id=table.pk, user=asha)
    await sync_to_async(services.table_join)(table_id=table.pk, user=ravi)
    sockets = {asha.pk: await open_table(asha, table.pk), ravi.pk: await open_table(ravi, table.pk)}
    try:
        snapshots = {pk: await sockets[pk].receive_json_from(timeout=5) for pk in sockets}
        backed_up = snapshots[asha.pk]["version"]
        game_id = snapshots[asha.pk]["game"]["id"]
        on_turn = next(pk for pk, m in snapshots.items() if m["view"]["turn"] == m["view"]["seat"])
        mover = asha if on_turn == asha.pk else ravi
        backup = await sync_to_async(lambda: PoolGame.objects.filter(pk=game_id).values().get())()

        async def draw(request_id: str) -> None:
            action = {"type": "draw", "source": "closed"}
            answer = await sync_to_async(services.game_act)(
                game_id=game_id, user=mover, request_id=request_id, action=action
            )
            assert answer["ok"], answer

        await draw("before-the-restore")
        for communicator in sockets.values():
            assert (await communicator.receive_json_from(timeout=5))["version"] == backed_up + 1

        @sync_to_async
        def restore() -> None:  # the game row and its log as the backup holds them
            PoolGame.objects.filter(pk=game_id).update(**{k: v for k, v in backup.items() if k != "id"})
            GameEvent.objects.filter(game_id=game_id, version__gt=backed_up).delete()

        await restore()
        for pk, communicator in sockets.items():
            message = await _next(communicator, within=10)
            assert message is not None, (
                f"the socket of user {pk} still shows a version the game no longer has"
            )
            assert message["type"] == "snapshot" and message["version"] == backed_up, message
            assert message["view"]["has_drawn"] is False
        await draw("after-the-restore")
        for communicator in sockets.values():
            message = await communicator.receive_json_from(timeout=5)
            assert message["type"] == "update" and message["version"] == backed_up + 1, message
            assert message["view"]["has_drawn"] is True
    finally:
        for communicator in sockets.values():
            await communicator.disconnect()


class _Socket:
    """What the watcher needs of a table socket, counting its rebuilds."""

    def __init__(self, game_id: int, version: int) -> None:
        self.game_id, self.version = game_id, version
        self.dispatch_lock = asyncio.Lock()
        self.rebuilds = self.snapshots = 0

    async def send_update_from_db(self) -> None:
        self.rebuilds += 1

    async def send_snapshot(self) -> None:
        self.snapshots += 1


@pytest.fixture
def watched(monkeypatch: pytest.MonkeyPatch, settings: Any) -> Any:
    """Sockets of game 1 shown at version 3 while the database holds 5: the watcher's view, no database."""
    settings.RESYNC_BUSY_CHECKS = 5
    deadline: list[Any] = [None]  # the game's clock: none runs, unless a test sets one

    async def versions(game_ids: set[int]) -> dict[int, tuple[int, Any]]:
        return dict.fromkeys(game_ids, (5, deadline[0]))

    monkeypatch.setattr(resync, "_versions", versions)
    made: list[_Socket] = []

    def make() -> _Socket:
        made.append(_Socket(game_id=1, version=3))
        resync._sockets.add(made[-1])
        return made[-1]

    make.deadline = deadline  # type: ignore[attr-defined]
    yield make
    for socket in made:
        resync.forget(socket)


async def test_a_socket_behind_is_rebuilt_at_the_second_check(watched: Any) -> None:
    socket = watched()
    assert await resync.check_once() == 0  # a notice may be on its way
    assert await resync.check_once() == 1
    assert socket.rebuilds == 1


async def test_a_socket_ahead_of_the_database_is_sent_its_snapshot_at_the_second_check(watched: Any) -> None:
    """Ahead (the database restored from a backup under it), busy or not: at one check it may just
    have heard of a move newer than the versions read."""
    socket = watched()
    socket.version = 7
    assert await resync.check_once(busy=True) == 0
    assert await resync.check_once(busy=True) == 1
    assert (socket.snapshots, socket.rebuilds) == (1, 0)


async def test_a_busy_process_waits_longer_before_rebuilding(watched: Any) -> None:
    """Late notices are not lost ones: rebuilding every socket would sink a saturated process."""
    socket = watched()
    for _ in range(4):
        assert await resync.check_once(busy=True) == 0
    assert socket.rebuilds == 0
    assert await resync.check_once(busy=True) == 1  # the fifth check (RESYNC_BUSY_CHECKS) behind
    assert socket.rebuilds == 1


async def test_a_busy_process_does_not_wait_past_the_games_clock(watched: Any, settings: Any) -> None:
    """A turn that runs out within the busy wait: the player on turn would be charged for the late notice."""
    settings.RESYNC_SECONDS = 1.5  # the busy wait: 5 checks, 7.5 s
    socket = watched()
    watched.deadline[0] = timezone.now() + timedelta(seconds=6)
    assert await resync.check_once(busy=True) == 0
    assert await resync.check_once(busy=True) == 1  # the second check, as when not busy
    assert socket.rebuilds == 1
    later = watched()
    watched.deadline[0] = timezone.now() + timedelta(seconds=60)  # a clock past the wait: it waits
    for _ in range(4):
        assert await resync.check_once(busy=True) == 0
    assert later.rebuilds == 0


async def test_a_socket_that_moves_between_checks_is_not_rebuilt(watched: Any) -> None:
    socket = watched()
    for version in (3, 4):  # a late notice arrived between the checks
        socket.version = version
        assert await resync.check_once() == 0
    assert socket.rebuilds == 0


async def test_the_watcher_calls_itself_busy_when_it_wakes_late(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.RESYNC_SECONDS, settings.RESYNC_BUSY_LAG = 0.05, 0.2
    seen: list[bool] = []

    async def check(*, busy: bool = False) -> int:
        seen.append(busy)
        return 0

    monkeypatch.setattr(resync, "check_once", check)
    socket = _Socket(game_id=1, version=3)
    resync.watch(socket)
    try:
        await eventually(lambda: len(seen) >= 3, "three checks of the idle watcher")
        assert not any(seen)  # an idle loop wakes on time
        before = len(seen)
        time.sleep(0.5)  # noqa: ASYNC251 - the loop held up on purpose, as by a backlog of work
        await eventually(lambda: len(seen) > before, "the check after the loop was held up")
        assert seen[before] is True  # the check that woke late
    finally:
        resync.forget(socket)
