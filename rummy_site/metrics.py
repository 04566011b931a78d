"""``/metrics``: the process's metrics and the site's gauges read at scrape time, for Prometheus.

The gauges read from the database, the cache and the broker (``SiteCollector``) are computed
when Prometheus scrapes, never on a request's or an action's path, each by a query an index
answers: the timers overdue and the games stuck among the open games (the partial index
``tables_game_open``; a game's last event by its ``(game, seq)`` index), the newest ledger check
and integrity scan, the heartbeats ``/healthz`` reads, the broker's queue lengths, this process's
connection pool and the database's connections. A part that fails is left out and counted in
``rummy_metrics_collect_errors_total``; the others are still served.

Not public: allowed from ``METRICS_ALLOWED_ADDRESSES`` (loopback by default; the client address
as Daphne sees it) or with ``Authorization: Bearer <METRICS_TOKEN>``; anyone else gets a 404.
It is answered by a middleware (``MetricsEndpointMiddleware``) ahead of Django's host and HTTPS
checks: Prometheus scrapes each Daphne by its own address over plain HTTP (``127.0.0.1:8001``),
which ``ALLOWED_HOSTS`` and ``SECURE_SSL_REDIRECT`` would refuse; the address or token is its guard.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from functools import lru_cache
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count, Min, OuterRef, Q, Subquery
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.utils import timezone
from prometheus_client import Counter
from prometheus_client.core import GaugeMetricFamily, Metric

from integrity.selectors import last_scan
from rummy_site.health import _heartbeats
from sitemetrics import exposition
from staff.dashboard import OVERDUE_AFTER
from tables.heartbeat import SWEEP_KEY, WORKER_KEY
from tables.models import GameEvent, PoolGame
from wallet.audit import last_check

logger = logging.getLogger(__name__)

COLLECT_ERRORS = Counter(
    "rummy_metrics_collect_errors",
    "Parts of the scrape-time gauges that failed (left out of that scrape), by part.",
    ["part"],
)

_OPEN = [PoolGame.Status.WAITING, PoolGame.Status.RUNNING]


def _gauge(name: str, doc: str, value: float, labels: dict[str, str] | None = None) -> GaugeMetricFamily:
    family = GaugeMetricFamily(name, doc, labels=list(labels or {}))
    family.add_metric(list((labels or {}).values()), value)
    return family


def timers(now: float) -> Iterator[Metric]:
    """Open games whose deadline passed more than the dashboard's ``OVERDUE_AFTER`` ago."""
    at = timezone.now()
    late = PoolGame.objects.filter(status__in=_OPEN, deadline_at__lt=at - OVERDUE_AFTER).aggregate(
        count=Count("id"), oldest=Min("deadline_at")
    )
    yield _gauge(
        "rummy_timers_overdue", "Open games whose deadline passed (dashboard's rule).", late["count"]
    )
    oldest = (at - late["oldest"]).total_seconds() if late["oldest"] else 0.0
    yield _gauge(
        "rummy_timers_overdue_oldest_seconds",
        "How long past its deadline the most overdue open game is (0 when none is).",
        oldest,
    )


def stuck(now: float) -> Iterator[Metric]:
    """Running games with no deadline, or no event for ``STUCK_GAME_MINUTES`` (the dashboard's rule)."""
    quiet_since = timezone.now() - timedelta(minutes=int(settings.STUCK_GAME_MINUTES))
    newest_event = GameEvent.objects.filter(game=OuterRef("pk")).order_by("-seq").values("created_at")[:1]
    count = (
        PoolGame.objects.filter(status=PoolGame.Status.RUNNING)
        .annotate(last_event=Subquery(newest_event))
        .filter(
            Q(deadline_at__isnull=True)
            | Q(last_event__lt=quiet_since)
            | Q(last_event__isnull=True, started_at__lt=quiet_since)
        )
        .count()
    )
    yield _gauge("rummy_games_stuck", "Running games nothing will move on (the dashboard's rule).", count)


def ledger(now: float) -> Iterator[Metric]:
    check = last_check()
    age = now - check.started_at.timestamp() if check is not None else float("inf")
    yield _gauge(
        "rummy_ledger_check_age_seconds",
        "Seconds since the newest check_ledger started (+Inf: never run).",
        age,
    )
    yield _gauge(
        "rummy_ledger_check_ok",
        "1 when the newest check_ledger found the ledger sound, 0 when it found problems or never ran.",
        1.0 if check is not None and check.ok else 0.0,
    )


