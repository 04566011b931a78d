"""The table socket's wire format, checked before anything else sees a message.

A client may send anything: text that is not JSON, binary frames, megabytes,
JSON nested thousands deep, a dict where a card belongs, NUL characters or
unpaired surrogates (PostgreSQL refuses both inside JSON). Every frame goes
through ``parse_frame`` and every action through ``parse_action``; what they
refuse raises ``ProtocolError`` (``bad_message``; ``BadAction``, ``bad_request``, for an action), which the consumer answers as an error without
touching the database. Errors never echo what was sent beyond a short excerpt.

An action is read once, here, into the engine's own dataclass (``game_engine.actions``: its
fields' annotations are the schema, strict, no coercion of ``1`` to ``true``); it checks types
and sizes only: whether a card is in the hand or the move is legal is the engine's to say
(docs/rules.md). From here on every caller passes that typed action.
"""

from __future__ import annotations

import dataclasses
import re
import types
from collections.abc import Mapping
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import orjson
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, create_model

from game_engine import actions
from game_engine.actions import MAX_CARD_TEXT, MAX_GROUPS, UNSTAMPED, Action, action_from_dict
from game_engine.cards import Card
from game_engine.errors import RummyError
from tables.errors import BadAction, ProtocolError

#: The largest text frame accepted (a finish or an arrangement is well under 1 KB).
MAX_FRAME_CHARS = 8192
#: The deepest nesting accepted: message -> action -> groups -> group is 4.
MAX_DEPTH = 6
_TOO_DEEP = f"a message may nest at most {MAX_DEPTH} levels deep"
#: Request ids: 1 to 64 characters (docs/protocol.md).
MAX_REQUEST_ID = 64
#: How much of a client's value an error message may quote.
ECHO_CHARS = 32

