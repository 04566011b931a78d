"""A task with a countdown runs on a real Celery worker process through the Redis broker."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

from celery import Celery

ROOT = Path(__file__).resolve().parents[2]


def test_countdown_task_runs_on_a_real_worker_through_redis(require_redis: str) -> None:
    queue = f"test-{uuid.uuid4().hex[:10]}"
    env = {**os.environ, "REDIS_URL": require_redis, "CELERY_RESULT_BACKEND": require_redis}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.setdefault("SECRET_KEY", "worker-test-secret-key-0000000000000000000000000000")
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "rummy_site",
            "worker",
            "-P",
            "solo",
            "-Q",
            queue,
            "--without-mingle",
            "--without-gossip",
            "-l",
            "INFO",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    client = Celery("probe", broker=require_redis, backend=require_redis)
    try:
        sent = time.monotonic()
        result = client.send_task("rummy_site.ping", countdown=2, queue=queue)
        assert result.get(timeout=60) == "pong"
        assert time.monotonic() - sent >= 2.0, "the countdown was not honoured"
    finally:
        worker.terminate()
        output, _ = worker.communicate(timeout=30)
    assert "Task rummy_site.ping" in output and "succeeded" in output, output
