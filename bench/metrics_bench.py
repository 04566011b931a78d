"""What the metrics cost: microseconds per table action and per request, and a scrape's time.

    .venv/bin/python bench/metrics_bench.py [--actions N]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/rummy_load .venv/bin/python bench/metrics_bench.py --scrape 20

A table action records its kind, outcome and latency (``instruments.table_action``, with the
consumer's ``_action_kind`` and ``_outcome``) and the notice it sends; a request records its view's latency
(``HttpMetricsMiddleware``'s part). Each is timed with metrics on and off (``ENABLED``), in this
process's registry (a Daphne's) and in multiprocess mode (a child process with
``PROMETHEUS_MULTIPROC_DIR``, as the worker runs), best of five rounds. ``--scrape N`` times the
``/metrics`` body N times on ``DATABASE_URL``'s database (the gauges read there at each scrape;
run it on the load benchmark's database to see them over its games). No figure is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")
os.environ.setdefault("SECRET_KEY", "bench-only-secret-key-not-for-production-0000000000000000000")
os.environ.setdefault("DATABASE_URL", "sqlite:///:memory:")


def _best(rounds: int, n: int, step: object) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        for _ in range(n):
            step()  # type: ignore[operator]
        best = min(best, (time.perf_counter() - started) / n * 1e6)
    return best


def per_call(n: int) -> dict[str, float]:
    """Microseconds per table action and per request, metrics on and off."""
    from django.test import RequestFactory

    from rummy_site.httpmetrics import view_label
    from sitemetrics import instruments
    from tables.realtime.consumers import _action_kind, _outcome

    content = {"type": "action", "request_id": "r-1", "action": {"type": "discard", "card": "7H"}}
    answer = {"ok": True, "version": 41}
    arrived = time.perf_counter()

    def action() -> None:
        instruments.table_action(_action_kind(content), _outcome(answer), time.perf_counter() - arrived)
        instruments.notices_sent("table.changed")

    request = RequestFactory().get("/tables/12/")
    request.resolver_match = SimpleNamespace(view_name="tables:table", route="tables/<int:table_id>/")
    response = SimpleNamespace(status_code=200)

    def http() -> None:
        instruments.http_request(
            view_label(request), "GET", response.status_code, time.perf_counter() - arrived
        )

    found = {}
    for enabled in (True, False):
        instruments.ENABLED = enabled
        state = "on" if enabled else "off"
        found[f"action_{state}_us"] = _best(5, n, action)
        found[f"request_{state}_us"] = _best(5, n, http)
    instruments.ENABLED = True
    found["action_cost_us"] = found["action_on_us"] - found["action_off_us"]
    found["request_cost_us"] = found["request_on_us"] - found["request_off_us"]
    return found


def scrape(times: int) -> dict[str, float]:
    """Milliseconds to build ``/metrics`` (the process's metrics and the gauges read at scrape time)."""
    from django.db import connection

    from rummy_site.metrics import SiteCollector
    from sitemetrics import exposition

    durations, size = [], 0
    for _ in range(times):
        started = time.perf_counter()
        size = len(exposition.render([SiteCollector()]))
        durations.append((time.perf_counter() - started) * 1000)
    return {
        "scrape_median_ms": round(statistics.median(durations), 2),
        "scrape_max_ms": round(max(durations), 2),
        "scrape_bytes": size,
        "scrape_database": connection.vendor,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=50_000)
    parser.add_argument("--scrape", type=int, default=0, help="time /metrics this many times (DATABASE_URL)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    import django

    django.setup()
    if args.child:  # the multiprocess-mode figures, printed for the parent
        print(json.dumps(per_call(args.actions)))
        return
    mode = "multiprocess" if os.environ.get("PROMETHEUS_MULTIPROC_DIR") else "one process"
    rows = {mode: per_call(args.actions)}
    if mode == "one process":
        with tempfile.TemporaryDirectory(prefix="metrics-bench-") as directory:
            env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": directory}
            out = subprocess.run(
                [sys.executable, __file__, "--child", "--actions", str(args.actions)],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
            rows["multiprocess"] = json.loads(out.strip().splitlines()[-1])
    print(f"per call, best of 5 rounds of {args.actions} (a table action: its latency and its notice)")
    for name, row in rows.items():
        print(
            f"{name:>13}: table action {row['action_on_us']:.2f} us on, {row['action_off_us']:.2f} us off"
            f" -> {row['action_cost_us']:.2f} us; request {row['request_on_us']:.2f} us on,"
            f" {row['request_off_us']:.2f} us off -> {row['request_cost_us']:.2f} us"
        )
    if args.scrape:
        print("scrape:", json.dumps(scrape(args.scrape)))


if __name__ == "__main__":
    main()
