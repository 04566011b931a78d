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
