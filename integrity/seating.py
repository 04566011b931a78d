"""Linked accounts never meet at a table (docs/integrity.md): the check made when a player takes a
seat, connected to ``tables.seating.seat_requested`` (the tables, below this app, call nothing of
it by name)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.dispatch import receiver

from integrity import links
from tables.errors import SeatRefused
from tables.seating import seat_requested

#: What the player is told: nothing about which account, or why they are linked.
REFUSAL = (
    "You cannot take a seat at this table: our fair-play rules keep some accounts apart. "
    "Please choose another table, or contact support if you think this is a mistake."
)


class LinkedAccountAtTable(SeatRefused):
    """A player tried to sit with an account linked to theirs (docs/integrity.md)."""


def check_may_sit_with(user: Any, others: Iterable[Any]) -> None:
    """Raise ``LinkedAccountAtTable`` if ``user`` is linked to anyone in ``others`` (users or ids).

    One query; bots are never linked and never checked.
    """
    if getattr(user, "is_bot", False):
        return
    ids = [int(getattr(o, "pk", o)) for o in others]
    if links.active_between(user.pk, ids):
        raise LinkedAccountAtTable(REFUSAL)


@receiver(seat_requested)
def keep_linked_accounts_apart(sender: Any, user: Any, seated: list[int], **kwargs: Any) -> None:
    check_may_sit_with(user, seated)
