"""WebSocket protocol of the lobby and the tables (documented in docs/protocol.md).

What every socket does before its protocol (admission, the message rate, the wire checks, JSON, the
database threads) is ``tables.realtime.socket_base``. The consumer translates between the wire and the services. A group message is
only a notice that the game reached some version: when it carries exactly the
next version the consumer forwards its events and this seat's view, otherwise it rebuilds its
player's view from the database, so a dropped notice costs a query, not a move.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import time
from typing import Any

import orjson
from django.conf import settings
from django.db import DatabaseError

from game_engine.actions import PLAYER_ACTIONS
from game_engine.events import events_for_spectators
from game_engine.melds import verdict
from sitelog import context as logcontext
from sitemetrics import instruments
from tables import protocol
from tables.contract import (
    Error,
    Evaluated,
    NotEvaluated,
    Pong,
    Presence,
    QuickMessage,
    Update,
    ViewChanged,
    result,
)
from tables.errors import REFUSALS, BadAction, NoGameRunning, NotSeated, error_payload
from tables.game import notify, selectors
from tables.game import play as table_play
from tables.game.notify import table_group
from tables.models import PoolGame, Table
from tables.realtime import lobbyfeed, presence, quick, reminders, resync, socket_base
from tables.realtime.socket_base import SocketConsumer, db, error_body

logger = logging.getLogger(__name__)


#: One line for each table action: its kind, outcome and latency (docs/operations.md, "Logs").
action_logger = logging.getLogger("tables.actions")


def _action_kind(content: dict[str, Any]) -> str:
    """The action's kind as the engine names it, ``unknown`` for anything else (a bounded label)."""
    raw = content.get("action")
    kind = raw.get("type") if isinstance(raw, dict) else None
    return kind if isinstance(kind, str) and kind in PLAYER_ACTIONS else "unknown"


def _outcome(answer: dict[str, Any]) -> str:
    """``ok``; ``error`` when the database could not be reached; ``refused`` by the rules otherwise."""
    if answer.get("ok"):
        return "ok"
    return "error" if (answer.get("error") or {}).get("code") == "unavailable" else "refused"


class LobbyConsumer(SocketConsumer):
    """Pushes lobby changes (seats taken, games started) to logged-in players, gathered per process."""

    metric_kind = "lobby"

    async def connect(self) -> None:
        if not await self.admit():
            return
        await lobbyfeed.join(
            self
        )  # at most one lobby_update a LOBBY_PUSH_SECONDS (tables.realtime.lobbyfeed)
        await self.accept()
        self.counted()

    async def disconnect(self, code: int) -> None:
        lobbyfeed.leave(self)

    async def receive_message(self, content: dict[str, Any]) -> None:
        if content.get("type") == "ping":
            await self.send_json(Pong().wire())
        else:
            await self.send_error("bad_message", "the lobby socket takes only ping")


