"""Celery tasks: they turn deadlines into service calls and nothing else.

The top of the import graph: tasks → drivers → timers, play → record → notify. ``notify`` sends
these tasks by name, so nothing below imports this module.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from celery import bootsteps, shared_task

from tables import heartbeat
from tables.game import drivers, timers

logger = logging.getLogger(__name__)


@shared_task(name="tables.tasks.enforce_deadline", acks_late=True, ignore_result=True)
def enforce_deadline(game_id: int, version: int, armed_for: str | None = None) -> bool:
    """Idempotent: a timer for a version the game has moved past enforces nothing.

    ``armed_for`` (ISO time) names the timer: the game's armed one re-arms for the current deadline.
    """
    armed = datetime.fromisoformat(armed_for) if armed_for else None
    return timers.game_timeout(game_id=game_id, version=version, armed_for=armed)


@shared_task(name="tables.tasks.sweep_deadlines", acks_late=True, ignore_result=True)
def sweep_deadlines() -> int:
    """Beat's safety net: enforce every deadline whose timer task was lost. Its time is beat's
    sign of life for /healthz (tables.heartbeat)."""
    heartbeat.sweep_ran()
    return timers.deadlines_sweep()


@shared_task(name="tables.tasks.bot_move", acks_late=True, ignore_result=True)
def bot_move(game_id: int, version: int) -> bool:
    """A practice bot's move at ``version``; a stale or repeated task does nothing."""
    return drivers.bot_move(game_id=game_id, version=version)


class RearmTimers(bootsteps.StartStopStep):  # type: ignore[misc]  # Celery ships no types: the base class is Any
    """A worker consumer step: each time the consumer (re)connects to the broker, re-arm every timer.

    It runs at the worker's start and again after every reconnection (Celery restarts
    the consumer's steps), so neither a restarted worker nor a Redis restart leaves
    a deadline waiting on a timer task that is gone or held back (``timers.timers_rearm``).
    """

    requires = ("celery.worker.consumer.tasks:Tasks",)

    def start(self, parent: Any) -> None:
        try:
            armed = timers.timers_rearm()
        except Exception:  # the database may be down too: beat's sweep still runs
            logger.exception("could not re-arm the game timers")
            return
        logger.info("re-armed the timers of %d games", armed)
        try:
            bots = drivers.bots_rearm()
        except Exception:
            logger.exception("could not re-arm the bots' moves")
            return
        logger.info("re-armed the moves of %d bots", bots)
