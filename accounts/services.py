"""Account use cases."""

from __future__ import annotations

from accounts.models import User


def user_signed_up(*, user: User) -> None:
    """Everything a new account gets, run in the transaction that created it."""
