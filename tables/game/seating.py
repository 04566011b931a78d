"""Seats: joining and leaving a table before its game starts, practice on demand, and the start.

A join pays the entry fee and takes a seat in one transaction (the table's row locked, then its
game's, ``tables.game.locks``); the last seat starts the game (``start_game``), two seats start the
countdown. Every change is written, with its ``seat_taken`` or ``seat_left`` event, by
``tables.game.record.write_game``.
"""

from __future__ import annotations

import contextlib
import functools
import secrets
from collections.abc import Iterable
from datetime import timedelta
from typing import cast

from django.db import transaction
from django.dispatch import Signal

from accounts.models import User
from core.money import format_money
from game_engine import fairness
from game_engine.actions import StartDeal
from game_engine.events import Event, GameStarted, SeatLeft, SeatTaken
from game_engine.game import GameState, apply, new_game
from tables import clock
from tables.contract import UnseatedNotice
from tables.errors import (
    AlreadySeated,
    BadRequest,
    GameInProgress,
    NotSeated,
    SeatRefused,
    TableClosed,
    TableError,
    TableFull,
    TableNotFound,
)
from tables.game import notify, practice, restrictions
from tables.game.locks import (
    open_game_for_update,
    practice_owner_for_update,
    retry_on_conflict,
    table_for_update,
)
from tables.game.record import DEADLINE, write_game
from tables.models import PoolGame, Seat, Table, TableSettings
from wallet import services as wallet
from wallet.errors import NothingToRefund

_OPEN = (PoolGame.Status.WAITING, PoolGame.Status.RUNNING)


#: Sent in ``table_join``'s transaction before a seat is taken, with ``user`` and the user ids
#: ``seated`` at the table: a receiver refuses the seat by raising ``tables.errors.SeatRefused``
#: (so the tables call no app above them; ``integrity.seating`` is one).
seat_requested = Signal()

#: Sent in the start's transaction before a game starts, with ``seated``: the user ids of the
#: starting seats, in the order they sat. Each receiver returns ``{user_id: message}`` for the
#: players who must leave first (``integrity.seating``: the later-seated of two linked accounts);
#: they get their fee back and the message, and the rest start if two or more remain.
game_starting = Signal()

#: Sent in ``game_act``'s transaction before a rejoin (an eliminated player buying back into the
#: same pool game), with ``user`` and ``others``: the user ids still in the game. A receiver
#: refuses the rejoin by raising ``tables.errors.SeatRefused`` (nothing is paid or changed).
rejoin_requested = Signal()


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
        if not table.open_to(user.pk):
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
        # the checks other apps add (integrity: linked accounts never meet at a table); one raises to refuse
        seat_requested.send(sender=Table, user=user, seated=[s.user_id for s in seats])
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
            if start_game(game, seats, joining=user.pk):
                return seat
            seats = list(game.seats.filter(left_at__isnull=True))  # too few left after some were sent away
        if settings.practice and game.deadline_at is None:
            # House rule (docs/rules.md §10.2): a practice table fills its empty seats with bots after a short wait.
            game.deadline_at = clock.now() + timedelta(seconds=settings.bot_wait_seconds)
            game.deadline_kind = "bots"
        elif len(seats) >= 2 and game.deadline_at is None:
            game.deadline_at = clock.now() + timedelta(seconds=settings.start_countdown_seconds)
            game.deadline_kind = "start"
        write_game(game, [SeatTaken(position=position, name=user.table_name)], also=DEADLINE, lobby=True)
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
        _write_seats_left(game, [SeatLeft(position=seat.position, name=user.table_name)])


#: Practice on demand: the pools and seat counts a player may ask for (docs/rules.md §10.2).
PRACTICE_FORMATS = ("61", "101", "201")
PRACTICE_SEATS = range(2, 7)


@retry_on_conflict
def practice_table_start(*, user: User, fmt: str, seats: int, client_seed: str | None = None) -> Table:
    """Practice on demand: this player's own free table, bots in every other seat, the game started.

    The player sits at once and the game starts in the same transaction, so the table
    page opens on a dealt hand. A player still in a practice game of the same kind
    gets that table back (a double click or a second tab starts nothing new); one
    still in another kind is told to finish or leave it first. The table is private
    (``Table.owner``): nobody else can join it, and only its owner sees it in the lobby.
    ``client_seed``: the player's seed for the shuffle, as at ``table_join`` (docs/fairness.md).
    """
    if client_seed is not None and not fairness.valid_client_seed(client_seed):
        raise TableError("the client seed must be 1-64 letters, digits, '_' or '-'")
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
        seat = Seat.objects.create(game=game, position=0, user=user, client_seed=client_seed or "")
        start_game(game, [seat, *seat_bots(game, [seat])])
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


def _lock_table(table_id: int) -> Table:
    try:
        return table_for_update(table_id)
    except Table.DoesNotExist:
        raise TableNotFound(f"there is no table {table_id}") from None


def _open_game(table: Table) -> PoolGame:
    """The table's waiting or running game, locked; a new waiting game if there is none."""
    game = open_game_for_update(table)
    if game is None:
        game = PoolGame.objects.create(table=table)
    return game


def _is_bot(user: User) -> bool:
    return bool(getattr(user, "is_bot", False))


