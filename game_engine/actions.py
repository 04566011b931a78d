"""Actions: what a player (or the server's timer) asks the engine to do, one dataclass each.

Wire format: ``{"type": "draw", "seat": 2, "source": "closed", "at": 1700000000000}``.
Cards are notation strings; groups are lists of lists of cards.

These dataclasses are the one declaration of the actions: ``action_from_dict`` reads any of
them from the wire format by their fields' annotations (it is also the table socket's check of
what a player sends, ``tables.protocol.parse_action``), and ``to_dict`` writes one
(``game_engine.codec``). A player never chooses the seat or the time of their action: the
server stamps both (``stamp``); until then they are ``UNSTAMPED``, which ``apply`` refuses.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal, Union, get_args, get_origin, get_type_hints

from game_engine import codec
from game_engine.cards import Card, parse_card
from game_engine.errors import IllegalActionError, InvalidCardError
from game_engine.fairness import SEED_RE

Groups = tuple[tuple[Card, ...], ...]
#: The seat and time of an action the server has not stamped yet.
UNSTAMPED: Final = -1
#: A hand holds at most 14 cards: no arrangement has more groups, nor a group more cards.
MAX_GROUPS: Final = 14
#: The longest way to write a card (``10♠``, ``joker``) with room to spare; nothing longer is read.
MAX_CARD_TEXT: Final = 8


@dataclass(frozen=True, slots=True)
class Action:
    """Base of every action. ``at`` is the time in integer milliseconds."""

    type: ClassVar[str] = ""
    #: A private action changes only what its own player sees (their arrangement): it emits
    #: no event and leaves the public ``version`` and ``now`` as they were (``game.apply``).
    private: ClassVar[bool] = False

    at: int

    @property
    def actor(self) -> int | None:
        """The seat that acts; None for the server's own actions (``Timeout``, ``StartDeal``)."""
        return getattr(self, "seat", None)

    def stamp(self, *, at: int, seat: int | None = None) -> Action:
        """This action at time ``at`` (and by ``seat``): what the server decides, never the sender."""
        if seat is None:
            return dataclasses.replace(self, at=at)
        return dataclasses.replace(self, at=at, seat=seat)  # type: ignore[call-arg]  # only a seat's action is stamped with one; the base class has no seat

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **codec.encoder(type(self))(self)}

    @staticmethod
    def from_dict(d: Any) -> Action:
        return action_from_dict(d)


@dataclass(frozen=True, slots=True)
class StartDeal(Action):
    """Start the next deal (server; the same as a ``timeout`` at the next-deal deadline)."""

    type: ClassVar[str] = "start_deal"


@dataclass(frozen=True, slots=True)
class Timeout(Action):
    """The server's timer fired for ``state.deadline`` (any kind)."""

    type: ClassVar[str] = "timeout"


@dataclass(frozen=True, slots=True)
class Draw(Action):
    type: ClassVar[str] = "draw"
    seat: int
    source: Literal["closed", "open"]


@dataclass(frozen=True, slots=True)
class Discard(Action):
    type: ClassVar[str] = "discard"
    seat: int
    card: Card


@dataclass(frozen=True, slots=True)
class Finish(Action):
    """Place ``card`` in the finish slot; with ``groups`` the show is made at once,
    otherwise the declarer has the declaration time to send ``show``."""

    type: ClassVar[str] = "finish"
    seat: int
    card: Card
    groups: Groups | None = None


@dataclass(frozen=True, slots=True)
class Show(Action):
    """Show the hand in groups: the declarer after ``finish``, or a loser after a valid show."""

    type: ClassVar[str] = "show"
    seat: int
    groups: Groups


@dataclass(frozen=True, slots=True)
class Arrange(Action):
    """Set the player's current grouping (must be exactly their hand); nobody else sees it."""

    type: ClassVar[str] = "arrange"
    private: ClassVar[bool] = True
    seat: int
    groups: Groups


@dataclass(frozen=True, slots=True)
class Drop(Action):
    type: ClassVar[str] = "drop"
    seat: int


@dataclass(frozen=True, slots=True)
class AutoDrop(Action):
    type: ClassVar[str] = "auto_drop"
    seat: int
    on: bool = True


@dataclass(frozen=True, slots=True)
class ImBack(Action):
    type: ClassVar[str] = "im_back"
    seat: int


@dataclass(frozen=True, slots=True)
class Rejoin(Action):
    """Sent by the server after charging the entry fee again (docs/rules.md §7)."""

    type: ClassVar[str] = "rejoin"
    seat: int


@dataclass(frozen=True, slots=True)
class SplitAccept(Action):
    type: ClassVar[str] = "split_accept"
    seat: int


@dataclass(frozen=True, slots=True)
class SplitDecline(Action):
    type: ClassVar[str] = "split_decline"
    seat: int


