"""Errors of the tables service layer, each with a code the client can show."""

from __future__ import annotations


class TableError(Exception):
    code = "table_error"
    rule = ""

    def __init__(self, message: str, *, rule: str = "") -> None:
        super().__init__(message)
        if rule:
            self.rule = rule


class TableNotFound(TableError):
    code = "unknown_table"


class TableFull(TableError):
    code = "table_full"


class AlreadySeated(TableError):
    code = "already_seated"


class NotSeated(TableError):
    code = "not_seated"


class GameInProgress(TableError):
    code = "game_in_progress"


class NoGameRunning(TableError):
    code = "no_game"


class BadRequest(TableError):
    code = "bad_request"


def error_payload(error: Exception | str, message: str = "", *, rule: str = "") -> dict[str, str]:
    """The one shape of every error a client sees: ``{code, rule, message}``.

    From an exception: an engine ``RummyError`` or a ``TableError`` gives its code and
    the rule it enforces (docs/rules.md §n.m), a wallet refusal its class name; from
    a string: that code with ``message``. Services, APIs and consumers all build
    their errors here, so the wire has one contract (docs/protocol.md).
    """
    if isinstance(error, str):
        return {"code": error, "rule": rule, "message": message}
    code = getattr(error, "code", None)
    return {
        "code": code if isinstance(code, str) and code else type(error).__name__,
        "rule": getattr(error, "rule", "") or rule,
        "message": message or str(error),
    }


class TableClosed(TableError):
    code = "table_closed"


class PlayBlocked(TableError):
    """Suspended by staff or self-excluded: the player may not take a seat (issue 14)."""

    code = "play_blocked"


class PlayLimitReached(TableError):
    """The player's own daily play-time limit is used up (issue 14, responsible play)."""

    code = "limit_reached"
