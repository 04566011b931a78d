"""/healthz reports the database, Redis, the Celery worker and beat, and answers 503 when any of
them is away (issue 27).

The first tests drive the heartbeats by hand in the process's own cache; the last ones run a real
Celery worker (with and without beat) on a private Redis database and stop it: the worker's
consumer step writes its heartbeat, beat's sweep its time, and /healthz follows.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client, override_settings

from rummy_site import health
from tests.tables.procs import private_redis, start_worker, wait_until

pytestmark = pytest.mark.django_db(transaction=True)

NO_REDIS = {
    "REDIS_URL": "",
    "CACHES": {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}},
}


def _health(client: Client) -> tuple[int, dict[str, Any]]:
    response = client.get("/healthz")
    return response.status_code, response.json()


@override_settings(**NO_REDIS)
def test_healthy_when_the_database_answers_and_the_worker_and_beat_were_seen_just_now(client: Client) -> None:
    cache.clear()
    health.worker_beat()
    health.sweep_ran()
    status, body = _health(client)
    assert status == 200 and body["ok"] is True
    assert body["database"]["state"] == "ok" and body["redis"]["state"] == "not used"
    assert body["worker"]["state"] == "ok" and body["beat"]["state"] == "ok"
    assert body["worker"]["age_seconds"] < 5


@override_settings(**NO_REDIS)
def test_503_when_the_worker_was_never_seen_or_fell_silent(client: Client, settings: Any) -> None:
    cache.clear()
    health.sweep_ran()
    status, body = _health(client)
    assert status == 503 and body["ok"] is False
    assert body["worker"] == {"state": "away", "detail": "never seen"} and body["beat"]["state"] == "ok"
    # seen, but longer ago than the stale limit
    health.worker_beat(now=time.time() - settings.HEALTH_WORKER_STALE_SECONDS - 5)
    status, body = _health(client)
    assert status == 503 and body["worker"]["state"] == "away"
    assert body["worker"]["age_seconds"] > settings.HEALTH_WORKER_STALE_SECONDS


@override_settings(**NO_REDIS)
def test_503_when_beats_sweep_has_not_run_lately(client: Client, settings: Any) -> None:
    cache.clear()
    health.worker_beat()
    health.sweep_ran(now=time.time() - settings.HEALTH_BEAT_STALE_SECONDS - 1)
    status, body = _health(client)
    assert status == 503 and body["beat"]["state"] == "away" and body["worker"]["state"] == "ok"


def test_503_when_redis_is_away(client: Client) -> None:
    """REDIS_URL names a server that does not answer: Redis is down, and the heartbeats kept in it
    cannot be read, so the worker and beat count as away too."""
    dead = "redis://127.0.0.1:1/0"  # nothing listens on port 1
    with override_settings(
        REDIS_URL=dead,
        CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": dead}},
    ):
        status, body = _health(client)
    assert status == 503 and body["redis"]["state"] == "down"
    assert body["worker"]["state"] == "away" and "cannot read" in body["worker"]["detail"]
    assert body["database"]["state"] == "ok"


def _redis_settings(url: str) -> Any:
    return override_settings(
        REDIS_URL=url,
        CACHES={"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": url}},
        HEALTH_WORKER_STALE_SECONDS=4,
        HEALTH_BEAT_STALE_SECONDS=4,
    )


@pytest.mark.postgres
@pytest.mark.redis
def test_a_real_worker_and_beat_keep_healthz_green_and_stopping_them_turns_it_red(
    require_postgres: None,
    require_redis: str,
    tmp_path: Path,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HEALTH_HEARTBEAT_SECONDS", "1")  # the worker's (child_env copies this process's)
    with private_redis(require_redis) as url, _redis_settings(url):
        worker = start_worker(url, tmp_path, name="healthy", sweep_seconds=1)
        try:
            assert wait_until(lambda: _health(client)[0] == 200, timeout=20), (_health(client), worker.tail())
            status, body = _health(client)
            assert body["redis"]["state"] == "ok" and body["worker"]["state"] == "ok"
            assert body["beat"]["state"] == "ok"
        finally:
            worker.stop()

        # the worker (and beat inside it, -B) gone: both fall silent, /healthz says so
        # each goes stale on its own clock: 503 comes with the first, so wait for both
        def both_away() -> bool:
            body = _health(client)[1]
            return body["worker"]["state"] == "away" and body["beat"]["state"] == "away"

        assert wait_until(both_away, timeout=15), _health(client)
        status, body = _health(client)
        assert status == 503
        assert body["redis"]["state"] == "ok"


@pytest.mark.postgres
@pytest.mark.redis
def test_a_worker_without_beat_is_healthy_itself_but_beat_is_reported_away(
    require_postgres: None,
    require_redis: str,
    tmp_path: Path,
    client: Client,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HEALTH_HEARTBEAT_SECONDS", "1")
    with private_redis(require_redis) as url, _redis_settings(url):
        worker = start_worker(url, tmp_path, name="beatless", beat=False)
        try:
            assert wait_until(lambda: _health(client)[1]["worker"]["state"] == "ok", timeout=20), (
                worker.tail()
            )
            status, body = _health(client)
            assert status == 503 and body["beat"] == {"state": "away", "detail": "never seen"}
            # the heartbeat goes on from the consumer's timer (every HEALTH_HEARTBEAT_SECONDS, 1 here)
            first = body["worker"]["last_seen"]
            assert wait_until(lambda: _health(client)[1]["worker"]["last_seen"] != first, timeout=10)
        finally:
            worker.stop()
