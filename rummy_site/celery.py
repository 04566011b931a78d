"""The Celery app: turn timers, missed turns, auto drops and the next deal."""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")

app = Celery("rummy_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# each (re)connection of a separate worker to the broker re-arms every game's timer (tables.tasks)
app.steps["consumer"].add("tables.tasks.RearmTimers")
# the worker's heartbeat for /healthz, written from the consumer's own timer (rummy_site.health)
app.steps["consumer"].add("rummy_site.health.Heartbeat")


@app.task(name="rummy_site.ping", ignore_result=False)
def ping() -> str:
    """Health check for operators: ``celery -A rummy_site call rummy_site.ping``."""
    return "pong"
