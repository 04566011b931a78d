"""The server's clock, in one place so tests can move time instead of sleeping."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from django.utils import timezone


def now() -> datetime:
    return timezone.now()


class OffsetClock:
    """Real time plus an offset moved forward by hand: tests and simulations skip waits."""

    def __init__(self) -> None:
        self.offset = timedelta(0)

    def now(self) -> datetime:
        return timezone.now() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += timedelta(seconds=seconds)


def now_ms() -> int:
    return to_ms(now())


def to_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def from_ms(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, tz=UTC)
