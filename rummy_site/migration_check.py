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
first migration's. A few migrations that were there before the check cannot be rewritten without
changing the schema they leave (a column renamed or dropped, a table dropped, a unique rule
added): ``IGNORED`` lets each through for those checks only, with why; every other check still
applies to them, and every new migration must pass them all.
"""

from __future__ import annotations

import ast
import inspect
import io
import textwrap
from collections.abc import Callable, Iterable, Iterator
from contextlib import redirect_stdout
from types import SimpleNamespace
from typing import Any, NamedTuple

#: The project's apps (third-party apps' migrations are theirs).
APPS = ("accounts", "wallet", "tables", "integrity", "staff", "rummy_site")

#: The linter's warnings that fail the check here (its errors fail it anyway).
FAILING_WARNINGS = ("CREATE_INDEX", "CREATE_INDEX_EXCLUSIVE", "DROP_INDEX")

ROW_BY_ROW = "ROW_BY_ROW"
#: Calls that change existing rows (and lock them until the transaction ends); inserting new rows
#: (a few groups, a bulk_create in batches) locks nothing another query waits for.
_WRITES = {"save", "update", "delete", "bulk_update", "update_or_create"}


class Allowed(NamedTuple):
    """The checks one old migration is let through for, and why it cannot be rewritten to pass them."""

    checks: frozenset[str]
    reason: str


#: Old migrations let through for some checks. Django records an applied migration by its name, so
#: a rewritten one runs only where it has not run yet (a new install, a site upgrading from an older
#: release); what is listed here would change the schema the later migrations and the models expect.
IGNORED: dict[tuple[str, str], Allowed] = {
    ("accounts", "0005_email_unique_any_case"): Allowed(
        frozenset({"ADD_UNIQUE"}),
        "one account per address in any case is a new rule: the code still running does not check "
        "it and is refused by the index (built CONCURRENTLY) when it stores an address taken",
    ),
    ("tables", "0004_answers_on_the_game_row"): Allowed(
        frozenset({"DROP_TABLE"}),
        "drops the client-request table that the game row's answers replace: keeping it would leave a "
        "table no model has",
    ),
    ("staff", "0005_staffaction_on_auditlog"): Allowed(
        frozenset({"RENAME_COLUMN", "DROP_COLUMN", "ALTER_COLUMN", "NOT_NULL"}),
        "moves the audit trail onto django-auditlog's shape: its columns renamed, widened (varchar to "
        "longer varchar and text: no rewrite) and dropped are that shape, and its new NOT NULL columns "
        "drop their defaults as Django does; the code still running writes the old shape until it "
        "restarts, which no kept default would help",
    ),
}


def _linter_class() -> type:
    from django_migration_linter import MigrationLinter
    from django_migration_linter.sql_analyser.base import Issue

    class LockLinter(MigrationLinter):  # type: ignore[misc,valid-type]  # django-migration-linter ships no types: the base class is Any
        """django-migration-linter with ``IGNORED``'s allowances and the ``ROW_BY_ROW`` check."""

        def __init__(self, *args: Any, ignored: dict[tuple[str, str], Allowed], **kwargs: Any) -> None:
            self.allowed = ignored
            self.current_migration: Any = None
            super().__init__(*args, **kwargs)
            self.excluded_everywhere = list(self.exclude_migration_tests or [])

        def _allowance(self) -> Allowed | None:
            migration = self.current_migration
            return self.allowed.get((migration.app_label, migration.name)) if migration else None

        def print_linting_msg(self, app_label: str, migration_name: str, msg: str, *args: Any) -> None:
            allowed = self.allowed.get((app_label, migration_name))
            if allowed is not None and msg.startswith("OK"):
                msg = f"OK, ALLOWED: {allowed.reason}"
            super().print_linting_msg(app_label, migration_name, msg, *args)

        def lint_migration(self, migration: Any) -> None:
            self.current_migration = migration
            allowed = self._allowance()
            # the linter counts an excluded check's finding as ignored, not as an error
            self.exclude_migration_tests = self.excluded_everywhere + sorted(
                allowed.checks if allowed else ()
            )
            try:
                super().lint_migration(migration)
            finally:
                self.exclude_migration_tests = self.excluded_everywhere

        def analyse_data_migration(self, migration: Any) -> tuple[list[Any], list[Any], list[Any]]:
            # the data operations nested in others (InOneTransaction, WhileServing,
            # SeparateDatabaseAndState) are linted too, those run in one transaction as such
            self.grouped: set[int] = set()
            flat = list(nested_operations(migration.operations, self.grouped))
            # the linter reads only .operations of the migration it is given: a stand-in holds the flat list
            return super().analyse_data_migration(SimpleNamespace(operations=flat))  # type: ignore[arg-type,no-any-return]  # see above

        def lint_runpython(self, runpython: Any) -> tuple[list[Any], list[Any], list[Any]]:
            errors, ignored, warnings = super().lint_runpython(runpython)
            in_one_transaction = id(runpython) in self.grouped or (
                runpython.atomic if runpython.atomic is not None else self.current_migration.atomic
            )
            if in_one_transaction and writes_in_a_loop(runpython.code):
                allowed = self._allowance()
                found = ignored if allowed and ROW_BY_ROW in allowed.checks else errors
                found.append(
                    Issue(
                        code=ROW_BY_ROW,
                        message="a data migration writes rows in a loop inside one transaction: make the "
                        "migration non-atomic (atomic = False) and commit each batch",
                    )
                )
            return errors, ignored, warnings

    return LockLinter


def nested_operations(
    operations: Iterable[Any], grouped: set[int], *, in_group: bool = False
) -> Iterator[Any]:
    """``operations`` with those nested in others in their place; the ids of those that run inside a
    group's one transaction (``core.migration_ops.InOneTransaction``) are added to ``grouped``."""
    for operation in operations:
        if in_group:
            grouped.add(id(operation))
        if hasattr(operation, "database_operations"):  # SeparateDatabaseAndState
            yield from nested_operations(operation.database_operations, grouped, in_group=in_group)
        elif isinstance(getattr(operation, "operations", None), list):  # InOneTransaction
            yield from nested_operations(operation.operations, grouped, in_group=True)
        elif hasattr(operation, "operation"):  # WhileServing
            yield from nested_operations([operation.operation], grouped, in_group=in_group)
        else:
            yield operation


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
    apps: Iterable[str] = APPS, *, ignored: dict[tuple[str, str], Allowed] | None = None
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
