"""Every refusal a client is told about, and the one catalogue of their codes.

A client sees an error as ``{code, rule, message}`` (docs/protocol.md, the JSON API): the
socket's ``result``, ``evaluation`` and ``error`` messages and every API error body. Its
``code`` comes from ``CATALOGUE`` alone: each stable snake_case code names the exception
classes that mean it and the HTTP status the API answers it with. Exception classes carry
no code of their own, so a code is declared once (docs/protocol.md's error table is made
from the catalogue; ``tests/tables/test_contract.py`` keeps the two equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rest_framework import exceptions as drf
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from game_engine.errors import (
    IllegalActionError,
    InvalidArrangementError,
    InvalidCardError,
    NotYourTurnError,
    PoolRuleError,
    RummyError,
    SplitRuleError,
)
from wallet.errors import (
    AppendOnlyViolation,
    DailyTopupAlreadyClaimed,
    DailyTopupNeedsMailbox,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidAmount,
    NothingToRefund,
    NotStaff,
    ReasonRequired,
    SettlementMismatch,
    SpendLimitReached,
    WalletError,
)


class TableError(Exception):
    rule = ""

    def __init__(self, message: str, *, rule: str = "") -> None:
        super().__init__(message)
        if rule:
            self.rule = rule


class TableNotFound(TableError):
    pass


class TableFull(TableError):
    pass


class AlreadySeated(TableError):
    pass


class NotSeated(TableError):
    pass


class GameInProgress(TableError):
    pass


class NoGameRunning(TableError):
    pass


class BadRequest(TableError):
    pass


class TableClosed(TableError):
    pass


class PlayBlocked(TableError):
    """Deactivated, suspended, self-excluded or signed out: the player may not play now (issues 14, 23)."""


class PlayLimitReached(TableError):
    """The player's own daily play-time limit is used up (issue 14, responsible play)."""


class SeatRefused(TableError):
    """A check another app adds to seating refused this seat (``tables.game.seating.seat_requested``:
    integrity keeps linked accounts apart, docs/integrity.md)."""


class ProtocolError(Exception):
    """A socket frame the protocol refuses before anything reads it (``tables.protocol``)."""


class BadAction(ProtocolError):
    """A well-formed frame whose action or ``evaluate`` is not: a field of the wrong type or size."""


#: What a player, a page or an API client is told about (the rest is a bug: a 500, a log line).
REFUSALS: tuple[type[Exception], ...] = (RummyError, TableError, WalletError, ProtocolError)


@dataclass(frozen=True)
class ErrorCode:
    code: str
    #: What the JSON API answers with it (a socket has no status: the code says it all).
    status: int
    #: The exceptions that mean it; a subclass with a code of its own has that one.
    raised_by: tuple[type[Exception], ...]
    #: One line for docs/protocol.md: when a client gets it.
    doc: str


