"""``manage.py check_migrations``: the project's migrations checked for locks on big tables."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from rummy_site.migration_check import check_migrations


class Command(BaseCommand):
    help = "Check the project's migrations for locks on big tables (docs/operations.md, Upgrades)."

    def handle(self, *args: Any, **options: Any) -> None:
        passed, report = check_migrations()
        self.stdout.write(report)
        if not passed:
            raise CommandError("a migration would lock a big table or break the running code: see above")
