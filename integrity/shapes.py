"""What the integrity selectors (``integrity.selectors``) give the integrity pages and the staff
player page, declared once: the templates read these keys, so a key renamed here is renamed there."""

from __future__ import annotations

from typing import Any, TypedDict


class SignalSummary(TypedDict):
    """One signal on the signals index (``admin/integrity/signals.html``)."""

    signal: str
    title: str
    rule: str
    rows: int
    """The rows the last scan left."""
    flagged: int
    """Of them, the flagged ones."""
    open_flags: int
    url: str


class UserLink(TypedDict):
    """A player named and linked to their admin page."""

    name: str
    url: str


class GameLink(TypedDict):
    """A game by its id, linked to its admin page."""

    id: int
    url: str


class SignalPageRow(TypedDict):
    """One row of a signal page (``admin/integrity/signal.html``)."""

    a: UserLink | None
    """The player the signal reads; of a pair, the loser of the chips, the one who dropped, or the one
    whose discards were taken."""
    b: UserLink | None
    """The other of a pair; None for a signal about one player."""
    # each signal names its own figures (``integrity.selectors.readable``): the page lists them all
    figures: dict[str, Any]
    games: list[GameLink]
    more_games: int
    """Games behind it beyond those listed."""
    flagged: bool
    score: float


class DealLink(TypedDict):
    """A finished deal, linked to its face-up replay from the flag."""

    number: int
    url: str


class FlagGame(GameLink):
    """A game behind a flag with its finished deals (``admin/integrity/flag.html``)."""

    deals: list[DealLink]


class FlagGameGroup(TypedDict):
    """The first, the latest or all the games behind a flag, under a heading of the flag page."""

    label: str
    id: str
    """The heading's HTML id."""
    games: list[FlagGame]


class PlayerSectionRow(TypedDict):
    """One line of a player's integrity section: what it is, its words, a link where there is one."""

    label: str
    value: str
    link: str | None


class PlayerSection(TypedDict):
    """An integrity section of the staff player page (``staff.selectors.integrity_sections``)."""

    title: str
    rows: list[PlayerSectionRow]
