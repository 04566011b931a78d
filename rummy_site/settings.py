"""Settings for the Pool Rummy site.

Every environment variable the settings use is read in the ENVIRONMENT section
below; a process's own switches are read where it starts (the metrics' port and
directory in ``sitemetrics``, ``RUMMY_EMBEDDED_WORKER`` in ``rummy_site.asgi``). With nothing set the site runs on embedded defaults: SQLite,
the in-memory channel layer and a Celery worker thread on Celery's in-memory
transport. ``REDIS_URL`` switches to channels-redis and a Redis broker (the
worker then runs as its own process); ``DATABASE_URL`` picks the database.
"""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import dj_database_url
import dj_email_url
from csp.constants import NONCE
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent


def _bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    return raw.strip().lower() in ("1", "true", "yes", "on")


def redis_db_number(url: str) -> int:
    """The database a ``redis://host:port/N`` URL selects (0 when it names none)."""
    path = urlparse(url).path.strip("/")
    return int(path) if path.isdigit() else 0


def _int(name: str, default: int) -> int:
    raw = os.environ.get(name)
    return default if raw is None or raw == "" else int(raw)


def _list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


# ---------------------------------------------------------------------------
# ENVIRONMENT
# ---------------------------------------------------------------------------
DEBUG = _bool("DEBUG", False)
_DEV_SECRET = "dev-only-insecure-key-do-not-use-in-production-0123456789abcdef"
SECRET_KEY = os.environ.get("SECRET_KEY") or (_DEV_SECRET if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
ALLOWED_HOSTS = _list("ALLOWED_HOSTS", ["127.0.0.1", "localhost"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = _list("CSRF_TRUSTED_ORIGINS", [])
DATABASE_URL = os.environ.get("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}"
REDIS_URL = os.environ.get("REDIS_URL", "")
SECURE_SSL_REDIRECT = _bool("SECURE_SSL_REDIRECT", not DEBUG)
#: Failed log-ins (per user name and address) before log-in is refused for LOGIN_LOCKOUT_MINUTES.
LOGIN_FAILURE_LIMIT = _int("LOGIN_FAILURE_LIMIT", 5)
LOGIN_LOCKOUT_MINUTES = _int("LOGIN_LOCKOUT_MINUTES", 15)
#: Sign-ups one address may make in a minute: a flood guard at a bot's rate, never a limit on people
#: behind one address (accounts.throttle; README, settings table).
SIGNUPS_PER_ADDRESS_PER_MINUTE = _int("SIGNUPS_PER_ADDRESS_PER_MINUTE", 20)
#: Only behind a proxy that sets X-Forwarded-Proto itself (and Daphne reachable from nothing else).
TRUST_X_FORWARDED_PROTO = _bool("TRUST_X_FORWARDED_PROTO", False)
SECURE_HSTS_SECONDS = _int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000)
CELERY_SWEEP_SECONDS = _int("CELERY_SWEEP_SECONDS", 5)
#: The operator's time zone: "today" on the staff dashboard, the days of its rake chart and the times
#: on the player page. India by default, where the site's players and staff are (₹, Indian rummy):
#: a UTC day would end at 05:30 in the morning there, splitting the late-night play of one evening
#: over two days. Players' daily limits keep UTC days (accounts.play) whatever this says.
OPERATOR_TIME_ZONE = os.environ.get("OPERATOR_TIME_ZONE", "Asia/Kolkata")
try:
    ZoneInfo(OPERATOR_TIME_ZONE)
except (ZoneInfoNotFoundError, ValueError) as _exc:
    raise ImproperlyConfigured(f"OPERATOR_TIME_ZONE: no time zone called {OPERATOR_TIME_ZONE!r}") from _exc
#: Admin exports (docs/staff.md, "Exports"): a list of more rows than this is refused (narrow it
#: with its filters first); the file is written this many rows at a time (its memory does not grow
#: with the list), kept in EXPORTS_DIR (outside the static and media files: served only through the
#: admin, to whoever asked for it) and deleted EXPORT_KEEP_HOURS after it was written.
EXPORT_MAX_ROWS = _int("EXPORT_MAX_ROWS", 1_000_000)
EXPORT_CHUNK_ROWS = _int("EXPORT_CHUNK_ROWS", 2000)
EXPORTS_DIR = os.environ.get("EXPORTS_DIR") or str(BASE_DIR / "private" / "exports")
EXPORT_KEEP_HOURS = _int("EXPORT_KEEP_HOURS", 72)
#: /healthz: the worker writes a heartbeat this often; it is away after HEALTH_WORKER_STALE_SECONDS
#: without one, and beat is away when its deadline sweep last ran more than HEALTH_BEAT_STALE_SECONDS ago.
HEALTH_HEARTBEAT_SECONDS = _int("HEALTH_HEARTBEAT_SECONDS", 10)
HEALTH_WORKER_STALE_SECONDS = _int("HEALTH_WORKER_STALE_SECONDS", 30)
HEALTH_BEAT_STALE_SECONDS = _int("HEALTH_BEAT_STALE_SECONDS", max(30, 6 * CELERY_SWEEP_SECONDS))
#: /healthz answers within this many seconds whatever is down or hung (rummy_site/health.py).
HEALTH_DEADLINE_SECONDS = float(os.environ.get("HEALTH_DEADLINE_SECONDS") or 0.8)
#: Every query of an admin page is stopped after this many milliseconds (PostgreSQL), and the page
#: says so (HTTP 503): a click that would read too much never hangs or slows the tables (staff/query_deadline.py).
ADMIN_STATEMENT_TIMEOUT_MS = _int("ADMIN_STATEMENT_TIMEOUT_MS", 3000)
#: A running game whose last event is older than this many minutes is listed as stuck on the dashboard.
STUCK_GAME_MINUTES = _int("STUCK_GAME_MINUTES", 15)
#: When the nightly full ledger check runs, in the operator's time zone ("HH:MM").
LEDGER_CHECK_AT = os.environ.get("LEDGER_CHECK_AT", "03:30")
CURRENCY_SYMBOL = os.environ.get("CURRENCY_SYMBOL", "₹")
SIGNUP_BONUS_CHIPS = _int("SIGNUP_BONUS_CHIPS", 1000)
#: Days a mailed confirmation link works; confirming the address earns SIGNUP_BONUS_CHIPS.
EMAIL_CONFIRM_DAYS = _int("EMAIL_CONFIRM_DAYS", 7)
DAILY_TOPUP_CHIPS = _int("DAILY_TOPUP_CHIPS", 500)
LOG_LEVEL = os.environ.get("LOG_LEVEL", "INFO")
#: ``json`` (one object a line, the default without DEBUG) or ``text`` (readable, the default with it).
LOG_FORMAT = os.environ.get("LOG_FORMAT", "text" if DEBUG else "json").strip().lower()
if LOG_FORMAT not in ("json", "text"):
    raise ImproperlyConfigured("LOG_FORMAT must be json or text")
#: One log line for each table action (its kind, outcome and latency); what it costs a Daphne:
#: bench/log_line_bench.py.
LOG_TABLE_ACTIONS = _bool("LOG_TABLE_ACTIONS", True)
# Metrics in Prometheus' format (sitemetrics/, rummy_site/metrics.py; docs/operations.md, "Metrics"):
# recorded by every process, served at /metrics to METRICS_ALLOWED_ADDRESSES (the client's address
# as Daphne sees it: loopback by default) or to a bearer of METRICS_TOKEN; METRICS=0 records nothing.
METRICS = _bool("METRICS", True)
METRICS_TOKEN = os.environ.get("METRICS_TOKEN", "").strip()
METRICS_ALLOWED_ADDRESSES = _list("METRICS_ALLOWED_ADDRESSES", ["127.0.0.1", "::1"])
#: Money controls on staff wallet adjustments (docs/staff.md). An adjustment waits for a second
#: administrator when it, together with what the same staff member adjusted in the last
#: ADJUSTMENT_APPROVAL_WINDOW_HOURS, comes to more than ADJUSTMENT_APPROVAL_ABOVE_RUPEES (so splitting
#: one credit into small ones does not avoid it; 0: every adjustment waits); no single adjustment may
#: exceed ADJUSTMENT_MAX_RUPEES, nor one staff member's adjustments in 24 hours ADJUSTMENT_DAILY_LIMIT_RUPEES.
ADJUSTMENT_APPROVAL_ABOVE_RUPEES = _int("ADJUSTMENT_APPROVAL_ABOVE_RUPEES", 1_000)
ADJUSTMENT_APPROVAL_WINDOW_HOURS = _int("ADJUSTMENT_APPROVAL_WINDOW_HOURS", 24)
ADJUSTMENT_MAX_RUPEES = _int("ADJUSTMENT_MAX_RUPEES", 50_000)
ADJUSTMENT_DAILY_LIMIT_RUPEES = _int("ADJUSTMENT_DAILY_LIMIT_RUPEES", 100_000)
#: Seconds of play between the reminders sent at the table (responsible play: one an hour).
PLAY_REMINDER_SECONDS = _int("PLAY_REMINDER_SECONDS", 3600)
#: A player sends at most one quick message ("Good game", ...) a table this often (tables/realtime/quick.py).
QUICK_MESSAGE_SECONDS = _int("QUICK_MESSAGE_SECONDS", 5)
#: Fair play (docs/integrity.md): how often the signals run, the window of games they read, and how
#: long sign-up and log-in addresses and devices are kept; an undecided flag the signals no longer
#: find lapses after INTEGRITY_LAPSE_HOURS.
INTEGRITY_SCAN_MINUTES = _int("INTEGRITY_SCAN_MINUTES", 60)
INTEGRITY_WINDOW_DAYS = _int("INTEGRITY_WINDOW_DAYS", 90)
INTEGRITY_RETENTION_DAYS = _int("INTEGRITY_RETENTION_DAYS", 180)
INTEGRITY_LAPSE_HOURS = _int("INTEGRITY_LAPSE_HOURS", 24)
#: E-mail (password resets): the console by default; EMAIL_URL (smtp://user:pass@host:587/?tls=True) for SMTP.
EMAIL_URL = os.environ.get("EMAIL_URL", "")
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "Pool Rummy <no-reply@rummy.local>")
#: Hours a password reset is held back after a staff member changed an account's e-mail address,
#: so that the owner, told at the old address, can object first (accounts/emailchange.py).
EMAIL_CHANGE_RESET_HOLD_HOURS = _int("EMAIL_CHANGE_RESET_HOLD_HOURS", 72)
#: Practice bots think between these many milliseconds before each move.
BOT_THINK_MS = (_int("BOT_THINK_MIN_MS", 700), _int("BOT_THINK_MAX_MS", 1800))
CELERY_RESULT_BACKEND = os.environ.get("CELERY_RESULT_BACKEND") or None
#: Seconds a database connection is kept for reuse (0: a new connection per request / socket call).
#: Not for PostgreSQL under Daphne: see DB_POOL_SIZE.
DB_CONN_MAX_AGE = _int("DB_CONN_MAX_AGE", 0)
#: PostgreSQL: a pool of at most this many connections per process, shared by all its threads
#: (Django's "pool" option, psycopg_pool); 0: no pool. Under ASGI every HTTP request runs in a
#: thread of its own, so kept connections (DB_CONN_MAX_AGE) pile up one per request in flight until
#: the server's max_connections is used up, for every process (Django ticket #33497; many open
#: lobbies do it). A pool bounds them and still saves a connection's setup
#: per call; a thread waits up to DB_POOL_TIMEOUT seconds for a free connection.
DB_POOL_SIZE = _int("DB_POOL_SIZE", 0)
#: PostgreSQL: psycopg prepares a server-bound statement the Nth time a connection runs it (5);
#: empty turns it off, for a pooler in transaction mode that cannot carry prepared statements.
_PREPARE = os.environ.get("DB_PREPARE_THRESHOLD", "5").strip()
DB_PREPARE_THRESHOLD: int | None = int(_PREPARE) if _PREPARE else None
DB_POOL_TIMEOUT = float(os.environ.get("DB_POOL_TIMEOUT", "10"))
#: PostgreSQL: the role the site's processes connect as, granted after every migrate by the schema's
#: owner (rummy_site/db_roles.py): it cannot disable a trigger, truncate, or change the append-only tables.
DB_APP_ROLE = os.environ.get("DB_APP_ROLE", "").strip()
#: PostgreSQL: how long ``migrate`` waits for a table's lock before it gives up (``lock_timeout``,
#: rummy_site/migration_locks.py; 0: for ever). A statement waiting for its lock makes every query
#: on the table queue behind it, so a migration meeting a long transaction fails soon and is run
#: again, rather than stopping the tables' games while it waits (docs/operations.md, "Upgrades").
MIGRATION_LOCK_TIMEOUT_MS = _int("MIGRATION_LOCK_TIMEOUT_MS", 5000)
#: Threads a Daphne process runs the table sockets' database work on (0: Channels' one shared thread).
WS_DB_THREADS = _int("WS_DB_THREADS", 0)
#: The ASGI server's collector thresholds (``gc.set_threshold``: new objects before a young
#: collection, young collections before a middle one, middle before a full one). Python's
#: (700, 10, 10) run a full collection every few seconds under load, each walking every live
#: socket's objects with the event loop stopped: the load benchmark's p95 and p99 are those pauses
#: (bench/load/README.md). Empty keeps Python's.
_GC = os.environ.get("GC_THRESHOLDS", "50000,20,100").strip()
GC_THRESHOLDS: tuple[int, ...] | None = tuple(int(x) for x in _GC.split(",")) if _GC else None
#: Messages a second one socket may send (bursts of WS_MESSAGE_BURST); past that, errors, then a close (4429).
WS_MESSAGES_PER_SECOND = _int("WS_MESSAGES_PER_SECOND", 10)
WS_MESSAGE_BURST = _int("WS_MESSAGE_BURST", 30)
#: Bytes Daphne may hold for one socket whose client does not read; past that it is closed.
WS_MAX_SEND_BUFFER = _int("WS_MAX_SEND_BUFFER", 1024 * 1024)
#: Daphne writes a frame to its socket at once when nothing waits before it (rummy_site/twisted_writes.py).
WS_WRITE_AT_ONCE = _bool("WS_WRITE_AT_ONCE", True)
#: Daphne agrees permessage-deflate with the browsers that offer it (rummy_site/ws_deflate.py): the
#: compressor's window (2**bits bytes, 9-15) and zlib memory level (1-9) bound what a socket holds.
WS_DEFLATE = _bool("WS_DEFLATE", True)
WS_DEFLATE_WINDOW_BITS = _int("WS_DEFLATE_WINDOW_BITS", 13)
WS_DEFLATE_MEM_LEVEL = _int("WS_DEFLATE_MEM_LEVEL", 4)
#: Sockets one user may hold open: across every process with REDIS_URL (tables/realtime/socket_registry.py), else on this one.
WS_MAX_SOCKETS_PER_USER = _int("WS_MAX_SOCKETS_PER_USER", 16)
#: Seconds a socket stays counted in Redis (tables.realtime.socket_registry) unless its process renews it.
WS_REGISTRY_TTL_SECONDS = _int("WS_REGISTRY_TTL_SECONDS", 90)
#: A socket that has sent nothing, not even a ping, for this many seconds is closed (4408): its page
#: pings every few seconds (static/js/socket.js), so this one lost its link (tables/realtime/idle.py). 0: never.
WS_IDLE_SECONDS = float(os.environ.get("WS_IDLE_SECONDS", "20"))
#: Seconds between the checks that catch up table sockets a lost notice left behind (tables/realtime/resync.py).
RESYNC_SECONDS = float(os.environ.get("RESYNC_SECONDS", "1.5"))
#: A process whose resync check wakes this many seconds late is busy: its notices are late, not lost,
#: so a socket is rebuilt only after RESYNC_BUSY_CHECKS checks behind (not two), lest rebuilds sink it.
RESYNC_BUSY_LAG = float(os.environ.get("RESYNC_BUSY_LAG", "0.25"))
RESYNC_BUSY_CHECKS = _int("RESYNC_BUSY_CHECKS", 8)
#: At most one lobby_update this often to each lobby socket, listing every table changed meanwhile
#: (tables/realtime/lobbyfeed.py): the lobby's traffic does not grow with the number of games ending.
LOBBY_PUSH_SECONDS = float(os.environ.get("LOBBY_PUSH_SECONDS", "1.0"))
#: How often each process joins the lobby group again (tables.realtime.lobbyfeed): memberships expire.
LOBBY_RENEW_SECONDS = float(os.environ.get("LOBBY_RENEW_SECONDS", "30"))
#: With REDIS_URL, the channel layer: "pubsub" (Redis pub/sub) or "lists" (channels-redis' core layer).
CHANNEL_LAYER = os.environ.get("CHANNEL_LAYER", "pubsub")
if CHANNEL_LAYER not in ("pubsub", "lists"):
    raise ImproperlyConfigured(f"CHANNEL_LAYER must be pubsub or lists, not {CHANNEL_LAYER!r}")
#: Send a change's channel-layer notices from the event loop, in order, without holding the database thread.
NOTIFY_IN_BACKGROUND = _bool("NOTIFY_IN_BACKGROUND", True)

# ---------------------------------------------------------------------------
# APPLICATIONS
# ---------------------------------------------------------------------------
INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "channels",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "axes",
    # before auditlog: its auditlogflush command refuses in place of auditlog's (docs/staff.md)
    "rummy_site",
    "auditlog",
    "accounts",
    "wallet",
    "tables",
    "integrity",
    "staff",
]

MIDDLEWARE = [
    # first: the request id and the one log line of every request, refused ones included (rummy_site/requestlog.py)
    "rummy_site.requestlog.RequestLogMiddleware",
    # each request's latency by view name, for Prometheus (rummy_site/httpmetrics.py; METRICS=0: left out)
    *(["rummy_site.httpmetrics.HttpMetricsMiddleware"] if METRICS else []),
    # /metrics, answered before the host and HTTPS checks to METRICS_ALLOWED_ADDRESSES or METRICS_TOKEN
    # alone: Prometheus scrapes each Daphne by its address over plain HTTP (rummy_site/metrics.py)
    "rummy_site.metrics.MetricsEndpointMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "rummy_site.csp.SiteCSPMiddleware",
    "rummy_site.nul_bytes.RefuseNulBytesMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # the site's device cookie, kept with each sign-up and log-in (integrity/capture.py)
    "integrity.capture.DeviceCookieMiddleware",
    # admin requests: each query held to ADMIN_STATEMENT_TIMEOUT_MS (staff/query_deadline.py)
    "staff.query_deadline.AdminQueryDeadlineMiddleware",
    # the staff member behind every change made through the admin (staff/audit.py)
    "staff.audit.StaffAuditMiddleware",
    # admin pages show times in OPERATOR_TIME_ZONE, named (staff/timezones.py)
    "staff.timezones.OperatorTimeZoneMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # pages: "private, no-cache" unless a view said otherwise (rummy_site/pagecache.py)
    "rummy_site.pagecache.PageCacheControlMiddleware",
    # last: answers a locked-out log-in (django-axes)
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "rummy_site.urls"
ASGI_APPLICATION = "rummy_site.asgi.application"
WSGI_APPLICATION = None

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "staff.timezones.time_zone_label",
            ],
        },
    },
]

