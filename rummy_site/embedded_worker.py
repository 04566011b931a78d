"""A Celery worker thread inside the web process, for the embedded defaults.

Without ``REDIS_URL`` the broker is Celery's in-memory transport, which lives in
one process, so the worker must live there too. It is a real worker
(``WorkController``, solo pool) consuming the real queue, not eager mode: timers
are delivered with their countdown exactly as they are on Redis. A second thread
plays the part of celery beat and sends the periodic deadline sweep.
"""

from __future__ import annotations

import logging
import threading
import time

from celery.worker import WorkController
from django.conf import settings

from rummy_site.celery import app

logger = logging.getLogger(__name__)
_started = threading.Event()


def _run_sweeps(interval: float) -> None:
    while True:  # the first at once, as /healthz waits for it (rummy_site.health)
        try:
            app.send_task("tables.tasks.sweep_deadlines")
        except Exception:  # the sweep is a safety net; never kill its thread
            logger.exception("could not send the deadline sweep")
        time.sleep(interval)


def start_embedded_worker() -> None:
    """Start the worker and sweep threads once per process (idempotent)."""
    if _started.is_set():
        return
    _started.set()
    worker = WorkController(
        app=app,
        pool="solo",
        concurrency=1,
        without_heartbeat=True,
        without_mingle=True,
        without_gossip=True,
        loglevel="INFO",
    )
    threading.Thread(target=worker.start, name="celery-embedded-worker", daemon=True).start()
    threading.Thread(
        target=_run_sweeps,
        args=(float(settings.CELERY_SWEEP_SECONDS),),
        name="celery-embedded-beat",
        daemon=True,
    ).start()
    logger.info("embedded Celery worker started on the in-memory transport")
