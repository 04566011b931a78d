"""The old migrations rewritten so that they run while the site serves (issue 40,
docs/operations.md "Upgrades"): they leave the same rows, the same schema and the same state as
before, and ``migrate`` waits a bounded time for each lock.

The tests that move the real test database back to an older migration and forward again need
PostgreSQL (its SQL is what is rewritten) and run outside a test transaction
(``CONCURRENTLY`` refuses one); each puts the database back to the latest migration after it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import OperationalError, connection, connections
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings
from django.utils import timezone

from accounts.models import User
from core.migration_ops import gentle_statements, in_batches

ROOT = Path(__file__).resolve().parents[2]


def _apps_at(app: str, name: str) -> Any:
    """The models as they were right after ``app``'s migration ``name``."""
    return MigrationExecutor(connection).loader.project_state((app, name)).apps


@pytest.fixture
def back_to_latest() -> Iterator[None]:
    """The test database put back to the latest migrations after the test, whatever it did."""
    yield
    call_command("migrate", verbosity=0)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_audit_trails_move_leaves_the_rows_it_left_before(
    require_postgres: None, back_to_latest: None
) -> None:
    """staff 0005 now moves the rows a batch at a time, each batch in its own transaction: each row
    still gets ``{key: [before, after]}`` and the object its old free-text target named."""
    call_command("migrate", "staff", "0004_adjustment_of_bonus_chips", verbosity=0)
    old = _apps_at("staff", "0004_adjustment_of_bonus_chips")
    staff = old.get_model("accounts", "User").objects.create(username="sunita", password="!")
    Action = old.get_model("staff", "StaffAction")
    made = {
        target: Action.objects.create(staff=staff, action=verb, target=target, before=before, after=after)
        for verb, target, before, after in [
            ("cancel_game", "game:12 Table 1", {"status": "running"}, {"status": "cancelled", "by": "x"}),
            ("suspend", "user:7", {}, {"active": False}),
            ("settings", "settings", {"fee": 100}, {}),
            ("close_table", "table:abc", {}, {}),
        ]
    }

    call_command("migrate", "staff", "0005_staffaction_on_auditlog", verbosity=0)
    new = _apps_at("staff", "0005_staffaction_on_auditlog")
    rows = {
        row.object_repr: row
        for row in new.get_model("staff", "StaffAction").objects.select_related("content_type")
    }
    assert set(rows) == set(made)

    game = rows["game:12 Table 1"]
    assert game.changes == {"status": ["running", "cancelled"], "by": [None, "x"]}
    assert (game.content_type.app_label, game.content_type.model) == ("tables", "poolgame")
    assert (game.object_pk, game.object_id) == ("12", 12)
    assert (game.verb, game.actor_id, game.timestamp) == ("cancel_game", staff.pk, made["game:12 Table 1"].at)
    user = rows["user:7"]
    assert user.changes == {"active": [None, False]}
    assert (user.content_type.model, user.object_pk, user.object_id) == ("user", "7", 7)
    for free_text in ("settings", "table:abc"):  # names no object: the row itself, as before
        row = rows[free_text]
        assert (row.content_type.app_label, row.content_type.model) == ("staff", "staffaction")
        assert (row.object_pk, row.object_id) == (str(row.pk), row.pk)
    assert rows["settings"].changes == {"fee": [100, None]} and rows["table:abc"].changes == {}
    with connection.cursor() as cursor:  # the append-only trigger is back
        cursor.execute("SELECT 1 FROM pg_trigger WHERE tgname = 'staff_staffaction_append_only'")
        assert cursor.fetchone() is not None


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_flags_raised_before_keep_their_figures_as_their_first_ones(
    require_postgres: None, back_to_latest: None
) -> None:
    """integrity 0003 now fills the new columns a batch at a time with one ``UPDATE`` each (it
    saved each flag in turn): the same values come out."""
    call_command("migrate", "integrity", "0002_alter_flag_signal_alter_signalrow_signal", verbosity=0)
    old = _apps_at("integrity", "0002_alter_flag_signal_alter_signalrow_signal")
    user = User.objects.create_user("kiran")  # the accounts' migrations stay where they are
    now = timezone.now()
    made = [
        old.get_model("integrity", "Flag").objects.create(
            signal="feeding",
            summary=f"flag {n}",
            figures={"n": n},
            games=games,
            score=n / 2,
            raised_at=now,
            updated_at=now,
            user_a_id=user.pk,
        )
        for n, games in enumerate([[1, 2, 3], [], [7]])
    ]

    call_command("migrate", "integrity", "0003_flag_kept_true", verbosity=0)
    new = _apps_at("integrity", "0003_flag_kept_true")
    flags = {flag.pk: flag for flag in new.get_model("integrity", "Flag").objects.all()}
    assert [
        (
            flags[f.pk].first_figures,
            flags[f.pk].first_summary,
            flags[f.pk].first_score,
            flags[f.pk].games_total,
        )
        for f in made
    ] == [({"n": 0}, "flag 0", 0.0, 3), ({"n": 1}, "flag 1", 0.5, 0), ({"n": 2}, "flag 2", 1.0, 1)]
    assert {flag.state for flag in flags.values()} == {"open"}


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_game_state_moves_to_json_beside_the_old_column_and_keeps_every_game(
    require_postgres: None, back_to_latest: None
) -> None:
    """tables 0010 copies the state into a new ``json`` column in batches and swaps it in: every
    game keeps its state, the column is ``json``, ``NOT NULL``, kept in the row and compressed as
    migration 0009 set it, and nothing of the copy (trigger, check, column) is left."""
    from tables.models import PoolGame
    from tests.tables.conftest import make_table

    states = [{"deal": n, "hands": [[f"{n}H"], ["KS", "QS"]], "note": "é"} for n in range(7)]
    ids = [PoolGame.objects.create(table=make_table(), status="finished", state=state).pk for state in states]
    call_command("migrate", "tables", "0009_game_row_updates_in_place", verbosity=0)
    assert _column("state") == ("jsonb", "NO")

    call_command("migrate", "tables", "0010_game_state_as_json", verbosity=0)
    assert _column("state") == ("json", "NO")
    assert _column("state_json") is None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT attstorage, attcompression FROM pg_attribute "
            "WHERE attrelid = 'tables_poolgame'::regclass AND attname = 'state'"
        )
        assert cursor.fetchone() == ("m", "l")
        cursor.execute("SELECT count(*) FROM pg_trigger WHERE tgname = 'tables_poolgame_state_json'")
        assert cursor.fetchone() == (0,)
        cursor.execute("SELECT count(*) FROM pg_constraint WHERE conname = 'tables_poolgame_state_json_set'")
        assert cursor.fetchone() == (0,)
    call_command("migrate", verbosity=0)
    assert [PoolGame.objects.get(pk=pk).state for pk in ids] == states


