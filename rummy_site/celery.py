"""The site's Celery app (``core.celeryapp``) as its worker and beat run it: the site's log lines
(``sitelog.celerylog``) and metrics, the tables' consumer steps, and a health check for operators."""

from __future__ import annotations

from core.celeryapp import app
from sitelog import celerylog  # noqa: F401  (the site's log format in the worker and beat; each task's ids)
from sitemetrics import celerysignals  # noqa: F401  (each task's run time and delay; the worker's and beat's /metrics)

__all__ = ["app"]

# each (re)connection of a separate worker to the broker re-arms every game's timer (tables.tasks)
app.steps["consumer"].add("tables.tasks.RearmTimers")
# the worker's heartbeat for /healthz, written from the consumer's own timer (tables.heartbeat)
app.steps["consumer"].add("tables.heartbeat.Heartbeat")


@app.task(name="rummy_site.ping", ignore_result=False)
def ping() -> str:
    """Health check for operators: ``celery -A rummy_site call rummy_site.ping``."""
    return "pong"
