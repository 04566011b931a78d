"""The PostgreSQL role the site runs as (``DB_APP_ROLE``): what it may do, granted by the schema's owner.

Production uses two roles (README, "Running in production"): the owner of the schema, which runs
``migrate``, and the role the Daphnes, the Celery worker and beat connect as. Only a table's owner may
``ALTER TABLE ... DISABLE TRIGGER``, and TRUNCATE, UPDATE and DELETE are privileges; so the site's role
gets SELECT and INSERT alone on the append-only tables (the staff audit trail and staff notes, the chip
ledger, the games' event log) and a compromised process, or whoever holds the site's credentials,
cannot erase them, whatever the code does. Every other table gets what the site needs (read, add,
change, delete; never TRUNCATE, REFERENCES or TRIGGER), ``django_migrations`` is read only, and the
sequences may be drawn from, not set.

``grant_app_role`` runs after every ``migrate`` (a ``post_migrate`` receiver, ``rummy_site.apps``) when
``DB_APP_ROLE`` is set, so a table a later migration adds is covered the moment it exists.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.apps import apps
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections, transaction

#: The models whose rows are only ever added: each refuses update and delete in Python, and the
#: trail, the notes and the ledger also by a PostgreSQL trigger (staff/migrations/0003, 0006;
#: wallet/migrations/0002). ``tests/foundation/test_db_roles.py`` holds this list to those guards.
APPEND_ONLY_MODELS = (
    "staff.StaffAction",
    "staff.StaffNote",
    "wallet.LedgerTransaction",
    "wallet.Entry",
    "tables.GameEvent",
)
#: Tables the site reads and never writes.
READ_ONLY_TABLES = ("django_migrations",)

APPEND_ONLY = "SELECT, INSERT"
READ_ONLY = "SELECT"
READ_WRITE = "SELECT, INSERT, UPDATE, DELETE"


class AppRoleError(ImproperlyConfigured):
    """The app role cannot be granted safely: it would keep a power the split is there to take away."""


def append_only_tables() -> list[str]:
    """The database tables of ``APPEND_ONLY_MODELS``."""
    return sorted(apps.get_model(label)._meta.db_table for label in APPEND_ONLY_MODELS)


def privileges_for(table: str, append_only: Iterable[str]) -> str:
    """What the app role may do on ``table``."""
    if table in append_only:
        return APPEND_ONLY
    return READ_ONLY if table in READ_ONLY_TABLES else READ_WRITE


def grant_app_role(role: str | None = None, using: str = DEFAULT_DB_ALIAS) -> int:
    """Give ``role`` (``DB_APP_ROLE``) exactly the privileges the site needs on every table of the
    current schema; returns the number of tables. Runs as the schema's owner, in one transaction,
    and checks the result, so a role left with more (a superuser, a member of the owner, a PUBLIC
    grant) is an error rather than a quiet hole."""
    role = role if role is not None else settings.DB_APP_ROLE
    connection = connections[using]
    if not role:
        raise AppRoleError("DB_APP_ROLE is not set")
    if connection.vendor != "postgresql":
        raise AppRoleError(f"DB_APP_ROLE needs PostgreSQL; the database is {connection.vendor}")
    append_only = set(append_only_tables())
    with transaction.atomic(using=using), connection.cursor() as cursor:
        cursor.execute("SELECT current_user, current_schema(), current_database()")
        me, schema, database = cursor.fetchone()
        cursor.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", [role])
        found = cursor.fetchone()
        if found is None:
            raise AppRoleError(
                f"DB_APP_ROLE {role!r} is no role of this PostgreSQL server: create it first "
                "(README, Running in production)"
            )
        if role == me:
            raise AppRoleError(
                f"migrate runs as {me!r}, which is DB_APP_ROLE: run it with the schema owner's DATABASE_URL"
            )
        if found[0] or found[1]:
            raise AppRoleError(
                f"DB_APP_ROLE {role!r} is a superuser or bypasses row security: make it a plain role"
            )
        cursor.execute(
            "SELECT c.relname, pg_get_userbyid(c.relowner) FROM pg_class c"
            " JOIN pg_namespace n ON n.oid = c.relnamespace"
            " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'v', 'm') ORDER BY 1"
        )
        tables = cursor.fetchall()
        owners = sorted({owner for _, owner in tables})
        for owner in owners:
            cursor.execute("SELECT pg_has_role(%s, %s, 'MEMBER')", [role, owner])
            if cursor.fetchone()[0]:
                raise AppRoleError(
                    f"DB_APP_ROLE {role!r} is (or is a member of) {owner!r}, which owns tables: it could "
                    "disable their triggers and truncate them"
                )
        qn = connection.ops.quote_name
        grantee = qn(role)
        cursor.execute(f"GRANT CONNECT ON DATABASE {qn(database)} TO {grantee}")
        cursor.execute(f"GRANT USAGE ON SCHEMA {qn(schema)} TO {grantee}")
        for table, _ in tables:
            cursor.execute(f"REVOKE ALL ON TABLE {qn(table)} FROM {grantee}")
            cursor.execute(f"GRANT {privileges_for(table, append_only)} ON TABLE {qn(table)} TO {grantee}")
        cursor.execute(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA {qn(schema)} FROM {grantee}")
        cursor.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA {qn(schema)} TO {grantee}")
        _check(cursor, role, [table for table, _ in tables], append_only)
    return len(tables)


def _check(cursor: Any, role: str, tables: list[str], append_only: set[str]) -> None:
    """Each table's privileges for ``role`` as granted, whatever else (PUBLIC, a membership) gives."""
    wrong = []
    for table in tables:
        allowed = {p.strip() for p in privileges_for(table, append_only).split(",")}
        for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "TRIGGER", "REFERENCES"):
            cursor.execute("SELECT has_table_privilege(%s, %s, %s)", [role, table, privilege])
            if cursor.fetchone()[0] != (privilege in allowed):
                wrong.append(f"{privilege} on {table}")
    if wrong:
        raise AppRoleError(f"DB_APP_ROLE {role!r} does not hold what was granted: {', '.join(wrong)}")


def grant_after_migrate(sender: Any, using: str = DEFAULT_DB_ALIAS, **kwargs: Any) -> None:
    """``post_migrate``: keep the app role's privileges true for every table, new ones included."""
    if not settings.DB_APP_ROLE or connections[using].vendor != "postgresql":
        return
    count = grant_app_role(using=using)
    if kwargs.get("verbosity", 1) >= 1:
        print(f"DB_APP_ROLE {settings.DB_APP_ROLE}: privileges granted on {count} tables")
