"""Linked accounts: made by staff or by a strong signal, cleared only by staff (docs/integrity.md)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.dispatch import Signal
from django.utils import timezone

from integrity.models import AccountLink

#: Sent in the link's transaction when a link is made or made active again, with ``link``: the
#: accounts are kept apart from then on (``integrity.seating`` parts them where they sit together).
linked = Signal()


def _ids(a: Any, b: Any) -> tuple[int, int]:
    x, y = int(getattr(a, "pk", a)), int(getattr(b, "pk", b))
    if x == y:
        raise ValueError("an account cannot be linked to itself")
    return (x, y) if x < y else (y, x)


def find(a: Any, b: Any) -> AccountLink | None:
    low, high = _ids(a, b)
    return AccountLink.objects.filter(user_a_id=low, user_b_id=high).first()


def link(
    a: Any, b: Any, *, source: str, evidence: str = "", by: Any = None, reason: str = ""
) -> tuple[AccountLink, bool]:
    """Link two accounts; returns the link and whether this changed anything.

    A signal (``by`` None) never links again a pair staff cleared: their decision stands until
    staff link the pair themselves.
    """
    low, high = _ids(a, b)
    now = timezone.now()
    with transaction.atomic():
        existing = AccountLink.objects.select_for_update().filter(user_a_id=low, user_b_id=high).first()
        if existing is not None:
            if existing.active or by is None:
                return existing, False
            existing.active = True
            existing.source, existing.evidence = source, evidence[:300]
            existing.created_at, existing.created_by, existing.reason = now, by, reason[:300]
            existing.cleared_at, existing.cleared_by, existing.clear_reason = None, None, ""
            existing.save()
            linked.send(sender=AccountLink, link=existing)
            return existing, True
        try:
            with transaction.atomic():
                made = AccountLink.objects.create(
                    user_a_id=low,
                    user_b_id=high,
                    source=source,
                    evidence=evidence[:300],
                    created_at=now,
                    created_by=by,
                    reason=reason[:300],
                )
        except IntegrityError:  # made meanwhile by another log-in or scan
            return AccountLink.objects.get(user_a_id=low, user_b_id=high), False
        linked.send(sender=AccountLink, link=made)
        return made, True


def clear(link_row: AccountLink, *, by: Any, reason: str) -> bool:
    """Staff clear a link (the accounts may meet again); returns whether it was active."""
    with transaction.atomic():
        row = AccountLink.objects.select_for_update().get(pk=link_row.pk)
        if not row.active:
            return False
        row.active = False
        row.cleared_at, row.cleared_by, row.clear_reason = timezone.now(), by, reason[:300]
        row.save(update_fields=["active", "cleared_at", "cleared_by", "clear_reason"])
        link_row.refresh_from_db()
        return True


def active_between(user_id: int, others: Iterable[int]) -> bool:
    """Whether ``user_id`` has an active link to any of ``others`` (one query)."""
    others = [o for o in others if o != user_id]
    if not others:
        return False
    return AccountLink.objects.filter(
        Q(user_a_id=user_id, user_b_id__in=others) | Q(user_b_id=user_id, user_a_id__in=others), active=True
    ).exists()


def active_pairs(user_ids: Iterable[int]) -> set[tuple[int, int]]:
    """The actively linked pairs among ``user_ids`` (lower id first; one query)."""
    ids = sorted(set(user_ids))
    if len(ids) < 2:
        return set()
    rows = AccountLink.objects.filter(user_a_id__in=ids, user_b_id__in=ids, active=True)
    return set(rows.values_list("user_a_id", "user_b_id"))


def links_of(user_id: int) -> list[AccountLink]:
    """Every link of an account, active first."""
    return list(
        AccountLink.objects.filter(Q(user_a_id=user_id) | Q(user_b_id=user_id))
        .select_related("user_a", "user_b", "created_by", "cleared_by")
        .order_by("-active", "-created_at")
    )
