"""The catalogue of events (public facts the server broadcasts) and deadlines.

Every event is one frozen dataclass below, its fields typed; the engine and the
server construct them and nothing else, and ``to_wire`` is the one function that
turns one into the JSON object a client receives (``{"type": ..., **fields}``).
``docs/protocol.md`` lists the same catalogue; ``tests/game_engine/test_events.py``
keeps the two equal.

Everything in an event may be shown to every seat and to spectators: no event
holds a hidden card (a draw from the closed deck names none). A field marked
``SEATS_ONLY`` goes to the game's seats alone: a deal's revealed server seed, with
the client seeds, rebuilds every hand of that deal (docs/fairness.md), which the
players check the shuffle with and a spectator never saw (``for_spectators``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, get_args, get_origin

from game_engine.shapes import TypedDict, fields_shape

#: Field metadata: leave the field out of the wire object when it is None.
OMIT_NONE: dict[str, bool] = {"omit_none": True}
#: Field metadata: only the game's seats get the field; a spectator's copy leaves it out
#: (``for_spectators``), so on the wire it is absent, as when None.
SEATS_ONLY: dict[str, bool] = {"omit_none": True, "seats_only": True}


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event; ``type`` is its name on the wire."""

    type: ClassVar[str] = ""
    #: One line for docs/protocol.md: when the event is sent.
    doc: ClassVar[str] = ""

    @property
    def data(self) -> dict[str, Any]:
        """The event's fields as the wire carries them (without ``type``)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None and f.metadata.get("omit_none"):
                continue
            out[f.name] = _plain(value)
        return out

    def to_dict(self) -> dict[str, Any]:
        return to_wire(self)


def _plain(value: Any) -> Any:
    """Copies of containers, so a wire object never shares lists with an event."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def to_wire(event: Event) -> dict[str, Any]:
    """The one place an event becomes the JSON object sent to clients and stored in the log."""
    return {"type": event.type, **event.data}


#: How a game's prize was split, when it was (``game_over``).
SplitKind = Literal["manual", "auto"]
#: How a cancelled game's money went (``game_cancelled``; ``tables.game.staffops`` settles it).
Settlement = Literal["refund", "split", "none"]


# ---------------------------------------------------------------------- seats (the server)
@dataclass(frozen=True, slots=True)
class SeatTaken(Event):
    type: ClassVar[str] = "seat_taken"
    doc: ClassVar[str] = "before the start: a player sat down at chair `position`"
    position: int
    name: str


@dataclass(frozen=True, slots=True)
class SeatLeft(Event):
    type: ClassVar[str] = "seat_left"
    doc: ClassVar[str] = "before the start: a player left chair `position` (fee refunded)"
    position: int
    name: str


@dataclass(frozen=True, slots=True)
class GameStarted(Event):
    type: ClassVar[str] = "game_started"
    doc: ClassVar[str] = "the game started; `players`: `[{seat, name}]` in engine seat order"
    players: list[StartedPlayer]


class StartedPlayer(TypedDict):
    seat: int
    name: str


# ---------------------------------------------------------------------- a deal
@dataclass(frozen=True, slots=True)
class Toss(Event):
    type: ClassVar[str] = "toss"
    doc: ClassVar[str] = "toss cards by seat, the play `order` and the `dealer` (docs/rules.md §6.1)"
    cards: dict[str, str]
    order: list[int]
    dealer: int


@dataclass(frozen=True, slots=True)
class DealStarted(Event):
    type: ClassVar[str] = "deal_started"
    doc: ClassVar[str] = (
        "a deal was dealt (docs/rules.md §6.3); `commitment` is the SHA-256 of the secret server seed"
    )
    deal_no: int
    order: list[int]
    dealer: int
    first: int
    cut_joker: str
    wild_rank: int
    open_card: str
    closed_count: int
    #: SHA-256 of the deal's secret server seed (docs/fairness.md), revealed in `deal_over`.
    commitment: str
    #: The players' seeds mixed into the shuffle, by engine seat.
    client_seeds: list[str]


@dataclass(frozen=True, slots=True)
class Turn(Event):
    type: ClassVar[str] = "turn"
    doc: ClassVar[str] = "`seat` is on turn until `deadline` (ms) (docs/rules.md §6.4)"
    seat: int
    deal_no: int
    started_at: int
    deadline: int


