"""What the server sends on the table and lobby sockets, each message typed once (docs/protocol.md).

In the style of lila-ws' ``ClientOut`` and Zulip's event schema: every message the server
sends is a dataclass below, and every place that sends one builds it here and sends its
``wire()`` (the JSON object, ``{"type": ..., **fields}``; a field marked ``OMIT_NONE`` is left
out while it is None). The events inside an ``update`` are the engine's catalogue
(``game_engine.events``), the error bodies ``tables.errors``' catalogue.

From these declarations come docs/protocol.md's message and error tables and
``static/js/contract.schema.json``, the JSON Schema the page's types are made from
(``tables.wiredocs``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal, NotRequired, TypeVar, Union, get_args

from typing_extensions import TypedDict

from game_engine import events as ev
from game_engine.events import OMIT_NONE, GameResult, Settlement
from game_engine.melds import GroupVerdict
from game_engine.views import View  # one seat's view (docs/protocol.md, "The view"): ``view_for``
from tables.protocol import QuickPhrase


# ---------------------------------------------------------------------- the parts of messages
class ErrorBody(TypedDict):
    """Every error a client sees (``tables.errors.error_payload``)."""

    code: str
    rule: str
    message: str


#: A table's format on the wire: TableSettings.Format's values.
TableFormat = Literal["61", "101", "201", "points"]
#: The same, as the list the OpenAPI names its enum by (``ENUM_NAME_OVERRIDES``).
TABLE_FORMATS: tuple[str, ...] = get_args(TableFormat)


class TableSummary(TypedDict):
    """A table as the lobby lists it (``GET /api/tables/``) and the table page heads it."""

    id: int
    name: str
    format: TableFormat
    format_label: str
    entry_fee: int
    """Paise (1 chip = 100)."""
    entry_fee_display: str
    seats: int
    seats_taken: int
    status: Literal["open", "playing"]
    practice: bool
    private: bool
    """The player's own practice table."""
    game_id: int | None
    prize_pool: int
    """Paise a full table pays its winner: every seat's fee less the rake."""
    prize_pool_display: str
    decks: int
    turn_seconds: int


#: A game's status on the wire: PoolGame.Status's values.
GameStatus = Literal["waiting", "running", "finished", "cancelled"]


class CancelledResult(TypedDict):
    """A game staff cancelled: its ``result`` (``tables.game.staffops``)."""

    cancelled: Literal[True]
    message: str
    rule: str
    fees_paid: int
    settlement: Settlement
    payouts: dict[str, int]
    """By user id, in paise."""
    rake: int
    prize_pool: int
    drops_remaining: NotRequired[dict[str, int]]
    """A split: by user id, what the shares were weighed by."""


class GameHeader(TypedDict):
    """The table's game: its status and the server's next deadline; ``result`` once it is over."""

    id: int
    status: GameStatus
    version: int
    deadline_at: str | None
    deadline_kind: str
    """``start`` (the start countdown), ``bots`` (bots fill the seats), an engine ``DeadlineKind``, or empty."""
    result: GameResult | CancelledResult | None


class SeatRow(TypedDict):
    """A taken chair: ``position`` at the table, ``seat`` in the engine (None before the start)."""

    position: int
    seat: int | None
    name: str
    is_bot: bool


class You(TypedDict):
    """Who this socket is: a seated player, or a spectator (``position`` and ``seat`` None)."""

    user_id: int
    name: str
    position: int | None
    seat: int | None
    may_join: bool
    """Whether this user may take a seat in the table's next game (``Table.open_to``): the page's
    "Join the next game" on a finished table's final sheet."""


class PlayerPresence(TypedDict):
    """A seated person's presence: connected, or away since ``away_since`` (ms since the epoch;
    None when nobody saw them leave)."""

    connected: bool
    away_since: int | None


#: One event of ``game_engine.events.CATALOGUE`` as ``to_wire`` makes it.
EventObject = Union[tuple(ev.CATALOGUE.values())]  # type: ignore[valid-type]  # noqa: UP007


