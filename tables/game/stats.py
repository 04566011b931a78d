"""A player's statistics for their profile (issue 14): games and deals played and won, average
points per deal, drops taken, recent games."""

from __future__ import annotations

from typing import TypedDict

from accounts.models import User
from core.money import format_money
from game_engine.deal import SeatStatus
from tables.models import Deal, PoolGame, Seat


class RecentGame(TypedDict):
    game: PoolGame
    table: str
    status: str
    """The game's status in words."""
    won: bool
    payout: str
    """Rupees won, or a dash."""


class PlayerStats(TypedDict):
    """What the profile page's statistics show."""

    games_played: int
    games_won: int
    deals_played: int
    deals_won: int
    average_points: float
    drops: int
    recent: list[RecentGame]


def player_stats(user: User, *, recent: int = 10) -> PlayerStats:
    seats = list(
        Seat.objects.filter(user=user, engine_seat__isnull=False)
        .select_related("game__table")
        .order_by("-game__started_at")
    )
    seat_in = {s.game_id: str(s.engine_seat) for s in seats}
    finished = [s for s in seats if s.game.status == PoolGame.Status.FINISHED]
    uid = str(user.pk)
    won = sum(1 for s in finished if (s.game.result or {}).get("winner") == uid)
    deals = Deal.objects.filter(game_id__in=seat_in, finished_at__isnull=False).values_list(
        "game_id", "result"
    )
    played = deals_won = drops = points = 0
    for game_id, result in deals:
        outcome = result or {}
        mine = outcome.get("players", {}).get(seat_in[game_id])
        if mine is None:
            continue
        played += 1
        points += int(mine.get("points") or 0)
        deals_won += str(outcome.get("winner")) == seat_in[game_id]
        drops += mine.get("status") == SeatStatus.DROPPED
    history: list[RecentGame] = []
    for s in seats[:recent]:
        result = s.game.result or {}
        payout = int((result.get("payouts") or {}).get(uid) or 0)
        history.append(
            RecentGame(
                game=s.game,
                table=s.game.table.name,
                status=s.game.get_status_display(),
                won=result.get("winner") == uid,
                payout=format_money(payout) if payout else "—",
            )
        )
    return PlayerStats(
        games_played=len(finished),
        games_won=won,
        deals_played=played,
        deals_won=deals_won,
        average_points=round(points / played, 1) if played else 0,
        drops=drops,
        recent=history,
    )
