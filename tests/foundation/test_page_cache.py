"""Pages say "private, no-cache"; what sets its own caching keeps it (rummy_site/pagecache.py)."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def _cache_control(response) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part.strip()}


def test_a_page_is_private_and_asked_for_again(client: Client) -> None:
    response = client.get("/rules/")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/html")
    assert _cache_control(response) == {"private", "no-cache"}


def test_a_refused_page_is_private_too(client: Client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert {"private", "no-cache"} <= _cache_control(response)


def test_an_api_answer_and_a_view_with_its_own_header_are_left_alone(client: Client) -> None:
    api = client.get("/api/tables/")
    assert api["Content-Type"].startswith("application/json")
    assert "no-cache" not in _cache_control(api)
    login = client.get("/accounts/login/")  # never_cache in Django's log-in view: its own header
    assert "no-store" in _cache_control(login)
