"""The locking querysets of the tables app, in one place.

Lock order, everywhere: table, then game, then wallet accounts (the wallet
locks its own in primary-key order). No code path takes them in another order,
so two requests can wait for each other but never deadlock. A player's action takes
the same game row lock through ``tables.gamerows.lock_game``, without the joins.
"""

from __future__ import annotations

from django.db.models import QuerySet

from tables.models import PoolGame, Table


def table_for_update(table_id: int) -> Table:
    return Table.objects.select_for_update(of=("self",)).select_related("settings").get(pk=table_id)


def games_for_update() -> QuerySet[PoolGame]:
    return PoolGame.objects.select_for_update(of=("self",)).select_related("table__settings")


def game_for_update(game_id: int) -> PoolGame:
    return games_for_update().get(pk=game_id)
