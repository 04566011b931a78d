"""Staff use cases: each one acts through the owning app's service and writes its audit entry
in the same transaction, so an action and its record are kept or lost together."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import play
from accounts.models import Suspension, User
from staff.models import AdjustmentRequest, StaffAction
from tables import staffops
from tables.errors import TableError
from tables.models import PoolGame, Table, TableSettings
from wallet import services as wallet
from wallet.errors import InsufficientFunds, NotStaff, WalletError
from wallet.models import LedgerTransaction
from wallet.money import format_money
from wallet.selectors import chip_balances


class StaffError(Exception):
    """A staff action that cannot be done, said so the form can show it."""


def record(
    *, staff: User, action: str, target: str, reason: str = "", before: Any = None, after: Any = None
) -> StaffAction:
    return StaffAction.objects.create(
        staff=staff, action=action, target=target, reason=reason, before=before or {}, after=after or {}
    )


def _suspension_state(user: User) -> dict[str, Any]:
    s = play.active_suspension(user)
    if s is None:
        return {"suspended": False}
    return {"suspended": True, "until": s.ends_at.isoformat() if s.ends_at else None, "reason": s.reason}


# ---------------------------------------------------------------------------
# players
# ---------------------------------------------------------------------------
def suspend(*, staff: User, user: User, reason: str, until: datetime | None) -> Suspension:
    """Suspend ``user`` now, until ``until`` or until lifted; they are dropped at their tables."""
    reason = (reason or "").strip()
    if not reason:
        raise StaffError("a suspension needs a reason")
    now = timezone.now()
    if until is not None and until <= now:
        raise StaffError("the end of a suspension must be in the future")
    if user.is_staff and user.is_superuser:
        raise StaffError("an administrator account cannot be suspended here")
    with transaction.atomic():
        before = _suspension_state(user)
        suspension = Suspension.objects.create(
            user=user, reason=reason, starts_at=now, ends_at=until, created_by=staff
        )
        record(
            staff=staff,
            action="suspend_player",
            target=f"user:{user.pk} {user.username}",
            reason=reason,
            before=before,
            after=_suspension_state(user),
        )
        play.announce_block(user.pk)
    return suspension


def lift_suspension(*, staff: User, user: User, reason: str) -> int:
    """End every suspension of ``user`` in force now; returns how many."""
    reason = (reason or "").strip()
    if not reason:
        raise StaffError("lifting a suspension needs a reason")
    now = timezone.now()
    with transaction.atomic():
        before = _suspension_state(user)
        active = [s for s in Suspension.objects.select_for_update().filter(user=user) if s.in_force(now)]
        if not active:
            raise StaffError(f"{user.username} is not suspended")
        for s in active:
            s.lifted_at, s.lifted_by, s.lift_reason = now, staff, reason
            s.save(update_fields=["lifted_at", "lifted_by", "lift_reason"])
        record(
            staff=staff,
            action="lift_suspension",
            target=f"user:{user.pk} {user.username}",
            reason=reason,
            before=before,
            after=_suspension_state(user),
        )
    return len(active)


# ---------------------------------------------------------------------------
# games and tables
# ---------------------------------------------------------------------------
def cancel_game(*, staff: User, game: PoolGame, reason: str, message: str) -> dict[str, Any]:
    """Cancel ``game``: ``reason`` is staff's internal note, kept here in the audit trail and
    never passed on; ``message`` is what the players are told (table, result, wallet memo)."""
    reason = (reason or "").strip()
    if not reason:
        raise StaffError("a cancellation needs an internal note")
    with transaction.atomic():
        before = {"status": game.status, "version": game.version}
        try:
            result = staffops.cancel_game(game_id=game.pk, message=message, staff=staff)
        except (TableError, WalletError) as exc:
            raise StaffError(str(exc)) from exc
        record(
            staff=staff,
            action="cancel_game",
            target=f"game:{game.pk} {game.table.name}",
            reason=reason,
            before=before,
            after={
                "status": "cancelled",
                "message": result["message"],
                **{k: result[k] for k in ("settlement", "payouts", "rake")},
            },
        )
    return result


def set_table_open(*, staff: User, table: Table, is_open: bool, reason: str = "") -> dict[str, Any]:
    with transaction.atomic():
        try:
            changed = staffops.set_table_open(table_id=table.pk, is_open=is_open, staff=staff)
        except (TableError, WalletError) as exc:
            raise StaffError(str(exc)) from exc
        record(
            staff=staff,
            action="close_table" if not is_open else "reopen_table",
            target=f"table:{table.pk} {table.name}",
            reason=reason,
            before={"is_open": changed["was_open"]},
            after={"is_open": is_open, "cancelled_game": changed["cancelled_game"]},
        )
    return changed


def create_tables(*, staff: User, settings_row: TableSettings, count: int, prefix: str = "") -> list[Table]:
    with transaction.atomic():
        try:
            made = staffops.create_tables(settings=settings_row, count=count, prefix=prefix)
        except TableError as exc:
            raise StaffError(str(exc)) from exc
        record(
            staff=staff,
            action="create_tables",
            target=f"settings:{settings_row.pk} {settings_row.name}",
            after={"tables": [[t.pk, t.name] for t in made]},
        )
    return made


# ---------------------------------------------------------------------------
# wallet adjustments
# ---------------------------------------------------------------------------
def approval_threshold() -> int:
    """Paise above which an adjustment needs a second staff member (0: never)."""
    return int(settings.ADJUSTMENT_APPROVAL_ABOVE_RUPEES) * 100


def _chips(*, user: User, bonus: bool) -> int:
    return chip_balances(user=user)["bonus" if bonus else "cash"]


def _too_much(*, user: User, amount: int, balance: int, bonus: bool) -> StaffError:
    chips = "bonus chips" if bonus else "balance"
    return StaffError(
        f"A debit of {format_money(-amount)} is more than {user.username}'s {chips} of "
        f"{format_money(balance)}; nothing was changed."
    )


def _apply_adjustment(
    *,
    staff: User,
    user: User,
    amount: int,
    reason: str,
    key: str,
    bonus: bool = False,
    approved_by: User | None = None,
) -> LedgerTransaction:
    before = _chips(user=user, bonus=bonus)
    try:
        txn = wallet.adjust(
            user=user,
            amount=amount,
            reason=reason,
            staff_user=approved_by or staff,
            idempotency_key=key,
            bonus=bonus,
        )
    except InsufficientFunds as exc:
        raise _too_much(user=user, amount=amount, balance=exc.balance, bonus=bonus) from exc
    except NotStaff as exc:
        raise StaffError(str(exc)) from exc
    record(
        staff=approved_by or staff,
        action="adjust_wallet",
        target=f"user:{user.pk} {user.username}",
        reason=reason,
        before={"balance": before},
        after={
            "balance": _chips(user=user, bonus=bonus),
            "amount": amount,
            "transaction": txn.pk,
            **({"chips": "bonus"} if bonus else {}),
            **({"requested_by": staff.username} if approved_by else {}),
        },
    )
    return txn


def adjust_wallet(
    *, staff: User, user: User, amount: int, reason: str, key: str, bonus: bool = False
) -> LedgerTransaction | AdjustmentRequest:
    """Credit (> 0) or debit (< 0) a player's cash chips, or their ``bonus`` chips, now or,
    above the approval threshold, once another staff member approves."""
    reason = (reason or "").strip()
    if not reason:
        raise StaffError("an adjustment needs a reason")
    threshold = approval_threshold()
    with transaction.atomic():
        if threshold and abs(amount) > threshold:
            balance = _chips(user=user, bonus=bonus)
            if amount < 0 and balance < -amount:
                raise _too_much(user=user, amount=amount, balance=balance, bonus=bonus)
            request, _ = AdjustmentRequest.objects.get_or_create(
                idempotency_key=key,
                defaults={
                    "user": user,
                    "amount": amount,
                    "bonus": bonus,
                    "reason": reason,
                    "requested_by": staff,
                },
            )
            record(
                staff=staff,
                action="request_adjustment",
                target=f"user:{user.pk} {user.username}",
                reason=reason,
                after={"amount": amount, "request": request.pk, **({"chips": "bonus"} if bonus else {})},
            )
            return request
        return _apply_adjustment(staff=staff, user=user, amount=amount, reason=reason, key=key, bonus=bonus)


def decide_adjustment(*, staff: User, request: AdjustmentRequest, approve: bool) -> AdjustmentRequest:
    """A second staff member approves (the money moves) or rejects a pending adjustment."""
    with transaction.atomic():
        request = AdjustmentRequest.objects.select_for_update().get(pk=request.pk)
        if request.status != AdjustmentRequest.Status.PENDING:
            raise StaffError("this adjustment was already decided")
        if request.requested_by_id == staff.pk:
            raise StaffError("an adjustment must be approved by another staff member")
        if approve:
            _apply_adjustment(
                staff=request.requested_by,
                user=request.user,
                amount=request.amount,
                reason=request.reason,
                key=request.idempotency_key,
                bonus=request.bonus,
                approved_by=staff,
            )
        else:
            record(
                staff=staff,
                action="reject_adjustment",
                target=f"user:{request.user_id}",
                reason=request.reason,
                after={"amount": request.amount, "request": request.pk},
            )
        request.status = AdjustmentRequest.Status.APPROVED if approve else AdjustmentRequest.Status.REJECTED
        request.decided_by, request.decided_at = staff, timezone.now()
        request.save(update_fields=["status", "decided_by", "decided_at"])
    return request
