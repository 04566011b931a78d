"""The plot of a sweep (issue 26): latency and CPU per table action, by ASGI server or by any field.

    .venv/bin/python bench/load/plot_servers.py bench/load/sweep-servers-issue26.jsonl bench/load/servers-issue26.png
    .venv/bin/python bench/load/plot_servers.py ROWS.jsonl OUT.png --by code   # before and after a change

Reads ``run.py``'s JSON lines (``--server`` daphne, uvicorn or granian; any table counts, repeated
runs as separate points) and draws p50 and p99 against the table count beside the CPU of every
process per table action. ``--by FIELD`` groups the rows by another field of theirs (a ``code``
label added to each row, say).
"""

from __future__ import annotations

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

COLORS = {"daphne": "tab:blue", "uvicorn": "tab:orange", "granian": "tab:green"}
NUDGE = {"daphne": -6, "uvicorn": 0, "granian": 6}  # side by side on the CPU panel


def main(rows_path: str, png_path: str, by: str = "server") -> None:
    with open(rows_path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.5))
    if by == "server":
        colors, nudge = COLORS, NUDGE
    else:
        labels = list(dict.fromkeys(str(r.get(by)) for r in rows))
        colors = {label: f"C{i}" for i, label in enumerate(labels)}
        nudge = {label: 6 * i - 3 * (len(labels) - 1) for i, label in enumerate(labels)}
    for server, color in colors.items():
        runs = sorted((r for r in rows if str(r.get(by, "daphne")) == server), key=lambda r: r["tables"])
        for i, r in enumerate(runs):
            first = i == 0
            ax.scatter(
                r["tables"], r["latency_ms"]["p99"], color=color, label=f"{server} p99" if first else None
            )
            ax.scatter(
                r["tables"],
                r["latency_ms"]["p50"],
                color=color,
                marker="x",
                label=f"{server} p50" if first else None,
            )
            cpu = sum(r["cpu_ms_per_action"].values())
            bx.scatter(r["tables"] + nudge[server], cpu, color=color, label=server if first else None)
    ax.axhline(250, color="red", linestyle="--", linewidth=1, label="p99 target 250 ms")
    ax.set_yscale("log")
    ax.set_xlabel("tables of 6 (one action a table every ~2 s)")
    ax.set_ylabel("action to every seat, ms")
    ax.set_title(
        f"Latency by {'ASGI server' if by == 'server' else by}, 2 cores, 2 server processes", fontsize=9
    )
    bx.set_xlabel("tables of 6")
    bx.set_ylabel("ms of CPU per table action, every process")
    bx.set_title("CPU per table action (servers, PostgreSQL, Redis, Celery, clients)", fontsize=9)
    bx.set_ylim(0, None)
    for axis in (ax, bx):
        axis.legend(fontsize=7)
        axis.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(png_path)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0], args[1], args[3] if len(args) > 3 and args[2] == "--by" else "server")
