"""Use cases of the live tables: the only writer of seats and game state.

Every change runs in one transaction that locks the game row (``tables.locks``),
asks the engine, saves the new state with its events and, only after commit,
schedules the next timer and tells the connected players. Money moves only
through ``wallet.services`` inside the same transaction.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.db import transaction

from accounts.models import User
from game_engine import fairness
from game_engine.errors import RummyError
from game_engine.events import Event, GameOver, GameStarted, Rejoined, SeatLeft, SeatTaken, to_wire
from game_engine.game import FINISHED, GameState, apply, new_game
from game_engine.views import view_for, views_for_all
from integrity.seating import check_may_sit_with
from tables import clock, gamerows, notify, practice, protocol, restrictions
from tables.errors import (
    AlreadySeated,
    BadRequest,
    GameInProgress,
    NoGameRunning,
    NotSeated,
    PlayBlocked,
    TableClosed,
    TableError,
    TableFull,
    TableNotFound,
    error_payload,
)
from tables.locks import (
    game_for_update,
    lock_game_row,
    open_game_for_update,
    practice_owner_for_update,
    retry_on_conflict,
    table_for_update,
)
from tables.models import Deal, PoolGame, Seat, Table, TableSettings
from tables.selectors import game_header
from wallet import services as wallet
from wallet.errors import NothingToRefund, WalletError

logger = logging.getLogger(__name__)

#: Action types a player may send; everything else (timeout, start_deal) is the server's.
PLAYER_ACTIONS = protocol.PLAYER_ACTIONS
#: How many answered request ids each player's repeats are recognised among (``PoolGame.answers``).
ANSWERS_KEPT = 8
#: The sweep leaves a due deadline to its own timer task for this long first.
SWEEP_GRACE = timedelta(seconds=1)


# ---------------------------------------------------------------------------
# seats before the game
# ---------------------------------------------------------------------------
@retry_on_conflict
def table_join(*, table_id: int, user: User, client_seed: str | None = None) -> Seat:
    """Pay the entry fee and take a seat, in one transaction.

    Starts the game when the last seat is taken, or the start countdown once
    two players are seated. ``client_seed``: the player's seed for the shuffle
    (docs/fairness.md); without one the engine generates one and says so.
    """
    if client_seed is not None and not fairness.valid_client_seed(client_seed):
        raise TableError("the client seed must be 1-64 letters, digits, '_' or '-'")
    with transaction.atomic():
        table = _lock_table(table_id)
        settings = table.settings
        if not settings.active or not table.is_open:
            raise TableClosed("this table is closed")
        if table.owner_id is not None and table.owner_id != user.pk:
            raise TableError("this is another player's own practice table; start yours from the lobby")
        restrictions.check_may_join(user)
        game = _open_game(table)
        if game.status == PoolGame.Status.RUNNING:
            raise GameInProgress(
                "a game is being played at this table; join when it ends or pick another table"
            )
        seats = list(game.seats.filter(left_at__isnull=True))
        if any(s.user_id == user.pk for s in seats):
            raise AlreadySeated("you already have a seat at this table")
        if len(seats) >= settings.seats:
            raise TableFull("every seat at this table is taken")
        check_may_sit_with(user, [s.user_id for s in seats])  # linked accounts never meet (docs/integrity.md)
        taken = {s.position for s in seats}
        position = next(p for p in range(settings.seats) if p not in taken)
        attempt = game.seats.filter(user=user).count() + 1
        if settings.entry_fee:
            wallet.pay_entry(
                user=user,
                game_ref=game.escrow_ref,
                amount=settings.entry_fee,
                idempotency_key=f"join:{game.pk}:{user.pk}:{attempt}",
                memo=f"Entry fee, {table.name}",
            )
        seat = Seat.objects.create(
            game=game, position=position, user=user, is_bot=_is_bot(user), client_seed=client_seed or ""
        )
        seats.append(seat)
        if len(seats) == settings.seats:
            _start_game(game, seats)
            return seat
        game.version += 1
        if settings.practice and game.deadline_at is None:
            # House rule (docs/rules.md §10.2): a practice table fills its empty seats with bots after a short wait.
            game.deadline_at = clock.now() + timedelta(seconds=settings.bot_wait_seconds)
            game.deadline_kind = "bots"
        elif len(seats) >= 2 and game.deadline_at is None:
            game.deadline_at = clock.now() + timedelta(seconds=settings.start_countdown_seconds)
            game.deadline_kind = "start"
        game.save()
        _after_commit(game, [SeatTaken(position=position, name=user.table_name)], lobby=True)
        return seat


@retry_on_conflict
def table_leave(*, table_id: int, user: User) -> None:
    """Leave before the game starts: the entry fee comes back in full."""
    with transaction.atomic():
        table = _lock_table(table_id)
        game = open_game_for_update(table)
        if game is None:
            raise NotSeated("you have no seat at this table")
        if game.status == PoolGame.Status.RUNNING:
            raise GameInProgress("the game has started; use the leave button at the table to forfeit")
        seat = game.seats.filter(user=user, left_at__isnull=True).first()
        if seat is None:
            raise NotSeated("you have no seat at this table")
        attempt = game.seats.filter(user=user).count()
        with contextlib.suppress(NothingToRefund):  # a free table has nothing to give back
            wallet.refund_entry(
                user=user,
                game_ref=game.escrow_ref,
                idempotency_key=f"leave:{game.pk}:{user.pk}:{attempt}",
                memo=f"Left {table.name} before the start",
            )
        seat.left_at = clock.now()
        seat.save(update_fields=["left_at"])
        remaining = game.seats.filter(left_at__isnull=True).count()
        game.version += 1
        if remaining < 2:
            game.deadline_at = None
            game.deadline_kind = ""
        if remaining == 0:
            game.status = PoolGame.Status.CANCELLED
            game.finished_at = clock.now()
        game.save()
        _after_commit(game, [SeatLeft(position=seat.position, name=user.table_name)], lobby=True)


#: Practice on demand: the pools and seat counts a player may ask for (docs/rules.md §10.2).
PRACTICE_FORMATS = ("61", "101", "201")
PRACTICE_SEATS = range(2, 7)


@retry_on_conflict
def practice_table_start(*, user: User, fmt: str, seats: int) -> Table:
    """Practice on demand: this player's own free table, bots in every other seat, the game started.

    The player sits at once and the game starts in the same transaction, so the table
    page opens on a dealt hand. A player still in a practice game of the same kind
    gets that table back (a double click or a second tab starts nothing new); one
    still in another kind is told to finish or leave it first. The table is private
    (``Table.owner``): nobody else can join it, and only its owner sees it in the lobby.
    """
    if fmt not in PRACTICE_FORMATS:
        raise BadRequest(f"practice is played in a 61, 101 or 201 pool, not {fmt!r}")
    if seats not in PRACTICE_SEATS:
        raise BadRequest(f"a practice table has 2 to 6 seats, not {seats}")
    if _is_bot(user):
        raise BadRequest("bots do not start practice tables")
    with transaction.atomic():
        practice_owner_for_update(user.pk)
        restrictions.check_may_join(user)
        kind = _practice_settings(fmt, seats)
        for game in PoolGame.objects.filter(table__owner=user, status__in=_OPEN).select_related("table"):
            if _still_playing(game, user):
                if game.table.settings_id == kind.pk:
                    return game.table
                raise GameInProgress(
                    f"you are still playing your practice game at {game.table.name}; finish or leave it first"
                )
        table = (
            Table.objects.filter(owner=user, settings=kind, is_open=True)
            .exclude(games__status__in=_OPEN)
            .first()
        )
        if table is None:
            table = Table.objects.create(
                owner=user, settings=kind, name=f"Practice {kind.get_format_display()}"
            )
        table = _lock_table(table.pk)
        game = _open_game(table)
        seat = Seat.objects.create(game=game, position=0, user=user)
        _start_game(game, [seat, *_seat_bots(game, [seat])])
        return table


def _practice_settings(fmt: str, seats: int) -> TableSettings:
    """The table kind practice on demand uses for a pool and seat count (free, made on first use)."""
    kind, _ = TableSettings.objects.get_or_create(
        name=f"Practice on demand · {fmt} pool · {seats} seats",
        defaults={"format": fmt, "seats": seats, "entry_fee": 0, "practice": True},
    )
    if not kind.active:
        raise TableError("practice on demand is closed for this pool and seat count")
    if not kind.practice or kind.entry_fee or kind.format != fmt or kind.seats != seats:
        raise TableError(
            f"the table kind {kind.name!r} was changed by staff; practice on demand needs it free"
        )
    return kind


def _still_playing(game: PoolGame, user: User) -> bool:
    """Whether ``user`` is seated in ``game`` and neither left nor out of it."""
    if game.status == PoolGame.Status.WAITING:
        return game.seats.filter(user=user, left_at__isnull=True).exists()
    state = GameState.from_dict(game.state)
    me = next((p for p in state.players if p.id == str(user.pk)), None)
    return me is not None and not me.left and not me.eliminated


# ---------------------------------------------------------------------------
# the game
# ---------------------------------------------------------------------------
@retry_on_conflict
def game_act(
    *, game_id: int, user: User, request_id: str, action: dict[str, Any], session_key: str | None = None
) -> dict[str, Any]:
    """Apply one player action; returns the answer sent back to that player.

    First, in the action's transaction, may the user play now (``restrictions.check_may_play``,
    one query): not deactivated, suspended or self-excluded (such a player may only ``leave``)
    and, for a socket (``session_key``), still logged in by that session. A refused player's
    action, whatever it is (a rejoin and its fee, an auto drop turned off), changes nothing.
    A repeated ``request_id`` of an accepted action returns the first answer and
    changes nothing. An illegal action returns an error naming the rule and
    changes nothing: it writes nothing either, not even its answer (so a
    non-player's or a flood's refusals never grow the game row), and the same
    request id sent again is judged again.
    """
    if (
        not isinstance(request_id, str)
        or not 0 < len(request_id) <= 64
        or not protocol.clean_text(request_id)
    ):
        raise BadRequest("every action needs a request_id: a string of 1 to 64 printable characters")
    try:
        action = protocol.parse_action(action)
    except protocol.ProtocolError as exc:
        return {"ok": False, "error": error_payload(BadRequest(str(exc)))}
    with transaction.atomic():
        try:
            restrictions.check_may_play(user, session_key=session_key, action=action["type"])
        except PlayBlocked as exc:
            return {"ok": False, "error": error_payload(exc)}
        game = _lock_game_row(game_id)
        first = _first_answer(game, user, request_id)
        if first is not None:
            return dict(first, repeated=True)
        try:
            state, new_state, events, engine_seat = _plan_action(game, user, action)
            response: dict[str, Any] = {"ok": True, "version": new_state.version}
            game.answers = _with_answer(game.answers, user, request_id, response)
            if new_state.version == state.version:  # a private action (Action.private): nobody else sees it
                _save_private(game, user, new_state, engine_seat, request_id)
            elif _may_refuse_while_writing(action, new_state, events):
                with transaction.atomic():  # a savepoint: a refused payment leaves nothing behind
                    _write_action(game, user, action, state, new_state, events, engine_seat)
            else:
                # Nothing below refuses (no payment, no settlement): no savepoint round trips.
                # Should it anyway, everything rolls back rather than half of it being kept.
                try:
                    _write_action(game, user, action, state, new_state, events, engine_seat)
                except (RummyError, TableError, WalletError) as exc:
                    raise RuntimeError("an action was refused after its changes were written") from exc
        except (RummyError, TableError, WalletError) as exc:
            return {"ok": False, "error": error_payload(exc)}  # nothing written
        return response


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


def _plan_action(
    game: PoolGame, user: User, action: dict[str, Any]
) -> tuple[GameState, GameState, list[Event], int]:
    """Check the action and ask the engine; raises the refusals and writes nothing."""
    if game.status != PoolGame.Status.RUNNING:
        raise NoGameRunning("no game is being played at this table")
    state = GameState.from_dict(game.state)
    # The engine's players are exactly the seats the game started with (Seat.engine_seat is
    # the index): finding the user there answers like the seat query, without a query.
    engine_seat = next((i for i, p in enumerate(state.players) if p.id == str(user.pk)), None)
    if engine_seat is None:
        raise NotSeated("you are not playing in this game")
    payload = {**action, "seat": engine_seat, "at": clock.now_ms()}
    new_state, events = apply(state, payload)
    return state, new_state, events, engine_seat


def _may_refuse_while_writing(action: dict[str, Any], new_state: GameState, events: list[Event]) -> bool:
    """Money moves (``_move_money``), which the wallet may refuse after some writes."""
    return any(_moves_money(e) for e in events)


def _write_action(
    game: PoolGame,
    user: User,
    action: dict[str, Any],
    state: GameState,
    new_state: GameState,
    events: list[Event],
    engine_seat: int,
) -> None:
    _save(game, state, new_state, events, also=("answers",))


def _save_private(game: PoolGame, user: User, new: GameState, engine_seat: int, request_id: str) -> None:
    """Keep a private change (an arrangement) and its answer; tell only the player's own sockets.

    Durable, for disconnection protection (docs/rules.md §5: a player who does not show
    is scored on their last arrangement), but nothing the other seats can see changed:
    no event, no new version, no notice to the table, no timer or bot woken. A timer
    armed at this version still fires for it. The player's other sockets get their
    view after commit (``notify.seat_view``); the one that sent it has the arrangement.
    """
    game.state = new.to_dict()
    gamerows.update_game(game, ("state", "answers"))
    view = view_for(new, engine_seat)
    table_id, game_id, version = game.table_id, game.pk, game.version
    transaction.on_commit(
        lambda: notify.seat_view(
            user_id=user.pk,
            table_id=table_id,
            game_id=game_id,
            version=version,
            view=view,
            request_id=request_id,
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
    changed = 0
    for game_id in game_ids:
        with transaction.atomic():
            game = _lock_game_row(game_id)
            if game.status != PoolGame.Status.RUNNING:
                continue
            state = GameState.from_dict(game.state)
            seat = next((i for i, p in enumerate(state.players) if p.id == str(user_id)), None)
            if seat is None or state.players[seat].eliminated or state.players[seat].auto_drop:
                continue
            try:
                new_state, events = apply(
                    state, {"type": "auto_drop", "on": True, "seat": seat, "at": clock.now_ms()}
                )
            except RummyError:
                logger.exception("could not auto-drop user %s in game %s", user_id, game_id)
                continue
            with transaction.atomic():  # a drop may end the game and settle it
                _save(game, state, new_state, events)
            changed += 1
    return changed


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
    with transaction.atomic():
        try:
            game = game_for_update(game_id)
        except PoolGame.DoesNotExist:
            return False
        armed = armed_for is not None and game.timer_at == armed_for
        if (
            game.version != version
            or game.deadline_at is None
            or game.status not in _OPEN
            or game.deadline_at > clock.now()
        ):
            if armed:
                _arm_timer(game, again=True)
            return False
        if game.status == PoolGame.Status.WAITING:
            seats = list(game.seats.filter(left_at__isnull=True))
            if game.deadline_kind == "bots" and seats:
                seats += _seat_bots(game, seats)
            if len(seats) >= 2:
                _start_game(game, seats)  # the start's own version follows the last one announced
            else:
                game.version += 1  # the countdown is over: its timer must not fire again
                game.deadline_at = None
                game.deadline_kind = ""
                game.save()
                _after_commit(game, [])
            return True
        state = GameState.from_dict(game.state)
        new_state, events = apply(state, {"type": "timeout", "at": clock.now_ms()})
        _save(game, state, new_state, events)
        return True


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
                    lambda g=game_id, v=version, d=due: notify.schedule_timeout(game_id=g, version=v, eta=d)
                )
                armed += 1
        except Exception:  # one broken game must not stop the others
            logger.exception("could not re-arm the timer of game %s", game_id)
    return armed


# ---------------------------------------------------------------------------
# internals
# ---------------------------------------------------------------------------
_OPEN = (PoolGame.Status.WAITING, PoolGame.Status.RUNNING)


def _lock_table(table_id: int) -> Table:
    try:
        return table_for_update(table_id)
    except Table.DoesNotExist:
        raise TableNotFound(f"there is no table {table_id}") from None


def _lock_game_row(game_id: int) -> PoolGame:
    """The game row alone, locked (its table and settings load only if a payment needs the name)."""
    try:
        return lock_game_row(game_id)
    except PoolGame.DoesNotExist:
        raise NoGameRunning(f"there is no game {game_id}") from None


def _open_game(table: Table) -> PoolGame:
    """The table's waiting or running game, locked; a new waiting game if there is none."""
    game = open_game_for_update(table)
    if game is None:
        game = PoolGame.objects.create(table=table)
    return game


