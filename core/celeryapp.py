"""The site's Celery app, which the apps send their tasks through (by name, as ``send_task``).

It lives below the apps so that a use case can queue a task without importing the site above it;
``rummy_site.celery`` makes it the site's (``celery -A rummy_site``): the workers' log lines and
metrics, the tables' consumer steps and the operators' ping.
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")

app = Celery("rummy_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
