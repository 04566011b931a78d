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
from django.test import override_settings

from rummy_site.migration_check import IGNORED, check_migrations, writes_in_a_loop

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


def test_the_repositorys_migrations_pass(require_postgres: None) -> None:
    passed, report = check_migrations()
    assert passed, report
    # every migration let through is named with its reason, and each still exists
    for (app, name), reason in IGNORED.items():
        assert f"({app}, {name})... IGNORED: {reason}" in report, (app, name)


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


def test_an_existing_offender_fails_once_it_is_no_longer_let_through(require_postgres: None) -> None:
    """The audit backfill of issue 40 (staff 0005): caught by the row-by-row check among others."""
    passed, report = check_migrations(["staff"], ignored={})
    assert not passed
    assert "in a loop inside one transaction" in _results(report)["0005_staffaction_on_auditlog"]


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
