"""Staff use cases. Each one checks the staff member's authority (``staff.authority``), acts
through the owning app's service and writes its one audit entry (``staff.audit.record``) in the
same transaction, so an action and its record are kept or lost together. A refused attempt is
recorded after its transaction rolled back (``_refusals_recorded``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import play
from accounts.models import Suspension, User
from core.money import format_money
from staff import audit, authority
from staff.audit import StaffRefused
from staff.models import AdjustmentRequest, StaffAction, StaffNote
from staff.money_controls import adjusted_recently, approval_threshold, rupees_setting
from tables.contract import CancelledResult
from tables.errors import TableError
from tables.game import staffops
from tables.models import PoolGame, Table, TableSettings
from wallet import services as wallet
from wallet.errors import IdempotencyConflict, InsufficientFunds, NotStaff, WalletError
from wallet.models import AccountKind, LedgerTransaction, TransactionKind
from wallet.selectors import chip_balances


class StaffError(Exception):
    """A staff action that cannot be done, said so the form can show it."""


class Refused(StaffError):
    """A staff action the staff member's role or the money controls do not allow (recorded)."""


def record(
    *,
    staff: User,
    action: str,
    target: Any,
    reason: str = "",
    before: Any = None,
    after: Any = None,
) -> StaffAction:
    """One audit entry (``staff.audit.record``); ``target`` the object acted on."""
    entry: StaffAction = audit.record(
        staff=staff, action=action, target=target, reason=reason, before=before, after=after
    )
    return entry


@contextlib.contextmanager
def _refusals_recorded(staff: User) -> Iterator[None]:
    """Around a use case's transaction: a refusal is recorded once that transaction is undone,
    and reaches the caller as a ``Refused`` with the words staff read."""
    try:
        yield
    except StaffRefused as exc:
        if not getattr(exc, "recorded", False):
            audit.record_refusal(staff=staff, refused=exc)
        raise Refused(str(exc)) from exc


def _suspension_state(user: User) -> dict[str, Any]:
    s = play.active_suspension(user)
    if s is None:
        return {"suspended": False}
    return {
        "suspended": True,
        "until": s.ends_at.isoformat() if s.ends_at else "until lifted",
        "note": s.reason,
        "message": s.message,
    }


# ---------------------------------------------------------------------------
# players
# ---------------------------------------------------------------------------
NOTE_PERMISSION = "staff.add_staffnote"


def add_note(*, staff: User, user: User, text: str) -> StaffNote:
    """Add a note to ``user``'s case history, recorded in the audit trail (docs/staff.md).

    Like every staff action it follows the rules of who acts on whom: nobody writes the case
    history of their own account or of an equal or higher role.
    """
    text = (text or "").strip()
    if not text:
        raise StaffError("a note needs some text")
    if len(text) > 2000:
        raise StaffError("a note is at most 2,000 characters")
    with _refusals_recorded(staff), transaction.atomic(), audit.service_action():
        if not staff.has_perm(NOTE_PERMISSION):
            raise StaffRefused(
                f"{staff.username}'s role may not write staff notes", verb="add_note", target=user
            )
        authority.check_may_act_on(staff, user, verb="add_note")
        note = StaffNote.objects.create(user=user, author=staff, text=text)
        record(staff=staff, action="add_note", target=user, reason=text[:300], after={"note": text})
    return note


def suspend(*, staff: User, user: User, reason: str, until: datetime | None, message: str = "") -> Suspension:
    """Suspend ``user`` now, until ``until`` or until lifted; they are dropped at their tables.

    ``reason`` is the internal note; ``message`` is what the player is told (``play.block_reason``).
    """
    reason = (reason or "").strip()
    message = (message or "").strip()
    if not reason:
        raise StaffError("a suspension needs a reason")
    now = timezone.now()
    if until is not None and until <= now:
        raise StaffError("the end of a suspension must be in the future")
    with _refusals_recorded(staff), transaction.atomic(), audit.service_action():
        authority.check_may_act_on(staff, user, verb="suspend_player")
        before = _suspension_state(user)
        suspension = Suspension.objects.create(
            user=user, reason=reason, message=message, starts_at=now, ends_at=until, created_by=staff
        )
        record(
            staff=staff,
            action="suspend_player",
            target=user,
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
    with _refusals_recorded(staff), transaction.atomic(), audit.service_action():
        authority.check_may_act_on(staff, user, verb="lift_suspension")
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
            target=user,
            reason=reason,
            before=before,
            after=_suspension_state(user),
        )
    return len(active)


# ---------------------------------------------------------------------------
# games and tables
# ---------------------------------------------------------------------------
def cancel_game(*, staff: User, game: PoolGame, reason: str, message: str) -> CancelledResult:
    """Cancel ``game``: ``reason`` is staff's internal note, kept here in the audit trail and
    never passed on; ``message`` is what the players are told (table, result, wallet memo)."""
    reason = (reason or "").strip()
    if not reason:
        raise StaffError("a cancellation needs an internal note")
    with transaction.atomic(), audit.service_action():
        before = {"status": game.status, "version": game.version}
        try:
            result = staffops.cancel_game(game_id=game.pk, message=message, staff=staff)
        except (TableError, WalletError) as exc:
            raise StaffError(str(exc)) from exc
        record(
            staff=staff,
            action="cancel_game",
            target=game,
            reason=reason,
            before=before,
            after={
                "status": "cancelled",
                "message": result["message"],
                "settlement": result["settlement"],
                "payouts": {uid: format_money(int(amount)) for uid, amount in result["payouts"].items()},
                "rake": format_money(int(result["rake"])),
            },
        )
    return result


def set_table_open(*, staff: User, table: Table, is_open: bool, reason: str = "") -> dict[str, Any]:
    with transaction.atomic(), audit.service_action():
        try:
            changed = staffops.set_table_open(table_id=table.pk, is_open=is_open, staff=staff)
        except (TableError, WalletError) as exc:
            raise StaffError(str(exc)) from exc
        record(
            staff=staff,
            action="close_table" if not is_open else "reopen_table",
            target=table,
            reason=reason,
            before={"is_open": changed["was_open"]},
            after={"is_open": is_open, "cancelled_game": changed["cancelled_game"]},
        )
    return changed


def create_tables(
    *, staff: User, settings_row: TableSettings, count: int, prefix: str = "", reason: str = ""
) -> list[Table]:
    with transaction.atomic(), audit.service_action():
        try:
            made = staffops.create_tables(settings=settings_row, count=count, prefix=prefix)
        except TableError as exc:
            raise StaffError(str(exc)) from exc
        record(
            staff=staff,
            action="create_tables",
            target=settings_row,
            reason=reason,
            after={"tables": ", ".join(f"{t.name} (#{t.pk})" for t in made)},
        )
    return made


# ---------------------------------------------------------------------------
# wallet adjustments, with their money controls (docs/staff.md)
# ---------------------------------------------------------------------------
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
    with _refusals_recorded(staff), transaction.atomic(), audit.service_action():
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
    with _refusals_recorded(staff), transaction.atomic(), audit.service_action():
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
