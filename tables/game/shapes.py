"""What the game's selectors return to the JSON API, declared once: the API documents each shape
with a serializer made from it (``core.typed_api.serializer_for``)."""

from __future__ import annotations

from typing_extensions import TypedDict

from game_engine.events import SplitKind
from tables.contract import GameStatus, TableFormat


class GamePlayer(TypedDict):
    seat: int
    name: str
    is_bot: bool


class GameRejoin(TypedDict):
    seat: int
    score: int
    fee: int
    """Paise."""


class GameDeal(TypedDict):
    number: int
    deal_id: int
    """Its replay: /api/history/deals/{deal_id}/ once finished."""
    finished: bool
    winner: int | None
    """Seat."""
    points: dict[str, int] | None
    """By seat; null while running."""
    scores: dict[str, int] | None
    """Running scores after it, by seat."""
    eliminated: list[int]
    """Seats out after it."""
    rejoined: list[GameRejoin]
    left: list[int]
    """Seats that left for good."""


class GamePayoutRow(TypedDict):
    seat: int | None
    amount: int
    """Paise."""
    amount_display: str


class GamePayout(TypedDict):
    """The end of the game; ``over`` false (and the rest null or empty) until then."""

    over: bool
    cancelled: bool
    """Staff cancelled the game (its fees refunded or shared)."""
    message: str | None
    """A cancelled game: what staff told the players; else null."""
    split: SplitKind | None
    """How the prize was split; null: a winner took it."""
    winner_seat: int | None
    prize_pool: int | None
    """Paise."""
    rake: int | None
    """Paise."""
    fees_paid: int | None
    """Paise."""
    payouts: list[GamePayoutRow]
    prize_pool_display: str | None
    rake_display: str | None


class GameHistory(TypedDict):
    """One pool game: each deal's points and running scores, eliminations, rejoins and departures,
    the split or payout, and which deals can be replayed."""

    id: int
    table: str
    format: TableFormat
    format_label: str
    status: GameStatus
    started_at: str | None
    """ISO 8601."""
    finished_at: str | None
    """ISO 8601."""
    players: list[GamePlayer]
    deals: list[GameDeal]
    result: GamePayout
