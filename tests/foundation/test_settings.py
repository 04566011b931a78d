from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

from tests.needs import IN_CI

ROOT = Path(__file__).resolve().parents[2]


def _run(*args: str, env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """This Python with ``args``, in a process of its own, in the checkout, with ``env``."""
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def _run_manage(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return _run("manage.py", *args, env=env, timeout=120)


def _python(code: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``code`` run by this Python in a process of its own, in the checkout, with ``env``."""
    return _run("-c", code, env=env)


def _prod_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DEBUG", "SECRET_KEY", "DJANGO_SETTINGS_MODULE")}
    env.update({"DJANGO_SETTINGS_MODULE": "rummy_site.settings", "ALLOWED_HOSTS": "rummy.example.com"})
    env.update(extra)
    return env


def test_check_deploy_is_clean_with_production_settings() -> None:
    env = _prod_env(SECRET_KEY="x" * 20 + "a-long-random-production-secret-key-0987654321")
    result = _run_manage("check", "--deploy", "--fail-level", "WARNING", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_refuses_to_start_without_a_secret_key() -> None:
    result = _run_manage("check", env=_prod_env())
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_production_cookies_are_secure() -> None:
    code = (
        "from django.conf import settings as s; print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.DEBUG)"
    )
    env = _prod_env(SECRET_KEY="y" * 60)
    result = _python(f"import django; django.setup(); {code}", env)
    assert result.stdout.split() == ["True", "True", "False"], result.stderr


@pytest.mark.django_db
def test_ci_runs_on_postgresql() -> None:
    """CI must exercise the production database, not the SQLite fallback."""
    if not IN_CI:
        pytest.skip("only CI is required to run on PostgreSQL")
    assert connection.vendor == "postgresql"


@pytest.mark.parametrize(
    ("trust", "expected"), [(None, "None"), ("1", "('HTTP_X_FORWARDED_PROTO', 'https')")]
)
def test_x_forwarded_proto_is_trusted_only_when_told(trust: str | None, expected: str) -> None:
    """Anyone who reached Daphne directly could claim HTTPS with the header: off unless the proxy is the only way in."""
    env = _prod_env(SECRET_KEY="z" * 60)
    env.pop("TRUST_X_FORWARDED_PROTO", None)
    if trust is not None:
        env["TRUST_X_FORWARDED_PROTO"] = trust
    result = _python(
        "import django; django.setup(); from django.conf import settings as s; print(s.SECURE_PROXY_SSL_HEADER)",
        env,
    )
    assert result.stdout.strip() == expected, result.stderr


def test_two_writers_on_the_embedded_sqlite_database_wait_for_each_other(tmp_path: Path) -> None:
    """``scripts/run``'s SQLite: a bot's move (the in-process worker) and its player's (the server)
    each read the game, then write it, at the same moment; both must go through, one after the
    other. With deferred transactions one of them failed at once with "database is locked" (the
    bot's turn was then played by the timer, 30 s later)."""
    code = """
import threading, time
import django
django.setup()
from django.db import connection, transaction
with connection.cursor() as c:
    c.execute("CREATE TABLE game (version integer)")
    c.execute("INSERT INTO game VALUES (0)")
connection.close()
errors = []
def move():
    try:
        with transaction.atomic():
            with connection.cursor() as c:
                c.execute("SELECT version FROM game")
                version = c.fetchone()[0]
                time.sleep(0.3)  # time passes on purpose: the other mover comes while this one holds the game
                c.execute("UPDATE game SET version = %s", [version + 1])
    except Exception as exc:
        errors.append(repr(exc))
    finally:
        connection.close()
movers = [threading.Thread(target=move) for _ in range(2)]
for t in movers: t.start()
for t in movers: t.join()
with connection.cursor() as c:
    c.execute("SELECT version FROM game")
    print(c.fetchone()[0], errors)
"""
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_SETTINGS_MODULE", "DATABASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="rummy_site.settings",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        DEBUG="1",
    )
    result = _python(code, env)
    assert result.returncode == 0, result.stderr
    # both moves counted, neither refused: the second read the first's write
    assert result.stdout.strip() == "2 []", result.stdout


@pytest.mark.parametrize(
    ("setting", "expected"),
    [(None, "(50000, 20, 100)"), ("1000,5,7", "(1000, 5, 7)"), ("", "(700, 10, 10)")],
)
def test_the_asgi_server_collects_garbage_as_gc_thresholds_says(setting: str | None, expected: str) -> None:
    """A server process sets its collector's thresholds from ``GC_THRESHOLDS`` (bench/load/README.md:
    with Python's, full collections every few seconds stopped the event loop 240-360 ms each)."""
    env = _prod_env(SECRET_KEY="z" * 60, RUMMY_EMBEDDED_WORKER="0")
    env.pop("GC_THRESHOLDS", None)
    if setting is not None:
        env["GC_THRESHOLDS"] = setting
    result = _python("import gc, rummy_site.asgi; print(gc.get_threshold())", env)
    assert result.stdout.strip() == expected, result.stderr