@dataclass(frozen=True, slots=True)
class Draw(Event):
    type: ClassVar[str] = "draw"
    doc: ClassVar[str] = "`seat` drew from `source`; `card` only from the open pile"
    seat: int
    source: Literal["closed", "open"]
    card: str | None = dataclasses.field(default=None, metadata=OMIT_NONE)


@dataclass(frozen=True, slots=True)
class Discard(Event):
    type: ClassVar[str] = "discard"
    doc: ClassVar[str] = "`seat` discarded `card`; `auto`: by the server (missed turn, leaving)"
    seat: int
    card: str
    auto: bool


@dataclass(frozen=True, slots=True)
class Reshuffle(Event):
    type: ClassVar[str] = "reshuffle"
    doc: ClassVar[str] = "the open pile but its top became the closed deck (docs/rules.md §6.6)"
    closed_count: int
    open_top: str


@dataclass(frozen=True, slots=True)
class ExtraTime(Event):
    type: ClassVar[str] = "extra_time"
    doc: ClassVar[str] = (
        "`seat`'s turn time ran out; its bank of `bank_ms` runs to `deadline` (docs/rules.md §6.9)"
    )
    seat: int
    bank_ms: int
    deadline: int


@dataclass(frozen=True, slots=True)
class TurnMissed(Event):
    type: ClassVar[str] = "turn_missed"
    doc: ClassVar[str] = "`seat` missed its turn; `misses` in a row so far (docs/rules.md §6.10)"
    seat: int
    misses: int


@dataclass(frozen=True, slots=True)
class Drop(Event):
    type: ClassVar[str] = "drop"
    doc: ClassVar[str] = (
        "`seat` is out of the deal with `points`; `reason`: `drop`, `auto_drop`, `missed_turns`, `left`"
    )
    seat: int
    points: int
    reason: str


@dataclass(frozen=True, slots=True)
class Finish(Event):
    type: ClassVar[str] = "finish"
    doc: ClassVar[str] = (
        "`seat` put a card in the finish slot and must show by `deadline` (docs/rules.md §4.1)"
    )
    seat: int
    deadline: int


@dataclass(frozen=True, slots=True)
class Declaration(Event):
    type: ClassVar[str] = "declaration"
    doc: ClassVar[str] = (
        "the declarer's show: `valid`, `points` (0 or the wrong show), the `groups` shown; valid: the losers "
        "show by `deadline`; wrong: `open_top` (the finish card, now discarded) and `reason` "
        "(`invalid`, `no_show`: not shown in time, `left`) (docs/rules.md §4)"
    )
    seat: int
    valid: bool
    points: int
    groups: list[list[str]]
    deadline: int | None
    open_top: str | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class Show(Event):
    type: ClassVar[str] = "show"
    doc: ClassVar[str] = (
        "a loser's show after a valid declaration (or at the deadline, their arrangement): `points`, "
        "`deal_show` (halved, docs/rules.md §5.5), `groups`"
    )
    seat: int
    points: int
    deal_show: bool
    groups: list[list[str]]


@dataclass(frozen=True, slots=True)
class DealOver(Event):
    type: ClassVar[str] = "deal_over"
    doc: ClassVar[str] = (
        "the deal's result sheet: `winner`, `declarer`, `finish_card`, and by seat `players`: "
        "`{status, points, deal_show, reason, groups}`; `server_seed` revealed to the game's seats "
        "(absent for a spectator, docs/fairness.md)"
    )
    deal_no: int
    winner: int | None
    declarer: int | None
    cut_joker: str
    wild_rank: int
    finish_card: str | None
    players: dict[str, DealPlayerResult]
    #: The client seeds and the commitment (docs/fairness.md).
    client_seeds: list[str]
    commitment: str
    #: The revealed server seed: to the game's seats only, who check the shuffle with it; with
    #: the client seeds it opens every hand of the deal, which a spectator never saw.
    server_seed: str | None = dataclasses.field(default=None, metadata=SEATS_ONLY)


class DealPlayerResult(TypedDict):
    """A seat's line of a deal's result sheet."""

    status: str
    """Its ``deal.SeatStatus``."""
    points: int
    deal_show: bool
    reason: str | None
    """Why it was out of the deal: ``first_drop``, ``middle_drop``, ``wrong_show``, ``missed_turns``, ``auto_drop``, ``left``..."""
    groups: list[list[str]] | None


