"""What drives the games: bot moves and the clock. It sits above the use cases it calls.

The use cases (``play``, ``timers``) never import this module: they say what is due (``notify`` sends the
Celery tasks by name) and ``tables.tasks`` calls back here or into the timers.
So the import graph has one direction: tasks → drivers → timers, play → record → notify,
practice (issue 12: services → notify → tasks → services and services ⇄ practice
were a circle, hidden by imports inside functions).

A bot decides from ``view_for`` of its own seat only (``game_engine.bots``: a typed action),
then sends its move with ``play.game_act`` like any player, with a request id
derived from the game version, so a repeated bot task can never move twice.
"""

from __future__ import annotations

import logging
import random

from django.db import DEFAULT_DB_ALIAS

from accounts.models import User
from game_engine.bots import choose_action
from game_engine.game import GameState
from game_engine.views import view_for
from tables.clock import OffsetClock
from tables.game import gamerows, notify, play, practice, timers
from tables.models import PoolGame

logger = logging.getLogger(__name__)


def bot_move(*, game_id: int, version: int) -> bool:
    """One bot move at ``version``, if the game is still there and a bot must act.

    Returns whether a move was applied; a refused move is logged (the turn timer
    then moves the game on, exactly as for a person who clicked wrong).
    """
    try:
        game = gamerows.read_game(game_id)
    except PoolGame.DoesNotExist:
        return False
    return game.version == version and _bot_move(game)


def _bot_move(game: PoolGame) -> bool:
    """``bot_move`` on the game row as just read: the move of the first bot due, if any."""
    if game.status != PoolGame.Status.RUNNING or not game.bot_seats:
        return False
    game_id, version = game.pk, game.version
    state = GameState.from_dict(game.state)
    pending = practice.seats_to_act(state, game.bot_seats)
    if not pending:
        return False
    seat = pending[0]
    action = choose_action(
        view_for(state, seat), state.rules, random.Random(f"{state.seed}:{version}:{seat}")
    )
    if action is None:
        return False
    # the bot's account as a reference, loaded only if something reads more than its id: the
    # action's own check reads the account's row anyway (``restrictions.check_may_play``)
    bot = User.from_db(DEFAULT_DB_ALIAS, ["id"], [int(state.players[seat].id)])
    answer = play.game_act(
        game_id=game_id, user=bot, request_id=f"bot:{game_id}:{version}:{seat}", action=action
    )
    if not answer["ok"]:
        logger.warning(
            "bot %s in game %s refused at version %s: %s", bot.pk, game_id, version, answer["error"]
        )
    return bool(answer["ok"])


def bots_rearm() -> int:
    """Schedule the move of every bot that must act in a running game; called when a worker's
    consumer (re)starts, with the timers. A bot's task lost with its worker or broker would
    otherwise leave the bot idle until its turn timer charges it a missed turn. A move already
    scheduled and this one are the same move (one request id a version): whichever runs second
    does nothing."""
    games = PoolGame.objects.filter(status=PoolGame.Status.RUNNING).exclude(bot_seats=[])
    scheduled = 0
    for game_id, version, state, bot_seats in games.values_list(
        "pk", "version", "state", "bot_seats"
    ).iterator():
        if practice.seats_to_act(GameState.from_dict(state), bot_seats):
            notify.schedule_bot_move(game_id=game_id, version=version, delay=practice.think_seconds())
            scheduled += 1
    return scheduled


def play_out(*, game_id: int, clock: OffsetClock, max_steps: int = 200_000) -> PoolGame:
    """Drive a bot game to its end in this thread: bot moves, and the clock moved to each deadline.

    Used by ``manage.py simulate`` and the tests; people at the table would simply
    keep missing their turns, as they would in a real game.
    """
    for _ in range(max_steps):
        game = gamerows.read_game(game_id)
        if game.status != PoolGame.Status.RUNNING:
            return game
        if _bot_move(game):
            continue
        if game.deadline_at is None:
            raise RuntimeError(f"game {game_id} is stuck at version {game.version} with no deadline")
        wait = (game.deadline_at - clock.now()).total_seconds()
        if wait > 0:
            clock.advance(wait + 0.001)
        timers.game_timeout(game_id=game_id, version=game.version)
    raise RuntimeError(f"game {game_id} did not finish in {max_steps} steps")
