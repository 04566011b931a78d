"""The two staff roles as groups (issue 14): a support agent looks and suspends; an
administrator also cancels games, closes tables, adjusts wallets and approves adjustments."""

from __future__ import annotations

from django.db import migrations

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
ADMINISTRATOR = SUPPORT + [
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


def create_groups(apps, schema_editor):
    from django.contrib.auth.management import create_permissions

    for app_config in apps.get_app_configs():  # permissions are otherwise made only after migrate
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    Group = apps.get_model("auth", "Group")
    Permission = apps.get_model("auth", "Permission")
    for name, codes in GROUPS.items():
        group, _ = Group.objects.get_or_create(name=name)
        for code in codes:
            app_label, codename = code.split(".")
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )


def drop_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=GROUPS).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("staff", "0001_initial"),
        ("accounts", "0003_user_age_confirmed_at_user_terms_accepted_at_and_more"),
        ("tables", "0005_table_is_open"),
        ("wallet", "0002_ledger_triggers"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
    ]

    operations = [migrations.RunPython(create_groups, drop_groups)]
