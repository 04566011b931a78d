"""Typed errors. Each names the rule it enforces so a player can be told why."""

from __future__ import annotations


class RummyError(ValueError):
    """Base of every rule error; ``rule`` cites RULES.md (for example ``RULES §6``)."""

    rule: str = "RULES"

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule

    @property
    def code(self) -> str:
        return type(self).__name__


class InvalidCardError(RummyError):
    rule = "RULES §1"


class InvalidArrangementError(RummyError):
    rule = "RULES §4"


class IllegalActionError(RummyError):
    rule = "RULES §6"


class NotYourTurnError(IllegalActionError):
    pass


class PoolRuleError(RummyError):
    rule = "RULES §7"


class SplitRuleError(RummyError):
    rule = "RULES §8"