# ---------------------------------------------------------------------- the pool game
@dataclass(frozen=True, slots=True)
class Scores(Event):
    type: ClassVar[str] = "scores"
    doc: ClassVar[str] = (
        "the deal's `points` and running `scores` by seat, who was `eliminated`, `drops_remaining`"
    )
    deal_no: int
    points: dict[str, int]
    scores: dict[str, int]
    eliminated: list[int]
    drops_remaining: dict[str, int]


@dataclass(frozen=True, slots=True)
class Eliminated(Event):
    type: ClassVar[str] = "eliminated"
    doc: ClassVar[str] = "`seat` reached the pool limit with `score` (docs/rules.md §7.3)"
    seat: int
    score: int


@dataclass(frozen=True, slots=True)
class RejoinOffer(Event):
    type: ClassVar[str] = "rejoin_offer"
    doc: ClassVar[str] = "`seats` may rejoin at `score` for `fee` until `deadline` (docs/rules.md §7.4-7.7)"
    seats: list[int]
    score: int
    fee: int
    deadline: int


@dataclass(frozen=True, slots=True)
class Rejoined(Event):
    type: ClassVar[str] = "rejoined"
    doc: ClassVar[str] = (
        "`seat` rejoined at `score`, paying `fee`; the `prize_pool` now (the server charges `fee`)"
    )
    seat: int
    score: int
    fee: int
    prize_pool: int


@dataclass(frozen=True, slots=True)
class SplitOffer(Event):
    type: ClassVar[str] = "split_offer"
    doc: ClassVar[str] = (
        "a manual split of `amounts` by seat is offered until `deadline` (docs/rules.md §8.1)"
    )
    amounts: dict[str, int]
    deadline: int


@dataclass(frozen=True, slots=True)
class SplitAccepted(Event):
    type: ClassVar[str] = "split_accepted"
    doc: ClassVar[str] = "`seat` accepted the split"
    seat: int


@dataclass(frozen=True, slots=True)
class SplitDeclined(Event):
    type: ClassVar[str] = "split_declined"
    doc: ClassVar[str] = "`seat` declined the split (`null`: the offer's time ran out)"
    seat: int | None


@dataclass(frozen=True, slots=True)
class NextDeal(Event):
    type: ClassVar[str] = "next_deal"
    doc: ClassVar[str] = "deal `deal_no` starts `at` (ms)"
    deal_no: int
    at: int


@dataclass(frozen=True, slots=True)
class PlayerLeft(Event):
    type: ClassVar[str] = "player_left"
    doc: ClassVar[str] = "`seat` left the game for good (docs/rules.md §7.9)"
    seat: int


@dataclass(frozen=True, slots=True)
class GameOver(Event):
    type: ClassVar[str] = "game_over"
    doc: ClassVar[str] = (
        "the end: `payouts` and `scores` by player id, `rake`, `prize_pool`, `fees_paid`, `winner` (player id) "
        "and `winner_seat`, or `split` (`manual`/`auto`); the server settles exactly these amounts"
    )
    payouts: dict[str, int]
    rake: int
    prize_pool: int
    fees_paid: int
    winner: str | None
    winner_seat: int | None
    split: SplitKind | None
    scores: dict[str, int]


@dataclass(frozen=True, slots=True)
class GameCancelled(Event):
    type: ClassVar[str] = "game_cancelled"
    doc: ClassVar[str] = (
        "staff cancelled the game (or closed the table of a game still waiting for players): their "
        "`message` to the players, the `settlement` (`refund`, `split` or `none`), `payouts` by player id "
        "and `rake`; the server settled exactly these amounts"
    )
    message: str
    settlement: Settlement
    payouts: dict[str, int]
    rake: int


#: Every event type, by wire name, in the order docs/protocol.md lists them.
CATALOGUE: dict[str, type[Event]] = {
    cls.type: cls
    for cls in (
        SeatTaken,
        SeatLeft,
        GameStarted,
        Toss,
        DealStarted,
        Turn,
        Draw,
        Discard,
        Reshuffle,
        ExtraTime,
        TurnMissed,
        Drop,
        Finish,
        Declaration,
        Show,
        DealOver,
        Scores,
        Eliminated,
        RejoinOffer,
        Rejoined,
        SplitOffer,
        SplitAccepted,
        SplitDeclined,
        NextDeal,
        PlayerLeft,
        GameOver,
        GameCancelled,
    )
}


