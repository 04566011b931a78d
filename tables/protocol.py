"""The table socket's wire format, checked before anything else sees a message.

A client may send anything: text that is not JSON, binary frames, megabytes,
JSON nested thousands deep, a dict where a card belongs, NUL characters or
unpaired surrogates (PostgreSQL refuses both inside JSON). Every frame goes
through ``parse_frame`` and every action through ``parse_action``; what they
refuse raises ``ProtocolError``, which the consumer answers as an error without
touching the database. Errors never echo what was sent beyond a short excerpt.

The schema of each action (pydantic, strict: no coercion of ``1`` to ``true``)
checks types and sizes only; whether a card is in the hand or the move is legal
is the engine's to say (docs/rules.md).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StringConstraints, TypeAdapter, ValidationError

from game_engine.actions import ACTION_TYPES

#: The largest text frame accepted (a finish or an arrangement is well under 1 KB).
MAX_FRAME_CHARS = 8192
#: The deepest nesting accepted: message -> action -> groups -> group is 4.
MAX_DEPTH = 6
#: Request ids: 1 to 64 characters (docs/protocol.md).
MAX_REQUEST_ID = 64
#: How much of a client's value an error message may quote.
ECHO_CHARS = 32

_FORBIDDEN = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff]")
_STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


class ProtocolError(Exception):
    """A message the protocol refuses; ``code`` is ``bad_message`` or ``bad_request``."""

    def __init__(self, message: str, *, code: str = "bad_message") -> None:
        super().__init__(message)
        self.code = code


def excerpt(value: Any) -> str:
    """A short, printable quote of a client's value for an error message."""
    text = value if isinstance(value, str) else type(value).__name__
    text = _FORBIDDEN.sub("?", text)
    return repr(text if len(text) <= ECHO_CHARS else text[:ECHO_CHARS] + "…")


def clean_text(value: str) -> bool:
    """No control characters (but tab and newlines), no unpaired surrogates."""
    return _FORBIDDEN.search(value) is None


def _depth(text: str) -> int:
    """The deepest bracket nesting of JSON ``text``, outside string literals (no recursion)."""
    depth = deepest = 0
    for char in _STRING_LITERAL.sub("", text):
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
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
    if _depth(text) > MAX_DEPTH:
        raise ProtocolError(f"a message may nest at most {MAX_DEPTH} levels deep")
    if not clean_text(text):  # raw control characters or surrogates in the frame itself
        raise ProtocolError("text may not hold control characters or unpaired surrogates")
    try:
        content = orjson.loads(text)
    except orjson.JSONDecodeError:  # also escaped unpaired surrogates
        raise ProtocolError("a message must be JSON") from None
    if not isinstance(content, dict):
        raise ProtocolError("a message must be a JSON object")
    _check_strings(content)  # escaped NULs (\u0000) and the like
    return content


def request_id_of(content: dict[str, Any]) -> str | None:
    """The message's request id if it is a usable one (echoed in the answer), else ``None``."""
    rid = content.get("request_id")
    if isinstance(rid, str) and 0 < len(rid) <= MAX_REQUEST_ID and clean_text(rid):
        return rid
    return None


# ---------------------------------------------------------------------------
# the actions (docs/protocol.md)
# ---------------------------------------------------------------------------
CardText = Annotated[str, StringConstraints(min_length=1, max_length=8)]
Group = Annotated[list[CardText], Field(max_length=14)]
Groups = Annotated[list[Group], Field(max_length=14)]


class _Action(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class _Draw(_Action):
    type: Literal["draw"]
    source: Literal["closed", "open"]


class _Discard(_Action):
    type: Literal["discard"]
    card: CardText


class _Finish(_Action):
    type: Literal["finish"]
    card: CardText
    groups: Groups | None = None


class _Show(_Action):
    type: Literal["show"]
    groups: Groups


class _Arrange(_Action):
    type: Literal["arrange"]
    groups: Groups


class _AutoDrop(_Action):
    type: Literal["auto_drop"]
    on: StrictBool = True


class _ClientSeed(_Action):
    """The player's seed for the shuffle (docs/fairness.md), used from the next deal."""

    type: Literal["client_seed"]
    seed: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,64}$")]


class _Bare(_Action):
    type: Literal["drop", "im_back", "rejoin", "split_accept", "split_decline", "leave"]


_ACTION = TypeAdapter(
    Annotated[
        _Draw | _Discard | _Finish | _Show | _Arrange | _AutoDrop | _ClientSeed | _Bare,
        Field(discriminator="type"),
    ]
)
#: Action types a player may send; everything else (timeout, start_deal) is the server's.
PLAYER_ACTIONS = frozenset(
    {"draw", "discard", "finish", "show", "arrange", "drop", "auto_drop"}
    | {"im_back", "rejoin", "split_accept", "split_decline", "leave", "client_seed"}
)


class _Evaluate(BaseModel):
    """``evaluate``: the engine's verdict on groups; ``wild_rank`` defaults to the current deal's."""

    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)
    groups: Groups
    wild_rank: Annotated[int, Field(ge=1, le=13)] | None = None


_EVALUATE = TypeAdapter(_Evaluate)


def parse_evaluate(content: dict[str, Any]) -> tuple[list[list[str]], int | None]:
    """The groups and wild rank of an ``evaluate`` message; ``ProtocolError`` (``bad_request``) if not."""
    try:
        parsed = _EVALUATE.validate_python(content)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False, include_context=False)[0]
        where = ".".join(str(part) for part in first["loc"]) or "message"
        raise ProtocolError(f"evaluate: {where}: {first['msg']}", code="bad_request") from None
    return [list(g) for g in parsed.groups], parsed.wild_rank


#: Actions that change only what their own player sees (``game_engine.actions.Action.private``).
PRIVATE_ACTIONS = frozenset(name for name, cls in ACTION_TYPES.items() if cls.private)


def parse_action(action: Any) -> dict[str, Any]:
    """The action with exactly its schema's fields, typed; ``ProtocolError`` (``bad_request``) if not."""
    if not isinstance(action, dict):
        raise ProtocolError("'action' must be an object with a 'type'", code="bad_request")
    kind = action.get("type")
    if not isinstance(kind, str) or kind not in PLAYER_ACTIONS:
        raise ProtocolError(
            f"unknown action {excerpt(kind)}; expected one of {', '.join(sorted(PLAYER_ACTIONS))}",
            code="bad_request",
        )
    try:
        parsed = _ACTION.validate_python(action)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False, include_context=False)[0]
        where = ".".join(str(part) for part in first["loc"][1:]) or "action"
        raise ProtocolError(f"{kind}: {where}: {first['msg']}", code="bad_request") from None
    return parsed.model_dump(exclude_none=True)
