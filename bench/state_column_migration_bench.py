"""How long ``tables`` 0010 (the game state from ``jsonb`` to ``json``) holds the game table, as it
was (the type changed in place) and as rewritten (a column beside, filled in batches, swapped in):
docs/operations.md, "Upgrades".

It drops and creates its own PostgreSQL database (``rummy_statebench``), builds two copies of a
game table like ``tables_poolgame`` (fillfactor 50, state kept in the row with lz4) holding
``--rows`` states of about 4.7 KB, changes one in place and the other with the rewritten
migration's own SQL (``tables/migrations/0010_game_state_as_json.py``, its table name swapped),
and prints each step's time: what runs under the table's exclusive lock, what holds one batch's
rows, what reads without blocking writes.

    .venv/bin/python bench/state_column_migration_bench.py [--rows 100000] \\
        [--server postgres://postgres@127.0.0.1:5432]
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import psycopg

MIGRATION = Path(__file__).resolve().parents[1] / "tables/migrations/0010_game_state_as_json.py"
DATABASE = "rummy_statebench"
SETUP = [
    "DROP TABLE IF EXISTS g_old, g_new",
    "CREATE TABLE g_old (id bigserial PRIMARY KEY, status varchar(10) NOT NULL DEFAULT 'finished', "
    "state jsonb NOT NULL) WITH (fillfactor = 50)",
    "ALTER TABLE g_old ALTER COLUMN state SET STORAGE MAIN, ALTER COLUMN state SET COMPRESSION lz4",
    "INSERT INTO g_old (state) SELECT jsonb_build_object('deal', n, 'hands', (SELECT jsonb_agg("
    "jsonb_build_array(md5((n*k)::text), md5((n+k)::text), k)) FROM generate_series(1, 60) k)) "
    "FROM generate_series(1, %(rows)s) n",
    "CREATE TABLE g_new (LIKE g_old INCLUDING ALL) WITH (fillfactor = 50)",
    "INSERT INTO g_new SELECT * FROM g_old",
    "VACUUM ANALYZE g_old",
    "VACUUM ANALYZE g_new",
]


def _migration() -> ModuleType:
    spec = importlib.util.spec_from_file_location("state_migration", MIGRATION)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _timed(connection: Any, sql: str, params: Any = None) -> float:
    start = time.perf_counter()
    connection.execute(sql, params)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--server", default="postgres://postgres@127.0.0.1:5432")
    args = parser.parse_args()
    migration = _migration()

    def on_copy(sql: str) -> str:
        return sql.replace("tables_poolgame", "g_new")

    with psycopg.connect(f"{args.server}/postgres", autocommit=True) as server:
        server.execute(f"DROP DATABASE IF EXISTS {DATABASE}")
        server.execute(f"CREATE DATABASE {DATABASE}")
    try:
        with psycopg.connect(f"{args.server}/{DATABASE}", autocommit=True) as db:
            for sql in SETUP:
                db.execute(sql, {"rows": args.rows} if "%(rows)s" in sql else None)
            size, state = db.execute(
                "SELECT pg_size_pretty(pg_total_relation_size('g_old')), avg(length(state::text))::int FROM g_old"
            ).fetchone()
            print(f"{args.rows} game rows, {size}, states of {state} bytes")
            in_place = _timed(db, "ALTER TABLE g_old ALTER COLUMN state TYPE json USING state::json")
            print(f"as it was, the type changed in place: {in_place:.2f} s under the exclusive lock")

            beside = sum(_timed(db, on_copy(sql)) for sql in migration.BESIDE)
            batches, last = [], 0
            while True:
                start = time.perf_counter()
                with db.transaction():
                    copied = db.execute(on_copy(migration.COPY_BATCH), [last, migration.BATCH]).fetchall()
                batches.append(time.perf_counter() - start)
                if not copied:
                    break
                last = max(row_id for (row_id,) in copied)
            checked = [_timed(db, on_copy(sql)) for sql in migration.CHECKED]
            start = time.perf_counter()
            with db.transaction():
                for sql in migration.SWAP:
                    db.execute(on_copy(sql))
            swap = time.perf_counter() - start
            print(
                f"rewritten: the column beside and its trigger: {beside:.3f} s (exclusive lock, an instant each)"
            )
            print(
                f"rewritten: the copy in {len(batches) - 1} batches of {migration.BATCH}: {sum(batches):.2f} s, "
                f"each holding its rows {sum(batches) / len(batches):.3f} s on average, {max(batches):.3f} s at most"
            )
            print(
                f"rewritten: NOT NULL checked NOT VALID then validated: {sum(checked):.3f} s (no write blocked)"
            )
            print(f"rewritten: the swap, one transaction: {swap:.3f} s under the exclusive lock")
    finally:
        with psycopg.connect(f"{args.server}/postgres", autocommit=True) as server:
            server.execute(f"DROP DATABASE IF EXISTS {DATABASE}")


if __name__ == "__main__":
    main()