# ---------------------------------------------------------------------------
# DATABASE
# ---------------------------------------------------------------------------
DATABASES = {
    "default": dj_database_url.parse(
        # No per-call health check: it would cost a "SELECT 1" round trip on every socket call;
        # a connection broken by a database restart fails one call and is then replaced.
        DATABASE_URL,
        conn_max_age=DB_CONN_MAX_AGE,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers queue on SQLite's lock instead of failing at once. The wait (timeout) alone is not
    # enough: a deferred transaction reads under a shared lock and, when it then writes while
    # another connection writes, SQLite refuses the upgrade at once ("database is locked") rather
    # than wait. A bot's move (the in-process worker) and its player's (the server) do exactly
    # that, so every transaction takes the write lock at its start (IMMEDIATE) and waits its turn.
    DATABASES["default"].setdefault("OPTIONS", {}).update(timeout=20, transaction_mode="IMMEDIATE")
elif DB_POOL_SIZE > 0 and DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    if DB_CONN_MAX_AGE:
        raise ImproperlyConfigured("DB_POOL_SIZE replaces DB_CONN_MAX_AGE: set DB_CONN_MAX_AGE=0 with a pool")
    DATABASES["default"].setdefault("OPTIONS", {})["pool"] = {
        "min_size": min(2, DB_POOL_SIZE),
        "max_size": DB_POOL_SIZE,
        "timeout": DB_POOL_TIMEOUT,
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and DB_PREPARE_THRESHOLD is not None:
    # Django turns psycopg's prepared statements off (for transaction poolers such as PgBouncer's
    # before 1.21). Only the server-bound statements of every table action use them
    # (core.boundsql: the block check, the game row's lock, update and event insert); Django's
    # own cursors bind on the client and are never prepared.
    DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = DB_PREPARE_THRESHOLD
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# ---------------------------------------------------------------------------
# AUTHENTICATION
# ---------------------------------------------------------------------------
AUTH_USER_MODEL = "accounts.User"
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# django-axes counts failed log-ins (per user name and address) and refuses more for a while;
# its backend is Django's ModelBackend with that check in front.
AUTHENTICATION_BACKENDS = ["axes.backends.AxesBackend", "django.contrib.auth.backends.ModelBackend"]
AXES_FAILURE_LIMIT = LOGIN_FAILURE_LIMIT
AXES_COOLOFF_TIME = timedelta(minutes=LOGIN_LOCKOUT_MINUTES)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
if EMAIL_URL:
    globals().update(dj_email_url.parse(EMAIL_URL))
else:
    EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
PASSWORD_RESET_TIMEOUT = 3 * 3600
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "lobby"
LOGOUT_REDIRECT_URL = "login"

# ---------------------------------------------------------------------------
# THE STAFF AUDIT TRAIL (docs/staff.md)
# ---------------------------------------------------------------------------
# django-auditlog writes every change staff make through the admin to one append-only table,
# ``staff.StaffAction``, beside the entries the staff services write themselves. It hooks model
# signals, so no code path may bulk-update an audited model (staff/audit.py refuses it).
AUDITLOG_LOGENTRY_MODEL = "staff.StaffAction"
# auditlog's migrations would create its own log-entry table, unused once swapped for ours (and
# in the way of test flushes): without migrations, Django creates no table for a swapped model.
MIGRATION_MODULES = {"auditlog": None}
AUDITLOG_INCLUDE_TRACKING_MODELS = (
    {
        "model": "accounts.User",
        "exclude_fields": ["last_login"],
        "mask_fields": ["password"],
        "m2m_fields": ["groups", "user_permissions"],
    },
    {"model": "auth.Group", "m2m_fields": ["permissions"]},
    "tables.TableSettings",
    "tables.Table",
    "axes.AccessAttempt",
    "axes.AccessLog",
    "axes.AccessFailureLog",
)
AUDITLOG_USE_FK_STRING_REPRESENTATION = True
AUDITLOG_STORE_JSON_CHANGES = True

# ---------------------------------------------------------------------------
# INTERNATIONALISATION, STATIC FILES
# ---------------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT: Path | None = BASE_DIR / "staticfiles"  # None in the tests (test_settings.py)
#: collectstatic minifies the players' own modules (static/js) with esbuild from node_modules
#: (``npm ci``): fewer bytes before the table is playable on mobile data (rummy_site/static_storage.py).
STATIC_MINIFY_JS = _bool("STATIC_MINIFY_JS", True)
#: ... and bundles each page's entry module (the top of static/js) with what it imports: one file to
#: fetch and compress instead of the graph's dozens.
STATIC_BUNDLE_JS = _bool("STATIC_BUNDLE_JS", True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    # admin exports: never under a URL of their own (staff.export_views serves them)
    "exports": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": EXPORTS_DIR, "base_url": None},
    },
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG
        else "rummy_site.static_storage.SiteStaticStorage"
    },
}
WHITENOISE_USE_FINDERS = DEBUG

# ---------------------------------------------------------------------------
# SECURITY (safe by default when DEBUG is off)
# ---------------------------------------------------------------------------
SESSION_COOKIE_SECURE = not DEBUG
CSRF_COOKIE_SECURE = not DEBUG
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
# Trust X-Forwarded-Proto only when told: anyone who reaches Daphne directly could send it.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if TRUST_X_FORWARDED_PROTO else None
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
# Content-Security-Policy (django-csp; rummy_site.csp adds the page's own ws:// and wss://):
# no inline script but the one a page's nonce allows, no eval, no foreign origin. Inline styles stay allowed (the
# Swagger UI page has a <style> block; pages set element.style from scripts).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        # the nonce: the one script a page carries inline (the table's early socket, {% inline_script %})
        "script-src": ["'self'", NONCE],
        "style-src": ["'self'", "'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "media-src": ["'self'", "data:", "blob:"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}


# ---------------------------------------------------------------------------
# CHANNELS
# ---------------------------------------------------------------------------
def channel_layers(redis_url: str, kind: str, shards: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """The channel layer: in memory without Redis; with it, Redis pub/sub or channels-redis' lists.

    Pub/sub: one PUBLISH per notice, received once by each process that has a consumer
    in the group. At most once, like the list layer past its capacity: a consumer that
    misses a version rebuilds its view from the database (tables.realtime.consumers). Pub/sub
    channels belong to the whole Redis server, not to a database: the prefix names the
    database, so sites (or test runs) on other databases never hear these notices.

    ``shards``: Redis servers the layer spreads its channels and groups over (channels-redis
    hashes each name to one of its ``hosts``; every process must list them in one order),
    for a site whose notices outgrow one Redis (docs/scaling.md). Default: ``redis_url`` alone.
    """
    if not redis_url:
        return {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    hosts = shards or [redis_url]
    if kind == "pubsub":
        return {
            "default": {
                "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",
                "CONFIG": {"hosts": hosts, "prefix": f"asgi:db{redis_db_number(redis_url)}:"},
            }
        }
    return {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": hosts, "capacity": 1500, "expiry": 30},
        }
    }


#: The channel layer's Redis servers, comma-separated, when it is sharded over more than REDIS_URL's.
CHANNEL_REDIS_URLS = [u.strip() for u in os.environ.get("CHANNEL_REDIS_URLS", "").split(",") if u.strip()]
CHANNEL_LAYERS = channel_layers(REDIS_URL, CHANNEL_LAYER, CHANNEL_REDIS_URLS)

# The cache (sign-up counts per address): Redis when there is one, so every process counts together.
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL}
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    # the same store, read by /healthz with socket timeouts of its own (rummy_site/health.py)
    "health": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": REDIS_URL,
        "OPTIONS": {
            "socket_connect_timeout": HEALTH_DEADLINE_SECONDS,
            "socket_timeout": HEALTH_DEADLINE_SECONDS,
        },
    }
    if REDIS_URL
    else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
}

