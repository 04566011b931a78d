"""A cursor whose statements PostgreSQL prepares: for the few statements every table action runs.

Django's PostgreSQL cursors bind parameters on the client (psycopg's ``ClientCursor``): each
statement reaches the server as new text, parsed and planned again. A ``psycopg.Cursor`` sends
the values apart from the SQL (server-side binding), so psycopg prepares a statement the fifth
time its connection runs it and the server plans it once (the block check of every action is
planned in longer than it runs). Used by ``accounts.play`` and ``tables.game.gamerows``,
whose statements are built once per process; below both apps in the layers.
"""

from __future__ import annotations

from typing import Any

import psycopg


class _LoggedCursor(psycopg.Cursor[Any]):  # rows here are plain tuples
    """For a connection whose queries are logged (``DEBUG``, ``CaptureQueriesContext``): never
    prepared, since Django reads a statement's text back from the cursor for the log, and psycopg
    leaves none there when it runs a prepared one (the log would hold ``None``)."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None
    ) -> Any:
        return super().execute(query, params, prepare=False, binary=binary)


def bound_cursor(db: Any) -> Any:
    """A cursor on ``db`` (a Django connection, in its transaction): server-side binding on PostgreSQL.

    Wrapped as Django wraps its own (``make_cursor``): database errors become Django's
    (``core.dbretry`` and the consumers catch those), execute wrappers and query
    logging (``CaptureQueriesContext``) see these statements too. Elsewhere, Django's own cursor.
    """
    if db.vendor != "postgresql":
        return db.cursor()
    db.ensure_connection()
    if db.queries_logged:
        return db.make_debug_cursor(_LoggedCursor(db.connection))
    return db.make_cursor(psycopg.Cursor(db.connection))
