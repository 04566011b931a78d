"""Finding accounts by what staff type into a search box, with indexes (no scan of every user)."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.db.models.functions import Lower

from accounts.models import User


def named(term: str) -> QuerySet[User]:
    """The accounts whose user name is ``term`` or whose e-mail address is ``term`` (any case):
    both read through their unique indexes (``accounts_user_email_ci_unique`` on ``LOWER(email)``,
    a partial index of the accounts that have an address: the query says ``email <> ''`` so that
    PostgreSQL may use it, else it reads every account)."""
    term = term.strip()
    return User.objects.alias(email_lower=Lower("email")).filter(
        Q(username=term) | (Q(email_lower=term.lower()) & ~Q(email=""))
    )
