"""Each pytest-xdist worker has a Redis database of its own, which ``private_redis`` never claims."""

from __future__ import annotations

import pytest

from tests import workers
from tests.tables import procs


def test_each_worker_has_its_own_redis_database_counted_from_test_redis_url(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TEST_REDIS_URL", "redis://127.0.0.1:6379/8")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    urls = []
    for name in ("gw0", "gw1", "gw2"):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", name)
        urls.append(workers.worker_redis_url())
    assert urls == ["redis://127.0.0.1:6379/8", "redis://127.0.0.1:6379/9", "redis://127.0.0.1:6379/10"]
    assert workers.worker_redis_dbs() == {8, 9, 10}
    assert not {8, 9, 10} & set(procs._claimable())
    assert set(procs._claimable()) == set(procs.CLAIMABLE_REDIS_DBS) - {8, 9, 10}


def test_without_xdist_there_is_one_worker_on_test_redis_urls_database(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    monkeypatch.delenv("TEST_REDIS_URL", raising=False)
    assert workers.worker_redis_url() == "redis://127.0.0.1:6379/0"
    assert workers.worker_redis_dbs() == {0}
