"""Play: a player's action, a blocked player's auto drop, and the one way a game moves on
once it exists (``run_on_game``: lock its row, load its state, run a step, write what it gives).

Every engine action on a game, a player's (``game_act``), a timer's (``tables.game.timers``), a
blocked player's auto drop and staff's cancellation (``tables.game.staffops``), runs through
``run_on_game`` and is written by ``tables.game.record.write_game``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from accounts.models import User
from game_engine.actions import Action, AutoDrop
from game_engine.errors import RummyError
from game_engine.events import Event
from game_engine.game import GameState, apply
from tables import clock, protocol
from tables.errors import REFUSALS, BadRequest, NoGameRunning, NotSeated, ProtocolError, error_payload
from tables.game import gamerows, notify, restrictions
from tables.game.locks import lock_game_row, lock_game_row_beside, retry_on_conflict
from tables.game.record import write_game
from tables.game.seating import rejoin_requested
from tables.models import PoolGame, Seat

logger = logging.getLogger(__name__)

#: How many answered request ids each player's repeats are recognised among (``PoolGame.answers``).
ANSWERS_KEPT = 8


@dataclass(frozen=True)
class Ran:
    """What ``run_on_game`` did: the game as written, its state before and after, the events."""

    game: PoolGame
    old: GameState | None
    new: GameState | None
    events: list[Event]
    private: bool = False


#: A write of the server's own on the locked game, through ``write_game`` (a start, a cancellation).
Write = Callable[[], None]
#: A step on a locked game: given the game and its state (None while it waits for players), the
#: engine action to apply, a write of the server's own, or None for nothing. It writes nothing
#: itself, so that a refusal it raises leaves nothing behind.
Step = Callable[[PoolGame, GameState | None], Action | Write | None]


def run_on_game(
    game_id: int, step: Step, *, may_play: restrictions.MayPlay | None = None, also: tuple[str, ...] = ()
) -> Ran | None:
    """Lock the game's row, load its state, run ``step`` and write what it gives: the one way a
    game changes once it exists (a player's action, a timer, a blocked player's auto drop, a
    cancellation by staff), in one transaction.

    ``may_play`` (``game_act``'s may-this-user-play) is read in that transaction, with the game
    row's lock on PostgreSQL (one statement for both), before ``step`` runs. An engine action
    is applied and written by ``write_game`` (with ``also``, the columns ``step`` changed on the
    game); a private one (an arrangement) writes the state alone: no event, no version, no notice.
    A refusal from ``may_play``, ``step`` or the engine ends the transaction with nothing written and
    is raised; one while writing (the wallet refusing a rejoin's fee) rolls all of it back.
    """
    refused: Exception | None = None
    events: list[Event]
    with transaction.atomic():
        try:
            game = _lock_game(game_id, may_play)
            state = GameState.from_dict(game.state) if game.state else None
            planned = step(game, state)
            if planned is None:
                return None
            if not isinstance(planned, Action):
                new, events = state, []
            elif state is None:
                raise NoGameRunning("no game is being played at this table")
            else:
                new, events = apply(state, planned)
        except REFUSALS as exc:
            refused = exc  # nothing written: the transaction ends as it began
        else:
            if not isinstance(planned, Action):
                planned()
                return Ran(game, state, state, events)
            assert new is not None  # what apply gave: planned is an engine action
            if planned.private:  # kept (docs/rules.md §5), but nobody else sees it
                game.state = new.to_dict()
                gamerows.update_game(game, ("state", *also))
                return Ran(game, state, new, [], private=True)
            write_game(game, events, old=state, new=new, also=also)
            return Ran(game, state, new, events)
    assert refused is not None
    raise refused


@retry_on_conflict
def game_act(
    *,
    game_id: int,
    user: User,
    request_id: str,
    action: Action | Mapping[str, Any],
    session_key: str | None = None,
    tell_other_sockets: bool = True,
) -> dict[str, Any]:
    """Apply one player action; returns the answer sent back to that player.

    ``action`` is typed (``protocol.parse_action``, the socket's one reading of the frame; a bot's
    ``choose_action``), or in the wire format, read here. Its seat and time are the server's:
    whatever it carries, it is stamped with the user's seat and now.

    First, in the action's transaction, may the user play now (``restrictions.check_may_play``,
    one query): not deactivated, suspended or self-excluded (such a player may only ``leave``)
    and, for a socket (``session_key``), still logged in by that session. A refused player's
    action, whatever it is (a rejoin and its fee, an auto drop turned off), changes nothing.
    A repeated ``request_id`` of an accepted action returns the first answer and
    changes nothing. An illegal action returns an error naming the rule and
    changes nothing: it writes nothing either, not even its answer (so a
    non-player's or a flood's refusals never grow the game row), and the same
    request id sent again is judged again. A private action's other sockets get its
    view after commit (``notify.seat_view``), unless the socket that sent it knows of none
    (``tell_other_sockets``); the one that sent it has the arrangement.
    """
    if (
        not isinstance(request_id, str)
        or not 0 < len(request_id) <= 64
        or not protocol.clean_text(request_id)
    ):
        raise BadRequest("every action needs a request_id: a string of 1 to 64 printable characters")
    try:
        typed = protocol.player_action(action)
    except ProtocolError as exc:
        return {"ok": False, "error": error_payload(exc)}
    answer: dict[str, Any] = {}

    def step(game: PoolGame, state: GameState | None) -> Action | None:
        first = _first_answer(game, user, request_id)
        if first is not None:
            answer.update(first, repeated=True)
            return None
        if game.status != PoolGame.Status.RUNNING or state is None:
            raise NoGameRunning("no game is being played at this table")
        # The engine's players are exactly the seats the game started with (Seat.engine_seat is
        # the index): finding the user there answers like the seat query, without a query.
        seat = state.seat_of(str(user.pk))
        if seat is None:
            raise NotSeated("you are not playing in this game")
        if typed.type == "rejoin":  # buying back in: the checks other apps add (integrity), one raises
            others = [
                int(p.id) for p in state.players if not p.eliminated and not p.left and p.id != str(user.pk)
            ]
            rejoin_requested.send(sender=PoolGame, user=user, others=others)
        # what ``apply`` makes the version: the next one, but for a private action (Action.private)
        answer.update(ok=True, version=state.version if typed.private else state.version + 1)
        game.answers = _with_answer(game.answers, user, request_id, dict(answer))
        return typed.stamp(seat=seat, at=clock.now_ms())

    may_play = restrictions.MayPlay(user, session_key, typed.type)
    try:
        ran = run_on_game(game_id, step, may_play=may_play, also=("answers",))
    except REFUSALS as exc:
        return {"ok": False, "error": error_payload(exc)}  # nothing written
    if ran is not None and ran.private and ran.new is not None and tell_other_sockets:
        _tell_own_sockets(ran.game, user, request_id)
    return answer


def _first_answer(game: PoolGame, user: User, request_id: str) -> dict[str, Any] | None:
    """The answer already given to this player's ``request_id`` in this game, if any."""
    for asked, answer in game.answers.get(str(user.pk), ()):
        if asked == request_id:
            return answer  # the caller copies it
    return None


def _with_answer(
    answers: dict[str, Any], user: User, request_id: str, answer: dict[str, Any]
) -> dict[str, Any]:
    """``answers`` with this one added: the player's last ``ANSWERS_KEPT``, newest last (a new dict)."""
    key = str(user.pk)
    kept = [*answers.get(key, ())[-(ANSWERS_KEPT - 1) :], [request_id, answer]]
    return {**answers, key: kept}


def _tell_own_sockets(game: PoolGame, user: User, request_id: str) -> None:
    """After commit: a private change (an arrangement) reaches the player's own other sockets only."""
    table_id, game_id, version = game.table_id, game.pk, game.version
    transaction.on_commit(
        lambda: notify.seat_view(
            user_id=user.pk, table_id=table_id, game_id=game_id, version=version, request_id=request_id
        )
    )


def drop_blocked_player(*, user_id: int) -> int:
    """Suspension, self-exclusion or a deactivated account (issues 14, 23): at every running game of
    ``user_id``, turn on auto drop for their seat, so the engine drops them from their next turn (at
    once if it is their turn before drawing) and the first turn of each later deal (docs/rules.md
    §6.8); they cannot turn it off while blocked (``game_act`` refuses all their actions but
    ``leave``). Returns how many games were changed."""
    game_ids = list(
        Seat.objects.filter(
            user_id=user_id, engine_seat__isnull=False, game__status=PoolGame.Status.RUNNING
        ).values_list("game_id", flat=True)
    )

    def step(game: PoolGame, state: GameState | None) -> Action | None:
        if game.status != PoolGame.Status.RUNNING or state is None:
            return None
        seat = state.seat_of(str(user_id))
        if seat is None or state.players[seat].eliminated or state.players[seat].auto_drop:
            return None
        return AutoDrop(at=clock.now_ms(), seat=seat, on=True)

    changed = 0
    for game_id in game_ids:
        try:
            changed += run_on_game(game_id, step) is not None
        except RummyError:
            logger.exception("could not auto-drop user %s in game %s", user_id, game_id)
    return changed


def _lock_game(game_id: int, may_play: restrictions.MayPlay | None = None) -> PoolGame:
    """The game row alone, locked (its table and settings load only if a payment needs the name);
    and ``may_play`` checked, read in the same statement where the database allows it."""
    try:
        if may_play is None:
            return lock_game_row(game_id)
        if not gamerows.reads_beside_lock():
            may_play.check()
            return lock_game_row(game_id)
        query = may_play.query()
        game, found = lock_game_row_beside(game_id, query.sql, [*query.params, may_play.user.pk])
        may_play.verify(query, found)
        return game
    except PoolGame.DoesNotExist:
        raise NoGameRunning(f"there is no game {game_id}") from None
