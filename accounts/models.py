"""The user: Django's own, plus the name shown at tables."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models


class User(AbstractUser):
    display_name = models.CharField(
        max_length=24, blank=True, help_text="Shown to other players at the table; the username if blank."
    )

    is_bot = models.BooleanField(default=False, help_text="A practice-table bot, not a person.")

    @property
    def table_name(self) -> str:
        return self.display_name or self.username
