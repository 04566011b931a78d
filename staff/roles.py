"""The staff roles (docs/staff.md), least privilege first, each a group with exactly these
permissions. ``ensure_groups`` runs after every ``migrate`` (and ``flush``) and sets each role's
permissions to this list: the roles are defined here, in code, and reviewed with it; a custom
role is a group of another name.

A role's rank orders who may act on whom (``staff.authority``): nobody acts on their own
account or on an account of an equal or higher rank.
"""

from __future__ import annotations

from typing import Any

SUPPORT_AGENT = "Support agent"
GAME_INTEGRITY = "Game integrity"
ADMINISTRATOR = "Administrator"

SUPPORT = [
    "tables.view_poolgame",
    "tables.view_deal",
    "tables.view_gameevent",
    "tables.view_table",
    "tables.view_tablesettings",
    "accounts.view_user",
    "accounts.view_suspension",
    "accounts.view_selfexclusion",
    "accounts.view_playlimit",
    # staff changes of an address and the reset holds they started (accounts.emailchange)
    "accounts.view_emailchange",
    "accounts.suspend_player",
    "wallet.view_account",
    "wallet.view_ledgertransaction",
    "staff.view_staffaction",
    "staff.view_dashboard",
    "staff.view_adjustmentrequest",
    # the player page's case history: read it, add to it (never edit or delete)
    "staff.view_staffnote",
    "staff.add_staffnote",
]
#: Investigates disputes and collusion: the one role that sees a live deal's hands and deck, the
#: integrity signals, sign-in addresses and devices, and reviews flags (docs/integrity.md).
INTEGRITY_PERMISSIONS = [
    "integrity.view_signals",
    "integrity.view_signalrow",
    "integrity.view_flag",
    "integrity.review_flag",
    "integrity.view_accountlink",
    "integrity.link_accounts",
    "integrity.view_signinevent",
    "integrity.view_scanrun",
]
INTEGRITY = [*SUPPORT, "staff.view_live_hands", *INTEGRITY_PERMISSIONS]
#: Runs the site's money and tables; sees no live hand (that is not its job).
ADMINISTRATOR_PERMISSIONS = [
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
GROUPS = {SUPPORT_AGENT: SUPPORT, GAME_INTEGRITY: INTEGRITY, ADMINISTRATOR: ADMINISTRATOR_PERMISSIONS}

#: Rank of each role; a superuser is above every role, a player below.
PLAYER, STAFF, SUPERUSER = 0, 1, 4
RANKS = {SUPPORT_AGENT: 1, GAME_INTEGRITY: 2, ADMINISTRATOR: 3}


def rank(user: Any) -> int:
    """Where ``user`` stands: 0 a player, 1-3 the staff roles, 4 a superuser."""
    if user is None or not getattr(user, "pk", None):
        return PLAYER
    if user.is_superuser:
        return SUPERUSER
    if not user.is_staff:
        return PLAYER
    names = _group_names(user)
    return max([STAFF, *(RANKS.get(name, STAFF) for name in names)])


def _group_names(user: Any) -> list[str]:
    """The user's group names: from ``prefetch_related("groups")`` when a list prefetched them
    (no query per row), else one query."""
    return [group.name for group in user.groups.all()]


def role_name(user: Any) -> str:
    """The role in words, for the staff pages."""
    if user.is_superuser:
        return "Superuser"
    if not user.is_staff:
        return "Player"
    names = [n for n in _group_names(user) if n in RANKS]
    return ", ".join(sorted(names, key=RANKS.__getitem__)) or "Staff (no role)"


def ensure_groups(**kwargs: Any) -> None:
    """Give each role exactly its permissions (a ``post_migrate`` receiver)."""
    from django.contrib.auth.models import Group, Permission

    from staff import audit

    with audit.service_action():  # the code is the record of a role's permissions
        for name, codes in GROUPS.items():
            group, _ = Group.objects.get_or_create(name=name)
            wanted = []
            for code in codes:
                app_label, codename = code.split(".")
                permission = Permission.objects.filter(
                    content_type__app_label=app_label, codename=codename
                ).first()
                if permission is not None:
                    wanted.append(permission)
            if set(group.permissions.all()) != set(wanted):
                group.permissions.set(wanted)