# ---------------------------------------------------------------------------
# CELERY
# ---------------------------------------------------------------------------
CELERY_BROKER_URL = REDIS_URL or "memory://"
#: kombu's Redis transport with a fix that keeps the worker alive across a Redis restart.
CELERY_BROKER_TRANSPORT = "rummy_site.broker:Transport" if REDIS_URL else None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
CELERY_TIMEZONE = "UTC"
# Countdowns longer than this would be redelivered by Redis' visibility timeout; ours are minutes.
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, float] = {"visibility_timeout": 3600}
#: No REDIS_URL: the ASGI process runs a worker thread on the in-memory transport.
CELERY_IN_PROCESS = not REDIS_URL
#: No REDIS_URL: how often that worker looks at its empty in-memory queue and at its countdowns (1 s
#: by default, kombu's and Celery's: a bot's move may wait up to that long after its thinking time).
#: The browser tests' servers look every 50 ms.
CELERY_MEMORY_POLL_MS = _int("CELERY_MEMORY_POLL_MS", 1000)
if CELERY_IN_PROCESS:
    CELERY_BROKER_TRANSPORT_OPTIONS["polling_interval"] = CELERY_MEMORY_POLL_MS / 1000
    CELERY_WORKER_TIMER_PRECISION = CELERY_MEMORY_POLL_MS / 1000