def _is_bot(user: User) -> bool:
    return bool(getattr(user, "is_bot", False))


def _seat_bots(game: PoolGame, seats: list[Seat]) -> list[Seat]:
    """Practice: bots take every empty seat (practice tables are free, so no fee moves)."""
    taken = {s.position for s in seats}
    free = [p for p in range(game.table.settings.seats) if p not in taken]
    bots = practice.bot_users(len(free), exclude=[s.user_id for s in seats])
    return [
        Seat.objects.create(game=game, position=p, user=bot, is_bot=True)
        for p, bot in zip(free, bots, strict=True)
    ]


def _start_game(game: PoolGame, seats: Iterable[Seat]) -> None:
    ordered = sorted(seats, key=lambda s: s.position)
    for index, seat in enumerate(ordered):
        seat.engine_seat = index
        seat.save(update_fields=["engine_seat"])
    game.bot_seats = [s.engine_seat for s in ordered if s.is_bot]
    rules = game.table.settings.rules()
    at = clock.now_ms()
    state = new_game(
        rules,
        [(str(s.user_id), s.user.table_name) for s in ordered],
        seed=game.seed,
        at=at,
        client_seeds=[s.client_seed or None for s in ordered],
    )
    # The first deal's secret seed (docs/fairness.md); later ones are drawn in ``_save``.
    state.next_server_seed = secrets.token_hex(32)
    state.version = game.version  # the start is the next version after the last seat change
    game.seed = state.seed
    game.status = PoolGame.Status.RUNNING
    game.started_at = clock.now()
    started = GameStarted(players=[{"seat": i, "name": s.user.table_name} for i, s in enumerate(ordered)])
    new_state, events = apply(state, {"type": "start_deal", "at": at})
    _save(game, state, new_state, [started, *events], also=("seed", "status", "started_at", "bot_seats"))