def _column(name: str) -> tuple[str, str] | None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT data_type, is_nullable FROM information_schema.columns "
            "WHERE table_name = 'tables_poolgame' AND column_name = %s",
            [name],
        )
        row = cursor.fetchone()
    return None if row is None else tuple(row)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_migrate_gives_up_on_a_held_lock_instead_of_queueing_the_games_and_runs_again(
    require_postgres: None, back_to_latest: None
) -> None:
    """A long transaction reads the game table: the migration's first ``ALTER TABLE`` waits for it,
    and every game's query would wait behind that. ``lock_timeout`` stops it; run again once the
    transaction is gone, the migration completes."""
    call_command("migrate", "tables", "0009_game_row_updates_in_place", verbosity=0)
    holding, release = threading.Event(), threading.Event()

    def long_reader() -> None:
        other = connections.create_connection("default")
        try:
            other.set_autocommit(False)
            with other.cursor() as cursor:
                cursor.execute("SELECT count(*) FROM tables_poolgame")
                holding.set()
                release.wait(30)
                other.rollback()
        finally:
            other.close()

    reader = threading.Thread(target=long_reader)
    reader.start()
    try:
        assert holding.wait(10)
        with (
            override_settings(MIGRATION_LOCK_TIMEOUT_MS=300),
            pytest.raises(OperationalError, match="lock timeout"),
        ):
            call_command("migrate", "tables", "0010_game_state_as_json", verbosity=0)
    finally:
        release.set()
        reader.join()
    with connection.cursor() as cursor:  # a failed migrate leaves it set (post_migrate never came)
        cursor.execute("RESET lock_timeout")
    call_command("migrate", "tables", "0010_game_state_as_json", verbosity=0)
    assert _column("state") == ("json", "NO")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_lock_timeout_is_set_only_while_migrate_runs(require_postgres: None) -> None:
    seen: list[str] = []

    def during(sender: Any, **kwargs: Any) -> None:
        with connection.cursor() as cursor:
            cursor.execute("SHOW lock_timeout")
            seen.append(cursor.fetchone()[0])

    from django.db.models.signals import pre_migrate

    pre_migrate.connect(during, dispatch_uid="test.during")  # after the site's receiver
    try:
        with override_settings(MIGRATION_LOCK_TIMEOUT_MS=4000):
            call_command("migrate", verbosity=0)
    finally:
        pre_migrate.disconnect(dispatch_uid="test.during")
    assert seen[-1] == "4s"
    with connection.cursor() as cursor:
        cursor.execute("SHOW lock_timeout")
        assert cursor.fetchone()[0] == "0"


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_column_added_while_old_code_runs_takes_its_default_from_the_database(
    require_postgres: None,
) -> None:
    """The code still running during a rolling restart inserts rows without the new columns: the
    database fills them in (Django would have dropped the default and refused the row)."""
    from tests.tables.conftest import make_table

    table = make_table()
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO tables_table (name, created_at, settings_id) VALUES ('old code', now(), %s) "
            "RETURNING is_open",
            [table.settings_id],
        )
        assert cursor.fetchone() == (True,)


