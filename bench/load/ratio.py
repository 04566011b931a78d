"""The real stack against its floor, per table action, in one command (issue 26, target 1).

    .venv/bin/python bench/load/ratio.py [--tables 150] [--duration 45] [--server daphne] [--repeat 3]

Runs ``run.py`` (the whole site under the page's traffic: actions, arrangements,
evaluations, lobby sockets, reconnects) and then ``floor.py`` (a bare Channels consumer,
the Redis pub/sub layer and the least PostgreSQL transaction) on the same server, with the
floor given the tables and the traffic the real run measured (its sockets, arrangements and
evaluations per table action), one after the other on the same machine. Prints one JSON line: the CPU of each
tier per table action for both, and their ratio (the target: at most 1.5). Every process
counts: servers, PostgreSQL, Redis, the clients, and Celery on the real side (the floor
has none). ``--repeat N`` runs the pair N times in turn and gives each tier's median: the
machine's speed moves one run of either by 5-10 %, as much as most single changes save.
Extra arguments after ``--`` go to ``run.py``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from statistics import median
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


def one_pair(python: str, args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, Any]]:
    """``run.py`` and then ``floor.py`` given the traffic the real run measured."""
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
            *("--server", args.server, "--tables", str(args.tables)),
            *("--arranges", f"{arranges:.3f}", "--evaluations", f"{evaluations:.3f}"),
        ]
    )
    return real, floor


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=150)
    parser.add_argument("--duration", type=float, default=45.0)
    parser.add_argument("--server", choices=SERVERS, default="daphne")
    parser.add_argument("--daphnes", type=int, default=2, help="server processes of the real run")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="real and floor runs in turn this many times; the medians (one run of each moves by 5-10 %%)",
    )
    parser.add_argument("rest", nargs="*", help="more arguments for run.py (after --)")
    args = parser.parse_args()
    python = sys.executable
    reals, floors = [], []
    for _ in range(max(1, args.repeat)):
        real, floor = one_pair(python, args)
        reals.append(real)
        floors.append(floor)
    actions = sum(r["actions"] for r in reals)
    arranges = sum(r["traffic"]["arranges"] for r in reals) / actions if actions else 0.0
    evaluations = sum(r["traffic"]["evaluations"] for r in reals) / actions if actions else 0.0
    # each tier's median over the runs; one run of each moves by 5-10 % with the machine
    real_ms = {t: median(float(r["cpu_ms_per_action"].get(t, 0.0)) for r in reals) for t in TIERS}
    floor_ms = {t: median(float(f["floor_ms_per_table_action"].get(t, 0.0)) for f in floors) for t in TIERS}
    real_total, floor_total = sum(real_ms.values()), sum(floor_ms.values())
    last = reals[-1]
    print(
        json.dumps(
            {
                "server": args.server,
                "tables": args.tables,
                "runs": len(reals),
                "actions_per_s": [r["actions_per_s"] for r in reals],
                "latency_ms": [r["latency_ms"] for r in reals],
                "errors": sum(r["errors"] for r in reals),
                "error_kinds": [r["error_kinds"] for r in reals if r["error_kinds"]],
                "lost_events": sum(r["lost_events"] for r in reals),
                "duplicated_events": sum(r["duplicated_events"] for r in reals),
                "check_ledger": sorted({str(r["check_ledger"]) for r in reals}),
                "machine_busy_pct": [r["cpu"]["machine_busy_pct"] for r in reals],
                "pg_per_action": last.get("pg_per_action"),
                "per_table_action": {"arranges": round(arranges, 3), "evaluations": round(evaluations, 3)},
                "real_ms": {k: round(v, 3) for k, v in real_ms.items()} | {"total": round(real_total, 3)},
                "floor_ms": {k: round(v, 3) for k, v in floor_ms.items()} | {"total": round(floor_total, 3)},
                "ratio": {t: round(real_ms[t] / floor_ms[t], 2) for t in TIERS if floor_ms[t] > 0}
                | {"total": round(real_total / floor_total, 2) if floor_total else None},
                "each_run": {
                    "real_total": [
                        round(sum(float(r["cpu_ms_per_action"].get(t, 0.0)) for t in TIERS), 3) for r in reals
                    ],
                    "floor_total": [
                        round(sum(float(f["floor_ms_per_table_action"].get(t, 0.0)) for t in TIERS), 3)
                        for f in floors
                    ],
                },
            }
        )
    )


if __name__ == "__main__":
    main()
