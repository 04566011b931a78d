"""The real stack against its floor, per table action, in one command (issue 26, target 1).

    .venv/bin/python bench/load/ratio.py [--tables 150] [--duration 45] [--server daphne]

Runs ``run.py`` (the whole site under the page's traffic: actions, arrangements,
evaluations, lobby sockets, reconnects) and then ``floor.py`` (a bare Channels consumer,
the Redis pub/sub layer and the least PostgreSQL transaction) on the same server, with the
floor given the tables and the traffic the real run measured (its sockets, arrangements and
evaluations per table action), one after the other on the same machine. Prints one JSON line: the CPU of each
tier per table action for both, and their ratio (the target: at most 1.5). Every process
counts: servers, PostgreSQL, Redis, the clients, and Celery on the real side (the floor
has none). Extra arguments after ``--`` go to ``run.py``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from run import SERVERS  # noqa: E402

TIERS = ("daphne", "postgres", "redis", "celery", "clients")


def last_json(command: list[str]) -> dict[str, Any]:
    """Run ``command`` and return the last JSON line it printed (its stderr passes through)."""
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True, check=False)
    rows = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not rows:
        sys.exit(f"{' '.join(command[:3])} failed (exit {done.returncode}):\n{done.stdout[-2000:]}")
    row: dict[str, Any] = json.loads(rows[-1])
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=150)
    parser.add_argument("--duration", type=float, default=45.0)
    parser.add_argument("--server", choices=SERVERS, default="daphne")
    parser.add_argument("--daphnes", type=int, default=2, help="server processes of the real run")
    parser.add_argument("rest", nargs="*", help="more arguments for run.py (after --)")
    args = parser.parse_args()
    python = sys.executable
    real = last_json(
        [
            python,
            str(HERE / "run.py"),
            *("--tables", str(args.tables), "--duration", str(args.duration), "--server", args.server),
            *("--daphnes", str(args.daphnes)),
            *args.rest,
        ]
    )
    actions = real["actions"]
    traffic = real["traffic"]
    arranges = traffic["arranges"] / actions if actions else 0.0
    evaluations = traffic["evaluations"] / actions if actions else 0.0
    floor = last_json(
        [
            python,
            str(HERE / "floor.py"),
            *(
                "--server",
                args.server,
                "--tables",
                str(args.tables),
                "--arranges",
                f"{arranges:.3f}",
                "--evaluations",
                f"{evaluations:.3f}",
            ),
        ]
    )
    real_ms = {t: float(real["cpu_ms_per_action"].get(t, 0.0)) for t in TIERS}
    floor_ms = {t: float(floor["floor_ms_per_table_action"].get(t, 0.0)) for t in TIERS}
    real_total, floor_total = sum(real_ms.values()), sum(floor_ms.values())
    print(
        json.dumps(
            {
                "server": args.server,
                "tables": args.tables,
                "actions_per_s": real["actions_per_s"],
                "latency_ms": real["latency_ms"],
                "errors": real["errors"],
                "error_kinds": real["error_kinds"],
                "lost_events": real["lost_events"],
                "duplicated_events": real["duplicated_events"],
                "check_ledger": real["check_ledger"],
                "machine_busy_pct": real["cpu"]["machine_busy_pct"],
                "pg_per_action": real.get("pg_per_action"),
                "per_table_action": {"arranges": round(arranges, 3), "evaluations": round(evaluations, 3)},
                "real_ms": {k: round(v, 3) for k, v in real_ms.items()} | {"total": round(real_total, 3)},
                "floor_ms": {k: round(v, 3) for k, v in floor_ms.items()} | {"total": round(floor_total, 3)},
                "ratio": {t: round(real_ms[t] / floor_ms[t], 2) for t in TIERS if floor_ms[t] > 0}
                | {"total": round(real_total / floor_total, 2) if floor_total else None},
            }
        )
    )


if __name__ == "__main__":
    main()
