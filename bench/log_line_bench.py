"""What a table action's log line costs a Daphne: microseconds per line, formatted and written.

    .venv/bin/python bench/log_line_bench.py [--lines N]

Runs ``TableConsumer.log_action`` (tables/realtime/consumers.py) with a user, table and game bound
(sitelog.context) through the site's console handler (the JSON formatter and both filters of
``LOGGING``), writing to /dev/null, and the same call with the ``tables.actions`` logger set to
WARNING (the line dropped at its first check); prints both and their difference. No database.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production-0000000000000000000")
os.environ.setdefault("DATABASE_URL", "sqlite:///:memory:")
os.environ["LOG_FORMAT"] = "json"


def per_line(lines: int) -> float:
    """Microseconds per ``log_action`` call, best of five rounds."""
    from sitelog import context
    from tables.realtime.consumers import TableConsumer

    socket = SimpleNamespace(seat=2, arrived=time.perf_counter())
    content = {"type": "action", "request_id": "r-1", "action": {"type": "discard", "card": "7H"}}
    answer = {"ok": True, "version": 41}
    best = float("inf")
    with context.bound(user_id=1234, table_id=56, game_id=7890):
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(lines):
                TableConsumer.log_action(socket, content, "r-1", answer)  # type: ignore[arg-type]
            best = min(best, (time.perf_counter() - started) / lines * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20_000)
    args = parser.parse_args()

    import django

    django.setup()
    root = logging.getLogger()
    (console,) = root.handlers
    console.setStream(open(os.devnull, "w"))  # noqa: SIM115 - kept for the process's life
    written = per_line(args.lines)
    logging.getLogger("tables.actions").setLevel(logging.WARNING)
    dropped = per_line(args.lines)
    print(f"lines per round: {args.lines}, best of 5")
    print(f"action line written (JSON to /dev/null): {written:.2f} us")
    print(f"action line dropped (logger at WARNING):  {dropped:.2f} us")
    print(f"cost of the line:                        {written - dropped:.2f} us per action")


if __name__ == "__main__":
    main()
