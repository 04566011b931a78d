"""What the wallet does when something happens in an app below it (connected in ``WalletConfig.ready``)."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from accounts.models import User
from accounts.services import signed_up
from wallet.services import grant_signup_bonus


@receiver(signed_up, dispatch_uid="wallet.signup_bonus")
def give_signup_bonus(sender: Any, user: User, **kwargs: Any) -> None:
    """A new account gets ``SIGNUP_BONUS_CHIPS`` bonus chips, in the transaction that made it."""
    grant_signup_bonus(user=user)