def integrity(now: float) -> Iterator[Metric]:
    scan = last_scan()
    finished = scan.finished_at if scan is not None else None
    yield _gauge(
        "rummy_integrity_scan_age_seconds",
        "Seconds since the newest finished integrity scan (+Inf: never run).",
        now - finished.timestamp() if finished is not None else float("inf"),
    )


def heartbeats(now: float) -> Iterator[Metric]:
    """The worker's heartbeat and beat's last sweep, as ``/healthz`` reads them."""
    cache = _heartbeats()
    for key, name, doc in (
        (WORKER_KEY, "rummy_worker_heartbeat_age_seconds", "Seconds since the Celery worker's heartbeat."),
        (SWEEP_KEY, "rummy_beat_sweep_age_seconds", "Seconds since beat's deadline sweep last ran."),
    ):
        at = cache.get(key)
        yield _gauge(name, doc + " (+Inf: never seen)", max(0.0, now - float(at)) if at else float("inf"))


@lru_cache(maxsize=1)
def _broker(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=0.5)


def queues(now: float) -> Iterator[Metric]:
    """The broker's queue lengths (tasks waiting for a worker) and the messages workers hold
    unacknowledged (timers waiting for their eta among them). Only with ``REDIS_URL``."""
    if not settings.REDIS_URL:
        return
    client = _broker(settings.REDIS_URL)
    names = sorted({"celery", settings.EXPORT_QUEUE})
    with client.pipeline(transaction=False) as pipe:
        for name in names:
            pipe.llen(name)
        pipe.hlen("unacked")
        *lengths, unacked = pipe.execute()
    family = GaugeMetricFamily(
        "rummy_celery_queue_length", "Tasks waiting in a broker queue.", labels=["queue"]
    )
    for name, length in zip(names, lengths, strict=True):
        family.add_metric([name], length)
    yield family
    yield _gauge(
        "rummy_celery_unacked", "Messages workers hold unacknowledged (timers before their eta).", unacked
    )


def database(now: float) -> Iterator[Metric]:
    """This process's connection pool (``DB_POOL_SIZE``) and the database's connections by state."""
    if connection.vendor != "postgresql":
        return
    pool = getattr(connection, "pool", None)
    if pool is not None:
        stats = pool.get_stats()
        for key, doc in (
            ("pool_max", "The pool's most connections."),
            ("pool_size", "Connections the pool holds, in use or not."),
            ("pool_available", "Connections idle in the pool."),
            ("requests_waiting", "Threads waiting for a connection from the pool."),
        ):
            yield _gauge(f"rummy_db_{key}", doc + " (this process)", float(stats.get(key, 0)))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT coalesce(state, 'unknown'), count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() GROUP BY 1"
        )
        rows = cursor.fetchall()
    family = GaugeMetricFamily(
        "rummy_db_connections",
        "Connections to the site's database, every process's, by state.",
        labels=["state"],
    )
    for state, count in rows:
        family.add_metric([state], count)
    yield family


PARTS: dict[str, Callable[[float], Iterator[Metric]]] = {
    "timers": timers,
    "stuck": stuck,
    "ledger": ledger,
    "integrity": integrity,
    "heartbeats": heartbeats,
    "queues": queues,
    "database": database,
}


class SiteCollector:
    """The gauges above, read at each scrape."""

    def collect(self) -> Iterator[Metric]:
        now = time.time()
        for part, read in PARTS.items():
            try:
                found = list(read(now))
            except Exception:
                logger.warning("metrics: could not read %s", part, exc_info=True)
                COLLECT_ERRORS.labels(part).inc()
                continue
            yield from found


@lru_cache(maxsize=8)
def _networks(allowed: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(a, strict=False) for a in allowed if a)


def allowed(request: HttpRequest) -> bool:
    """From an allowed address (``METRICS_ALLOWED_ADDRESSES``), or with the bearer token."""
    token = settings.METRICS_TOKEN
    if token:
        given = request.headers.get("Authorization", "")
        if hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
            return True
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in _networks(tuple(settings.METRICS_ALLOWED_ADDRESSES)))


PATH = "/metrics"


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not settings.METRICS or not allowed(request):
        return HttpResponseNotFound(b"Not Found", content_type="text/plain")
    return HttpResponse(exposition.render([SiteCollector()]), content_type=exposition.CONTENT_TYPE)


class MetricsEndpointMiddleware:
    """``/metrics``, answered before the host and HTTPS checks (see above); the rest passes on."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path_info != PATH:
            return self.get_response(request)
        request.view_label = "metrics"  # type: ignore[attr-defined]  # rummy_site.httpmetrics
        return metrics_view(request)
