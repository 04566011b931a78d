"""The one place that takes ledger row locks (after Saleor's ``lock_objects``).

Every service locks all the accounts it touches in a single query ordered by
primary key, so two postings can never wait on each other in opposite orders.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from wallet.models import Account


def accounts_for_update(account_ids: Iterable[int]) -> QuerySet[Account]:
    """Lock the given accounts in pk order; must be evaluated inside ``transaction.atomic()``."""
    return (
        Account.objects.filter(pk__in=sorted(set(account_ids))).order_by("pk").select_for_update(of=("self",))
    )
