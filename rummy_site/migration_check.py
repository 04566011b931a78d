"""New migrations checked for what would lock a big table, or break the code still running, during
an upgrade (docs/operations.md, "Upgrades"). ``manage.py check_migrations``; the suite runs it
(tests/foundation/test_migration_check.py).

django-migration-linter reads the SQL each migration runs (``sqlmigrate``) and fails on a
column's type changed (``ALTER_COLUMN``: a rewrite of the table under an exclusive lock), a
``NOT NULL`` column added without a default in the database (``NOT_NULL``: the code still running
inserts rows without it), a column or table dropped or renamed, a unique constraint added; its
index warnings count as failures here (``CREATE_INDEX``: an index built without
``CONCURRENTLY`` blocks every write to the table until it is built). One check is this
module's own (``ROW_BY_ROW``): a data migration that writes rows in a loop inside the
migration's one transaction, which holds every row it touched locked until the last one.

A table created by the same migration is empty: indexes on it do not count, and neither do a
first migration's. Migrations that were already there when the check came are listed in
``IGNORED``, each with why; every new one must pass.
"""

from __future__ import annotations

import ast
import inspect
import io
import textwrap
from collections.abc import Callable, Iterable
from contextlib import redirect_stdout
from typing import Any

#: The project's apps (third-party apps' migrations are theirs).
APPS = ("accounts", "wallet", "tables", "integrity", "staff", "rummy_site")

#: The linter's warnings that fail the check here (its errors fail it anyway).
FAILING_WARNINGS = ("CREATE_INDEX", "CREATE_INDEX_EXCLUSIVE", "DROP_INDEX")

ROW_BY_ROW = "ROW_BY_ROW"
#: Calls that change existing rows (and lock them until the transaction ends); inserting new rows
#: (a few groups, a bulk_create in batches) locks nothing another query waits for.
_WRITES = {"save", "update", "delete", "bulk_update", "update_or_create"}

#: The migrations that were there before the check, each with what it does. They stay as they are:
#: a site runs a migration once, so rewriting one changes nothing where it already ran.
_DEFAULT_DROPPED = "NOT NULL column whose default Django drops from the database right after adding it"
IGNORED: dict[tuple[str, str], str] = {
    ("accounts", "0002_user_is_bot"): _DEFAULT_DROPPED,
    ("accounts", "0004_suspension_message"): _DEFAULT_DROPPED,
    ("accounts", "0005_email_unique_any_case"): "unique index on lower(email) of the user table, built "
    "without CONCURRENTLY",
    ("integrity", "0003_flag_kept_true"): "backfills the flags one by one in one transaction and indexes "
    "the flag table without CONCURRENTLY",
    ("staff", "0004_adjustment_of_bonus_chips"): _DEFAULT_DROPPED,
    ("staff", "0005_staffaction_on_auditlog"): "moves the audit trail onto django-auditlog's shape: renames, "
    "type changes, indexes and a row-by-row backfill in one transaction (issue 40: minutes of lock at a "
    "million audit rows)",
    ("tables", "0002_poolgame_bot_seats"): _DEFAULT_DROPPED,
    ("tables", "0004_answers_on_the_game_row"): "drops the client-request table; " + _DEFAULT_DROPPED,
    ("tables", "0005_table_is_open"): _DEFAULT_DROPPED,
    ("tables", "0006_table_owner"): "indexes the table list's new owner column without CONCURRENTLY",
    ("tables", "0007_verifiable_shuffle"): _DEFAULT_DROPPED,
    ("tables", "0008_dashboard_indexes"): "the dashboard's indexes on the game and deal tables, built "
    "without CONCURRENTLY",
    ("tables", "0010_game_state_as_json"): "rewrites the game table's state column (jsonb to json) under "
    "an exclusive lock",
}


def _linter_class() -> type:
    from django_migration_linter import MigrationLinter
    from django_migration_linter.sql_analyser.base import Issue

    class LockLinter(MigrationLinter):  # type: ignore[misc,valid-type]
        """django-migration-linter with ``IGNORED``'s reasons and the ``ROW_BY_ROW`` check."""

        def __init__(self, *args: Any, ignored: dict[tuple[str, str], str], **kwargs: Any) -> None:
            self.ignored_with_reason = ignored
            self.current_migration: Any = None
            super().__init__(*args, **kwargs)

        def should_ignore_migration(
            self, app_label: str, migration_name: str, *args: Any, **kwargs: Any
        ) -> bool:
            if (app_label, migration_name) in self.ignored_with_reason:
                return True
            return bool(super().should_ignore_migration(app_label, migration_name, *args, **kwargs))

        def print_linting_msg(self, app_label: str, migration_name: str, msg: str, *args: Any) -> None:
            reason = self.ignored_with_reason.get((app_label, migration_name))
            if reason is not None:
                msg = f"IGNORED: {reason}"
            super().print_linting_msg(app_label, migration_name, msg, *args)

        def lint_migration(self, migration: Any) -> None:
            self.current_migration = migration
            super().lint_migration(migration)

        def lint_runpython(self, runpython: Any) -> tuple[list[Any], list[Any], list[Any]]:
            errors, ignored, warnings = super().lint_runpython(runpython)
            in_one_transaction = (
                runpython.atomic if runpython.atomic is not None else self.current_migration.atomic
            )
            if in_one_transaction and writes_in_a_loop(runpython.code):
                errors.append(
                    Issue(
                        code=ROW_BY_ROW,
                        message="a data migration writes rows in a loop inside one transaction: make the "
                        "migration non-atomic (atomic = False) and commit each batch",
                    )
                )
            return errors, ignored, warnings

    return LockLinter


def writes_in_a_loop(code: Callable[..., Any]) -> bool:
    """Whether ``code`` (a RunPython function) calls a write (``save``, ``update``...) inside a loop."""
    while hasattr(code, "func"):  # functools.partial
        code = code.func
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(code)))
    except (OSError, TypeError, SyntaxError):
        return False
    for loop in ast.walk(tree):
        if not isinstance(loop, ast.For | ast.While | ast.AsyncFor):
            continue
        for node in ast.walk(loop):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _WRITES
            ):
                return True
    return False


def check_migrations(
    apps: Iterable[str] = APPS, *, ignored: dict[tuple[str, str], str] | None = None
) -> tuple[bool, str]:
    """Lint ``apps``' migrations on the default database (PostgreSQL: its SQL is what runs in
    production). Returns whether all passed, and the report."""
    linter = _linter_class()(
        None,
        ignored=IGNORED if ignored is None else ignored,
        include_apps=list(apps),
        no_cache=True,
        ignore_initial_migrations=True,
        warnings_as_errors_tests=list(FAILING_WARNINGS),
        analyser_string="postgresql",
    )
    report = io.StringIO()
    with redirect_stdout(report):
        linter.lint_all_migrations()
        linter.print_summary()
    return not linter.has_errors, report.getvalue()
