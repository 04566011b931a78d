"""``/metrics``: who may read it, what it says, and the gauges it reads from the database.

The process's metrics are read with prometheus-client's own ``get_sample_value`` before and
after, so each test sees its own change whatever ran before it in the process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.test import Client, override_settings
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from sitemetrics import celerysignals, instruments
from staff.dashboard import stuck_games
from tables import services
from tables.models import GameEvent, PoolGame
from tests.tables.conftest import make_player, make_table
from wallet.audit import run_check

ROOT = Path(__file__).resolve().parents[2]


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(
    client: Client | None = None, **headers: Any
) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    """``/metrics`` parsed: metric sample name -> labels -> value."""
    response = (client or Client()).get("/metrics", **headers)
    assert response.status_code == 200, response.status_code
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    found: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(response.content.decode()):
        for s in family.samples:
            found.setdefault(s.name, {})[tuple(sorted(s.labels.items()))] = s.value
    return found


def test_metrics_are_refused_to_an_address_not_allowed_and_to_a_wrong_token() -> None:
    with override_settings(METRICS_ALLOWED_ADDRESSES=["10.0.0.0/8"], METRICS_TOKEN="s3cret-token"):
        assert Client().get("/metrics").status_code == 404  # the test client's 127.0.0.1
        assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 404
        assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-token").status_code == 200
        assert Client(REMOTE_ADDR="10.1.2.3").get("/metrics").status_code == 200
    with override_settings(METRICS_ALLOWED_ADDRESSES=[], METRICS_TOKEN=""):
        assert Client().get("/metrics").status_code == 404  # no token set: no token opens it
        assert Client().get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 404


@pytest.mark.django_db
def test_a_scrape_by_the_daphnes_own_address_over_plain_http_is_answered() -> None:
    """Prometheus scrapes ``http://127.0.0.1:8001/metrics``: a host not in ``ALLOWED_HOSTS``, no HTTPS."""
    with override_settings(ALLOWED_HOSTS=["rummy.example.com"], SECURE_SSL_REDIRECT=True):
        assert Client().get("/rules/", HTTP_HOST="127.0.0.1:8001").status_code == 400  # any other page
        assert Client().get("/rules/", HTTP_HOST="rummy.example.com").status_code == 301  # to https
        response = Client().get("/metrics", HTTP_HOST="127.0.0.1:8001")
        assert response.status_code == 200 and b"rummy_timers_overdue " in response.content
        assert (
            Client(REMOTE_ADDR="203.0.113.7").get("/metrics", HTTP_HOST="127.0.0.1:8001").status_code == 404
        )


@pytest.mark.django_db
def test_http_latency_is_counted_by_view_name_not_path() -> None:
    labels = {"view": "rules", "method": "GET", "status": "2xx"}
    before = sample("rummy_http_request_duration_seconds_count", **labels)
    Client().get("/rules/")
    assert sample("rummy_http_request_duration_seconds_count", **labels) == before + 1
    missing = {"view": "unresolved", "method": "GET", "status": "4xx"}
    before_missing = sample("rummy_http_request_duration_seconds_count", **missing)
    Client().get("/no/such/page/12345/")
    assert sample("rummy_http_request_duration_seconds_count", **missing) == before_missing + 1
    assert not any(
        "12345" in str(s.labels) for f in REGISTRY.collect() for s in f.samples
    )  # no raw path in a label


@pytest.mark.django_db
def test_nothing_is_recorded_with_metrics_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(instruments, "ENABLED", False)
    before = sample("rummy_table_action_duration_seconds_count", action="draw", outcome="ok")
    instruments.table_action("draw", "ok", 0.01)
    assert sample("rummy_table_action_duration_seconds_count", action="draw", outcome="ok") == before
    with override_settings(METRICS=False):
        assert Client().get("/metrics").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_ledger_check_is_reported_by_age_and_verdict() -> None:
    found = scrape()
    assert found["rummy_ledger_check_age_seconds"][()] == float("inf")  # never run
    assert found["rummy_ledger_check_ok"][()] == 0
    assert found["rummy_integrity_scan_age_seconds"][()] == float("inf")
    run_check(via="command")
    found = scrape()
    assert 0 <= found["rummy_ledger_check_age_seconds"][()] < 60
    assert found["rummy_ledger_check_ok"][()] == 1


