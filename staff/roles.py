"""The two staff roles (issue 14). The data migration ``0002_staff_groups`` creates the groups;
``ensure_groups`` runs again after every ``migrate`` (and ``flush``), so a database emptied by a
flush gets them back with its permissions."""

from __future__ import annotations

from typing import Any

SUPPORT = [
    "tables.view_poolgame",
    "tables.view_deal",
    "tables.view_gameevent",
    "tables.view_table",
    "tables.view_tablesettings",
    "accounts.view_user",
    "accounts.view_suspension",
    "accounts.view_selfexclusion",
    "accounts.suspend_player",
    "wallet.view_account",
    "wallet.view_ledgertransaction",
    "staff.view_staffaction",
    "staff.view_dashboard",
    "staff.view_adjustmentrequest",
]
ADMINISTRATOR = [
    *SUPPORT,
    "staff.cancel_game",
    "staff.close_table",
    "staff.approve_adjustment",
    "wallet.adjust_balance",
    "accounts.change_user",
    "tables.add_table",
    "tables.change_table",
    "tables.add_tablesettings",
    "tables.change_tablesettings",
]
GROUPS = {"Support agent": SUPPORT, "Administrator": ADMINISTRATOR}


def ensure_groups(**kwargs: Any) -> None:
    """Create the groups if missing and give them their permissions (a ``post_migrate`` receiver)."""
    from django.contrib.auth.models import Group, Permission

    for name, codes in GROUPS.items():
        group, created = Group.objects.get_or_create(name=name)
        if not created:
            continue
        for code in codes:
            app_label, codename = code.split(".")
            permission = Permission.objects.filter(
                content_type__app_label=app_label, codename=codename
            ).first()
            if permission is not None:
                group.permissions.add(permission)
