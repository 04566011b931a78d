"""Actions: what a player (or the server's timer) asks the engine to do.

Wire format: ``{"type": "draw", "seat": 2, "source": "closed", "at": 1700000000000}``.
Cards are notation strings; groups are lists of lists of cards.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, ClassVar

from game_engine.cards import Card, parse_card
from game_engine.errors import IllegalActionError, InvalidCardError
from game_engine.fairness import SEED_RE

Groups = tuple[tuple[Card, ...], ...]


@dataclass(frozen=True, slots=True)
class Action:
    """Base of every action. ``at`` is the time in integer milliseconds."""

    type: ClassVar[str] = ""
    #: Actions the server sends on its own behalf carry no seat.
    needs_seat: ClassVar[bool] = True
    #: A private action changes only what its own player sees (their arrangement): it emits
    #: no event and leaves the public ``version`` and ``now`` as they were (``game.apply``).
    private: ClassVar[bool] = False

    at: int

    @property
    def actor(self) -> int | None:
        return getattr(self, "seat", None)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Card):
                value = value.code
            elif f.name == "groups" and value is not None:
                value = [[c.code for c in g] for g in value]
            out[f.name] = value
        return out

    @staticmethod
    def from_dict(d: Any) -> Action:
        return action_from_dict(d)


@dataclass(frozen=True, slots=True)
class StartDeal(Action):
    """Start the next deal (server; the same as a ``timeout`` at the next-deal deadline)."""

    type: ClassVar[str] = "start_deal"
    needs_seat: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Timeout(Action):
    """The server's timer fired for ``state.deadline`` (any kind)."""

    type: ClassVar[str] = "timeout"
    needs_seat: ClassVar[bool] = False


@dataclass(frozen=True, slots=True)
class Draw(Action):
    type: ClassVar[str] = "draw"
    seat: int
    source: str  # "closed" | "open"


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
ACTION_TYPES["forfeit"] = Leave


def _bad(msg: str) -> IllegalActionError:
    return IllegalActionError(f"malformed action: {msg}", rule="API")


def _int(d: dict[str, Any], key: str) -> int:
    v = d.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise _bad(f"{key!r} must be an integer")
    return v


def _card(v: Any) -> Card:
    try:
        return parse_card(v)
    except InvalidCardError as exc:
        raise _bad(str(exc)) from exc


def _groups(v: Any) -> Groups:
    if not isinstance(v, list | tuple):
        raise _bad("'groups' must be a list of lists of cards")
    out = []
    for g in v:
        if not isinstance(g, list | tuple):
            raise _bad("'groups' must be a list of lists of cards")
        out.append(tuple(c if isinstance(c, Card) else _card(c) for c in g))
    return tuple(out)


def action_from_dict(d: Any) -> Action:
    """Parse the wire format; raises ``IllegalActionError`` (rule "API") when malformed."""
    if not isinstance(d, dict):
        raise _bad("an action must be an object")
    kind = d.get("type")
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise _bad(f"unknown action type {kind!r}")
    cls = ACTION_TYPES[kind]
    kwargs: dict[str, Any] = {"at": _int(d, "at")}
    for f in dataclasses.fields(cls):
        name = f.name
        if name == "at":
            continue
        if name == "seat":
            kwargs["seat"] = _int(d, "seat")
            if kwargs["seat"] < 0:
                raise _bad("'seat' must be non-negative")
        elif name == "source":
            src = d.get("source")
            if src not in ("closed", "open"):
                raise _bad("'source' must be 'closed' or 'open'")
            kwargs["source"] = src
        elif name == "card":
            kwargs["card"] = _card(d.get("card"))
        elif name == "groups":
            if d.get("groups") is None and cls is Finish:
                kwargs["groups"] = None
            else:
                kwargs["groups"] = _groups(d.get("groups"))
        elif name == "on":
            on = d.get("on", True)
            if not isinstance(on, bool):
                raise _bad("'on' must be a boolean")
            kwargs["on"] = on
        elif name == "seed":
            seed = d.get("seed")
            if not isinstance(seed, str) or not SEED_RE.match(seed):
                raise _bad("'seed' must be 1-64 characters of letters, digits, '_' or '-'")
            kwargs["seed"] = seed
    return cls(**kwargs)
