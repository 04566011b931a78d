"""A query past the admin's deadline (``ADMIN_STATEMENT_TIMEOUT_MS``, staff/query_deadline.py) answers
with a page saying so, HTTP 503, not a hung page or a server error (issue 39; PostgreSQL)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.urls import reverse

from tests.staff.admin_clients import game_with_events, staff_clients

# committed, not in a test's transaction: in production no transaction surrounds the request
pytestmark = pytest.mark.django_db(transaction=True)


def test_a_query_past_the_admins_deadline_answers_503_with_words(
    require_postgres: None, settings: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tables.admin import GameEventAdmin

    game_with_events(3)
    client = staff_clients()["Support agent"]
    settings.ADMIN_STATEMENT_TIMEOUT_MS = 200  # type: ignore[attr-defined]
    slow = GameEventAdmin.get_queryset

    def sleepy(self: GameEventAdmin, request: object) -> object:
        # time passes on purpose: a query that outlasts the admin's deadline (0.2 s)
        return slow(self, request).extra(where=["(SELECT 1 FROM pg_sleep(2)) = 1"])

    monkeypatch.setattr(GameEventAdmin, "get_queryset", sleepy)
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] in ("0", "0ms")  # the players' requests have none
    response = client.get(reverse("admin:tables_gameevent_changelist"))
    assert response.status_code == 503
    page = response.content.decode()
    assert "This page would take too long" in page and "0.2 seconds" in page
    monkeypatch.setattr(GameEventAdmin, "get_queryset", slow)
    # the next page works: the connection is sound
    assert client.get(reverse("admin:tables_gameevent_changelist")).status_code == 200
    with connection.cursor() as cursor:  # and the deadline was reset after each request
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] in ("0", "0ms")