#: Admin exports (staff.export_job) run on a queue of their own with REDIS_URL, so that a long one
#: never holds the worker that runs the tables' timers: ``celery -A rummy_site worker -Q exports``
#: consumes it (README, "Running in production"). The worker inside the server takes both.
EXPORT_QUEUE = os.environ.get("EXPORT_QUEUE", "exports" if REDIS_URL else "celery")
CELERY_TASK_ROUTES = {"staff.tasks.run_export": {"queue": EXPORT_QUEUE}}


def utc_hour_minute(at: str, zone: str) -> tuple[int, int]:
    """``at`` ("HH:MM" in ``zone``) as UTC hour and minute, at the zone's offset today (beat
    counts in UTC; a zone with summer time is an hour off until the next restart after a change)."""
    from datetime import UTC, datetime

    hour, _, minute = at.partition(":")
    today = datetime.now(ZoneInfo(zone)).replace(hour=int(hour), minute=int(minute or 0))
    utc = today.astimezone(UTC)
    return utc.hour, utc.minute


def _beat_schedule() -> dict[str, Any]:
    from celery.schedules import crontab

    hour, minute = utc_hour_minute(LEDGER_CHECK_AT, OPERATOR_TIME_ZONE)
    return {
        "sweep-deadlines": {"task": "tables.tasks.sweep_deadlines", "schedule": float(CELERY_SWEEP_SECONDS)},
        # the whole ledger verified once a night; the dashboard shows its last verdict (wallet.tasks)
        "check-ledger": {
            "task": "wallet.tasks.check_ledger_nightly",
            "schedule": crontab(hour=hour, minute=minute),
        },
        # the integrity signals (docs/integrity.md): new games digested, pairs and players flagged
        "integrity-scan": {"task": "integrity.tasks.scan", "schedule": 60.0 * INTEGRITY_SCAN_MINUTES},
    }