#: The game's columns ``_save`` always writes, and those a settlement adds.
_SAVED_FIELDS = ("state", "version", "deadline_at", "deadline_kind", "event_count")
_SETTLED_FIELDS = ("status", "finished_at", "result")


def _save(
    game: PoolGame, old: GameState, new: GameState, events: list[Event], *, also: tuple[str, ...] = ()
) -> None:
    """Persist the engine's new state, its events, hand history and any settlement.

    Only the columns that change are written: ``_SAVED_FIELDS``, the settlement's,
    and ``also`` (what the caller changed on ``game`` before).
    """
    now = clock.now()
    if new.phase != FINISHED and new.next_server_seed is None:
        # The next deal's secret seed, drawn now so its commitment is public before it is dealt.
        new.next_server_seed = secrets.token_hex(32)
    game.state = new.to_dict()
    game.version = new.version
    deadline = new.deadline
    game.deadline_at = clock.from_ms(deadline.at_ms) if deadline else None
    game.deadline_kind = deadline.kind if deadline else ""
    if new.deal_no != old.deal_no:
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
    game.event_count += gamerows.append_events(
        game_id=game.pk,
        deal_number=new.deal_no,
        version=new.version,
        first_seq=game.event_count,
        events=events,
    )
    fields = _SAVED_FIELDS + also
    if _move_money(game, new, events):
        fields += _SETTLED_FIELDS
    gamerows.update_game(game, fields)
    bot_due = game.status == PoolGame.Status.RUNNING and bool(practice.seats_to_act(new, game.bot_seats))
    views = views_for_all(new)
    lobby = any(e.type in ("game_started", "game_over") for e in events)
    seat_of = {p.id: i for i, p in enumerate(new.players)}
    _after_commit(game, events, bot_due=bot_due, views=views, seat_of=seat_of, lobby=lobby)


