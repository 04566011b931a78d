"""The site's Celery app: the tables' (``tables.worker``: turn timers, missed turns, auto drops,
the next deal, the bots), and a health check for operators."""

from __future__ import annotations

from tables.worker import app

__all__ = ["app"]


@app.task(name="rummy_site.ping", ignore_result=False)
def ping() -> str:
    """Health check for operators: ``celery -A rummy_site call rummy_site.ping``."""
    return "pong"
