"""The Celery processes' log lines: the site's format, and the game each task works on.

Without a ``setup_logging`` receiver Celery configures logging itself (its own text format
on the root logger); with this one every worker and beat writes the site's ``LOGGING``
(one JSON object a line). Each task binds the ids among its arguments (``game_id``,
``table_id``, ``user_id``) and its own id for its run, so every line written meanwhile, the
services' included, says which game it was about (``sitelog.context``).
"""

from __future__ import annotations

import inspect
import logging.config
from typing import Any

from celery.signals import setup_logging, task_postrun, task_prerun

from sitelog import context

_IDS = ("game_id", "table_id", "user_id")
_signatures: dict[str, inspect.Signature | None] = {}


@setup_logging.connect
def use_site_logging(**kwargs: Any) -> None:
    """Celery's own logging set-up replaced by the site's."""
    from django.conf import settings

    logging.config.dictConfig(settings.LOGGING)


def task_ids(task: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The ids among a task's arguments, by parameter name."""
    name = getattr(task, "name", "")
    if name not in _signatures:
        try:
            _signatures[name] = inspect.signature(task.run)
        except (TypeError, ValueError):
            _signatures[name] = None
    signature = _signatures[name]
    if signature is None:
        return {}
    try:
        arguments = signature.bind_partial(*args, **kwargs).arguments
    except TypeError:
        return {}
    return {key: arguments[key] for key in _IDS if isinstance(arguments.get(key), int)}


@task_prerun.connect
def bind_task(
    task_id: str | None = None, task: Any = None, args: Any = (), kwargs: Any = None, **_: Any
) -> None:
    context.clear()  # a worker's thread runs one task after another: nothing of the last one stays
    context.bind(task_id=task_id, **task_ids(task, tuple(args or ()), dict(kwargs or {})))


@task_postrun.connect
def unbind_task(**_: Any) -> None:
    context.clear()
