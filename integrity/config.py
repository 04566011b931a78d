"""The fair-play scan's settings as it reads them: thresholds, window, retention, lapse, lists."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings

from integrity import detect
from integrity.models import (
    FIRST_GAMES_LISTED,
    LATEST_GAMES_LISTED,
)


def thresholds() -> detect.Thresholds:
    return detect.Thresholds(**getattr(settings, "INTEGRITY_THRESHOLDS", {}))


def window_days() -> int:
    return int(getattr(settings, "INTEGRITY_WINDOW_DAYS", 90))


def retention_days() -> int:
    return int(getattr(settings, "INTEGRITY_RETENTION_DAYS", 180))


def lapse_hours() -> float:
    return float(getattr(settings, "INTEGRITY_LAPSE_HOURS", 24))


def listed_games(games: Iterable[Any]) -> tuple[list[int], int]:
    """The games a flag lists, in order: its first ones (where the pattern began) and its latest
    (what the pair does now), at most 50 in all; and how many games are behind it."""
    ordered = sorted({int(g) for g in games})
    if len(ordered) <= FIRST_GAMES_LISTED + LATEST_GAMES_LISTED:
        return ordered, len(ordered)
    return ordered[:FIRST_GAMES_LISTED] + ordered[-LATEST_GAMES_LISTED:], len(ordered)
