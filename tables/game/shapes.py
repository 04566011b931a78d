"""What the game's selectors return to the JSON API, declared once: the API documents each shape
with a serializer made from it (``core.typed_api.serializer_for``)."""

from __future__ import annotations

from typing import Any

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


class DealFairness(TypedDict):
    """What "Verify this deal" recomputes the deck from and compares (docs/fairness.md): the deal
    page's script reads it."""

    server_seed: str
    client_seeds: list[str]
    deal_no: int
    decks: int
    commitment: str
    order: list[str]
    """The cards as dealt, top first."""


class ScoreRow(TypedDict):
    """A finished deal on the table page's scoreboard."""

    deal_no: int
    points: dict[str, int]
    """By seat."""
    scores: dict[str, int]
    """Running scores after it, by seat."""
    eliminated: list[int]


class DealReplay(TypedDict):
    """A deal rebuilt from its stored events and revealed seeds (``DealDetail``'s last fields)."""

    replay: list[dict[str, Any]] | None
    replay_error: str | None


class DealDetail(TypedDict):
    """One finished deal: every public event and every shown hand; face up, every hand
    throughout and the replay."""

    id: int
    game_id: int
    table: str
    number: int
    started_at: str
    """ISO 8601."""
    finished_at: str | None
    """ISO 8601."""
    result: dict[str, Any] | None
    """The deal's result event (``deal_over``); not face up, without what opens the hands."""
    events: list[dict[str, Any]]
    """The deal's events as the sockets sent them, each with its game version."""
    face_up: bool
    replay: list[dict[str, Any]] | None
    """Each step: an event and the table after it (``game_engine.replay``); null while the deal
    runs or when not face up."""
    replay_error: str | None
    """Where the stored history and the revealed seeds disagree."""
