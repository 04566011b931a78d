"""A JSON column that PostgreSQL keeps as text (``json``), for the game row's state.

Django's ``JSONField`` is ``jsonb`` on PostgreSQL: every write parses the value into
``jsonb``'s tree and every read prints it back to text, which for the game's state (written
by every action and arrangement, read by every one) is a large part of PostgreSQL's work for
the row (``bench/load/state_column.py``). Nothing queries inside the state, so ``json``,
which checks the text and keeps it as it is, loses nothing but equality: PostgreSQL cannot
compare two ``json`` values, so a query over game rows may not ``DISTINCT`` or ``UNION`` them
with their state (``tables.game.selectors`` filters with ``Exists`` instead). On other databases it is
``JSONField`` unchanged.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.backends.signals import connection_created
from django.dispatch import receiver
from psycopg.types.json import Json, Jsonb
from psycopg.types.string import TextLoader


class JSONTextField(models.JSONField):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    """``JSONField`` stored as ``json`` on PostgreSQL (values in, values out, the same as JSONField)."""

    def db_type(self, connection: Any) -> str | None:
        if connection.vendor == "postgresql":
            return "json"
        return super().db_type(connection)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        adapted = super().get_db_prep_value(value, connection, prepared)
        if connection.vendor == "postgresql" and isinstance(adapted, Jsonb):
            return Json(adapted.obj, dumps=adapted.dumps)  # the same value, sent as json, not jsonb
        return adapted

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if value is not None and not isinstance(value, str | bytes):  # parsed by a driver: as it came
            return value
        return super().from_db_value(value, expression, connection)  # type: ignore[arg-type]  # json.loads reads bytes too


@receiver(connection_created)
def _json_as_text(sender: Any, connection: Any, **kwargs: Any) -> None:
    """PostgreSQL ``json`` reaches Django as text, as Django has psycopg hand it ``jsonb``: parsed
    once, by the field (the ORM) or by orjson (``tables.game.gamerows``), not by psycopg's stdlib json."""
    if connection.vendor == "postgresql":
        connection.connection.adapters.register_loader("json", TextLoader)
