"""New migrations are checked for locks on big tables (rummy_site/migration_check.py).

The check reads the SQL PostgreSQL would run, so it needs the real server. The fixture app
``tests/foundation/lockcheck`` holds one deliberately bad migration of each kind and their safe
forms; the repository's own migrations must pass.
"""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import models
from django.test import override_settings

from rummy_site.migration_check import IGNORED, Allowed, check_migrations, writes_in_a_loop

# transaction=True: sqlmigrate of a non-atomic migration (CONCURRENTLY) refuses to run inside a test's transaction
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]


def _results(report: str) -> dict[str, str]:
    """Each migration's verdict and its reasons, by name."""
    found: dict[str, str] = {}
    name = ""
    for line in report.splitlines():
        head = re.match(r"\((\w+), (\w+)\)\.\.\. (.*)", line)
        if head:
            name = head.group(2)
            found[name] = head.group(3)
        elif name and line.startswith("\t"):
            found[name] += " | " + line.strip()
    return found


#: The migrations that were there before the check and broke it, rewritten to pass (issue 40).
REWRITTEN = [
    ("accounts", "0002_user_is_bot"),
    ("accounts", "0004_suspension_message"),
    ("integrity", "0003_flag_kept_true"),
    ("staff", "0004_adjustment_of_bonus_chips"),
    ("tables", "0002_poolgame_bot_seats"),
    ("tables", "0005_table_is_open"),
    ("tables", "0006_table_owner"),
    ("tables", "0007_verifiable_shuffle"),
    ("tables", "0008_dashboard_indexes"),
    ("tables", "0010_game_state_as_json"),
]


def test_the_repositorys_migrations_pass(require_postgres: None) -> None:
    passed, report = check_migrations()
    assert passed, report
    # every migration let through is named with its reason, and each still exists
    for (app, name), allowed in IGNORED.items():
        assert f"({app}, {name})... OK, ALLOWED: {allowed.reason}" in report, (app, name)


def test_the_rewritten_old_migrations_pass_every_check(require_postgres: None) -> None:
    """Rewritten, they need no allowance: each passes as a new migration must."""
    assert not set(REWRITTEN) & set(IGNORED)
    passed, report = check_migrations(sorted({app for app, _ in REWRITTEN}), ignored={})
    results = _results(report)
    for _, name in REWRITTEN:
        assert results[name] == "OK", report


def test_the_old_migrations_still_let_through_fail_without_it_and_only_for_its_checks(
    require_postgres: None,
) -> None:
    """What cannot be rewritten (a column renamed or dropped, a table dropped, a unique rule added)
    fails without its allowance; with it, every other check still applies."""
    apps = sorted({app for app, _ in IGNORED})
    passed, report = check_migrations(apps, ignored={})
    assert not passed
    results = _results(report)
    for _, name in IGNORED:
        assert results[name].startswith("ERR"), report
    one_check_only = {
        ("staff", "0005_staffaction_on_auditlog"): Allowed(frozenset({"RENAME_COLUMN"}), "renames")
    }
    passed, report = check_migrations(["staff"], ignored=one_check_only)
    staff_0005 = _results(report)["0005_staffaction_on_auditlog"]
    assert not passed and staff_0005.startswith("ERR") and "DROPPING columns" in staff_0005
    assert "RENAMING" not in staff_0005


def test_the_management_command_runs_the_same_check(
    require_postgres: None, capsys: pytest.CaptureFixture
) -> None:
    call_command("check_migrations")
    assert "Erroneous migrations: 0/" in capsys.readouterr().out


@override_settings(INSTALLED_APPS=[*settings.INSTALLED_APPS, "tests.foundation.lockcheck"])
def test_the_check_fails_on_each_kind_of_bad_migration_and_passes_their_safe_forms(
    require_postgres: None,
) -> None:
    passed, report = check_migrations(["lockcheck"])
    assert not passed, report
    results = _results(report)
    assert results["0001_initial"] == "IGNORE", report  # a new table is empty
    assert results["0002_index_in_the_lock"].startswith("ERR") and "CREATE INDEX locks table" in report
    assert results["0003_type_change"].startswith("ERR") and "ALTERING columns" in results["0003_type_change"]
    assert results["0004_not_null_without_default"].startswith("ERR")
    assert "NOT NULL" in results["0004_not_null_without_default"]
    assert results["0005_backfill_row_by_row"].startswith("ERR")
    assert "in a loop inside one transaction" in results["0005_backfill_row_by_row"]
    assert results["0006_the_safe_forms"] == "OK", report
    assert "Erroneous migrations: 4/" in report


def test_a_loop_that_only_reads_or_inserts_is_not_row_by_row() -> None:
    def inserts(apps, schema_editor):  # type: ignore[no-untyped-def]
        rows = [n for n in range(3)]
        for row in rows:
            print(row)

    def saves(apps, schema_editor):  # type: ignore[no-untyped-def]
        while True:
            apps.get_model("x", "Y").objects.first().save()

    assert not writes_in_a_loop(inserts)
    assert writes_in_a_loop(saves)


def test_a_backfill_nested_in_a_group_is_checked_as_one_transaction() -> None:
    """A data migration hidden inside ``InOneTransaction`` (one transaction) or ``WhileServing`` is
    linted as one at the top level would be."""
    from django.db import migrations

    from core.migration_ops import InOneTransaction, WhileServing
    from rummy_site.migration_check import nested_operations

    def saves(apps, schema_editor):  # type: ignore[no-untyped-def]
        for row in apps.get_model("x", "Y").objects.all():
            row.save()

    in_group, alone = migrations.RunPython(saves), migrations.RunPython(saves)
    index = migrations.AddIndex("y", models.Index(fields=["a"], name="y_a"))
    grouped: set[int] = set()
    flat = list(
        nested_operations(
            [
                InOneTransaction(in_group),
                WhileServing(index),
                migrations.SeparateDatabaseAndState(database_operations=[alone]),
            ],
            grouped,
        )
    )
    assert flat == [in_group, index, alone]
    assert grouped == {id(in_group)}
