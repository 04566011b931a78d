"""Typed errors. Each names the rule it enforces so a player can be told why."""

from __future__ import annotations


class RummyError(ValueError):
    """Base of every rule error; ``rule`` cites the rule book (for example ``docs/rules.md §6.5``)."""

    rule: str = "docs/rules.md"

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule


class InvalidCardError(RummyError):
    rule = "docs/rules.md §1"


class InvalidArrangementError(RummyError):
    rule = "docs/rules.md §4"


class IllegalActionError(RummyError):
    rule = "docs/rules.md §6"


class NotYourTurnError(IllegalActionError):
    pass


class PoolRuleError(RummyError):
    rule = "docs/rules.md §7"


class SplitRuleError(RummyError):
    rule = "docs/rules.md §8"
