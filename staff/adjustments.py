"""Wallet adjustments by staff, under the money controls (docs/staff.md): one adjustment's
ceiling, a staff member's daily limit, and a second administrator's approval past a threshold.
Each is a staff use case as ``staff.services`` describes: authority checked, the owning app's
service (``wallet.services.adjust``) called and the audit entry written in one transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from core.money import format_money
from staff import audit, authority
from staff.audit import StaffRefused
from staff.models import AdjustmentRequest
from staff.money_controls import adjusted_recently, approval_threshold, rupees_setting
from staff.services import StaffError, record, refusals_recorded
from wallet import services as wallet
from wallet.errors import IdempotencyConflict, InsufficientFunds, NotStaff
from wallet.models import AccountKind, LedgerTransaction, TransactionKind
from wallet.selectors import chip_balances


def _check_money_controls(*, staff: User, user: User, amount: int, now: datetime) -> bool:
    """Raise ``StaffRefused`` past a control; returns whether the adjustment needs approval.

    Called with ``staff``'s row locked, so two adjustments at once are counted one after the other.
    """
    authority.check_may_act_on(staff, user, verb="adjust_wallet")
    ceiling = rupees_setting("ADJUSTMENT_MAX_RUPEES")
    if abs(amount) > ceiling:
        raise StaffRefused(
            f"{format_money(abs(amount))} is more than one adjustment may be ({format_money(ceiling)})",
            verb="adjust_wallet",
            target=user,
        )
    day = adjusted_recently(staff=staff, since=now - timedelta(hours=24))
    daily = rupees_setting("ADJUSTMENT_DAILY_LIMIT_RUPEES")
    if day + abs(amount) > daily:
        raise StaffRefused(
            f"{staff.username} has adjusted {format_money(day)} in the last 24 hours; "
            f"{format_money(abs(amount))} more would pass the daily limit of {format_money(daily)}",
            verb="adjust_wallet",
            target=user,
        )
    window = now - timedelta(hours=int(settings.ADJUSTMENT_APPROVAL_WINDOW_HOURS))
    threshold = approval_threshold()
    return threshold == 0 or adjusted_recently(staff=staff, since=window) + abs(amount) > threshold


def _chips(*, user: User, bonus: bool) -> int:
    return chip_balances(user=user)["bonus" if bonus else "cash"]


def _too_much(*, user: User, amount: int, balance: int, bonus: bool) -> StaffError:
    chips = "bonus chips" if bonus else "balance"
    return StaffError(
        f"A debit of {format_money(-amount)} is more than {user.username}'s {chips} of "
        f"{format_money(balance)}; nothing was changed."
    )


def _memo(message: str) -> str:
    return (message or "").strip() or "Adjustment by our support team"


@dataclass(frozen=True)
class Adjusted:
    """What an adjustment form did: applied (a transaction) or waiting (a request); ``replayed``:
    the same form was sent again and nothing new happened."""

    done: LedgerTransaction | AdjustmentRequest
    replayed: bool = False

    @property
    def waiting(self) -> bool:
        return isinstance(self.done, AdjustmentRequest)


def _apply_adjustment(
    *,
    staff: User,
    user: User,
    amount: int,
    reason: str,
    message: str,
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
            memo=_memo(message),
        )
    except InsufficientFunds as exc:
        raise _too_much(user=user, amount=amount, balance=exc.balance, bonus=bonus) from exc
    except NotStaff as exc:
        raise StaffError(str(exc)) from exc
    except IdempotencyConflict as exc:
        raise StaffError("This form was already used for another adjustment; reload the page.") from exc
    record(
        staff=approved_by or staff,
        action="adjust_wallet",
        target=user,
        reason=reason,
        before={"balance": format_money(before)},
        after={
            "balance": format_money(_chips(user=user, bonus=bonus)),
            "amount": format_money(amount),
            "chips": "bonus" if bonus else "cash",
            "transaction": txn.pk,
            "message": _memo(message),
            **({"requested_by": staff.username} if approved_by else {}),
        },
    )
    return txn


def _replay(*, key: str, user: User, amount: int, bonus: bool) -> Adjusted | None:
    """The same form sent again: what it did the first time (no second entry, no second move)."""
    request = AdjustmentRequest.objects.filter(idempotency_key=key).first()
    if request is not None:
        if (request.user_id, request.amount, request.bonus) != (user.pk, amount, bonus):
            raise StaffError("This form was already used for another adjustment; reload the page.")
        return Adjusted(done=request, replayed=True)
    txn = LedgerTransaction.objects.filter(idempotency_key=key).first()
    if txn is None:
        return None
    leg = (
        txn.entries.select_related("account")
        .filter(account__kind__in=[AccountKind.WALLET, AccountKind.BONUS])
        .first()
    )
    same = (
        txn.kind == TransactionKind.ADJUSTMENT
        and leg is not None
        and leg.amount == amount
        and leg.account.ref == f"user:{user.pk}"
        and (leg.account.kind == AccountKind.BONUS) == bonus
    )
    if not same:
        raise StaffError("This form was already used for another adjustment; reload the page.")
    return Adjusted(done=txn, replayed=True)


def adjust_wallet(
    *, staff: User, user: User, amount: int, reason: str, key: str, bonus: bool = False, message: str = ""
) -> Adjusted:
    """Credit (> 0) or debit (< 0) a player's cash chips, or their ``bonus`` chips: now, or once
    another administrator approves when the money controls ask for it (docs/staff.md).

    ``reason`` is the internal note (the audit trail); ``message`` what the player's history shows.
    """
    reason = (reason or "").strip()
    if not reason:
        raise StaffError("an adjustment needs a reason")
    now = timezone.now()
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
        User.objects.select_for_update().filter(pk=staff.pk).first()  # one adjuster's totals, one at a time
        replayed = _replay(key=key, user=user, amount=amount, bonus=bonus)
        if replayed is not None:
            return replayed
        if not _check_money_controls(staff=staff, user=user, amount=amount, now=now):
            return Adjusted(
                done=_apply_adjustment(
                    staff=staff,
                    user=user,
                    amount=amount,
                    reason=reason,
                    message=message,
                    key=key,
                    bonus=bonus,
                )
            )
        balance = _chips(user=user, bonus=bonus)
        if amount < 0 and balance < -amount:
            raise _too_much(user=user, amount=amount, balance=balance, bonus=bonus)
        request = AdjustmentRequest.objects.create(
            idempotency_key=key,
            user=user,
            amount=amount,
            bonus=bonus,
            reason=reason,
            message=(message or "").strip(),
            requested_by=staff,
        )
        record(
            staff=staff,
            action="request_adjustment",
            target=user,
            reason=reason,
            after={
                "amount": format_money(amount),
                "chips": "bonus" if bonus else "cash",
                "request": request.pk,
                "message": _memo(message),
            },
        )
        return Adjusted(done=request)


def decide_adjustment(*, staff: User, request: AdjustmentRequest, approve: bool) -> AdjustmentRequest:
    """A second administrator approves (the money moves) or rejects a pending adjustment."""
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
        request = AdjustmentRequest.objects.select_for_update().get(pk=request.pk)
        if request.status != AdjustmentRequest.Status.PENDING:
            raise StaffError("this adjustment was already decided")
        if request.requested_by_id == staff.pk:
            raise StaffRefused(
                "an adjustment must be approved by another staff member",
                verb="approve_adjustment",
                target=request.user,
            )
        authority.check_may_act_on(staff, request.user, verb="approve_adjustment")
        if approve:
            _apply_adjustment(
                staff=request.requested_by,
                user=request.user,
                amount=request.amount,
                reason=request.reason,
                message=request.message,
                key=request.idempotency_key,
                bonus=request.bonus,
                approved_by=staff,
            )
        else:
            record(
                staff=staff,
                action="reject_adjustment",
                target=request.user,
                reason=request.reason,
                after={"amount": format_money(request.amount), "request": request.pk},
            )
        request.status = AdjustmentRequest.Status.APPROVED if approve else AdjustmentRequest.Status.REJECTED
        request.decided_by, request.decided_at = staff, timezone.now()
        request.save(update_fields=["status", "decided_by", "decided_at"])
    return request
