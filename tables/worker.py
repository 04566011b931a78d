"""The Celery app the tables' timers and the bots' moves run on (``tables.tasks``).

The tables own it, so that ``tables.notify`` sends their tasks without importing the site
above them; ``rummy_site.celery`` makes it the site's app (``celery -A rummy_site``) and adds
the operators' ping.
"""

from __future__ import annotations

import os

from celery import Celery

from sitemetrics import celerysignals  # noqa: F401  (each task's run time and delay; the worker's and beat's /metrics)
from tables import tasklog  # noqa: F401  (the site's log format in the worker and beat; each task's ids)

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")

app = Celery("rummy_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
# each (re)connection of a separate worker to the broker re-arms every game's timer (tables.tasks)
app.steps["consumer"].add("tables.tasks.RearmTimers")
# the worker's heartbeat for /healthz, written from the consumer's own timer (tables.heartbeat)
app.steps["consumer"].add("tables.heartbeat.Heartbeat")
