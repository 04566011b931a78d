"""Settlement: the money a game's events move, and nothing else (docs/rules.md §7.4, §7.11, §8).

The write path (``tables.game.record``) calls ``move_money`` with the engine's events of every
change, in the change's transaction: a ``rejoined`` event charges its fee, ``game_over`` pays
the payouts and the rake it carries, always exactly what the engine computed, through
``wallet.services`` (the only place money moves). A refusal (a rejoin the player cannot pay)
rolls the whole change back.
"""

from __future__ import annotations

from typing import Any

from accounts.models import User
from game_engine.events import Event, GameOver, Rejoined
from game_engine.game import GameState
from tables import clock
from tables.models import PoolGame
from wallet import services as wallet


def move_money(game: PoolGame, new: GameState, events: list[Event]) -> bool:
    """The one place money follows the engine's events (never the request's text).

    ``rejoined`` charges the rejoining player the ``fee`` the engine put in it
    (docs/rules.md §7.4); ``game_over`` settles the payouts and rake it carries
    (docs/rules.md §7.11, §8). Returns whether the game was settled.
    """
    settled = False
    for event in events:
        if isinstance(event, Rejoined) and event.fee:
            player = new.players[event.seat]
            user = User.objects.get(pk=int(player.id))
            wallet.pay_entry(
                user=user,
                game_ref=game.escrow_ref,
                amount=event.fee,
                idempotency_key=f"rejoin:{game.pk}:{user.pk}:{player.rejoins}",
                memo=f"Rejoin fee, {game.table.name}",
            )
        elif isinstance(event, GameOver):
            _settle(game, event.data)
            settled = True
    return settled


def _settle(game: PoolGame, result: dict[str, Any]) -> None:
    """Pay the prize (or the split) and the rake, exactly as the engine computed them."""
    payouts = {int(player_id): amount for player_id, amount in result["payouts"].items() if amount}
    if result["fees_paid"]:  # a free table has no escrow to settle
        wallet.settle_game(
            game_ref=game.escrow_ref,
            payouts=payouts,
            rake=result["rake"],
            idempotency_key=f"settle:{game.pk}",
            memo=f"Prize, {game.table.name}",
        )
    game.status = PoolGame.Status.FINISHED
    game.finished_at = clock.now()
    game.result = result
    game.deadline_at = None
    game.deadline_kind = ""
