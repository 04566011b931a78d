"""The games' digests as the scan stores them: each finished game digested once (``integrity.digest``),
and again when the digest's counts change (``VERSION``)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Exists, OuterRef
from django.utils import timezone

from integrity.digest import VERSION, digest
from integrity.models import (
    GameDigest,
)
from tables.models import GameEvent, PoolGame, Seat

#: How many games of the window one scan digests again when the digest's counts changed
#: (``integrity.digest.VERSION``), the latest first; the rest wait for the next runs, read
#: meanwhile as their old digest counted them.
REDIGEST_PER_RUN = 20_000


def digest_game(game: PoolGame) -> dict[str, Any] | None:
    """The digest of one finished game, from its event log, seats and final state."""
    seats = {
        s.engine_seat: (s.user_id, s.is_bot)
        for s in Seat.objects.filter(game=game, engine_seat__isnull=False).only(
            "engine_seat", "user_id", "is_bot"
        )
        if s.engine_seat is not None
    }
    state_players = (game.state or {}).get("players") or []
    n = max(len(state_players), max(seats, default=-1) + 1)
    players: list[str | None] = []
    fees: list[int] = []
    for i in range(n):
        user_id, is_bot = seats.get(i, (None, True))
        players.append(None if is_bot or user_id is None else str(user_id))
        fees.append(int(state_players[i].get("fees_paid", 0)) if i < len(state_players) else 0)
    events = (
        {"type": t, **(data or {})}
        for t, data in GameEvent.objects.filter(game=game)
        .order_by("seq")
        .values_list("type", "data")
        .iterator()
    )
    return digest(events, players, fees, game.table.settings.entry_fee)


def digest_new_games(*, batch: int = 500) -> int:
    """Digest every finished or cancelled game that has none yet; returns how many."""
    done = 0
    while True:
        games = list(
            PoolGame.objects.filter(status__in=[PoolGame.Status.FINISHED, PoolGame.Status.CANCELLED])
            # an anti-join: NOT IN over a million digests would scan them once per game
            .filter(~Exists(GameDigest.objects.filter(game_id=OuterRef("pk"))))
            .select_related("table__settings")
            .order_by("pk")[:batch]
        )
        if not games:
            return done
        rows = []
        for game in games:
            data = digest_game(game) if game.status == PoolGame.Status.FINISHED else None
            rows.append(GameDigest(game=game, finished_at=game.finished_at or timezone.now(), data=data))
        GameDigest.objects.bulk_create(rows, ignore_conflicts=True)
        done += len(rows)


def redigest_stale_games(*, since: datetime, limit: int = REDIGEST_PER_RUN, batch: int = 500) -> int:
    """Digest again the window's games whose digest an older ``VERSION`` made, the latest first, so
    the signals read what the digest counts now (a new way of conceding, say); returns how many."""
    done = 0
    while done < limit:
        rows = list(
            GameDigest.objects.filter(finished_at__gte=since, data__isnull=False, data__v__lt=VERSION)
            .select_related("game__table__settings")
            .order_by("-finished_at", "-pk")[: min(batch, limit - done)]
        )
        if not rows:
            break
        for row in rows:
            row.data = digest_game(row.game)
        GameDigest.objects.bulk_update(rows, ["data"])
        done += len(rows)
    return done