class TableConsumer(SocketConsumer):
    """One player's (or spectator's) connection to one table."""

    metric_kind = "table"
    table_id: int
    game_id: int | None = None
    seat: int | None = None
    version: int = -1
    #: The current deal's wild rank as this socket last showed it (``evaluate``'s default).
    wild_rank: int | None = None
    #: The full count of this table's game (docs/rules.md §5.4): ``evaluate`` answers the capped score.
    full_count: int | None = None
    _reminders: asyncio.Task[None] | None = None
    #: This socket counts its user as at the table (``tables.realtime.presence``).
    _present: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The request ids of this socket's last private actions (``seat_view`` skips them).
        self._own_private: collections.deque[str] = collections.deque(maxlen=4)
        #: The channels of the user's other sockets at this table (``seat_hello``): an arrangement
        #: made here is told to them (``notify.seat_view``), and to nobody when there are none.
        self._twins: set[str] = set()

    async def connect(self) -> None:
        # before admit(): the socket's registry id names its table (tables.realtime.presence reads it)
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        if not await self.admit():
            return
        notify.bind_loop()
        if not await db(Table.objects.filter(pk=self.table_id).exists)():
            await self.refuse(socket_base.CLOSE_UNKNOWN_TABLE)
            return
        self.group = table_group(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        # the player's private changes (notify.seat_view) reach their sockets at this table alone
        self._seat_group = notify.seat_group(self.user.pk, self.table_id)
        await self.channel_layer.group_add(self._seat_group, self.channel_name)
        # before the snapshot is read: an arrangement made on another socket after that read is told here
        await self.channel_layer.group_send(
            self._seat_group, {"type": "seat.hello", "from": self.channel_name}
        )
        await self.accept()
        self.counted()
        self._present = True
        came = await presence.arrive(table_id=self.table_id, user_id=self.user.pk, consumer=self)
        await self.send_snapshot()  # with the presence of the game's people, this one's included
        if came:
            await self.tell_presence()  # they came (back): the others at the table see it
        # responsible play: a reminder after each hour played (tables.realtime.reminders, docs/protocol.md)
        self._reminders = asyncio.create_task(
            reminders.remind(
                user=self.user, table_id=self.table_id, clock=db(reminders.play_clock), send=self.send_json
            )
        )
        resync.watch(self)  # a lost notice is caught up from the database within seconds

    async def disconnect(self, code: int) -> None:
        resync.forget(self)
        if self._present:
            self._present = False
            if await presence.depart(table_id=self.table_id, user_id=self.user.pk, consumer=self):
                await self.tell_presence()  # their last socket here: the others see them away
        if self._reminders is not None:
            self._reminders.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reminders
            self._reminders = None
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.channel_layer.group_discard(self._seat_group, self.channel_name)
            if self._twins:
                await self.channel_layer.group_send(
                    self._seat_group, {"type": "seat.bye", "from": self.channel_name}
                )

    # ------------------------------------------------------------------ client -> server
    async def receive_message(self, content: dict[str, Any]) -> None:
        kind = content.get("type")
        if kind == "snapshot":
            try:
                since = protocol.parse_snapshot(content)
            except BadAction as exc:
                await self.send_error("bad_request", str(exc))
                return
            await self.send_snapshot_since(since)
        elif kind == "ping":
            await self.send_json(Pong(version=self.version).wire())
        elif kind == "action":
            # every line written while the action is played names its user, table and game
            previous = logcontext.bind(user_id=self.user.pk, table_id=self.table_id, game_id=self.game_id)
            try:
                await self.handle_action(content)
            finally:
                logcontext.restore(previous)
        elif kind == "evaluate":
            await self.send_json(self.evaluate(content))
        elif kind == "quick":
            await self.send_quick(content)
        else:
            await self.send_error(
                "bad_message",
                f"unknown message type {protocol.excerpt(kind)}; expected action, evaluate, quick, snapshot or ping",
            )

    async def send_quick(self, content: dict[str, Any]) -> None:
        """A quick message to everyone at the table: a player of its game, a fixed phrase, one a
        ``QUICK_MESSAGE_SECONDS``; otherwise an ``error`` to this socket and nothing sent."""
        try:
            phrase = protocol.parse_quick(content)
            if self.seat is None or self.game_id is None:
                raise NotSeated("only the players of the table's game send quick messages")
            if not await quick.may_send(user_id=self.user.pk, table_id=self.table_id):
                await self.send_error(
                    "rate_limited",
                    f"one quick message every {settings.QUICK_MESSAGE_SECONDS} s; this one was not sent",
                )
                return
        except REFUSALS as exc:
            await self.send_json(Error(error=error_body(exc)).wire())
            return
        message = QuickMessage(seat=self.seat, phrase=phrase, text=quick.PHRASES[phrase]).wire()
        await self.channel_layer.group_send(self.group, {"type": "table.quick", "message": message})

    def evaluate(self, content: dict[str, Any]) -> dict[str, Any]:
        """The engine's verdict on groups (``melds.verdict``), computed here: no database, no thread.

        The page asks at every rearrangement; the wild rank is the current deal's as this socket
        last showed it, unless the message names one (a past deal's result sheet).
        """
        request_id = protocol.request_id_of(content)
        try:
            if request_id is None:
                raise BadAction("every evaluate needs a request_id: a string of 1 to 64 printable characters")
            groups, wild = protocol.parse_evaluate(content)
            wild = wild if wild is not None else self.wild_rank
            if wild is None:
                raise NoGameRunning("there is no deal, so no wild rank, to evaluate against")
            return Evaluated(request_id=request_id, ok=True, **verdict(groups, wild, self.full_count)).wire()
        except REFUSALS as exc:
            return NotEvaluated(request_id=request_id, ok=False, error=error_body(exc)).wire()

    async def handle_action(self, content: dict[str, Any]) -> None:
        """One action, answered by a ``result``: refused (and nothing written) unless well formed."""
        request_id = protocol.request_id_of(content)
        try:
            if request_id is None:
                raise BadAction("every action needs a request_id: a string of 1 to 64 printable characters")
            action = protocol.parse_action(content.get("action"))
            if self.game_id is None:
                raise NoGameRunning("no game is being played at this table")
            if action.private:
                self._own_private.append(request_id)  # its view notice is not for this socket
            answer = await db(table_play.game_act)(
                game_id=self.game_id,
                user=self.user,
                request_id=request_id,
                action=action,
                session_key=self.session_key,
                tell_other_sockets=bool(self._twins),
            )
        except REFUSALS as exc:
            answer = {"ok": False, "error": error_payload(exc)}
        except DatabaseError:  # the database away even after a retry (core.dbretry): the client resends
            logger.exception(
                "action of user %s at table %s failed on the database", self.user.pk, self.table_id
            )
            answer = {
                "ok": False,
                "error": error_payload("unavailable", "the game could not be reached; send the action again"),
            }
        await self.send_json(result(request_id, answer))
        instruments.table_action(_action_kind(content), _outcome(answer), time.perf_counter() - self.arrived)
        self.log_action(content, request_id, answer)

    def log_action(self, content: dict[str, Any], request_id: str | None, answer: dict[str, Any]) -> None:
        """The action's one line: kind, outcome, and its latency from the frame's arrival to its answer."""
        if not action_logger.isEnabledFor(logging.INFO):
            return
        fields: dict[str, Any] = {
            "action": _action_kind(content),
            "request_id": request_id,
            "ok": bool(answer.get("ok")),
            "latency_ms": round((time.perf_counter() - self.arrived) * 1000, 2),
            "seat": self.seat,
        }
        if not answer.get("ok"):
            fields["error"] = (answer.get("error") or {}).get("code")
        action_logger.info(
            "action %s %s",
            fields["action"],
            "ok" if fields["ok"] else f"refused ({fields.get('error')})",
            extra=fields,
        )

    # ------------------------------------------------------------------ server -> client
    async def table_changed(self, event: dict[str, Any]) -> None:
        version = int(event["version"])
        if event.get("game_id") == self.game_id and version <= self.version:
            return  # already sent (the snapshot was newer than this notice)
        if event.get("game_id") != self.game_id or version != self.version + 1 or "views" not in event:
            instruments.table_update_rebuilt()  # rare: a lost notice among them is worth seeing
            await self.send_update_from_db()
            return
        views = event["views"]
        # The seat may be new since this socket's snapshot: the game started under an open
        # page, a spectator joined, a bot filled a seat. Whoever the engine seats, sees their seat.
        self.seat = event.get("seat_of", {}).get(str(self.user.pk))
        self.version = version
        self.wild_rank = event.get("wild_rank")
        await self.send_json(
            Update(
                version=version,
                # a spectator's without what the seats alone get (a finished deal's server seed)
                events=event["events"] if self.seat is not None else events_for_spectators(event["events"]),
                # the view arrives as JSON bytes (notify.encode_view) and goes out as they are
                view=orjson.Fragment(views["spectator"] if self.seat is None else views[str(self.seat)]),  # type: ignore[arg-type]  # the view's JSON, encoded once for every socket
                game=event.get("game"),
            ).wire()
        )

    async def seat_view(self, event: dict[str, Any]) -> None:
        """The player's own view changed privately (an arrangement made on another of their sockets).

        Sent as a ``view`` message at the same version, only by a socket showing that game at
        that version: one behind gets it with its next update, one ahead already has it. The
        socket that sent the arrangement has it already and sends nothing. The notice carries no
        view (most players have one socket at a table, and every arrangement sent one): a socket
        it is for reads its view from the game row, or its snapshot if the game moved on meanwhile.
        """
        if (
            event.get("game_id") != self.game_id
            or event.get("version") != self.version
            or self.seat is None
            or event.get("request_id") in self._own_private
        ):
            return
        version, view = await db(selectors.own_view)(game_id=self.game_id, user_id=self.user.pk)
        if version == self.version and view is not None:
            await self.send_json(ViewChanged(version=version, view=view).wire())
        else:
            await self.send_snapshot()

    async def seat_hello(self, event: dict[str, Any]) -> None:
        """Another socket of the user opened at this table: it is told of this one, and this one of it.

        Most players have one socket at a table; counting the others spares every arrangement its
        notice to nobody (a publish to Redis and its delivery). At most once, like every notice: a
        hello or bye lost in a Redis outage makes a socket tell too much (harmless) or too little (the
        other tab shows its arrangement at the game's next update, which carries the whole view).
        """
        sender = event.get("from")
        if sender and sender != self.channel_name:
            self._twins.add(sender)
            await self.channel_layer.send(sender, {"type": "seat.here", "from": self.channel_name})

    async def seat_here(self, event: dict[str, Any]) -> None:
        """An answer to this socket's hello: a socket of the user that was at the table already."""
        if event.get("from"):
            self._twins.add(event["from"])

    async def seat_bye(self, event: dict[str, Any]) -> None:
        self._twins.discard(event.get("from", ""))

    async def tell_presence(self) -> None:
        """The game's people as they are now, to the other sockets at the table."""
        players = await db(presence.of_game)(table_id=self.table_id, game_id=self.game_id)
        message = Presence(players=players).wire()
        await self.channel_layer.group_send(
            self.group, {"type": "table.presence", "message": message, "from": self.channel_name}
        )

    async def table_presence(self, event: dict[str, Any]) -> None:
        """A player came to the table or left it (``tell_presence``); the socket that told it knows."""
        if event.get("from") != self.channel_name:
            await self.send_json(event["message"])

    async def table_quick(self, event: dict[str, Any]) -> None:
        """A player's quick message (``send_quick``), to every socket at the table."""
        await self.send_json(event["message"])

    async def table_notice(self, event: dict[str, Any]) -> None:
        """A message for people at the table (a cancelled game), forwarded as it is (docs/protocol.md)."""
        await self.send_json(event["notice"])

    async def send_snapshot_since(self, since: int | None) -> None:
        """``snapshot``; with ``since`` (the version a reconnected page showed before), the
        events since then as a rebuilt ``update`` when the game is the same, so that the page can
        say what happened while it was away; a snapshot when it is not."""
        if since is None:
            await self.send_snapshot()
            return
        if self.game_id is None or since >= self.version:
            await self.send_snapshot()
            return
        self.version = since
        await self.send_update_from_db()

    async def send_snapshot(self) -> None:
        snapshot = await db(self._snapshot)()
        await self.send_json(snapshot)

    async def send_update_from_db(self) -> None:
        """Rebuild from the database after a gap (or a change without the engine, such as a seat
        taken): the missing events, then the view, the seats and the table (its seats taken)."""
        previous_game, previous_version = self.game_id, self.version
        snapshot = await db(self._snapshot)()
        if snapshot["game"] is None or snapshot["game"]["id"] != previous_game or previous_version < 0:
            await self.send_json(snapshot)
            return
        events = await db(selectors.events_since)(
            game_id=previous_game, version=previous_version, seated=self.seat is not None
        )
        await self.send_json(
            Update(
                version=snapshot["version"],
                events=events,
                view=snapshot["view"],
                game=snapshot["game"],
                seats=snapshot["seats"],
                table=snapshot["table"],
                rebuilt=True,
            ).wire()
        )

    def _snapshot(self) -> dict[str, Any]:
        """The ``snapshot`` message (``contract.Snapshot``) of this socket's user, noting what it shows."""
        table = Table.objects.select_related("settings").get(pk=self.table_id)
        game = selectors.current_game(table)
        snapshot = selectors.table_snapshot(table=table, user=self.user, game=game)
        self.game_id = game.pk if game is not None and game.status != PoolGame.Status.CANCELLED else None
        self.seat = snapshot["you"]["seat"]
        self.version = snapshot["version"]
        self.wild_rank = (snapshot["view"] or {}).get("wild_rank")
        # the game's rules once it started, the table's (which it will start with) before
        view = snapshot["view"]
        self.full_count = view["rules"]["full_count"] if view else table.settings.rules().full_count
        snapshot["presence"] = presence.of_game(table_id=self.table_id, game_id=self.game_id)
        return snapshot
