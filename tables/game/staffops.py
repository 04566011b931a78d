"""Staff operations on games and tables (issue 14): cancel a game, close and reopen a table,
create tables in bulk. The staff app calls these and records them in its audit trail, in the
same transaction.

The cancellation rule (stated to staff on the cancel form and to the players at the table):
before the first deal ends, every entry fee is refunded in full; after that, the prize pool
(the fees paid minus the table's rake, as at a normal end, docs/rules.md §7) is shared by the
players still in, by their drops remaining, as a split (docs/rules.md §8.3). The money moves
through ``wallet.services`` in the transaction that ends the game.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction

from accounts.models import User
from core.money import format_money
from game_engine.events import GameCancelled, Settlement
from game_engine.game import GameState
from game_engine.pool import prize_pool
from game_engine.split import split_amounts
from tables import clock
from tables.contract import CancelledResult, GameCancelledNotice
from tables.errors import NoGameRunning, TableError
from tables.game import notify, play, record
from tables.game.locks import table_for_update
from tables.models import PoolGame, Table, TableSettings
from wallet import services as wallet
from wallet.models import Account, AccountKind

CANCEL_RULE = (
    "Before the first deal ends, every entry fee is refunded in full. After that, the prize pool "
    "(fees paid minus the table's rake) is shared by the players still in, by their drops remaining, "
    "as a split (docs/rules.md §8.3)."
)
_OPEN = (PoolGame.Status.WAITING, PoolGame.Status.RUNNING)


def _escrow_balance(game: PoolGame) -> int:
    row = Account.objects.filter(kind=AccountKind.ESCROW, ref=game.escrow_ref).values_list("balance").first()
    return int(row[0]) if row else 0


def cancel_game(*, game_id: int, message: str, staff: User | None = None) -> CancelledResult:
    """End a waiting or running game now and settle its money by ``CANCEL_RULE``.

    ``message`` is what the players are told (the table's notice, the stored event and result,
    their wallet memos); staff's internal note never comes here, so it cannot reach a player:
    the staff app keeps it in its audit trail. ``staff`` is the ledger's ``caused_by``.

    Returns the settlement (also stored as the game's ``result``): ``settlement``
    (``refund``, ``split`` or ``none``), ``payouts`` by user id, ``rake``, ``fees_paid``, ``message``.
    The players at the table get a ``notice`` (docs/protocol.md) after commit.
    """
    message = (message or "").strip()
    if not message:
        raise TableError("a cancellation needs a message to the players")
    done: list[CancelledResult] = []

    def step(game: PoolGame, state: GameState | None) -> play.Write:
        if game.status not in _OPEN:
            raise NoGameRunning(
                f"game {game_id} is {game.get_status_display().lower()}; only a waiting or running game can be cancelled"
            )
        return lambda: done.append(_cancel(game, state, message, staff))

    play.run_on_game(game_id, step)
    return done[0]


def _cancel(game: PoolGame, state: GameState | None, message: str, staff: User | None) -> CancelledResult:
    """Settle, end and record the cancelled game: the players are told after commit."""
    result = _settle_cancelled(game, state, message, staff)
    game.status = PoolGame.Status.CANCELLED
    game.finished_at = clock.now()
    game.result = result
    game.deadline_at = None
    game.deadline_kind = ""
    cancelled = GameCancelled(
        message=message, settlement=result["settlement"], payouts=result["payouts"], rake=result["rake"]
    )
    notice = GameCancelledNotice(
        game_id=game.pk,
        message=result["message"],
        money=SETTLEMENT_WORDS[result["settlement"]],
        settlement=result["settlement"],
        payouts=result["payouts"],
        payouts_display={uid: format_money(amount) for uid, amount in result["payouts"].items()},
    )
    record.write_game(
        game,
        [cancelled],
        also=("status", "finished_at", "result", "deadline_at", "deadline_kind"),
        lobby=True,
        notices=(notice.wire(),),
    )
    return result


def _settle_cancelled(
    game: PoolGame, state: GameState | None, message: str, staff: User | None
) -> CancelledResult:
    """Move the escrow out by ``CANCEL_RULE``; the result sheet of the cancellation."""
    escrow = _escrow_balance(game)
    memo = f"Cancelled by staff, {game.table.name}: {message}"[:255]

    def sheet(settlement: Settlement, payouts: dict[str, int], rake: int, pool: int) -> CancelledResult:
        return CancelledResult(
            cancelled=True,
            message=message,
            rule=CANCEL_RULE,
            fees_paid=escrow,
            settlement=settlement,
            payouts=payouts,
            rake=rake,
            prize_pool=pool,
        )

    if escrow == 0:
        return sheet("none", {}, 0, 0)
    if state is None or state.last_result is None:
        paid_before = _paid_by_user(game)
        wallet.refund_all_entries(
            game_ref=game.escrow_ref, idempotency_key=f"cancel:{game.pk}", memo=memo, caused_by=staff
        )
        return sheet("refund", paid_before, 0, 0)
    live = state.live_seats()
    pool, rake = prize_pool(escrow, state.rules)
    amounts = split_amounts(pool, state.rules.entry_fee, [state.drops_remaining(s) for s in live])
    payouts = {int(state.players[s].id): amount for s, amount in zip(live, amounts, strict=True)}
    wallet.settle_game(
        game_ref=game.escrow_ref,
        payouts=payouts,
        rake=rake,
        idempotency_key=f"cancel:{game.pk}",
        memo=memo,
        caused_by=staff,
    )
    split = sheet("split", {str(uid): amount for uid, amount in payouts.items()}, rake, pool)
    split["drops_remaining"] = {state.players[s].id: state.drops_remaining(s) for s in live}
    return split


def _paid_by_user(game: PoolGame) -> dict[str, int]:
    """What each player has in the escrow, cash and bonus chips together (what a refund gives back), by user id."""
    stakes = wallet.game_stakes(game_ref=game.escrow_ref)
    return {
        str(uid): in_cash + in_bonus for uid, (in_cash, in_bonus) in stakes.items() if in_cash + in_bonus > 0
    }


#: What became of the players' money, in words, by settlement (the notice's ``money``).
SETTLEMENT_WORDS = {
    "refund": "Every entry fee has been refunded in full.",
    "split": "The prize pool has been shared by the players still in, by their drops remaining.",
    "none": "No chips were at stake.",
}


#: What the players of a waiting game are told when staff close its table.
TABLE_CLOSED_MESSAGE = "This table was closed, so the game that was waiting for players will not start."


def set_table_open(
    *, table_id: int, is_open: bool, staff: User | None = None, message: str = ""
) -> dict[str, Any]:
    """Close (no new game; the running one plays to its end) or reopen a table.

    Closing cancels a game still waiting for players (their fees come back in full), telling
    them ``message`` (``TABLE_CLOSED_MESSAGE`` if blank); ``staff`` is the refund's ``caused_by``.
    Returns what changed: ``{"was_open", "is_open", "cancelled_game"}``.
    """
    with transaction.atomic():
        try:
            table = table_for_update(table_id)
        except Table.DoesNotExist:
            raise TableError(f"there is no table {table_id}") from None
        was_open = table.is_open
        cancelled = None
        if was_open != is_open:
            table.is_open = is_open
            table.save(update_fields=["is_open"])
        if not is_open:
            waiting = table.games.filter(status=PoolGame.Status.WAITING).first()
            if waiting is not None:
                cancel_game(game_id=waiting.pk, message=message.strip() or TABLE_CLOSED_MESSAGE, staff=staff)
                cancelled = waiting.pk
        transaction.on_commit(lambda: notify.lobby_changed(table_ids=[table_id]))
        return {"was_open": was_open, "is_open": is_open, "cancelled_game": cancelled}


def create_tables(*, settings: TableSettings, count: int, prefix: str = "") -> list[Table]:
    """``count`` new tables of ``settings``, named ``<prefix or settings name> #n`` after the last."""
    if not 1 <= count <= 100:
        raise TableError("create between 1 and 100 tables at once")
    prefix = (prefix or settings.name).strip()[:50]
    with transaction.atomic():
        TableSettings.objects.select_for_update().get(pk=settings.pk)
        existing = set(Table.objects.filter(name__startswith=prefix).values_list("name", flat=True))
        made: list[Table] = []
        n = 1
        while len(made) < count:
            name = f"{prefix} #{n}"
            if name not in existing:
                made.append(Table.objects.create(settings=settings, name=name))
            n += 1
        transaction.on_commit(lambda: notify.lobby_changed(table_ids=[t.pk for t in made]))
        return made
