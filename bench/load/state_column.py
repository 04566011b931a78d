"""PostgreSQL's CPU for a game row's state as ``jsonb`` (what Django's JSONField makes) against ``json``.

    .venv/bin/python bench/load/state_column.py [--transactions 3000] [--state FILE]

Each transaction is what an arrangement does to the game row: lock it and read its state as text,
write a new state (the same bytes). The table is made as ``tables_poolgame``'s state column is
(fillfactor 50, storage MAIN, lz4), in a database of its own (``rummy_state_column``, dropped and
made again); 200 rows, picked at random. The state is a running six-player game's, from ``--state``
or made by playing one deal's first turns through the engine. Prints the backend's CPU per
transaction for each type, twice, interleaved.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import CLK_TCK, ROOT, _proc_ticks  # noqa: E402


def _a_running_games_state() -> str:
    """A six-player 101 game's state a few turns into its first deal, as the engine encodes it."""
    sys.path.insert(0, str(ROOT))
    import orjson

    from game_engine.actions import StartDeal
    from game_engine.bots import choose_action
    from game_engine.formats import TableRules
    from game_engine.game import apply, new_game
    from game_engine.views import view_for

    state = new_game(TableRules(), [(str(i), f"Player {i}") for i in range(6)], seed=7, at=0)
    state, _ = apply(state, StartDeal(at=0))
    for step in range(12):
        assert state.deal is not None
        seat = state.deal.turn
        action = choose_action(view_for(state, seat), state.rules)
        assert action is not None
        state, _ = apply(state, action.stamp(seat=seat, at=step))
    return orjson.dumps(state.to_dict()).decode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--transactions", type=int, default=3000)
    parser.add_argument("--state", help="a file holding a game's state as JSON")
    parser.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432")
    args = parser.parse_args()
    import psycopg

    state = Path(args.state).read_text() if args.state else _a_running_games_state()
    with psycopg.connect(f"{args.pg}/postgres", autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS rummy_state_column WITH (FORCE)")
        admin.execute("CREATE DATABASE rummy_state_column")
    spent: dict[str, list[float]] = {}
    for kind in ("jsonb", "json", "jsonb", "json"):
        with psycopg.connect(f"{args.pg}/rummy_state_column") as conn:
            conn.execute("DROP TABLE IF EXISTS game")
            conn.execute(
                f"CREATE TABLE game (id int PRIMARY KEY, version int, state {kind}) WITH (fillfactor = 50)"
            )
            conn.execute(
                "ALTER TABLE game ALTER COLUMN state SET STORAGE MAIN, ALTER COLUMN state SET COMPRESSION lz4"
            )
            with conn.cursor() as cur:
                cur.executemany(
                    f"INSERT INTO game VALUES (%s, 0, %s::{kind})", [(i, state) for i in range(200)]
                )
            conn.commit()
            backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
            rng, before = random.Random(1), _proc_ticks(backend)
            for _ in range(args.transactions):
                gid = rng.randrange(200)
                with conn.transaction():
                    version, _text = conn.execute(  # type: ignore[misc]
                        "SELECT version, state::text FROM game WHERE id = %s FOR NO KEY UPDATE",
                        (gid,),
                        prepare=True,
                    ).fetchone()
                    conn.execute(
                        f"UPDATE game SET version = %s, state = %s::{kind} WHERE id = %s",
                        (version + 1, state, gid),
                        prepare=True,
                    )
            time.sleep(0.2)  # the backend's last ticks
            spent.setdefault(kind, []).append(
                round((_proc_ticks(backend) - before) * 1000 / CLK_TCK / args.transactions, 4)
            )
    with psycopg.connect(f"{args.pg}/postgres", autocommit=True) as admin:
        admin.execute("DROP DATABASE IF EXISTS rummy_state_column WITH (FORCE)")
    print(json.dumps({"state_bytes": len(state), "postgres_ms_per_transaction": spent}))


if __name__ == "__main__":
    main()