#: Every error code a client may see, in the order docs/protocol.md lists them.
CATALOGUE: tuple[ErrorCode, ...] = (
    # the wire
    ErrorCode(
        "bad_message", 400, (ProtocolError,), "a socket frame that is not a JSON object within the limits"
    ),
    ErrorCode(
        "bad_request",
        400,
        (BadRequest, BadAction, drf.ValidationError, drf.ParseError),
        "an action, `evaluate` or API request with a missing field or one of the wrong type or size",
    ),
    ErrorCode("rate_limited", 429, (drf.Throttled,), "too many messages or requests; this one was ignored"),
    ErrorCode("unavailable", 503, (), "the database could not be reached; send the same action again"),
    ErrorCode(
        "not_authenticated",
        403,
        (drf.NotAuthenticated, drf.AuthenticationFailed),
        "the API needs a logged-in session",
    ),
    ErrorCode("permission_denied", 403, (drf.PermissionDenied,), "not yours to see or do"),
    ErrorCode("not_found", 404, (drf.NotFound,), "no such deal, game or page (or not one you may see)"),
    ErrorCode("method_not_allowed", 405, (drf.MethodNotAllowed,), "the API operation takes another method"),
    ErrorCode("not_acceptable", 406, (drf.NotAcceptable,), "the API answers JSON only"),
    ErrorCode("unsupported_media_type", 415, (drf.UnsupportedMediaType,), "the API reads JSON only"),
    # the tables
    ErrorCode("unknown_table", 404, (TableNotFound,), "there is no such table"),
    ErrorCode("table_closed", 409, (TableClosed,), "the table is closed to new players"),
    ErrorCode("table_full", 409, (TableFull,), "every seat at the table is taken"),
    ErrorCode("already_seated", 409, (AlreadySeated,), "you already have a seat at the table"),
    ErrorCode(
        "not_seated", 409, (NotSeated,), "you have no seat at the table, or are not playing in its game"
    ),
    ErrorCode(
        "game_in_progress", 409, (GameInProgress,), "a game is being played: no joining or leaving now"
    ),
    ErrorCode("no_game", 409, (NoGameRunning,), "no game is being played at the table"),
    ErrorCode(
        "play_blocked",
        409,
        (PlayBlocked,),
        "you may not play now: deactivated, suspended, on a break or signed out (the reason is the message)",
    ),
    ErrorCode(
        "limit_reached",
        409,
        (PlayLimitReached, SpendLimitReached),
        "your own daily limit on play time or on entry fees is used up",
    ),
    ErrorCode(
        "linked_account_at_table",
        409,
        (SeatRefused,),
        "the fair-play rules keep this account apart from someone at the table (docs/integrity.md)",
    ),
    ErrorCode("table_error", 409, (TableError,), "any other refusal of the tables (the message says which)"),
    # the rules (docs/rules.md: `rule` names the section)
    ErrorCode("invalid_card", 400, (InvalidCardError,), "not a card (docs/rules.md §1)"),
    ErrorCode(
        "invalid_arrangement",
        400,
        (InvalidArrangementError,),
        "groups that are not exactly the cards of the hand (docs/rules.md §4)",
    ),
    ErrorCode("not_your_turn", 409, (NotYourTurnError,), "another player is on turn (docs/rules.md §6.4)"),
    ErrorCode("illegal_action", 409, (IllegalActionError,), "the rules do not allow this move now"),
    ErrorCode("pool_rule", 409, (PoolRuleError,), "the pool's rules do not allow it now (docs/rules.md §7)"),
    ErrorCode("split_rule", 409, (SplitRuleError,), "no split to answer, or not yours (docs/rules.md §8)"),
    ErrorCode("rule_error", 409, (RummyError,), "any other rule of the game (`rule` names it)"),
    # chips
    ErrorCode("insufficient_funds", 409, (InsufficientFunds,), "not enough chips for the entry fee"),
    ErrorCode(
        "daily_chips_claimed", 409, (DailyTopupAlreadyClaimed,), "today's free chips were already claimed"
    ),
    ErrorCode(
        "daily_chips_need_mailbox",
        409,
        (DailyTopupNeedsMailbox,),
        "daily free chips go to the one account per confirmed mailbox that earned its sign-up bonus",
    ),
    ErrorCode("nothing_to_refund", 409, (NothingToRefund,), "no entry fee of yours is held in that game"),
    ErrorCode(
        "invalid_amount", 400, (InvalidAmount,), "an amount that is not a positive whole number of paise"
    ),
    ErrorCode("reason_required", 400, (ReasonRequired,), "a staff adjustment must say why"),
    ErrorCode("not_staff", 403, (NotStaff,), "only staff may adjust a wallet"),
    ErrorCode("idempotency_conflict", 409, (IdempotencyConflict,), "a key reused for another posting"),
    ErrorCode(
        "settlement_mismatch", 500, (SettlementMismatch,), "a settlement that does not empty its escrow"
    ),
    ErrorCode("append_only", 500, (AppendOnlyViolation,), "the ledger is never changed, only added to"),
    ErrorCode("wallet_error", 409, (WalletError,), "any other refusal of the ledger"),
    ErrorCode("api_error", 400, (drf.APIException,), "any other refusal of the JSON API"),
    ErrorCode("server_error", 500, (Exception,), "a fault of the server"),
)
CODES: dict[str, ErrorCode] = {entry.code: entry for entry in CATALOGUE}
_BY_CLASS: dict[type[Exception], ErrorCode] = {cls: entry for entry in CATALOGUE for cls in entry.raised_by}


def error_code(error: BaseException) -> ErrorCode:
    """The catalogue's entry for ``error``: that of the nearest of its classes that has one."""
    for cls in type(error).__mro__:
        entry = _BY_CLASS.get(cls)
        if entry is not None:
            return entry
    return CODES["server_error"]


def error_payload(error: BaseException | str, message: str = "", *, rule: str = "") -> dict[str, str]:
    """The one shape of every error a client sees: ``{code, rule, message}`` (``contract.ErrorBody``).

    From an exception: its catalogue code and the rule it enforces (docs/rules.md §n.m), if any;
    from a code of the catalogue: that code with ``message``. Services, APIs and consumers all
    build their errors here, so the wire has one contract (docs/protocol.md).
    """
    if isinstance(error, str):
        if error not in CODES:
            raise ValueError(f"{error!r} is not an error code of tables.errors.CATALOGUE")
        return {"code": error, "rule": rule, "message": message}
    return {
        "code": error_code(error).code,
        "rule": getattr(error, "rule", "") or rule,
        "message": message or _words(error),
    }


def _words(error: BaseException) -> str:
    """What went wrong, for people: an API exception's details flattened into one line."""
    if isinstance(error, drf.APIException):
        return _flatten(error.detail)
    return str(error)


def _flatten(detail: Any) -> str:
    if isinstance(detail, dict):
        return "; ".join(f"{key}: {_flatten(value)}" for key, value in detail.items())
    if isinstance(detail, list):
        return " ".join(_flatten(value) for value in detail)
    return str(detail)


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's ``EXCEPTION_HANDLER``: every API error answers ``{code, rule, message}``, never ``{"detail"}``.

    DRF's own refusals (not logged in, not found, a throttle, a body it cannot parse) keep the
    status and headers DRF gives them; a refusal of the catalogue gets the catalogue's status.
    Anything else is left to Django (a 500, logged).
    """
    response = drf_exception_handler(exc, context)
    if response is not None:  # an APIException, or Http404 / PermissionDenied turned into one
        cause = exc if isinstance(exc, drf.APIException) else _drf_equivalent(response.status_code, exc)
        response.data = error_payload(cause)
        return response
    if isinstance(exc, REFUSALS):
        return Response(error_payload(exc), status=error_code(exc).status)
    return None


def _drf_equivalent(status: int, exc: Exception) -> drf.APIException:
    """The DRF exception that Django's ``Http404`` or ``PermissionDenied`` stands for."""
    return drf.NotFound(str(exc) or None) if status == 404 else drf.PermissionDenied(str(exc) or None)
