"""django-auditlog's ``auditlogflush`` replaced by a refusal: the staff audit trail is append-only.

This app comes before ``auditlog`` in INSTALLED_APPS, so this command is the one ``manage.py
auditlogflush`` finds. It takes the same options, so that whatever is typed gets the same clear
answer instead of a parse error.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError

REFUSAL = (
    "auditlogflush is disabled: the staff audit trail is append-only and no command empties it "
    "(docs/staff.md, 'The audit trail'). Nothing was deleted."
)


class Command(BaseCommand):
    help = "Refuses: the staff audit trail is never emptied (django-auditlog's flush, disabled)."

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("-y", "--yes", action="store_true")
        parser.add_argument("-b", "--before-date")
        parser.add_argument("-t", "--truncate", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        raise CommandError(REFUSAL)
