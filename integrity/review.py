"""A review's decision on a flag: recorded in the caller's transaction. The staff side
(``staff.integrity``) wraps it in its own audited transaction, with its authority, the
suspension and the chips a decision may carry."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from integrity.models import (
    Flag,
    PlayerWarning,
)


class DecisionError(Exception):
    """A decision that cannot be recorded, in words for the form."""


def decide(*, flag: Flag, staff: Any, decision: str, reason: str, warning: str = "") -> Flag:
    """Record a review's decision on an open flag (in the caller's transaction); a warning's
    message is shown to the warned player(s) once, at their next log-in."""
    reason = (reason or "").strip()
    if decision not in Flag.Decision.values:
        raise DecisionError(f"unknown decision {decision!r}")
    if not reason:
        raise DecisionError("a decision needs a reason")
    row = Flag.objects.select_for_update().get(pk=flag.pk)
    if row.decision:
        raise DecisionError("this flag was already decided")
    if row.state == Flag.State.LAPSED:
        raise DecisionError(
            "this flag lapsed: the signal no longer finds the pair (it reopens if it does again)"
        )
    now = timezone.now()
    row.decision, row.decided_at, row.decided_by = decision, now, staff
    row.decision_reason = reason[:300]
    row.games_at_decision = row.games_total or len(row.games)
    row.save(update_fields=["decision", "decided_at", "decided_by", "decision_reason", "games_at_decision"])
    if decision == Flag.Decision.WARNED:
        message = (warning or "").strip()
        if not message:
            raise DecisionError("a warning needs the message the player is shown")
        for user_id in filter(None, (row.user_a_id, row.user_b_id)):
            PlayerWarning.objects.create(user_id=user_id, flag=row, message=message[:300], created_at=now)
    flag.refresh_from_db()
    return row
