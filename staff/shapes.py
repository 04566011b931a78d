"""What the staff selectors give the staff pages (the game page, its live hands, the player page,
the dashboard), declared once: the templates read these keys, so a key renamed here is renamed
there."""

from __future__ import annotations

from datetime import datetime
from typing import NotRequired, TypedDict

from accounts.models import User
from game_engine.events import Deadline
from game_engine.game import GameState
from tables.game.shapes import DealDetail, DealFairness
from tables.models import PoolGame, Seat
from wallet.models import LedgerCheck


# ---------------------------------------------------------------------- the player page
class SectionCell(TypedDict):
    """A cell of an integrity section's table (``admin/staff/player.html``)."""

    text: str
    link: NotRequired[str | None]


class IntegritySection(TypedDict):
    """An integrity section of the player page (``staff.selectors.integrity_sections``)."""

    id: str
    """The heading's HTML id, after ``integrity-``."""
    title: str
    columns: list[str]
    rows: list[list[SectionCell]]


class LimitRow(TypedDict):
    """One setting of a player's daily limits on the player page, in words."""

    kind: str
    value: str
    asked: str
    effective: str
    state: str
    """In effect, waiting, or replaced."""


# ---------------------------------------------------------------------- the game page
class CardFace(TypedDict):
    """A card as ``admin/staff/_card.html`` draws it."""

    code: str
    rank: str
    suit: str
    """The suit's symbol (``JKR``: the printed joker)."""
    red: bool
    joker: bool


class HandCount(TypedDict):
    name: str
    cards: int


class LiveDeal(TypedDict):
    """What every staff member sees of a running game on its page: what the players all see. The
    deal's parts (from ``turn`` on) are there only while a deal is being played."""

    phase: str
    """In words."""
    deal_no: int
    deadline: Deadline | None
    turn: NotRequired[str]
    """The name of the player on turn."""
    has_drawn: NotRequired[bool]
    cut_joker: NotRequired[CardFace]
    wild_rank: NotRequired[int]
    open_top: NotRequired[CardFace | None]
    """The open pile's top card; None: the pile is empty."""
    closed_count: NotRequired[int]
    hand_counts: NotRequired[list[HandCount]]


class LiveHand(TypedDict):
    name: str
    status: str
    """The seat's standing in the deal."""
    on_turn: bool
    cards: list[CardFace]


class LiveHands(LiveDeal):
    """The live hands page (``admin/staff/live_hands.html``): every hand and the closed deck too."""

    closed: list[CardFace]
    """The closed deck, the next card drawn first."""
    hands: list[LiveHand]


class GamePagePlayer(TypedDict):
    """A seat of a started game on the game page."""

    seat: int
    name: str
    user: User | None
    score: int
    drops_remaining: int
    eliminated: bool
    left: bool
    rejoins: int
    fees_paid: str
    auto_drop: bool
    blocked: str | None
    """Why the player may not play now; None: they may."""


class GamePageDealLine(TypedDict):
    """A seat's line of a deal on the game page."""

    name: str
    status: str
    reason: str
    """Why the seat dropped (or showed wrong), if it did; else empty."""
    points: int
    score: int | str
    """The running score after the deal; empty when the deal's result has none."""


class GamePageDeal(TypedDict):
    """A deal on the game page, with its replay once it is over."""

    number: int
    finished: datetime | None
    winner: str
    """The winner's name, or a dash."""
    rows: list[GamePageDealLine]
    replay: str | None


class GamePageResult(TypedDict):
    """The end of a game on the game page: how it was settled and who was paid, in rupees."""

    cancelled: bool
    reason: str
    rule: str
    settlement: str
    winner: str | None
    payouts: list[tuple[str, str]]
    """(name, amount) of each payout made."""
    rake: str
    prize_pool: str


class GamePage(TypedDict):
    """Everything the staff game page shows (``admin/staff/game.html``), amounts in rupees."""

    game: PoolGame
    state: GameState | None
    """None before the start."""
    seats: list[Seat]
    entry_fee: str
    fees_paid: str
    prize_pool: str
    rake: str
    players: list[GamePagePlayer]
    """Empty before the start (the page lists the seats then)."""
    live: LiveDeal | None
    """None unless the game is running."""
    deals: list[GamePageDeal]
    result: GamePageResult | None


# ---------------------------------------------------------------------- the dashboard
class ChartBar(TypedDict):
    """A day's bar of the rake chart, in SVG units, with its labels."""

    x: float
    y: float
    w: float
    h: float
    label: str
    """The tooltip."""
    day: str
    money: str
    value: str
    """Above the bar, short; empty for no rake."""
    vx: float
    vy: float
    tick: str
    """The x axis's label under it, every fifth day; else empty."""
    tx: float


class ChartGridline(TypedDict):
    y: float
    label: str


class RakeChart(TypedDict):
    """The dashboard's rake chart as SVG geometry (``staff.rake_chart.rake_chart``)."""

    width: int
    height: int
    left: int
    right: int
    top: int
    baseline: int
    bars: list[ChartBar]
    grid: list[ChartGridline]
    tick_y: int
    axis_title_y: int
    mid_x: float
    max: str
    total: str
    zone: str


class OverdueTimer(TypedDict):
    """An open game past its deadline, on the dashboard."""

    game: int
    table: str
    status: str
    deadline: str
    """The deadline's kind."""
    late: str
    url: str


class StuckGame(TypedDict):
    """A running game nothing will move on, on the dashboard."""

    game: int
    table: str
    why: str
    last_event: datetime | None
    url: str


class DashboardFigures(TypedDict):
    """Everything the staff dashboard shows (``admin/staff/dashboard.html``), amounts in rupees."""

    zone: str
    today: str
    tables_running: int
    tables_waiting: int
    players_seated: int
    players_connected: int
    games_today: int
    games_finished_today: int
    games_cancelled_today: int
    deals_today: int
    chips_in_circulation: str
    chips_in_wallets: str
    chips_in_bonus: str
    chips_in_escrow: str
    house: str
    balances_sum_to_zero: bool
    timers_overdue: int
    overdue: list[OverdueTimer]
    """The first ``staff.dashboard.LISTED`` of them."""
    games_stuck: int
    stuck: list[StuckGame]
    """The first ``staff.dashboard.LISTED`` of them."""
    stuck_minutes: int
    ledger_check: LedgerCheck | None
    """The last ``check_ledger``; None: never run."""
    ledger_checked_at: str | None
    ledger_ok: bool | None
    ledger_problems: list[str]
    chart: RakeChart
    rake_today: str


# ---------------------------------------------------------------------- a deal face up
class FaceUp(TypedDict):
    """A finished deal with every hand: the deal page's data (``templates/tables/deal.html``), served by
    ``staff.replays`` once the look is recorded."""

    deal: DealDetail
    fairness: DealFairness | None