def _dealt_order(state: GameState) -> list[str]:
    """The deck the new deal was dealt from, read back from the state at its start."""
    d = state.deal
    assert d is not None
    return fairness.dealt_deck(d.hands, d.order, d.cut_joker, d.open_pile[0], d.closed)


def _moves_money(event: Event) -> bool:
    return isinstance(event, GameOver) or (isinstance(event, Rejoined) and event.fee > 0)


def _move_money(game: PoolGame, new: GameState, events: list[Event]) -> bool:
    """The one place money follows the engine's events (never the request's text).

    ``rejoined`` charges the rejoining player the ``fee`` the engine put in it
    (docs/rules.md §7.4); ``game_over`` settles the payouts and rake it carries
    (docs/rules.md §7.11, §8). Returns whether the game was settled.
    """
    settled = False
    for event in events:
        if isinstance(event, Rejoined) and event.fee:
            player = new.players[event.seat]
            user = User.objects.get(pk=int(player.id))
            wallet.pay_entry(
                user=user,
                game_ref=game.escrow_ref,
                amount=event.fee,
                idempotency_key=f"rejoin:{game.pk}:{user.pk}:{player.rejoins}",
                memo=f"Rejoin fee, {game.table.name}",
            )
        elif isinstance(event, GameOver):
            _settle(game, event.data)
            settled = True
    return settled


