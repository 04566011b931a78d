"""Linked accounts never meet in a game (docs/integrity.md): checked when a player takes a seat
(``tables.game.seating.seat_requested``), when a game starts (``game_starting``), at a rejoin
(``rejoin_requested``), and when a link is made while both sit at one table (``links.linked``).
The tables, below this app, call nothing of it by name.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from django.dispatch import receiver

from integrity import flagging, links
from integrity.models import AccountLink
from tables.errors import SeatRefused
from tables.game import seating
from tables.game.seating import game_starting, rejoin_requested, seat_requested
from tables.models import PoolGame, Seat

logger = logging.getLogger(__name__)

#: What the player is told: nothing about which account, or why they are linked.
REFUSAL = (
    "You cannot take a seat at this table: our fair-play rules keep some accounts apart. "
    "Please choose another table, or contact support if you think this is a mistake."
)


def sent_away(table_name: str) -> str:
    """What a player sent away from a waiting table is told on their next page (after a log-in)."""
    return (
        f"Your seat at {table_name} was given back before the game started, and your entry fee is "
        "back in your wallet: our fair-play rules keep some accounts apart. Please choose another "
        "table, or contact support if you think this is a mistake."
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


def parting(seated: list[int]) -> dict[int, str]:
    """Who of ``seated`` (user ids in the order they sat) must leave so that no two linked
    accounts start together: of each linked pair the later-seated one, taken in seating order
    (one query). Each is told ``REFUSAL``."""
    pairs = links.active_pairs(seated)
    kept: list[int] = []
    leaving: dict[int, str] = {}
    for user_id in seated:
        if any((min(user_id, k), max(user_id, k)) in pairs for k in kept):
            leaving[user_id] = REFUSAL
        else:
            kept.append(user_id)
    return leaving


@receiver(seat_requested)
def keep_linked_accounts_apart(sender: Any, user: Any, seated: list[int], **kwargs: Any) -> None:
    check_may_sit_with(user, seated)


@receiver(rejoin_requested)
def no_rejoin_beside_a_linked_account(sender: Any, user: Any, others: list[int], **kwargs: Any) -> None:
    """A rejoin buys a seat back in a running game: refused beside a linked account still in it."""
    check_may_sit_with(user, others)


@receiver(game_starting)
def part_linked_accounts_at_the_start(sender: Any, seated: list[int], **kwargs: Any) -> dict[int, str]:
    return parting(seated)


@receiver(links.linked)
def part_them_where_they_sit(sender: Any, link: AccountLink, **kwargs: Any) -> None:
    """A link made while both accounts sit at one table: at a table waiting for players the
    later-seated one is sent away at once (fee back, told ``REFUSAL``); a running game goes on,
    and a flag naming it goes to the review queue. The link stands even if parting them fails
    here (the check at the game's start still keeps them apart)."""
    pair = (link.user_a_id, link.user_b_id)
    seats = (
        Seat.objects.filter(
            user_id__in=pair,
            left_at__isnull=True,
            game__status__in=(PoolGame.Status.WAITING, PoolGame.Status.RUNNING),
        )
        .select_related("game__table")
        .order_by("joined_at", "pk")
    )
    #: (user id, table name) of each player sent away, for the caller to tell (``capture``: at log-in)
    parted: list[tuple[int, str]] = []
    link.parted = parted  # type: ignore[attr-defined]  # an attribute of ours on another library's object
    by_game: dict[int, list[Seat]] = {}
    for seat in seats:
        by_game.setdefault(seat.game_id, []).append(seat)
    for both in by_game.values():
        if len({s.user_id for s in both}) < 2:
            continue
        game = both[0].game
        if game.status == PoolGame.Status.WAITING:
            leaving = both[-1].user_id
            try:  # its own savepoint: a failure here rolls back the parting alone, not the link
                if seating.unseat(table_id=game.table_id, user_id=leaving, message=REFUSAL):
                    parted.append((leaving, game.table.name))
            except Exception:
                logger.exception("could not part linked accounts at table %s", game.table_id)
        elif all(s.engine_seat is not None for s in both):
            flagging.flag_linked_in_game(link, game.pk)