@pytest.mark.django_db(transaction=True)
def test_overdue_timers_and_stuck_games_follow_the_dashboards_rules() -> None:
    tables = [make_table(seats=2, seed=5 + i) for i in range(3)]
    games = []
    for i, table in enumerate(tables):
        a, b = make_player(f"m{i}a"), make_player(f"m{i}b")
        services.table_join(table_id=table.pk, user=a)
        services.table_join(table_id=table.pk, user=b)
        games.append(table.games.get())
    found = scrape()
    assert found["rummy_timers_overdue"][()] == 0
    assert found["rummy_games_stuck"][()] == 0
    now = timezone.now()
    # one game's deadline ten minutes past; another silent for an hour; the third has no deadline
    PoolGame.objects.filter(pk=games[0].pk).update(deadline_at=now - timedelta(minutes=10))
    GameEvent.objects.filter(game=games[1]).update(created_at=now - timedelta(hours=1))
    PoolGame.objects.filter(pk=games[1].pk).update(started_at=now - timedelta(hours=1))
    PoolGame.objects.filter(pk=games[2].pk).update(deadline_at=None)
    found = scrape()
    assert found["rummy_timers_overdue"][()] == 1
    assert 590 < found["rummy_timers_overdue_oldest_seconds"][()] < 700
    assert found["rummy_games_stuck"][()] == stuck_games(timezone.now())[0] == 2


@pytest.mark.django_db
def test_a_part_that_fails_is_left_out_and_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    from rummy_site import metrics

    def broken(now: float) -> Any:
        raise RuntimeError("the ledger is away")

    monkeypatch.setitem(metrics.PARTS, "ledger", broken)
    before = sample("rummy_metrics_collect_errors_total", part="ledger")
    found = scrape()
    assert "rummy_ledger_check_ok" not in found and "rummy_timers_overdue" in found
    assert sample("rummy_metrics_collect_errors_total", part="ledger") == before + 1


def test_a_tasks_delay_counts_from_its_eta_or_from_when_it_was_sent() -> None:
    task = SimpleNamespace(
        name="tables.tasks.enforce_deadline", request=SimpleNamespace(eta=None, sent_at=None)
    )
    name = "rummy_celery_task_delay_seconds_count"
    before = sample(name, task=task.name)
    before_sum = sample("rummy_celery_task_delay_seconds_sum", task=task.name)
    late = timezone.now() - timedelta(seconds=3)
    task.request.eta = late.isoformat()
    celerysignals.task_started(task_id="t1", task=task)
    celerysignals.task_finished(task_id="t1", task=task)
    assert sample(name, task=task.name) == before + 1
    assert 3 <= sample("rummy_celery_task_delay_seconds_sum", task=task.name) - before_sum < 10
    headers: dict[str, Any] = {}
    celerysignals.stamp_sent(sender="rummy_site.ping", headers=headers)
    assert isinstance(headers["sent_at"], float)  # every message carries when it was sent
    ran = sample("rummy_celery_task_duration_seconds_count", task="rummy_site.ping", outcome="failure")
    ping = SimpleNamespace(name="rummy_site.ping", request=SimpleNamespace(eta=None, **headers))
    celerysignals.task_started(task_id="t2", task=ping)
    celerysignals.task_failed(task_id="t2")
    celerysignals.task_finished(task_id="t2", task=ping)
    assert (
        sample("rummy_celery_task_duration_seconds_count", task="rummy_site.ping", outcome="failure")
        == ran + 1
    )


def test_in_multiprocess_mode_the_processes_values_add_up(tmp_path: Path) -> None:
    """Two processes (a worker's pool children) record into one directory; a third renders both."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    record = textwrap.dedent(
        """
        from sitemetrics import instruments
        instruments.task_ran("tables.tasks.bot_move", "success", 0.02)
        instruments.socket_opened("table")
        """
    )
    for _ in range(2):
        subprocess.run([sys.executable, "-c", record], env=env, check=True, timeout=60)
    render = "from sitemetrics import exposition; print(exposition.render().decode())"
    text = subprocess.run(
        [sys.executable, "-c", render], env=env, check=True, timeout=60, capture_output=True, text=True
    ).stdout
    values = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for f in text_string_to_metric_families(text)
        for s in f.samples
    }
    key = (
        "rummy_celery_task_duration_seconds_count",
        (("outcome", "success"), ("task", "tables.tasks.bot_move")),
    )
    assert values[key] == 2