def _settle(game: PoolGame, result: dict[str, Any]) -> None:
    """Pay the prize (or the split) and the rake, exactly as the engine computed them."""
    payouts = {int(player_id): amount for player_id, amount in result["payouts"].items() if amount}
    if result["fees_paid"]:  # a free table has no escrow to settle
        wallet.settle_game(
            game_ref=game.escrow_ref,
            payouts=payouts,
            rake=result["rake"],
            idempotency_key=f"settle:{game.pk}",
            memo=f"Prize, {game.table.name}",
        )
    game.status = PoolGame.Status.FINISHED
    game.finished_at = clock.now()
    game.result = result
    game.deadline_at = None
    game.deadline_kind = ""


def _arm_timer(game: PoolGame, *, again: bool = False) -> None:
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
) -> None:
    """After commit: arm the timer for the new deadline, schedule a bot's move and tell the players.

    ``seat_of`` maps each engine player's user id to their seat, so that a socket
    opened before its player had a seat (waiting for the start, or a spectator who
    then joined) sends that seat's view from the notice that gave it one.
    """
    game_id, table_id, version = game.pk, game.table_id, game.version
    payload = [to_wire(e) for e in events]
    header = game_header(game)
    _arm_timer(game)

    def effects() -> None:
        if bot_due:
            notify.schedule_bot_move(game_id=game_id, version=version, delay=practice.think_seconds())
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
