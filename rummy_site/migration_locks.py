"""``migrate`` on PostgreSQL waits at most ``MIGRATION_LOCK_TIMEOUT_MS`` for each lock it takes.

An ``ALTER TABLE`` waiting for its lock (behind a long transaction, a slow export) holds up every
query on the table that comes after it, so with no limit a migration that is itself instant can stop
every game for as long as the longest transaction lasts. With ``lock_timeout`` the migration fails
instead (its transaction rolled back) and the operator runs it again (docs/operations.md,
"Upgrades"). Set before the first migration runs (``pre_migrate``) and reset after the last
(``post_migrate``), on the connection ``migrate`` uses; ``CONCURRENTLY`` builds lift it
(``core.migration_ops``).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connections


def limit_lock_waits(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """``pre_migrate``: ``lock_timeout`` on the connection the migrations run on."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT set_config('lock_timeout', %s, false)", [f"{settings.MIGRATION_LOCK_TIMEOUT_MS}ms"]
        )


def reset_lock_waits(sender: Any, using: str = "default", **kwargs: Any) -> None:
    """``post_migrate``: the connection back to the server's ``lock_timeout`` (tests go on using it)."""
    connection = connections[using]
    if connection.vendor != "postgresql":
        return
    with connection.cursor() as cursor:
        cursor.execute("RESET lock_timeout")