_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def excerpt(value: Any) -> str:
    """A short, printable quote of a client's value for an error message."""
    text = value if isinstance(value, str) else type(value).__name__
    text = _FORBIDDEN.sub("?", text)
    return repr(text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…")


def clean_text(value: str) -> bool:
    """No control characters (but tab and newlines), no unpaired surrogates."""
    return _FORBIDDEN.search(value) is None


def _depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text``, outside string literals (no recursion).

    Read only for text the parser refused, which may be nested past what it goes into.
    """
    depth = deepest = 0
    for char in _STRING_LITERAL.sub("", text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _nesting(value: Any) -> int:
    """How deep parsed JSON nests (``{"a": [1]}`` is 2, as its brackets are), stopping once past
    ``MAX_DEPTH``. Walks the containers only (orjson makes plain dicts and lists): a message's
    strings and numbers are not visited."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if depth > MAX_DEPTH:
                break
        for child in item.values() if type(item) is dict else item:
            if type(child) is list or type(child) is dict:
                stack.append((child, depth + 1))
    return deepest


def _check_strings(value: Any) -> None:
    """Refuse control characters and surrogates anywhere (iteratively: depth is bounded anyway)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if not clean_text(item):
                raise ProtocolError("text may not hold control characters or unpaired surrogates")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def parse_frame(text: str | None, data: bytes | None) -> dict[str, Any]:
    """One WebSocket frame as a JSON object, or ``ProtocolError``."""
    if text is None:
        raise ProtocolError("binary frames are not accepted; send JSON text")
    if len(text) > MAX_FRAME_CHARS:
        raise ProtocolError(f"a message may be at most {MAX_FRAME_CHARS} characters")
    if not clean_text(text):  # raw control characters or surrogates in the frame itself
        raise ProtocolError("text may not hold control characters or unpaired surrogates")
    try:
        content = orjson.loads(text)
    except orjson.JSONDecodeError:  # also escaped unpaired surrogates, and nesting past the parser's limit
        raise ProtocolError(_TOO_DEEP if _depth(text) > MAX_DEPTH else "a message must be JSON") from None
    if not isinstance(content, dict):
        raise ProtocolError("a message must be a JSON object")
    # Checked on what was parsed, not on the text: scanning every character of every frame for
    # brackets outside strings costs a busy Daphne more than walking the parsed few levels.
    if _nesting(content) > MAX_DEPTH:
        raise ProtocolError(_TOO_DEEP)
    if "\\" in text:  # only an escape (\u0000, \b) makes a character the text itself does not hold
        _check_strings(content)
    return content


def request_id_of(content: dict[str, Any]) -> str | None:
    """The message's request id if it is a usable one (echoed in the answer), else ``None``."""
    rid = content.get("request_id")
    if isinstance(rid, str) and 0 < len(rid) <= MAX_REQUEST_ID and clean_text(rid):
        return rid
    return None


# ---------------------------------------------------------------------------
# what a client sends (docs/protocol.md, "Client -> server"): each message a model below, whose
# JSON Schema is the page's ``ClientMessage`` type (tables/wiredocs.py); an action's fields are
# its engine dataclass's (game_engine/actions.py)
# ---------------------------------------------------------------------------
CardText = Annotated[str, StringConstraints(min_length=1, max_length=MAX_CARD_TEXT)]
Group = Annotated[list[CardText], Field(max_length=MAX_GROUPS)]
Groups = Annotated[list[Group], Field(max_length=MAX_GROUPS)]
RequestId = Annotated[str, StringConstraints(min_length=1, max_length=MAX_REQUEST_ID)]
#: Read strictly (no ``1`` for ``true``); a field the message does not declare is ignored.
_READ = ConfigDict(strict=True, extra="ignore", frozen=True)


class EvaluateMessage(BaseModel):
    """``evaluate``: the engine's verdict on groups; ``wild_rank`` defaults to the current deal's."""

    model_config = _READ
    type: Literal["evaluate"]
    request_id: RequestId
    groups: Groups
    wild_rank: Annotated[int, Field(ge=1, le=13)] | None = None


#: The quick messages' phrases, by the key the page sends (their words: ``tables.realtime.quick.PHRASES``).
QuickPhrase = Literal["good_game", "well_played", "please_hurry", "sorry_connection"]


class QuickRequest(BaseModel):
    """``quick``: one of the table's fixed phrases (``QuickPhrase``), by its key."""

    model_config = _READ
    type: Literal["quick"]
    phrase: QuickPhrase


class SnapshotRequest(BaseModel):
    """``snapshot``: a fresh snapshot; with ``since``, what happened after that version."""

    model_config = _READ
    type: Literal["snapshot"]
    since: Annotated[int, Field(ge=0)] | None = None


class PingMessage(BaseModel):
    """``ping``: answered by ``pong``."""

    model_config = _READ
    type: Literal["ping"]


#: The engine's types of an action's fields, as JSON carries them.
_ON_THE_WIRE: dict[Any, Any] = {Card: CardText, actions.Groups: Groups}


def _action_model(cls: type[Action]) -> type[BaseModel]:
    """The player's action ``cls`` as the page sends it: its dataclass's fields but the seat and
    time, which the server stamps (for the schema: ``parse_action`` reads the dataclass itself)."""
    hints = get_type_hints(cls)
    fields: dict[str, Any] = {"type": (Literal[cls.type], ...)}
    for f in dataclasses.fields(cls):
        if f.name in ("seat", "at"):
            continue
        tp = hints[f.name]
        if get_origin(tp) in (Union, types.UnionType):
            tp = Union[tuple(_ON_THE_WIRE.get(a, a) for a in get_args(tp))]  # noqa: UP007
        wire = _ON_THE_WIRE.get(tp, tp)
        fields[f.name] = (wire, f.default) if f.default is not dataclasses.MISSING else (wire, ...)
    name = "".join(part.title() for part in cls.type.split("_")) + "Action"
    written = cls.__doc__ if cls.__doc__ and not cls.__doc__.startswith(f"{cls.__name__}(") else None
    return create_model(name, __config__=_READ, __doc__=written, **fields)


#: Every action a player sends, by type (``game_engine.actions.PLAYER_ACTIONS``): made at import.
PlayerAction: Any = Annotated[
    Union[tuple(_action_model(cls) for cls in actions.PLAYER_ACTIONS.values())],  # noqa: UP007
    Field(discriminator="type"),
]


class ActionMessage(BaseModel):
    """``action``: one move of the player's, answered by a ``result``."""

    model_config = _READ
    type: Literal["action"]
    request_id: RequestId
    action: PlayerAction  # type: ignore[valid-type]  # a Union made at import from the engine's actions


#: Every message a client sends.
CLIENT_MESSAGES: tuple[type[BaseModel], ...] = (
    ActionMessage,
    EvaluateMessage,
    QuickRequest,
    SnapshotRequest,
    PingMessage,
)


def _first_problem(exc: ValidationError) -> str:
    first = exc.errors(include_url=False, include_input=False, include_context=False)[0]
    where = ".".join(str(part) for part in first["loc"]) or "message"
    return f"{where}: {first['msg']}"


def parse_evaluate(content: dict[str, Any]) -> tuple[list[list[str]], int | None]:
    """The groups and wild rank of an ``evaluate`` message; ``BadAction`` (``bad_request``) if not."""
    try:
        parsed = EvaluateMessage.model_validate(content)
    except ValidationError as exc:
        raise BadAction(f"evaluate: {_first_problem(exc)}") from None
    return [list(g) for g in parsed.groups], parsed.wild_rank


def parse_snapshot(content: dict[str, Any]) -> int | None:
    """The ``since`` of a ``snapshot`` message; ``BadAction`` (``bad_request``) if it is not a version."""
    try:
        return SnapshotRequest.model_validate(content).since
    except ValidationError:
        raise BadAction("snapshot: 'since' must be a version, a whole number from 0") from None


def parse_action(action: Any) -> Action:
    """A player's action, typed, as the engine declares it (``game_engine.actions``): each field
    read by its annotation, fields it does not have ignored, and the seat and time left
    ``UNSTAMPED`` for the server. ``BadAction`` (``bad_request``) if it is not one."""
    if not isinstance(action, dict):
        raise BadAction("'action' must be an object with a 'type'")
    try:
        return action_from_dict(
            {**action, "seat": UNSTAMPED, "at": UNSTAMPED}, allowed=actions.PLAYER_ACTIONS
        )
    except RummyError as exc:
        raise BadAction(str(exc)) from None


def player_action(action: Action | Mapping[str, Any]) -> Action:
    """``action`` as a typed player's action: read (``parse_action``) if it is in the wire format,
    refused (``BadAction``) if it is one of the server's own (a timeout, a deal's start)."""
    if not isinstance(action, Action):
        return parse_action(action)
    if actions.PLAYER_ACTIONS.get(action.type) is not type(action):
        raise BadAction(f"{action.type!r} is not an action a player sends")
    return action


def parse_quick(content: dict[str, Any]) -> QuickPhrase:
    """The phrase key of a ``quick`` message; ``BadAction`` (``bad_request``) if it names none."""
    try:
        return QuickRequest.model_validate(content).phrase
    except ValidationError:
        raise BadAction(f"quick: 'phrase' must be one of {', '.join(get_args(QuickPhrase))}") from None