# ---------------------------------------------------------------------- messages
@dataclass(slots=True)
class Message:
    """Base of every server -> client message; ``type`` (and a notice's ``kind``) is its name."""

    type: ClassVar[str] = ""
    kind: ClassVar[str | None] = None
    #: One line for docs/protocol.md: when it is sent.
    doc: ClassVar[str] = ""
    #: Each field's name, and whether it is left out while None (``OMIT_NONE``): set by ``_message``.
    wire_fields: ClassVar[tuple[tuple[str, bool], ...]] = ()

    def wire(self) -> dict[str, Any]:
        """The message as its JSON object: ``type`` (and ``kind``), then its fields."""
        out: dict[str, Any] = {"type": self.type}
        if self.kind:
            out["kind"] = self.kind
        for name, omit_none in self.wire_fields:
            value = getattr(self, name)
            if value is not None or not omit_none:
                out[name] = value
        return out


M = TypeVar("M", bound=type[Message])


def _message(cls: M) -> M:
    """Note ``cls``'s fields for ``wire()``, once the dataclass has them."""
    cls.wire_fields = tuple((f.name, bool(f.metadata.get("omit_none"))) for f in dataclasses.fields(cls))
    return cls


def _omit_none() -> Any:
    return field(default=None, metadata=OMIT_NONE)


@_message
@dataclass(slots=True)
class Snapshot(Message):
    type: ClassVar[str] = "snapshot"
    doc: ClassVar[str] = (
        "on connect and when asked: everything this socket's user may see now; `game` null before "
        "anyone sits, `view` null while the game waits for players; on a table socket, `presence` "
        "of the game's people (as in `presence`)"
    )
    version: int
    table: TableSummary
    game: GameHeader | None
    seats: list[SeatRow]
    you: You
    view: View | None
    presence: dict[str, PlayerPresence] | None = _omit_none()


@_message
@dataclass(slots=True)
class Update(Message):
    type: ClassVar[str] = "update"
    doc: ClassVar[str] = (
        "the game moved on to `version`: its `events` and this seat's new `view`; rebuilt from the "
        "database after a gap or while the game waits for players (`rebuilt`, with `seats` and "
        "`table`, every event since the socket's version, each with its `version`)"
    )
    version: int
    events: list[EventObject]  # type: ignore[valid-type]  # a Union built at run time, for the schema
    view: View | None
    game: GameHeader | None
    seats: list[SeatRow] | None = _omit_none()
    table: TableSummary | None = _omit_none()
    rebuilt: Literal[True] | None = _omit_none()


@_message
@dataclass(slots=True)
class ViewChanged(Message):
    type: ClassVar[str] = "view"
    doc: ClassVar[str] = (
        "your own view changed at the same `version`: an `arrange` sent from another of your sockets"
    )
    version: int
    view: View


@_message
@dataclass(slots=True)
class Accepted(Message):
    type: ClassVar[str] = "result"
    doc: ClassVar[str] = (
        "the answer to one `action` the game took: the game's `version` after it; `repeated` when "
        "the `request_id` was answered before"
    )
    request_id: str | None
    ok: Literal[True]
    version: int
    repeated: Literal[True] | None = _omit_none()


@_message
@dataclass(slots=True)
class Refused(Message):
    type: ClassVar[str] = "result"
    doc: ClassVar[str] = "the answer to one `action` refused: the `error`; nothing changed"
    request_id: str | None
    ok: Literal[False]
    error: ErrorBody


def result(request_id: str | None, answer: dict[str, Any]) -> dict[str, Any]:
    """The ``result`` message of a service's ``answer`` (``ok`` and its version, or ``error``)."""
    return (Accepted if answer["ok"] else Refused)(request_id=request_id, **answer).wire()


@_message
@dataclass(slots=True)
class Evaluated(Message):
    type: ClassVar[str] = "evaluation"
    doc: ClassVar[str] = (
        "the answer to `evaluate`: each group's `kind` and `points`, the `points` of the whole, "
        "whether it is a `valid` declaration and `score`, the points capped at the table's full "
        "count (docs/rules.md §5.4), and for 14 cards `finish_with`: the card to put in the finish "
        "slot for a valid declaration (absent when there is none)"
    )
    request_id: str | None
    ok: Literal[True]
    groups: list[GroupVerdict]
    points: int
    valid: bool
    score: int
    finish_with: str | None = _omit_none()


