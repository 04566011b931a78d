"""Account use cases."""

from __future__ import annotations

from accounts.models import User


def user_signed_up(*, user: User) -> None:
    """Everything a new account gets, run in the transaction that created it."""
    from wallet.services import grant_signup_bonus  # wallet depends on accounts, not the reverse

    grant_signup_bonus(user=user)
