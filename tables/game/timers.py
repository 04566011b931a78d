"""Timers: every deadline of a game enforced, once, however many times its timer fires.

Each game has one timer task armed for its next deadline (``tables.game.record.arm_timer``);
``game_timeout`` enforces it through ``tables.game.play.run_on_game``, beat's sweep
(``deadlines_sweep``) covers a lost task, and a worker's consumer re-arms every game's timer
when it (re)connects (``timers_rearm``).
"""

from __future__ import annotations

import functools
import logging
from datetime import datetime, timedelta

from django.db import transaction

from game_engine.actions import Action, Timeout
from game_engine.game import GameState
from tables import clock
from tables.errors import NoGameRunning
from tables.game import notify
from tables.game.locks import game_for_update, retry_on_conflict
from tables.game.play import Write, run_on_game
from tables.game.record import DEADLINE, arm_timer, write_game
from tables.game.seating import seat_bots, start_game
from tables.models import PoolGame

logger = logging.getLogger(__name__)

#: The sweep leaves a due deadline to its own timer task for this long first.
SWEEP_GRACE = timedelta(seconds=1)
_OPEN = (PoolGame.Status.WAITING, PoolGame.Status.RUNNING)


@retry_on_conflict
def game_timeout(*, game_id: int, version: int, armed_for: datetime | None = None) -> bool:
    """Enforce the deadline scheduled at ``version``; a stale or early call changes nothing.

    Called by the timer task and by the sweep, possibly more than once for the
    same deadline: only the first call that finds the game still at ``version``
    and the deadline passed changes anything. A timer task passes ``armed_for``,
    the moment it was armed to fire at: if it is still the game's armed timer
    (``PoolGame.timer_at``) and finds nothing to enforce, because the game moved
    on or it fired early, it arms the timer for the game's current deadline.
    """
    enforced = True

    def step(game: PoolGame, state: GameState | None) -> Action | Write | None:
        nonlocal enforced
        if (
            game.version != version
            or game.deadline_at is None
            or game.status not in _OPEN
            or game.deadline_at > clock.now()
        ):
            enforced = False
            if armed_for is not None and game.timer_at == armed_for:
                return lambda: arm_timer(game, again=True)
            return None
        if game.status == PoolGame.Status.RUNNING:
            return Timeout(at=clock.now_ms())
        return lambda: _start_or_stop_countdown(game)

    try:
        ran = run_on_game(game_id, step)
    except NoGameRunning:  # no such game (any more)
        return False
    return ran is not None and enforced


def _start_or_stop_countdown(game: PoolGame) -> None:
    """A waiting game's countdown (or a practice table's wait for bots) is over: start the game
    with the seated players (and bots), or, with fewer than two, stop counting."""
    seats = list(game.seats.filter(left_at__isnull=True))
    if game.deadline_kind == "bots" and seats:
        seats += seat_bots(game, seats)
    if len(seats) >= 2:
        start_game(game, seats)  # the start's own version follows the last one announced
        return
    # a new version, so that the countdown's timer does not fire again
    game.deadline_at = None
    game.deadline_kind = ""
    write_game(game, [], also=DEADLINE)


def deadlines_sweep(*, now: datetime | None = None) -> int:
    """Enforce every deadline that passed without its timer task (a lost or late worker)."""
    cutoff = (now or clock.now()) - SWEEP_GRACE
    due = PoolGame.objects.filter(status__in=_OPEN, deadline_at__lte=cutoff).values_list("pk", "version")
    enforced = 0
    for game_id, version in list(due):
        try:
            enforced += game_timeout(game_id=game_id, version=version)
        except Exception:  # one broken game must not stop the sweep for the others
            logger.exception("deadline sweep failed for game %s", game_id)
    return enforced


#: How much later than the deadline a re-armed timer fires, to give it a name of its own.
REARM_OFFSET = timedelta(milliseconds=1)


def timers_rearm() -> int:
    """Arm a new timer for every open game's deadline; called when a worker's consumer (re)starts.

    The timers a worker held when it or Redis died wait in Redis' unacked hash
    until the visibility timeout (an hour), or are gone: without this, a game whose
    timer was lost moves on only when beat's sweep runs. The new timer gets its own
    name (``timer_at``): a held one that does come back finds it is no longer the
    armed timer and arms nothing, so each game keeps one chain of timers. An
    overdue deadline's timer runs at once.
    """
    ids = PoolGame.objects.filter(status__in=_OPEN, deadline_at__isnull=False).values_list("pk", flat=True)
    armed = 0
    for game_id in list(ids):
        try:
            with transaction.atomic():
                game = game_for_update(game_id)
                due = game.deadline_at
                if due is None or game.status not in _OPEN:
                    continue
                if game.timer_at is not None and game.timer_at >= due:
                    due = game.timer_at + REARM_OFFSET
                game.timer_at = due
                PoolGame.objects.filter(pk=game_id).update(timer_at=due)
                version = game.version
                transaction.on_commit(
                    functools.partial(notify.schedule_timeout, game_id=game_id, version=version, eta=due)
                )
                armed += 1
        except Exception:  # one broken game must not stop the others
            logger.exception("could not re-arm the timer of game %s", game_id)
    return armed
