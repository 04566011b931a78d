"""The formatters and the filter ``LOGGING`` names (rummy_site/settings.py).

``JsonFormatter``: one JSON object a line, ``time`` (ISO 8601, UTC), ``level``, ``logger``,
``message``, then the ids bound in ``sitelog.context`` and whatever the call passed in
``extra`` (``status``, ``latency_ms``, ``action``...), then ``exc_info`` (the traceback) when
there is one. python-json-logger's orjson formatter writes it; orjson is the site's JSON already.

``TextFormatter``: the same fields on one readable line, for a developer's console
(``LOG_FORMAT=text``, the default with ``DEBUG``).
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from pythonjsonlogger.core import RESERVED_ATTRS
from pythonjsonlogger.orjson import OrjsonFormatter

from sitelog import context

#: Attributes a record may carry that are not worth a field: Django's request object
#: (``django.request`` and ``django.security`` pass it), runserver's time string.
_SKIPPED = (*RESERVED_ATTRS, "request", "server_time", "color_message")


class ContextFilter(logging.Filter):
    """Puts the bound ids on every record that passes (an ``extra`` of the same name wins)."""

    def filter(self, record: logging.LogRecord) -> bool:
        for name, value in context.current().items():
            if not hasattr(record, name):
                setattr(record, name, value)
        return True


class JsonFormatter(OrjsonFormatter):
    """One JSON object a line (python-json-logger over orjson), ``time`` first."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(
            "%(levelname)s %(name)s %(message)s",
            rename_fields={"levelname": "level", "name": "logger"},
            reserved_attrs=_SKIPPED,
            **kwargs,
        )

    def add_fields(
        self, log_data: dict[str, Any], record: logging.LogRecord, message_dict: dict[str, Any]
    ) -> None:
        log_data["time"] = datetime.fromtimestamp(record.created, tz=UTC)
        super().add_fields(log_data, record, message_dict)


class TextFormatter(logging.Formatter):
    """``time level logger message key=value...``: the JSON line's fields, for reading in a terminal."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)-7s %(name)s %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return datetime.fromtimestamp(record.created, tz=UTC).isoformat(timespec="milliseconds")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        skipped = set(_SKIPPED)
        extras = " ".join(f"{k}={v}" for k, v in record.__dict__.items() if k not in skipped)
        if not extras:
            return line
        head, newline, rest = line.partition("\n")  # after the message, before any traceback
        return f"{head} {extras}{newline}{rest}"
