"""Demo data for a fresh install: a staff user, two players with chips, and open tables."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import User
from accounts.services import confirm_email
from tables.models import Table, TableSettings

DEMO_USERS = [
    # username, password, display name, staff
    ("admin", "rummy-admin-2026", "Admin", True),
    ("asha", "rummy-asha-2026", "Asha", False),
    ("ravi", "rummy-ravi-2026", "Ravi", False),
]

DEMO_TABLES = [
    # name, format, entry fee (paise), seats, tables of this kind
    ("101 Pool · 10 chips", "101", 1_000, 6, 2),
    ("101 Pool · heads-up", "101", 1_000, 2, 2),
    ("61 Pool · 5 chips", "61", 500, 6, 1),
    ("201 Pool · 25 chips", "201", 2_500, 6, 1),
    ("Points Rummy · 1 chip a point", "points", 8_000, 6, 1),
]
#: Free tables where bots take the empty seats: a newcomer can play alone at once.
PRACTICE_TABLES = [
    ("Practice 101 · you and 2 bots", "101", 3),
    ("Practice 101 · full table of bots", "101", 6),
]


class Command(BaseCommand):
    help = "Create the demo staff user, demo players and demo tables (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            for username, password, display_name, staff in DEMO_USERS:
                user, created = User.objects.get_or_create(
                    username=username,
                    defaults={
                        "display_name": display_name,
                        "is_staff": staff,
                        "is_superuser": staff,
                        "email": f"{username}@demo.rummy.local",
                    },
                )
                if created:
                    user.set_password(password)
                    user.save()
                    # the operator vouches for the demo addresses: confirmed, so the sign-up chips are in
                    confirm_email(user=user, address=user.email)
                    self.stdout.write(f"created {'staff user' if staff else 'player'} {username}")
            for name, fmt, fee, seats, count in DEMO_TABLES:
                kind, created = TableSettings.objects.get_or_create(
                    name=name, defaults={"format": fmt, "entry_fee": fee, "seats": seats}
                )
                if created:
                    for n in range(1, count + 1):
                        Table.objects.create(settings=kind, name=f"{name} #{n}" if count > 1 else name)
                    self.stdout.write(f"created {count} table(s): {name}")
            for name, fmt, seats in PRACTICE_TABLES:
                kind, created = TableSettings.objects.get_or_create(
                    name=name,
                    defaults={
                        "format": fmt,
                        "entry_fee": 0,
                        "seats": seats,
                        "practice": True,
                        "bot_wait_seconds": 3,
                    },
                )
                if created:
                    Table.objects.create(settings=kind, name=name)
                    self.stdout.write(f"created practice table: {name}")
