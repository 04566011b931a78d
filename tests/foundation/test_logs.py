"""Logs an operator can search: one JSON object a line, tied to a request, user, table and game.

Each test reads the lines as the site's console handler writes them: the same formatter and
filters ``LOGGING`` names (checked first), on a handler of the test's own.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.test import AsyncClient, Client
from django.urls import reverse

from accounts.models import User
from rummy_site.requestlog import RefusalFilter
from sitelog.formatters import ContextFilter, JsonFormatter
from tables import services, tasks
from tables.models import Table
from tests.sockets import open_socket
from tests.tables.conftest import make_player, make_table

ROOT = Path(__file__).resolve().parents[2]


class Lines(logging.Handler):
    """The console handler's output, one parsed JSON object a line."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(JsonFormatter())
        self.addFilter(RefusalFilter())
        self.addFilter(ContextFilter())
        self.lines: list[dict[str, Any]] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = self.format(record)
        assert "\n" not in text, text  # one object, one line
        self.lines.append(json.loads(text))

    def of(self, logger: str, **fields: Any) -> list[dict[str, Any]]:
        return [
            line
            for line in self.lines
            if line["logger"] == logger and all(line.get(k) == v for k, v in fields.items())
        ]


@pytest.fixture
def lines() -> Iterator[Lines]:
    handler = Lines()
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield handler
    finally:
        root.removeHandler(handler)


def test_the_console_handler_writes_json_through_the_filters_the_tests_use() -> None:
    config = settings.LOGGING
    console = config["handlers"]["console"]
    assert config["formatters"][console["formatter"]]["()"] == "sitelog.formatters.JsonFormatter"
    named = {name: config["filters"][name]["()"] for name in console["filters"]}
    assert set(named.values()) == {"rummy_site.requestlog.RefusalFilter", "sitelog.formatters.ContextFilter"}
    assert settings.MIDDLEWARE[0] == "rummy_site.requestlog.RequestLogMiddleware"


@pytest.mark.django_db
def test_a_request_logs_one_json_line_with_its_request_id_user_status_and_latency(lines: Lines) -> None:
    user = make_player("asha", chips=0)
    client = Client()
    client.force_login(user)
    response = client.get(reverse("lobby"))
    assert response.status_code == 200
    (line,) = lines.of("rummy_site.requests")
    assert line["level"] == "INFO"
    assert line["status"] == 200 and line["method"] == "GET" and line["path"] == reverse("lobby")
    assert line["user_id"] == user.pk
    assert isinstance(line["latency_ms"], float) and line["latency_ms"] > 0
    assert line["request_id"] == response["X-Request-ID"] and len(line["request_id"]) >= 8
    assert line["time"].endswith("+00:00")  # ISO 8601, UTC
    # a second request gets an id of its own; nothing of the first stays bound
    client.logout()
    second = Client().get(reverse("rules"))
    assert second["X-Request-ID"] != response["X-Request-ID"]
    last = lines.of("rummy_site.requests")[-1]
    assert "user_id" not in last and last["request_id"] == second["X-Request-ID"]


@pytest.mark.django_db(transaction=True)
async def test_an_incoming_request_id_is_kept_and_echoed_and_a_malformed_one_replaced(lines: Lines) -> None:
    user = await sync_to_async(make_player)("ravi", chips=0)
    client = AsyncClient()  # through the ASGI handler, as Daphne serves it
    await sync_to_async(client.force_login)(user)
    response = await client.get(reverse("lobby"), headers={"X-Request-ID": "edge-7f3a9c21"})
    assert response["X-Request-ID"] == "edge-7f3a9c21"
    (line,) = lines.of("rummy_site.requests", request_id="edge-7f3a9c21")
    assert line["user_id"] == user.pk and line["status"] == 200

    hostile = 'x" \n{"level": "ERROR"}'
    response = await client.get(reverse("lobby"), headers={"X-Request-ID": hostile})
    replaced = response["X-Request-ID"]
    assert replaced != hostile and replaced.isalnum()
    assert lines.of("rummy_site.requests", request_id=replaced)


@pytest.mark.django_db
def test_a_forbidden_request_logs_one_line_without_a_traceback(lines: Lines) -> None:
    nobody = User.objects.create_user("nobody", password="x-staff-2026", is_staff=True)
    client = Client()
    client.force_login(nobody)
    lines.lines.clear()  # django-axes' lines about the log-in
    response = client.get(reverse("staff-dashboard"))  # staff without the dashboard's permission
    assert response.status_code == 403
    assert len(lines.lines) == 1, lines.lines  # not Django's "Forbidden" record with its traceback besides
    (line,) = lines.lines
    assert line["logger"] == "rummy_site.requests" and line["level"] == "WARNING"
    assert line["status"] == 403 and line["user_id"] == nobody.pk
    assert "Forbidden" in line["reason"]
    assert "exc_info" not in line and "Traceback" not in json.dumps(line)


@pytest.mark.django_db
def test_a_missing_page_and_a_bad_host_are_one_line_each(lines: Lines) -> None:
    assert Client().get("/no-such-page/").status_code == 404
    assert Client(HTTP_HOST="evil.example").get(reverse("rules")).status_code == 400
    assert [line["status"] for line in lines.lines] == [404, 400], lines.lines
    assert "Invalid HTTP_HOST" in lines.lines[1]["reason"]
    assert not any("exc_info" in line for line in lines.lines)