#: The fields of each event type that go to the game's seats alone (``SEATS_ONLY``).
SEATS_ONLY_FIELDS: dict[str, frozenset[str]] = {
    name: frozenset(f.name for f in dataclasses.fields(cls) if f.metadata.get("seats_only"))
    for name, cls in CATALOGUE.items()
    if any(f.metadata.get("seats_only") for f in dataclasses.fields(cls))
}


if TYPE_CHECKING:  # mypy reads no TypedDict made at run time; the schema and the page's types do
    DealResult = dict[str, Any]
    GameResult = dict[str, Any]
else:
    DealResult = fields_shape(
        DealOver,
        "DealResult",
        "A deal's result sheet: the ``deal_over`` event's fields (``DealState.public_result``).",
    )
    GameResult = fields_shape(
        GameOver,
        "GameResult",
        "The end of a game: the ``game_over`` event's fields (a view's and a game's ``result``).",
    )


def for_spectators(message: dict[str, Any]) -> dict[str, Any]:
    """An event's wire object as a spectator gets it: without its ``SEATS_ONLY`` fields.

    A spectator (anyone at the table without a seat in the game, staff included) sees what
    the table showed; the seed that opens every hand of a finished deal is for its players,
    who verify the shuffle with it (docs/fairness.md). ``message`` itself is returned when
    nothing in it is for the seats only.
    """
    return _without(message, SEATS_ONLY_FIELDS.get(message.get("type", ""), frozenset()))


def events_for_spectators(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``for_spectators`` of each event; the list itself when none holds a field for the seats only."""
    if not any(m.get("type") in SEATS_ONLY_FIELDS for m in messages):
        return messages
    return [for_spectators(m) for m in messages]


def result_for_spectators(result: dict[str, Any] | None) -> dict[str, Any] | None:
    """A deal's result sheet (``DealState.public_result``, the ``deal_over`` event's fields) as a
    spectator sees it: without the server seed (``for_spectators``)."""
    return None if result is None else _without(result, SEATS_ONLY_FIELDS[DealOver.type])


def _without(data: dict[str, Any], hidden: frozenset[str]) -> dict[str, Any]:
    """``data`` less the ``hidden`` keys; ``data`` itself when it holds none of them."""
    return data if hidden.isdisjoint(data) else {k: v for k, v in data.items() if k not in hidden}


def fields_of(cls: type[Event]) -> list[str]:
    """The wire fields of an event type, in order (``type`` first is implied)."""
    return [f.name for f in dataclasses.fields(cls)]


def type_words(annotation: str, aliases: Mapping[str, Any] | None = None) -> str:
    """A field's annotation in docs/protocol.md's words: ``int or null``, ``"refund" or "split"``,
    ``true`` (``Literal[True] | None``, a flag sent only when set); a name in ``aliases`` that stands
    for a ``Literal`` is written as its values."""
    for name, alias in (aliases or {}).items():
        if get_origin(alias) is Literal:
            values = ", ".join(repr(v) for v in get_args(alias))
            annotation = re.sub(rf"\b{name}\b", f"Literal[{values}]", annotation)
    text = annotation.replace("Literal[True] | None", "true").replace(" | None", " or null")
    text = text.replace("Literal[True]", "true").replace("Literal[False]", "false")
    text = re.sub(r"Literal\[(.*?)\]", lambda m: m.group(1).replace("'", '"').replace(", ", " or "), text)
    return text.replace("|", "or")


def protocol_table() -> str:
    """The event section's table of docs/protocol.md, made from the catalogue (a test keeps them equal)."""
    lines = ["| event | fields | when |", "|---|---|---|"]
    for name, cls in CATALOGUE.items():
        parts = []
        for f in dataclasses.fields(cls):
            kind = type_words(str(f.type), globals())
            absent = " (absent when null)" if f.metadata.get("omit_none") else ""
            if f.metadata.get("seats_only"):
                kind, absent = (
                    kind.removesuffix(" or null"),
                    " (the game's seats only: absent for a spectator)",
                )
            parts.append(f"`{f.name}`: {kind}{absent}")
        lines.append(f"| `{name}` | {', '.join(parts)} | {cls.doc} |")
    return "\n".join(lines) + "\n"


#: What a deadline is for.
DeadlineKind = Literal["turn", "extra", "declare", "next_deal", "rejoin", "split"]


@dataclass(frozen=True, slots=True)
class Deadline:
    """When the server must send ``{"type": "timeout", "at": at_ms}``: ``seat``'s clock, or the
    table's (None)."""

    at_ms: int
    kind: DeadlineKind
    seat: int | None = None