@dataclass(frozen=True, slots=True)
class Leave(Action):
    """Leave the table / forfeit the game (also declines a rejoin offer)."""

    type: ClassVar[str] = "leave"
    seat: int


@dataclass(frozen=True, slots=True)
class ClientSeed(Action):
    """The player's own seed for the verifiable shuffle (docs/fairness.md), used from the next deal."""

    type: ClassVar[str] = "client_seed"
    seat: int
    seed: str

    def __post_init__(self) -> None:
        if not SEED_RE.match(self.seed):
            raise _bad("'seed' must be 1-64 characters of letters, digits, '_' or '-'")


ACTION_TYPES: dict[str, type[Action]] = {
    cls.type: cls
    for cls in (
        StartDeal,
        Timeout,
        Draw,
        Discard,
        Finish,
        Show,
        Arrange,
        Drop,
        AutoDrop,
        ImBack,
        Rejoin,
        SplitAccept,
        SplitDecline,
        Leave,
        ClientSeed,
    )
}
#: What a player may send: every action with a seat (the rest are the server's timer).
PLAYER_ACTIONS: dict[str, type[Action]] = {
    name: cls for name, cls in ACTION_TYPES.items() if "seat" in {f.name for f in dataclasses.fields(cls)}
}
ACTION_TYPES["forfeit"] = Leave


def _bad(msg: str) -> IllegalActionError:
    return IllegalActionError(f"malformed action: {msg}", rule="API")


def _short(value: Any) -> str:
    """A client's value quoted in an error, at most a few dozen characters of it."""
    text = repr(value)
    return text if len(text) <= 34 else text[:32] + "…"


def action_from_dict(d: Any, *, allowed: Mapping[str, type[Action]] = ACTION_TYPES) -> Action:
    """Read an action from the wire format by its dataclass's fields; ``IllegalActionError``
    (rule "API") names the first field that is missing or not of its type. Fields the action
    does not have are ignored. ``allowed``: the action types accepted (a player's, for instance)."""
    if not isinstance(d, Mapping):
        raise _bad("an action must be an object")
    kind = d.get("type")
    cls = allowed.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise _bad(f"unknown action type {_short(kind)}; expected one of {', '.join(sorted(allowed))}")
    kwargs: dict[str, Any] = {}
    for name, (tp, required) in _fields(cls).items():
        if name in d:
            kwargs[name] = _read(tp, d[name], name)
        elif required:
            raise _bad(f"{name!r} is missing")
    return cls(**kwargs)


_FIELDS: dict[type[Action], dict[str, tuple[Any, bool]]] = {}


def _fields(cls: type[Action]) -> dict[str, tuple[Any, bool]]:
    """Each field's annotation and whether it must be given, by name (read once per class)."""
    found = _FIELDS.get(cls)
    if found is None:
        hints = get_type_hints(cls)
        found = _FIELDS[cls] = {
            f.name: (
                hints[f.name],
                f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING,
            )
            for f in dataclasses.fields(cls)
        }
    return found


def _read(tp: Any, value: Any, name: str) -> Any:
    """``value`` as a ``tp`` (the annotation of field ``name``), or ``IllegalActionError``."""
    origin = get_origin(tp)
    if origin is Union or (origin is not None and type(None) in get_args(tp)):
        inner = next(a for a in get_args(tp) if a is not type(None))
        return None if value is None else _read(inner, value, name)
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise _bad(f"{name!r} must be an integer")
    if tp is bool or tp is str:
        if isinstance(value, tp):
            return value
        raise _bad(f"{name!r} must be a {'boolean' if tp is bool else 'string'}")
    if origin is Literal:
        if isinstance(value, str) and value in get_args(tp):
            return value
        raise _bad(f"{name!r} must be {' or '.join(repr(a) for a in get_args(tp))}")
    if tp is Card:
        if isinstance(value, Card):
            return value
        if not isinstance(value, str) or len(value) > MAX_CARD_TEXT:
            raise _bad(f"{name!r} must be a card such as '10H'")
        try:
            return parse_card(value)
        except InvalidCardError as exc:
            raise _bad(f"{name!r}: {exc}") from exc
    if tp == Groups:
        if not isinstance(value, list | tuple) or len(value) > MAX_GROUPS:
            raise _bad(f"{name!r} must be at most {MAX_GROUPS} lists of at most {MAX_GROUPS} cards")
        out = []
        for group in value:
            if not isinstance(group, list | tuple) or len(group) > MAX_GROUPS:
                raise _bad(f"{name!r} must be at most {MAX_GROUPS} lists of at most {MAX_GROUPS} cards")
            out.append(tuple(_read(Card, card, name) for card in group))
        return tuple(out)
    raise TypeError(f"no reading of {tp!r} for action field {name!r}")  # pragma: no cover