CELERY_BEAT_SCHEDULE = _beat_schedule()

# ---------------------------------------------------------------------------
# REST FRAMEWORK
# ---------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 25,
    # `?format=` filters the lobby by game format; it is not a renderer switch here.
    "URL_FORMAT_OVERRIDE": None,
    # every API error is {code, rule, message}, its code from the one catalogue (docs/protocol.md)
    "EXCEPTION_HANDLER": "tables.errors.api_exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Pool Rummy API",
    "DESCRIPTION": "Lobby, tables, wallets and hand history of the Pool Rummy platform.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Swagger UI and Redoc from drf-spectacular-sidecar's files, served by the site itself.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # the one enum of a table's format, wherever a shape names it
    "ENUM_NAME_OVERRIDES": {"TableFormat": "tables.contract.TABLE_FORMATS"},
    # every error answer documented with the one Error shape (tables/wiredocs.py)
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "tables.wiredocs.document_api_errors",
    ],
}

# ---------------------------------------------------------------------------
# LOGGING
# ---------------------------------------------------------------------------
# One JSON object a line on standard error from every process (Daphne, the Celery worker and beat,
# management commands): time, level, logger, message, and the request, user, table and game ids
# where known (sitelog.context). LOG_FORMAT=text writes the same fields readably (the default with
# DEBUG). docs/operations.md, "Logs".
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "context": {"()": "sitelog.formatters.ContextFilter"},
        "refusals": {"()": "rummy_site.requestlog.RefusalFilter"},
    },
    "formatters": {
        "json": {"()": "sitelog.formatters.JsonFormatter"},
        "text": {"()": "sitelog.formatters.TextFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": LOG_FORMAT,
            "filters": ["refusals", "context"],
        }
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    # Django's own handlers for these (mail_admins, runserver's console) are replaced by the root's
    "loggers": {
        "django": {"handlers": [], "level": LOG_LEVEL, "propagate": True},
        "django.server": {"handlers": [], "propagate": True},
        # each table action's line (tables/realtime/consumers.py): LOG_TABLE_ACTIONS=0 drops them
        "tables.actions": {"level": LOG_LEVEL if LOG_TABLE_ACTIONS else "WARNING"},
    },
}

# Error tracking: sentry-sdk when SENTRY_DSN is set, nothing (and no network) otherwise.
SENTRY_DSN = os.environ.get("SENTRY_DSN", "").strip()
if SENTRY_DSN:
    from rummy_site.errortracking import init_sentry

    init_sentry(SENTRY_DSN, environment=os.environ.get("SENTRY_ENVIRONMENT", "production"))
