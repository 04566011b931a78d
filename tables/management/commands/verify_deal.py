"""``manage.py verify_deal <deal id>``: recompute a finished deal's deck order from its revealed seeds."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from game_engine.fairness import verify
from tables.models import Deal


class Command(BaseCommand):
    help = "Check a finished deal: its seed matches the commitment and gives the order it was dealt from."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("deal_id", type=int)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            deal = Deal.objects.select_related("game__table__settings").get(pk=options["deal_id"])
        except Deal.DoesNotExist:
            raise CommandError(f"there is no deal {options['deal_id']}") from None
        if not deal.server_seed:
            raise CommandError("this deal is not over: its seed is not revealed yet")
        ok, why = verify(
            {
                "server_seed": deal.server_seed,
                "client_seeds": deal.client_seeds,
                "deal_no": deal.number,
                "decks": deal.game.table.settings.rules().decks,
                "commitment": deal.commitment,
                "order": deal.dealt_order,
            }
        )
        if not ok:
            raise CommandError(f"mismatch: {why}")
        self.stdout.write(f"ok: deal {deal.pk} ({deal}) follows from its seeds")