@pytest.mark.postgres
def test_gentle_statements_build_and_check_without_blocking_writes(require_postgres: None) -> None:
    """Django's statements rewritten: indexes ``CONCURRENTLY``, foreign keys ``NOT VALID`` then
    validated, ``NOT NULL`` after a validated check; anything else as it was."""
    editor = connection.schema_editor(collect_sql=True)
    rewritten = gentle_statements(
        editor,
        [
            'CREATE INDEX "t_c_1" ON "t" ("c");',
            'CREATE UNIQUE INDEX "t_u" ON "t" ((LOWER("e")));',
            'DROP INDEX IF EXISTS "t_c_1";',
            'ALTER TABLE "t" ADD CONSTRAINT "t_fk" FOREIGN KEY ("c") REFERENCES "u" ("id") DEFERRABLE INITIALLY DEFERRED;',
            'ALTER TABLE "t" ALTER COLUMN "c" SET NOT NULL;',
            'ALTER TABLE "t" RENAME COLUMN "a" TO "b";',
        ],
    )
    assert rewritten[:3] == [
        ('CREATE INDEX CONCURRENTLY "t_c_1" ON "t" ("c");', True),
        ('CREATE UNIQUE INDEX CONCURRENTLY "t_u" ON "t" ((LOWER("e")));', True),
        ('DROP INDEX CONCURRENTLY IF EXISTS "t_c_1";', True),
    ]
    assert rewritten[3:5] == [
        (
            'ALTER TABLE "t" ADD CONSTRAINT "t_fk" FOREIGN KEY ("c") REFERENCES "u" ("id") DEFERRABLE INITIALLY '
            "DEFERRED NOT VALID",
            False,
        ),
        ('ALTER TABLE "t" VALIDATE CONSTRAINT "t_fk"', False),
    ]
    check, validate, not_null, drop = (sql for sql, _ in rewritten[5:9])
    assert check.startswith('ALTER TABLE "t" ADD CONSTRAINT "t_c_') and check.endswith(
        'CHECK ("c" IS NOT NULL) NOT VALID'
    )
    assert validate.endswith("VALIDATE CONSTRAINT " + check.split(" ")[5])
    assert not_null == 'ALTER TABLE "t" ALTER COLUMN "c" SET NOT NULL;'
    assert drop.endswith("DROP CONSTRAINT " + check.split(" ")[5])
    assert rewritten[9:] == [('ALTER TABLE "t" RENAME COLUMN "a" TO "b";', False)]


@pytest.mark.django_db(transaction=True)
def test_a_backfill_commits_each_batch_on_its_own() -> None:
    users = [User.objects.create_user(f"batch{n}") for n in range(5)]
    batches: list[tuple[list[int], bool]] = []

    def record(batch: Any) -> None:
        batches.append((sorted(batch.values_list("pk", flat=True)), connection.in_atomic_block))
        batch.update(display_name="done")

    assert in_batches(User.objects.filter(username__startswith="batch"), record, size=2) == 5
    pks = [user.pk for user in users]
    assert batches == [(pks[0:2], True), (pks[2:4], True), (pks[4:], True)]
    assert set(User.objects.filter(username__startswith="batch").values_list("display_name", flat=True)) == {
        "done"
    }
    with pytest.raises(ValueError):
        in_batches(User.objects.all(), record, size=0)


def test_every_migration_runs_from_nothing_on_sqlite(tmp_path: Path) -> None:
    """The embedded setup (SQLite, the default) migrates a new database with the rewritten
    migrations, and the models need no migration the repository lacks."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'new.sqlite3'}", "DEBUG": "1"}
    for command in (["migrate", "-v0"], ["makemigrations", "--check", "--dry-run"]):
        done = subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stdout + done.stderr
    assert settings.BASE_DIR == ROOT
