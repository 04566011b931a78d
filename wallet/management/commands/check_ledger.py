"""``manage.py check_ledger``: prove the chip ledger is consistent; non-zero exit names each problem."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError

from wallet.audit import ledger_summary, run_check


class Command(BaseCommand):
    help = "Verify the chip ledger: balanced transactions, balances equal entries, sum zero, no negative wallets."

    def handle(self, *args: Any, **options: Any) -> None:
        for line in ledger_summary().lines():
            self.stdout.write(line)
        problems = run_check(via="command").problems  # kept: the dashboard shows the last verdict
        if problems:
            for problem in problems:
                self.stderr.write(f"PROBLEM: {problem}")
            raise CommandError(f"ledger check failed: {len(problems)} problem(s)")
        self.stdout.write(self.style.SUCCESS("ledger OK"))
