"""The one write path of a game: its row, its event log, its deal rows, its money, its timer,
and after commit what the players are told.

Every change of a game goes through ``write_game`` in the transaction that locked the game:
an engine change (a move, a timeout, a start) with its old and new state, or a change of the
server's own without the engine (a seat taken or left before the start, a countdown that
ended, a cancellation), each with the events it stores exactly as it sends them. Only the
columns that change are written (``tables.game.gamerows``). After commit: the game's one timer is
armed for its deadline (``arm_timer``), a bot's move scheduled, and the table notified
(``tables.game.notify``).
"""

from __future__ import annotations

import secrets
from typing import Any

from django.db import transaction

from accounts.models import User
from game_engine import fairness
from game_engine.events import Event, to_wire
from game_engine.game import FINISHED, GameState
from game_engine.views import views_for_all
from tables import clock
from tables.game import gamerows, notify, practice
from tables.game.selectors import game_header
from tables.game.settlement import move_money
from tables.models import Deal, PoolGame

#: The game's columns an engine change always writes, and those a settlement adds.
_SAVED_FIELDS = ("state", "version", "deadline_at", "deadline_kind", "event_count")
_SETTLED_FIELDS = ("status", "finished_at", "result")
#: The columns a change made without the engine (seats, a countdown, a cancellation) always writes.
_BARE_FIELDS = ("version", "event_count")
DEADLINE = ("deadline_at", "deadline_kind")


def write_game(
    game: PoolGame,
    events: list[Event],
    *,
    old: GameState | None = None,
    new: GameState | None = None,
    also: tuple[str, ...] = (),
    lobby: bool = False,
    notices: tuple[dict[str, Any], ...] = (),
) -> None:
    """The one write path of a locked game: its row, its events in the log and what follows them.

    With the engine's change (``old`` to ``new``): the new state and version, the deal rows, the
    next deal's seed and the money the events move (``move_money``). Without one (seats taken or
    left before the start, a countdown that ended, a cancellation), the next version. Either way
    the events are stored as they are sent, and only the columns that change are written: those
    above and ``also`` (what the caller changed on ``game``). After commit: the timer, a bot's
    move, the ``notices`` (``contract`` messages) and the change notice to the table.
    """
    if new is None:
        game.version += 1
        fields = _BARE_FIELDS + also
        deal_no = (game.state or {}).get("deal_no", 0)
    else:
        fields = _engine_change(game, old, new, events) + also
        deal_no = new.deal_no
    game.event_count += gamerows.append_events(
        game_id=game.pk, deal_number=deal_no, version=game.version, first_seq=game.event_count, events=events
    )
    if new is not None and move_money(game, new, events):
        fields += _SETTLED_FIELDS
    gamerows.update_game(game, fields)
    lobby = lobby or any(e.type in ("game_started", "game_over") for e in events)
    if new is None:
        _after_commit(game, events, lobby=lobby, notices=notices)
        return
    bot_due = game.status == PoolGame.Status.RUNNING and bool(practice.seats_to_act(new, game.bot_seats))
    seat_of = {p.id: i for i, p in enumerate(new.players)}
    views = views_for_all(new)
    _after_commit(game, events, bot_due=bot_due, views=views, seat_of=seat_of, lobby=lobby, notices=notices)


def _engine_change(
    game: PoolGame, old: GameState | None, new: GameState, events: list[Event]
) -> tuple[str, ...]:
    """Put the engine's new state on ``game`` and write the deal rows it starts or ends."""
    now = clock.now()
    if new.phase != FINISHED and new.next_server_seed is None:
        # The next deal's secret seed, drawn now so its commitment is public before it is dealt.
        new.next_server_seed = secrets.token_hex(32)
    game.state = new.to_dict()
    game.version = new.version
    deadline = new.deadline
    game.deadline_at = clock.from_ms(deadline.at_ms) if deadline else None
    game.deadline_kind = deadline.kind if deadline else ""
    if old is None or new.deal_no != old.deal_no:
        commitment, dealt = "", []
        if new.deal is not None:
            commitment = fairness.commitment(new.deal.server_seed)
            dealt = _dealt_order(new)
        deal = Deal.objects.create(
            game=game, number=new.deal_no, started_at=now, commitment=commitment, dealt_order=dealt
        )
        if new.deal is not None:
            user_ids = [int(new.players[s].id) for s in new.deal.order]
            deal.players.set(User.objects.filter(pk__in=user_ids))
    if any(e.type == "deal_over" for e in events) and new.last_result is not None:
        result = {
            **new.last_result,
            "names": {str(i): p.name for i, p in enumerate(new.players)},
            "scores": {str(i): p.score for i, p in enumerate(new.players)},
        }
        if new.deal is not None and new.deal.deal_no == new.last_result["deal_no"]:
            # how each player last grouped their hand, for the replay (not an event: private in play)
            result["arrangements"] = new.deal.final_arrangements()
        Deal.objects.filter(game=game, number=new.last_result["deal_no"]).update(
            result=result,
            finished_at=now,
            server_seed=new.last_result["server_seed"],
            client_seeds=new.last_result["client_seeds"],
        )
    return _SAVED_FIELDS


def _dealt_order(state: GameState) -> list[str]:
    """The deck the new deal was dealt from, read back from the state at its start."""
    d = state.deal
    assert d is not None
    return fairness.dealt_deck(d.hands, d.order, d.cut_joker, d.open_pile[0], d.closed)


def arm_timer(game: PoolGame, *, again: bool = False) -> None:
    """Arm a timer task for the game's deadline, unless the armed one comes first.

    One timer follows each game instead of one task per change: most changes
    move the deadline later (the next turn), and the armed timer, when it fires
    and finds the game moved on, arms the next one itself (``game_timeout``).
    A timer is armed anew when the deadline comes before the armed one, when the
    armed one's time has passed (it is firing, was lost or fired early), or
    ``again`` (the armed timer found nothing to enforce). Called with the game
    locked; the task is sent after commit. The beat sweep covers a lost task.
    """
    due = game.deadline_at
    if due is None:
        return
    armed = game.timer_at
    if not again and armed is not None and clock.now() < armed <= due:
        return
    game_id, version = game.pk, game.version
    if armed != due:
        game.timer_at = due
        PoolGame.objects.filter(pk=game_id).update(timer_at=due)
    transaction.on_commit(lambda: notify.schedule_timeout(game_id=game_id, version=version, eta=due))


def _after_commit(
    game: PoolGame,
    events: list[Event],
    *,
    bot_due: bool = False,
    views: dict[str, Any] | None = None,
    seat_of: dict[str, int] | None = None,
    lobby: bool = False,
    notices: tuple[dict[str, Any], ...] = (),
) -> None:
    """After commit: arm the timer for the new deadline, schedule a bot's move and tell the players
    (first the ``notices``, said in words, then the change).

    ``seat_of`` maps each engine player's user id to their seat, so that a socket
    opened before its player had a seat (waiting for the start, or a spectator who
    then joined) sends that seat's view from the notice that gave it one.
    """
    game_id, table_id, version = game.pk, game.table_id, game.version
    payload = [to_wire(e) for e in events]
    header = game_header(game)
    arm_timer(game)

    def effects() -> None:
        if bot_due:
            notify.schedule_bot_move(game_id=game_id, version=version, delay=practice.think_seconds())
        for notice in notices:
            notify.table_notice(table_id=table_id, notice=notice)
        notify.table_changed(
            table_id=table_id,
            game_id=game_id,
            version=version,
            events=payload,
            views=views,
            seat_of=seat_of,
            game=header,
            lobby=lobby,
        )

    transaction.on_commit(effects)
