"""The staff use cases of fair play (docs/integrity.md): link and clear accounts, record a review's
decision (cleared, warned, suspended, chips reversed) and replay a flag's deals face up, each
checked (``staff.authority``) and written to the audit trail in its own transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import transaction

from accounts.models import User
from core.money import format_money
from integrity import links, review
from integrity.models import AccountLink, Flag
from staff import adjustments, audit, authority, services
from staff.audit import StaffRefused
from staff.services import StaffError, refusals_recorded
from tables.models import Deal

LINK = "integrity.link_accounts"
REVIEW = "integrity.review_flag"
ADJUST = "wallet.adjust_balance"


def _require(staff: User, perm: str, verb: str, target: Any) -> None:
    if not staff.has_perm(perm):
        raise StaffRefused(
            f"{staff.username}'s role may not {verb.replace('_', ' ')}", verb=verb, target=target
        )


def link_accounts(*, staff: User, a: User, b: User, reason: str) -> AccountLink:
    """Staff link two accounts: they are kept apart at seating until a link is cleared."""
    reason = (reason or "").strip()
    if not reason:
        raise StaffError("linking accounts needs a reason")
    if a.pk == b.pk:
        raise StaffError("an account cannot be linked to itself")
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
        _require(staff, LINK, "link_accounts", a)
        for user in (a, b):
            authority.check_may_act_on(staff, user, verb="link_accounts")
        row, changed = links.link(
            a, b, source=AccountLink.Source.STAFF, by=staff, reason=reason, evidence=reason
        )
        if not changed:
            raise StaffError(f"{a.username} and {b.username} are already linked")
        audit.record(
            staff=staff,
            action="link_accounts",
            target=row,
            reason=reason,
            before={"linked": False},
            after={"linked": True, "accounts": f"{a.username}, {b.username}"},
            label=f"{a.username} and {b.username}",
        )
    return row


def clear_link(*, staff: User, link: AccountLink, reason: str) -> AccountLink:
    """Staff clear a link: the two accounts may sit at one table again."""
    reason = (reason or "").strip()
    if not reason:
        raise StaffError("clearing a link needs a reason")
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
        _require(staff, LINK, "clear_link", link.user_a)
        for user in (link.user_a, link.user_b):
            authority.check_may_act_on(staff, user, verb="clear_link")
        source = link.get_source_display()
        if not links.clear(link, by=staff, reason=reason):
            raise StaffError("this link was already cleared")
        audit.record(
            staff=staff,
            action="clear_link",
            target=link,
            reason=reason,
            before={"linked": True, "source": source},
            after={"linked": False},
            label=f"{link.user_a.username} and {link.user_b.username}",
        )
    return link


def record_replay(*, staff: User, flag: Flag, deal: Deal) -> None:
    """A reviewer opens a deal behind a flag, every hand face up: recorded, the flag as the reason."""
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
        _require(staff, REVIEW, "review_flag", deal.game)
        if deal.game_id not in flag.games:
            raise StaffError("this deal is not behind this flag")
        audit.record(
            staff=staff,
            action="view_replay",
            target=deal.game,
            reason=f"review of flag {flag.pk} ({flag.get_signal_display()})",
            kind=audit.Action.ACCESS,
            after={"deal": deal.number, "flag": flag.pk},
            label=f"game:{deal.game_id} deal {deal.number}",
        )


@dataclass(frozen=True)
class Decision:
    """What a reviewer decided, and what it asks: ``suspend`` (accounts, until, message),
    ``reverse`` (paise from ``reverse_from`` back to ``reverse_to``), ``warning`` (the player's
    message), ``clear_link`` (a cleared flag also clears the pair's link)."""

    decision: str
    reason: str
    warning: str = ""
    suspend: tuple[User, ...] = ()
    until: datetime | None = None
    suspend_message: str = ""
    reverse_from: User | None = None
    reverse_to: User | None = None
    amount: int = 0
    clear_link: bool = False
    key: str = ""


def decide_flag(*, staff: User, flag: Flag, d: Decision) -> dict[str, Any]:
    """Record a review's decision and carry it out, all or nothing, each step audited: a
    suspension through ``staff.services.suspend``, a reversal through two
    ``staff.adjustments.adjust_wallet`` (which may wait for another administrator's approval)."""
    reason = (d.reason or "").strip()
    if not reason:
        raise StaffError("a decision needs a reason")
    done: dict[str, Any] = {"decision": d.decision}
    with refusals_recorded(staff), transaction.atomic(), audit.service_action():
        _require(staff, REVIEW, "review_flag", flag.user_a)
        for user in filter(None, (flag.user_a, flag.user_b)):
            authority.check_may_act_on(staff, user, verb="review_flag")
        try:
            review.decide(flag=flag, staff=staff, decision=d.decision, reason=reason, warning=d.warning)
        except review.DecisionError as exc:
            raise StaffError(str(exc)) from exc
        if d.decision == Flag.Decision.SUSPENDED:
            if not d.suspend:
                raise StaffError("choose whom to suspend")
            for user in d.suspend:
                services.suspend(
                    staff=staff, user=user, reason=reason, until=d.until, message=d.suspend_message
                )
            done["suspended"] = [u.username for u in d.suspend]
        if d.decision == Flag.Decision.REVERSED:
            _require(staff, ADJUST, "adjust_wallet", flag.user_a)
            if d.reverse_from is None or d.reverse_to is None or d.amount <= 0:
                raise StaffError("a reversal needs the amount and whom it goes from and to")
            if d.reverse_from.pk == d.reverse_to.pk:
                raise StaffError("a reversal moves chips between two different players")
            key = d.key or f"flag:{flag.pk}"
            try:
                debit = adjustments.adjust_wallet(
                    staff=staff,
                    user=d.reverse_from,
                    amount=-d.amount,
                    reason=reason,
                    key=f"{key}:debit",
                    message="Chips won against a linked account were taken back after a fair-play review",
                )
                credit = adjustments.adjust_wallet(
                    staff=staff,
                    user=d.reverse_to,
                    amount=d.amount,
                    reason=reason,
                    key=f"{key}:credit",
                    message="Chips lost to a linked account were given back after a fair-play review",
                )
            except services.Refused as exc:  # recorded once this transaction is undone
                raise StaffRefused(str(exc), verb="adjust_wallet", target=d.reverse_from) from exc
            done["reversed"] = format_money(d.amount)
            done["waiting"] = debit.waiting or credit.waiting
        if d.clear_link and flag.user_b_id is not None:
            row = links.find(flag.user_a_id, flag.user_b_id)
            if row is not None and row.active:
                links.clear(row, by=staff, reason=reason)
                done["link_cleared"] = True
        audit.record(
            staff=staff,
            action="decide_flag",
            target=flag,
            reason=reason,
            before={"decision": "open"},
            after={
                "decision": flag.get_decision_display(),
                "signal": flag.get_signal_display(),
                **({"warning": d.warning} if d.decision == Flag.Decision.WARNED else {}),
                **{k: v for k, v in done.items() if k != "decision"},
            },
            label=str(flag),
        )
    return done