@_message
@dataclass(slots=True)
class NotEvaluated(Refused):
    type: ClassVar[str] = "evaluation"
    doc: ClassVar[str] = "the answer to an `evaluate` refused: the `error`"


@_message
@dataclass(slots=True)
class Error(Message):
    type: ClassVar[str] = "error"
    doc: ClassVar[str] = "a message refused before it was read as an action (the socket stays open)"
    error: ErrorBody


@_message
@dataclass(slots=True)
class GameCancelledNotice(Message):
    type: ClassVar[str] = "notice"
    kind: ClassVar[str | None] = "game_cancelled"
    doc: ClassVar[str] = (
        "staff cancelled the game, or closed the table of a game waiting for players: staff's "
        "`message` to the players, the `settlement` and in a sentence (`money`), `payouts` by user "
        "id in paise and in rupees (`payouts_display`)"
    )
    game_id: int
    message: str
    money: str
    settlement: Settlement
    payouts: dict[str, int]
    payouts_display: dict[str, str]


@_message
@dataclass(slots=True)
class PlayReminderNotice(Message):
    type: ClassVar[str] = "notice"
    kind: ClassVar[str | None] = "play_reminder"
    doc: ClassVar[str] = (
        "a seated player's play time today (UTC) passed another `PLAY_REMINDER_SECONDS`: "
        "`played_minutes`, and the `message` to show"
    )
    played_minutes: int
    message: str


@_message
@dataclass(slots=True)
class UnseatedNotice(Message):
    type: ClassVar[str] = "notice"
    kind: ClassVar[str | None] = "unseated"
    doc: ClassVar[str] = (
        "to the player's own sockets at the table: their seat at game `game_id`, waiting for players, "
        "was given back before the start (fair play keeps some accounts apart): the `message` to "
        "show, naming nobody, and the entry fee's return in words (`money`, empty on a free table)"
    )
    game_id: int
    message: str
    money: str


@_message
@dataclass(slots=True)
class Pong(Message):
    type: ClassVar[str] = "pong"
    doc: ClassVar[str] = "the answer to `ping`; at a table, with the `version` the socket shows"
    version: int | None = _omit_none()


@_message
@dataclass(slots=True)
class LobbyUpdate(Message):
    type: ClassVar[str] = "lobby_update"
    doc: ClassVar[str] = (
        "the lobby socket: the `tables` whose seats or status changed, at most one a "
        "`LOBBY_PUSH_SECONDS`; `rows`: the public ones' rows as `GET /api/tables/` gives them "
        "(null if they could not be read)"
    )
    tables: list[int]
    rows: list[TableSummary] | None


@_message
@dataclass(slots=True)
class Presence(Message):
    type: ClassVar[str] = "presence"
    doc: ClassVar[str] = (
        "who of the game's people has the table open: `players` by user id (bots have none), "
        "each `connected` or away since `away_since` (ms); to the others at the table when a "
        "player's first socket there opens or last one closes (the snapshot carries it too)"
    )
    players: dict[str, PlayerPresence]


@_message
@dataclass(slots=True)
class QuickMessage(Message):
    type: ClassVar[str] = "quick_message"
    doc: ClassVar[str] = (
        "a player at the table sent a quick message: their `seat`, the `phrase` key and its `text` "
        "(one of a fixed set, docs/protocol.md `quick`); to everyone at the table, the sender too"
    )
    seat: int
    phrase: QuickPhrase
    text: str


#: Every message the table socket sends, by name (a notice by ``notice.<kind>``).
TABLE_MESSAGES: tuple[type[Message], ...] = (
    Snapshot,
    Update,
    ViewChanged,
    Accepted,
    Refused,
    Evaluated,
    NotEvaluated,
    Error,
    GameCancelledNotice,
    PlayReminderNotice,
    UnseatedNotice,
    QuickMessage,
    Presence,
    Pong,
)
#: Every message the lobby socket sends.
LOBBY_MESSAGES: tuple[type[Message], ...] = (LobbyUpdate, Pong, Error)
MESSAGES: tuple[type[Message], ...] = (*TABLE_MESSAGES, LobbyUpdate)
#: The notice kinds (``notice.kind``).
NOTICE_KINDS: tuple[str, ...] = tuple(m.kind for m in MESSAGES if m.kind)
