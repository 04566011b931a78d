"""How long ``/healthz`` takes to answer with each part up, down (a closed port) or hung (a port
that takes connections and never answers) (issue 39). The target: under a second in every case.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres REDIS_URL=redis://127.0.0.1:6379/14 \\
        .venv/bin/python bench/healthz_bench.py [--repeat 5]

Prints, per case, the median and the slowest of ``--repeat`` answers, the status and each part's
state. It reads only (``SELECT 1``, ``PING``, two cache reads).
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")
os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("RUMMY_EMBEDDED_WORKER", "0")


@contextmanager
def silent_server() -> Iterator[int]:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(64)
        yield listener.getsockname()[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    import logging

    import django

    django.setup()
    logging.getLogger("django.request").setLevel(logging.CRITICAL)  # each 503 is expected here
    from django.conf import settings
    from django.db import connection
    from django.test import Client, override_settings

    from rummy_site import health

    client = Client()
    health.worker_beat()
    health.sweep_ran()

    def redis_at(url: str) -> override_settings:
        timeouts = {
            "socket_connect_timeout": settings.HEALTH_DEADLINE_SECONDS,
            "socket_timeout": settings.HEALTH_DEADLINE_SECONDS,
        }
        return override_settings(
            REDIS_URL=url,
            CACHES={
                "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url},
                "health": {
                    "BACKEND": "django.core.cache.backends.redis.RedisCache",
                    "LOCATION": url,
                    "OPTIONS": timeouts,
                },
            },
        )

    def database_at(stack: ExitStack, port: int) -> None:
        saved = dict(connection.settings_dict)
        connection.settings_dict.update(HOST="127.0.0.1", PORT=str(port))
        stack.callback(connection.settings_dict.update, saved)

    cases = ["all up", "database closed", "database hung", "redis closed", "redis hung"]
    print(
        f"deadline {settings.HEALTH_DEADLINE_SECONDS} s; database {connection.vendor}; "
        f"redis {settings.REDIS_URL or 'not used'}; {args.repeat} answers per case"
    )
    print(f"{'case':<18} {'median s':>9} {'max s':>7} status  parts")
    for case in cases:
        times, status, body = [], 0, {}
        for _ in range(args.repeat):
            with ExitStack() as stack:
                if case.startswith("database"):
                    database_at(stack, stack.enter_context(silent_server()) if "hung" in case else 1)
                if case.startswith("redis"):
                    port = stack.enter_context(silent_server()) if "hung" in case else 1
                    stack.enter_context(redis_at(f"redis://127.0.0.1:{port}/0"))
                started = time.monotonic()
                response = client.get("/healthz", HTTP_HOST="127.0.0.1")
                times.append(time.monotonic() - started)
                status, body = response.status_code, response.json()
        parts = ", ".join(f"{k}={v['state']}" for k, v in body.items() if isinstance(v, dict))
        print(f"{case:<18} {statistics.median(times):9.3f} {max(times):7.3f} {status:>6}  {parts}")
    time.sleep(0.1)


if __name__ == "__main__":
    main()
