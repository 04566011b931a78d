"""Linked accounts never meet at a table (docs/integrity.md): the check the table services make
when a player takes a seat. It reads only ``integrity.models`` (and the tables' error type), so
the table services may call it without the rest of this app sitting below them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from integrity import links
from tables.errors import TableError

#: What the player is told: nothing about which account, or why they are linked.
REFUSAL = (
    "You cannot take a seat at this table: our fair-play rules keep some accounts apart. "
    "Please choose another table, or contact support if you think this is a mistake."
)


class LinkedAccountAtTable(TableError):
    """A player tried to sit with an account linked to theirs (docs/integrity.md)."""

    code = "linked_account_at_table"


def check_may_sit_with(user: Any, others: Iterable[Any]) -> None:
    """Raise ``LinkedAccountAtTable`` if ``user`` is linked to anyone in ``others`` (users or ids).

    One query; bots are never linked and never checked.
    """
    if getattr(user, "is_bot", False):
        return
    ids = [int(getattr(o, "pk", o)) for o in others]
    if links.active_between(user.pk, ids):
        raise LinkedAccountAtTable(REFUSAL)
