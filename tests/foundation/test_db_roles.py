"""The two PostgreSQL roles of production (README, "Running in production"; rummy_site/db_roles.py).

The schema's owner runs ``migrate``; the site runs as ``DB_APP_ROLE``, which ``migrate`` grants what the
site needs and no more. Here both roles are made on the test cluster inside the test's transaction (so
they vanish with it), the test database's tables are handed to the owner, ``migrate`` runs as the owner,
and then, as the app role (``SET ROLE``: every privilege is checked as that role's), a player signs up,
claims the daily chips, starts a practice game and a staff member writes a note, while every statement
that would erase the trail, the ledger or the event log is refused by PostgreSQL itself.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.apps import apps
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, connection, transaction
from django.test import Client, override_settings

from accounts.models import User
from rummy_site.db_roles import APPEND_ONLY_MODELS, AppRoleError, append_only_tables
from staff.models import AuditImmutable, StaffAction, StaffNote
from staff.services import add_note
from tables.models import GameEvent
from tests.helpers import follow_confirmation_link
from wallet.errors import AppendOnlyViolation
from wallet.models import Entry, LedgerTransaction

pytestmark = [pytest.mark.django_db, pytest.mark.postgres]

#: PostgreSQL's "insufficient_privilege": refused for want of a privilege, not by a trigger (23001).
INSUFFICIENT_PRIVILEGE = "42501"


def sql(statement: str, params: list[object] | None = None) -> list[tuple[object, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


@contextmanager
def as_role(role: str) -> Iterator[None]:
    """The connection's privileges are ``role``'s until the block ends."""
    sql(f'SET ROLE "{role}"')
    try:
        yield
    finally:
        sql("RESET ROLE")


@pytest.fixture
def two_roles(require_postgres: None) -> Iterator[tuple[str, str]]:
    """An owner and an app role, the test database's tables handed to the owner, ``migrate`` run as the
    owner with ``DB_APP_ROLE`` set. Names unique to the run; all of it undone with the test's transaction."""
    suffix = secrets.token_hex(4)
    owner, app = f"rummy_test_owner_{suffix}", f"rummy_test_app_{suffix}"
    sql(f'CREATE ROLE "{owner}" NOLOGIN')
    sql(f'CREATE ROLE "{app}" NOLOGIN')
    tables = sql(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')"
    )
    for (table,) in tables:
        sql(f'ALTER TABLE "{table}" OWNER TO "{owner}"')
    with override_settings(DB_APP_ROLE=app), as_role(owner):
        call_command("migrate", verbosity=0)  # nothing to apply: its post_migrate grants
    yield owner, app


def refused(statement: str) -> str:
    """The SQLSTATE PostgreSQL refuses ``statement`` with (in a savepoint: the test goes on)."""
    try:
        with transaction.atomic():
            sql(statement)
    except DatabaseError as exc:
        return getattr(exc.__cause__, "sqlstate", "") or str(exc)
    return "accepted"


def test_the_app_role_does_what_the_site_does_and_cannot_erase_the_trail_the_ledger_or_the_events(
    two_roles: tuple[str, str],
) -> None:
    _, app = two_roles
    with as_role(app):
        # what the site does, as the app role: a sign-up through the form, the daily chips, a practice game
        client = Client()
        answer = client.post(
            "/accounts/signup/",
            {
                "username": "asha",
                "email": "asha@example.com",
                "password1": "a-long-pass-2026!",
                "password2": "a-long-pass-2026!",
                "confirm_age": "on",
                "accept_terms": "on",
            },
        )
        assert answer.status_code == 302, answer.content[:500]
        follow_confirmation_link(client, "asha@example.com")  # the sign-up bonus: a ledger posting
        assert client.post("/wallet/daily/").status_code == 302
        assert client.post("/practice/", {"format": "101", "seats": "2"}).status_code == 302
        # and a staff member's note, which writes the note and its audit row
        staff = User.objects.create_user("helper", password="x-staff-2026", is_staff=True)
        staff.groups.add(Group.objects.get(name="Support agent"))
        add_note(staff=staff, user=User.objects.get(username="asha"), text="called about chips")

        counts = {
            model: model.objects.count()
            for model in (StaffAction, StaffNote, LedgerTransaction, Entry, GameEvent)
        }
        assert all(counts.values()), counts
        # the list covers every table a migration's trigger keeps append-only
        guarded = {
            table
            for (table,) in sql(
                "SELECT DISTINCT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid"
                " WHERE NOT t.tgisinternal AND t.tgname LIKE '%append_only'"
            )
        }
        assert guarded and guarded <= set(append_only_tables()), (guarded, APPEND_ONLY_MODELS)
        # and every model whose delete() refuses (the Python guard)
        refusing = set()
        for model in apps.get_models():
            try:
                model().delete()
            except (AuditImmutable, AppendOnlyViolation):
                refusing.add(model._meta.db_table)
            except Exception:  # an unsaved row cannot be deleted: no guard spoke first
                pass
        assert refusing and refusing <= set(append_only_tables()), (refusing, APPEND_ONLY_MODELS)
        for table in append_only_tables():
            for statement in (
                f"ALTER TABLE {table} DISABLE TRIGGER USER",
                f"ALTER TABLE {table} OWNER TO CURRENT_USER",
                f"TRUNCATE {table}",
                f"UPDATE {table} SET id = id",
                f"DELETE FROM {table}",
            ):
                assert refused(statement) == INSUFFICIENT_PRIVILEGE, statement
        # nor through Django's own commands: flush truncates, and the app role may not
        with pytest.raises(CommandError, match="couldn't be flushed"):
            call_command("flush", interactive=False, verbosity=0)
        assert refused("DROP TABLE wallet_entry") == INSUFFICIENT_PRIVILEGE
        assert refused("UPDATE django_migrations SET app = app") == INSUFFICIENT_PRIVILEGE
        after = {model: model.objects.count() for model in counts}
        assert after == counts


def test_migrate_refuses_an_app_role_that_could_erase_the_trail(require_postgres: None) -> None:
    """A superuser as DB_APP_ROLE, or migrate run as the app role, is a clear error, not a quiet grant."""
    role = f"rummy_test_super_{secrets.token_hex(4)}"
    sql(f'CREATE ROLE "{role}" NOLOGIN SUPERUSER')
    with override_settings(DB_APP_ROLE=role), pytest.raises(AppRoleError, match="superuser"):
        call_command("migrate", verbosity=0)
    with override_settings(DB_APP_ROLE="postgres"), pytest.raises(AppRoleError, match="schema owner"):
        call_command("migrate", verbosity=0)
    with (
        override_settings(DB_APP_ROLE=f"no_such_role_{secrets.token_hex(4)}"),
        pytest.raises(AppRoleError, match="create it first"),
    ):
        call_command("migrate", verbosity=0)


@pytest.mark.django_db(transaction=True)  # committed rows, the command in autocommit: as from a server shell
def test_auditlogflush_refuses_and_leaves_the_trail_intact(django_user_model: type[User]) -> None:
    staff = django_user_model.objects.create_user("helper", password="x-staff-2026", is_staff=True)
    staff.groups.add(Group.objects.get(name="Support agent"))
    add_note(staff=staff, user=django_user_model.objects.create_user("asha"), text="a case")
    before = StaffAction.objects.count()
    assert before
    for args in (("-y", "--truncate"), ("-y",), ("-y", "--before-date", "2100-01-01")):
        with pytest.raises(CommandError, match="append-only"):
            call_command("auditlogflush", *args)
        assert StaffAction.objects.count() == before