def seat_bots(game: PoolGame, seats: list[Seat]) -> list[Seat]:
    """Practice: bots take every empty seat (practice tables are free, so no fee moves)."""
    taken = {s.position for s in seats}
    free = [p for p in range(game.table.settings.seats) if p not in taken]
    bots = practice.bot_users(len(free), exclude=[s.user_id for s in seats])
    return [
        Seat.objects.create(game=game, position=p, user=bot, is_bot=True)
        for p, bot in zip(free, bots, strict=True)
    ]


@retry_on_conflict
def unseat(*, table_id: int, user_id: int, message: str) -> bool:
    """Send a player away from a table whose game waits for players, with their fee back and
    ``message`` on their sockets there (fair play: an account linked to another seated one).
    Returns whether they had a seat there; a running game is left as it is."""
    with transaction.atomic():
        table = _lock_table(table_id)
        game = open_game_for_update(table)
        if game is None or game.status != PoolGame.Status.WAITING:
            return False
        seat = game.seats.filter(user_id=user_id, left_at__isnull=True).select_related("user").first()
        if seat is None:
            return False
        _send_away(game, {seat: message})
        return True


def _send_away(game: PoolGame, parting: dict[Seat, str]) -> int:
    """Give each parting seat its fee back, free it and tell its player why (after commit); write
    the ``seat_left`` events. With fewer than two left the countdown stops, as when players leave.
    Returns how many seats remain."""
    table = game.table
    fee = table.settings.entry_fee
    events: list[Event] = []
    for seat, message in sorted(parting.items(), key=lambda item: item[0].position):
        attempt = game.seats.filter(user_id=seat.user_id).count()
        refunded = False
        with contextlib.suppress(NothingToRefund):  # a free table has nothing to give back
            wallet.refund_entry(
                user=seat.user,
                game_ref=game.escrow_ref,
                idempotency_key=f"parted:{game.pk}:{seat.user_id}:{attempt}",
                memo=f"Sent away from {table.name} before the start (fair play)",
            )
            refunded = True
        seat.left_at = clock.now()
        seat.save(update_fields=["left_at"])
        events.append(SeatLeft(position=seat.position, name=seat.user.table_name))
        money = f"Your entry fee of {format_money(fee)} is back in your wallet." if refunded and fee else ""
        notice = UnseatedNotice(game_id=game.pk, message=message, money=money).wire()
        transaction.on_commit(
            functools.partial(notify.player_notice, user_id=seat.user_id, table_id=table.pk, notice=notice)
        )
    return _write_seats_left(game, events)


def _write_seats_left(game: PoolGame, events: list[Event]) -> int:
    """Write the ``seat_left`` events of a waiting game: with fewer than two seats left its countdown
    stops, with none it is cancelled. Returns how many seats remain."""
    remaining = game.seats.filter(left_at__isnull=True).count()
    if remaining < 2:
        game.deadline_at = None
        game.deadline_kind = ""
    if remaining == 0:
        game.status = PoolGame.Status.CANCELLED
        game.finished_at = clock.now()
    write_game(game, events, also=(*DEADLINE, "status", "finished_at"), lobby=True)
    return remaining


def _parting(seats: list[Seat]) -> dict[Seat, str]:
    """The seats the ``game_starting`` receivers send away, with what each player is told."""
    people = sorted((s for s in seats if not s.is_bot), key=lambda s: (s.joined_at, s.pk))
    if len(people) < 2:
        return {}
    told: dict[int, str] = {}
    for _, answer in game_starting.send(sender=Table, seated=[s.user_id for s in people]):
        for user_id, message in (cast(dict[int, str] | None, answer) or {}).items():  # what receivers give
            told.setdefault(int(user_id), message)
    return {s: told[s.user_id] for s in people if s.user_id in told}


def start_game(game: PoolGame, seats: Iterable[Seat], *, joining: int | None = None) -> bool:
    """Start the game with ``seats``; returns whether it started.

    First the ``game_starting`` receivers may send players away (fee back, told why): the game
    then starts with those who remain if they are two or more, and otherwise waits for players.
    ``joining``: the user whose join fills the table; if they are to leave (a link committed
    since their seat was checked), their join is refused instead, and nothing of it is kept.
    """
    seats = list(seats)
    parting = _parting(seats)
    refused = next((m for s, m in parting.items() if s.user_id == joining), None)
    if refused is not None:
        raise SeatRefused(refused)
    if parting:
        if _send_away(game, parting) < 2:
            return False
        seats = [s for s in seats if s not in parting]
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
    # The first deal's secret seed (docs/fairness.md); later ones are drawn in ``write_game``.
    state.next_server_seed = secrets.token_hex(32)
    state.version = game.version  # the start is the next version after the last seat change
    game.seed = state.seed
    game.status = PoolGame.Status.RUNNING
    game.started_at = clock.now()
    started = GameStarted(players=[{"seat": i, "name": s.user.table_name} for i, s in enumerate(ordered)])
    new_state, events = apply(state, StartDeal(at=at))
    write_game(
        game,
        [started, *events],
        old=state,
        new=new_state,
        also=("seed", "status", "started_at", "bot_seats"),
    )
    return True
