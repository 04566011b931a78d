"""The HTTP API fuzzed from its own OpenAPI schema (schemathesis): no request gets a 5xx.

Every operation drf-spectacular publishes is called by a logged-in player (session
cookie and CSRF token, as the browser sends them) against a live server on the
test database, with a bounded number of examples each: valid requests and, for
each, ones that break the schema (wrong types, missing fields, junk in the path
and the query).
"""

from __future__ import annotations

from typing import Any

import pytest
import requests
import schemathesis
from django.conf import settings as django_settings
from django.test import Client
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode

from tests.tables.conftest import make_player, make_table

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres, pytest.mark.slow]

EXAMPLES_PER_OPERATION = 25


def _logged_in(base_url: str) -> requests.Session:
    user = make_player("fuzzer", chips=50)
    client = Client()
    client.force_login(user)
    session = requests.Session()
    session.cookies.set(
        django_settings.SESSION_COOKIE_NAME, client.cookies[django_settings.SESSION_COOKIE_NAME].value
    )
    session.get(f"{base_url}/accounts/login/", timeout=10)  # sets the CSRF cookie
    session.headers["X-CSRFToken"] = session.cookies.get(django_settings.CSRF_COOKIE_NAME, "")
    return session


def test_no_api_request_gets_a_5xx(require_postgres: None, live_server: Any) -> None:
    table = make_table(seats=3, fee=1_000)
    make_table(seats=2, fee=0, practice=True)
    session = _logged_in(live_server.url)
    assert session.get(f"{live_server.url}/api/wallet/", timeout=10).status_code == 200
    raw = session.get(f"{live_server.url}/api/schema/", headers={"Accept": "application/json"}, timeout=10)
    schema = schemathesis.openapi.from_dict(raw.json())
    failures: list[str] = []
    calls = 0

    for result in schema.get_all_operations():
        operation = result.ok()

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(
            case=operation.as_strategy(GenerationMode.POSITIVE)
            | operation.as_strategy(GenerationMode.NEGATIVE)
        )
        def call(case: Any) -> None:
            nonlocal calls
            if "table_id" in (case.path_parameters or {}) and calls % 3 == 0:
                case.path_parameters["table_id"] = table.pk  # some calls reach a real table
            # the player's own session and CSRF token, not generated ones (those only ever get 403)
            case.cookies = {}
            for header in list(case.headers or {}):
                if header.lower() in ("cookie", "x-csrftoken", "authorization"):
                    del case.headers[header]
            response = case.call(base_url=live_server.url, session=session, timeout=20)
            calls += 1
            if response.status_code >= 500:
                failures.append(
                    f"{case.method} {case.formatted_path} -> {response.status_code}: {response.text[:200]}"
                )

        call()

    assert calls >= 100, calls
    assert not failures, failures
