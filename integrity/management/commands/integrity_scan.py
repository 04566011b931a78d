"""Run the integrity signals now (beat runs them every INTEGRITY_SCAN_MINUTES)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from integrity import services


class Command(BaseCommand):
    help = "Digest new finished games, run the integrity signals, refresh their pages and the review queue."

    def handle(self, *args: Any, **options: Any) -> None:
        run = services.scan()
        self.stdout.write(
            f"{run.games_digested} games digested, {run.games_in_window} in the window; "
            f"{run.flags_raised} flags raised, {run.links_made} accounts linked"
        )
