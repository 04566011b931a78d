"""Settings for the test suite: production settings with test-only relaxations.

The database and Redis still come from ``DATABASE_URL`` and ``REDIS_URL``, so the
same suite runs on SQLite locally and on PostgreSQL and Redis in CI.
"""

from __future__ import annotations

import os

os.environ.setdefault("RUMMY_EMBEDDED_WORKER", "0")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key-not-for-production-000000000000000000")

from rummy_site.settings import *  # noqa: E402,F403
from rummy_site.settings import STORAGES  # noqa: E402

ALLOWED_HOSTS = ["testserver", "localhost", "127.0.0.1"]
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
WHITENOISE_USE_FINDERS = True
# Served from the apps' static folders (the finders), never from the checkout's staticfiles/: the
# production test runs the README's collectstatic into it while other workers' WhiteNoise, scanning
# it at start, met a file that was there when listed and gone when read (FileNotFoundError)
STATIC_ROOT = None
# Tests sign up many accounts from 127.0.0.1 in a minute; tests/foundation/test_throttling.py sets
# the real limit (for a server it starts, through the environment).
SIGNUPS_PER_ADDRESS_PER_MINUTE = int(os.environ.get("SIGNUPS_PER_ADDRESS_PER_MINUTE") or 10_000)

# One test database per pytest run, so that runs side by side never share one. On
# SQLite it is a file, not memory, so that servers the tests start in subprocesses
# (Daphne, Celery) can open it; they are given its name in DATABASE_URL.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3")}  # noqa: F405
else:
    DATABASES["default"]["TEST"] = {"NAME": f"test_{DATABASES['default']['NAME']}_{os.getpid()}"}  # noqa: F405
