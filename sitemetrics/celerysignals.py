"""A Celery process's metrics: each task's run time and delay, each task sent, its endpoint.

The signals fire in whichever process does the work: a task's in the pool's child that runs
it, a send in the Daphne, task or beat that sends it. ``sent_at`` (a header every message gets
when it is published) dates a task without an eta, so its delay is its wait in the queue; a
timer's delay counts from its eta. With ``METRICS_PORT`` set, the worker's main process and beat
serve their metrics on that port (``exposition.serve``).
"""

from __future__ import annotations

import logging
import os
import time
from datetime import datetime
from typing import Any

from celery.signals import (
    beat_init,
    before_task_publish,
    task_failure,
    task_postrun,
    task_prerun,
    task_retry,
    worker_ready,
)

from sitemetrics import exposition, instruments

logger = logging.getLogger(__name__)

_started: dict[str, float] = {}
_outcome: dict[str, str] = {}


@before_task_publish.connect
def stamp_sent(sender: str | None = None, headers: dict[str, Any] | None = None, **_: Any) -> None:
    if headers is not None:
        headers.setdefault("sent_at", time.time())
    instruments.task_sent(str(sender or headers and headers.get("task") or "unknown"))


def _due(request: Any) -> float | None:
    eta = getattr(request, "eta", None)
    if eta:
        try:
            return (eta if isinstance(eta, datetime) else datetime.fromisoformat(str(eta))).timestamp()
        except ValueError:
            return None
    sent = getattr(request, "sent_at", None)
    if sent is None and isinstance(getattr(request, "headers", None), dict):
        sent = request.headers.get("sent_at")
    return float(sent) if isinstance(sent, (int, float)) else None


@task_prerun.connect
def task_started(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    if task_id is None or task is None:
        return
    now = time.time()
    _started[task_id] = time.perf_counter()
    due = _due(task.request)
    if due is not None:
        instruments.task_delayed(task.name, now - due)


@task_failure.connect
def task_failed(task_id: str | None = None, **_: Any) -> None:
    if task_id is not None:
        _outcome[task_id] = "failure"


@task_retry.connect
def task_retried(request: Any = None, **_: Any) -> None:
    task_id = getattr(request, "id", None)
    if task_id is not None:
        _outcome[task_id] = "retry"


@task_postrun.connect
def task_finished(task_id: str | None = None, task: Any = None, **_: Any) -> None:
    started = _started.pop(task_id or "", None)
    outcome = _outcome.pop(task_id or "", "success")
    if started is not None and task is not None:
        instruments.task_ran(task.name, outcome, time.perf_counter() - started)


def _serve_if_asked() -> None:
    port = os.environ.get("METRICS_PORT", "").strip()
    if port:
        exposition.serve(int(port), os.environ.get("METRICS_ADDR", "127.0.0.1"))


@worker_ready.connect
def serve_worker(sender: Any = None, **_: Any) -> None:
    """The worker's main process serves its own and its children's metrics (multiprocess mode)."""
    pool = getattr(getattr(sender, "pool", None), "__class__", type(None)).__module__
    if os.environ.get("METRICS_PORT") and not exposition.multiprocess_dir() and "prefork" in pool:
        logger.warning(
            "METRICS_PORT without PROMETHEUS_MULTIPROC_DIR: the tasks run in the pool's processes and "
            'their metrics are not served (docs/operations.md, "Metrics")'
        )
    _serve_if_asked()


@beat_init.connect
def serve_beat(**_: Any) -> None:
    _serve_if_asked()
