"""Staff use cases. Each one checks the staff member's authority (``staff.authority``), acts
through the owning app's service and writes its one audit entry (``staff.audit.record``) in the
same transaction, so an action and its record are kept or lost together. A refused attempt is
recorded after its transaction rolled back (``refusals_recorded``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts import play
from accounts.models import Suspension, User
from core.money import format_money
from staff import audit, authority
from staff.audit import StaffRefused
from staff.models import StaffAction, StaffNote
from tables.contract import CancelledResult
from tables.errors import TableError
from tables.game import staffops
from tables.models import PoolGame, Table, TableSettings
from wallet.errors import WalletError


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
def refusals_recorded(staff: User) -> Iterator[None]:
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
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
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
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
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
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
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
