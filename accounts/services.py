"""Account use cases."""

from __future__ import annotations

from django.dispatch import Signal

from accounts.models import User

#: Sent in the transaction that created an account (``user``): the apps above accounts give it
#: what a new account gets (the wallet its sign-up bonus, ``wallet.receivers``). Accounts imports
#: no app above it; they listen.
signed_up = Signal()


def user_signed_up(*, user: User) -> None:
    """Everything a new account gets, run in the transaction that created it (``signed_up``)."""
    signed_up.send(sender=User, user=user)