@pytest.mark.django_db(transaction=True)
async def test_a_table_action_logs_its_table_game_user_kind_and_latency(lines: Lines) -> None:
    @sync_to_async
    def started() -> tuple[Table, User]:
        table = make_table("101", seats=2, seed=7, turn_seconds=60)
        users = [make_player("asha"), make_player("ravi")]
        for user in users:
            services.table_join(table_id=table.pk, user=user)
        return table, users[0]

    table, asha = await started()
    page = await open_socket(asha, f"/ws/tables/{table.pk}/")
    try:
        snapshot = await page.receive_json_from(timeout=5)
        assert snapshot["type"] == "snapshot", snapshot
        game_id = snapshot["game"]["id"]
        hand = sorted(snapshot["view"]["hand"])
        action = {"type": "arrange", "groups": [hand[:6], hand[6:]]}
        await page.send_json_to({"type": "action", "request_id": "arr-9", "action": action})
        result = await page.receive_json_from(timeout=5)
        assert result["type"] == "result" and result["ok"], result
    finally:
        await page.disconnect()
    (line,) = lines.of("tables.actions")
    assert line["table_id"] == table.pk and line["game_id"] == game_id and line["user_id"] == asha.pk
    assert line["action"] == "arrange" and line["ok"] is True and line["request_id"] == "arr-9"
    assert isinstance(line["latency_ms"], float) and 0 < line["latency_ms"] < 5000
    assert line["message"] == "action arrange ok"


def test_a_celery_tasks_log_lines_carry_its_game(lines: Lines, monkeypatch: pytest.MonkeyPatch) -> None:
    def bot_move(*, game_id: int, version: int) -> bool:  # stands for the service the task calls
        logging.getLogger("tables.game.drivers").info("a bot thinks about version %s", version)
        return False

    monkeypatch.setattr(tasks.drivers, "bot_move", bot_move)
    outcome = tasks.bot_move.apply(args=(4242, 17))
    assert outcome.successful(), outcome.traceback
    (line,) = lines.of("tables.game.drivers")
    assert line["game_id"] == 4242 and line["task_id"] == outcome.id
    # nothing of the task stays bound after it
    logging.getLogger("tables.game.drivers").info("after")
    assert "game_id" not in lines.of("tables.game.drivers")[-1]


def _run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("LOG_FORMAT", "DEBUG", "SENTRY_DSN")}
    environment.update(DJANGO_SETTINGS_MODULE="rummy_site.test_settings", **env)
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )


LOG_A_LINE = (
    "import django; django.setup(); import logging; logging.getLogger('rummy.check').warning('hello %s', 7)"
)


def test_a_process_writes_json_by_default_and_text_on_request() -> None:
    done = _run_python(LOG_A_LINE)
    assert done.returncode == 0, done.stderr
    (line,) = [json.loads(text) for text in done.stderr.splitlines() if '"rummy.check"' in text]
    assert line["level"] == "WARNING" and line["message"] == "hello 7" and "time" in line

    done = _run_python(LOG_A_LINE, LOG_FORMAT="text")
    (text,) = [text for text in done.stderr.splitlines() if "rummy.check" in text]
    assert text.split()[1:] == ["WARNING", "rummy.check", "hello", "7"], text


def test_sentry_starts_only_with_a_dsn() -> None:
    import sentry_sdk

    assert not sentry_sdk.get_client().is_active()  # the suite's settings: no SENTRY_DSN
    probe = "import django; django.setup(); import sentry_sdk; print(sentry_sdk.get_client().is_active())"
    # a DSN on a closed local port: the SDK starts; nothing is captured, so nothing is sent
    done = _run_python(probe, SENTRY_DSN="http://public@127.0.0.1:9/1")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"
    assert _run_python(probe).stdout.strip() == "False"


@pytest.mark.django_db
def test_the_request_line_costs_no_query_for_a_user_nobody_read(
    lines: Lines, django_assert_num_queries: Any
) -> None:
    """The user's id is read only once authentication has looked them up: a page that never reads
    the user (the favicon) is answered without the session and user queries."""
    client = Client()
    client.force_login(make_player("asha", chips=0))
    with django_assert_num_queries(0):
        assert client.get("/favicon.ico").status_code == 301  # to the static file
    (line,) = lines.of("rummy_site.requests", path="/favicon.ico")
    assert "user_id" not in line and line["status"] == 301


@pytest.mark.django_db
def test_failed_log_ins_and_the_lock_out_are_one_line_each(lines: Lines) -> None:
    """django-axes writes three or four lines a failed log-in: its warnings become the request
    line's notes, so the 429 of a lock-out is one line too."""
    make_player("asha", chips=0)
    client = Client()
    statuses = [
        client.post(reverse("login"), {"username": "asha", "password": "not-hers"}).status_code
        for _ in range(settings.LOGIN_FAILURE_LIMIT + 1)
    ]
    assert statuses[-1] == 429 and statuses[0] == 200, statuses
    assert [line["logger"] for line in lines.lines] == ["rummy_site.requests"] * len(statuses), lines.lines
    assert [line["status"] for line in lines.lines] == statuses
    first, lockout = lines.lines[0], lines.lines[-1]
    assert first["level"] == "WARNING" and any("login failure" in note for note in first["notes"]), first
    assert lockout["level"] == "WARNING" and any("Locking out" in note for note in lockout["notes"]), lockout
    assert len({line["request_id"] for line in lines.lines}) == len(statuses)
