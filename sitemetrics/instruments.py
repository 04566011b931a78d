"""What the processes count as they work: requests, sockets, table actions, notices, tasks.

Every metric is made here, once, at import, so that a process's registry (or, with
``PROMETHEUS_MULTIPROC_DIR``, its files) holds each of them from the start. The helpers below
are what the hot paths call: each is a flag check and a cached child's ``observe`` or ``inc``
(a label lookup costs a lock and a tuple, so the children are kept in dicts). Labels are
bounded: a view's name (never a raw path), an action's kind from the engine's list, a task's
name, a status class. ``ENABLED`` (``METRICS``, set by ``rummy_site.apps``) turns them off.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import Counter, Gauge, Histogram

#: Off (``METRICS=0``): every helper returns at its first line (the load benchmark's "before").
ENABLED = True

#: Seconds: a table action is answered in tens of milliseconds, a page in tens to hundreds.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: Seconds a task starts after it was due: a timer within a second or two, a queue backlog longer.
DELAY_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)

HTTP_REQUESTS = Histogram(
    "rummy_http_request_duration_seconds",
    "HTTP requests by view name, method and status class, from the second middleware to the answer.",
    ["view", "method", "status"],
    buckets=LATENCY_BUCKETS,
)
SOCKETS_OPEN = Gauge(
    "rummy_sockets_open",
    "WebSockets open on this process, by kind (table, lobby).",
    ["kind"],
    multiprocess_mode="livesum",
)
TABLE_ACTIONS = Histogram(
    "rummy_table_action_duration_seconds",
    "Table actions by kind and outcome (ok, refused, error), from the frame's arrival to its result.",
    ["action", "outcome"],
    buckets=LATENCY_BUCKETS,
)
NOTICES_SENT = Counter(
    "rummy_notices_sent_total",
    "Notices sent on the channel layer (one per group), by type.",
    ["type"],
)
NOTICES_FAILED = Counter(
    "rummy_notices_failed_total",
    "Notices the channel layer did not take (lost; sockets catch up from the database).",
)
UPDATES_REBUILT = Counter(
    "rummy_table_updates_rebuilt",
    "Table sockets' updates rebuilt from the database: a notice lost, a new game, a seat taken.",
)
TASKS = Histogram(
    "rummy_celery_task_duration_seconds",
    "Celery tasks run, by task and outcome (success, failure, retry): their run time.",
    ["task", "outcome"],
    buckets=LATENCY_BUCKETS,
)
TASK_DELAY = Histogram(
    "rummy_celery_task_delay_seconds",
    "Seconds from when a Celery task was due (its eta, or when it was sent) to its start.",
    ["task"],
    buckets=DELAY_BUCKETS,
)
TASKS_SENT = Counter(
    "rummy_celery_tasks_sent_total",
    "Celery tasks sent by this process (timers, bot moves; beat's periodic tasks), by task.",
    ["task"],
)

_children: dict[tuple[Any, ...], Any] = {}


def _child(metric: Any, *labels: str) -> Any:
    key = (metric, *labels)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*labels)
    return child


def http_request(view: str, method: str, status: int, seconds: float) -> None:
    """One HTTP request answered (``rummy_site.httpmetrics``)."""
    if ENABLED:
        _child(HTTP_REQUESTS, view, method, f"{status // 100}xx").observe(seconds)


def socket_opened(kind: str) -> None:
    if ENABLED:
        _child(SOCKETS_OPEN, kind).inc()


def socket_closed(kind: str) -> None:
    if ENABLED:
        _child(SOCKETS_OPEN, kind).dec()


def table_action(action: str, outcome: str, seconds: float) -> None:
    """One table action answered: its kind (or ``unknown``), ``ok``/``refused``/``error``, latency."""
    if ENABLED:
        _child(TABLE_ACTIONS, action, outcome).observe(seconds)


def notices_sent(kind: str, count: int = 1) -> None:
    if ENABLED:
        _child(NOTICES_SENT, kind).inc(count)


def notice_failed() -> None:
    if ENABLED:
        NOTICES_FAILED.inc()


def table_update_rebuilt() -> None:
    """A table socket rebuilt its update from the database: a notice lost on the way (a jump of
    versions), a new game, a change the engine did not make (a seat taken). Each socket forwarding
    a notice as it came is not counted: that is every socket at every move."""
    if ENABLED:
        UPDATES_REBUILT.inc()


def task_ran(task: str, outcome: str, seconds: float) -> None:
    if ENABLED:
        _child(TASKS, task, outcome).observe(seconds)


def task_delayed(task: str, seconds: float) -> None:
    if ENABLED:
        _child(TASK_DELAY, task).observe(max(0.0, seconds))


def task_sent(task: str) -> None:
    if ENABLED:
        _child(TASKS_SENT, task).inc()
