"""What the wallet does when something happens in an app below it (connected in ``WalletConfig.ready``)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.models import User
from accounts.services import signup_bonus_earned
from wallet.services import grant_signup_bonus


@receiver(signup_bonus_earned, dispatch_uid="wallet.signup_bonus")
def give_signup_bonus(sender: Any, user: User, **kwargs: Any) -> None:
    """An account whose confirmed address is the first of its mailbox gets ``SIGNUP_BONUS_CHIPS``
    bonus chips, in the transaction that recorded the mailbox (so both or neither)."""
    grant_signup_bonus(user=user)
