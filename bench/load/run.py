"""Load benchmark of the real stack (GitHub issue #7): Daphne x N, Celery, PostgreSQL, Redis, bot clients.

    .venv/bin/python bench/load/run.py --tables 200 --think 2.0 --duration 60 [--daphnes 2] [--players 6]
                                       [--sweep 50,100,200,300] [--plot out.png]

For each table count it drops and recreates its own PostgreSQL database
(``rummy_load``), flushes its own Redis database number, starts N Daphne
processes, a Celery worker and beat, creates the tables and funded players,
seats them through ``tables.services.table_join`` (the games start), makes
Django sessions for them, and runs the WebSocket clients (``client.py``) in
their own process(es). It prints one JSON object per table count. Loopback
only; every wait is bounded; children are always stopped (their process
groups), also on Ctrl-C.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
HOST = "127.0.0.1"  # loopback only
CLK_TCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------- processes
class Child:
    """A child in its own process group; output to a log file (or a pipe read by a thread)."""

    def __init__(
        self,
        name: str,
        args: list[str],
        env: dict[str, str],
        logdir: Path,
        *,
        pipe: bool = False,
        cwd: Path = ROOT,
    ):
        self.name = name
        self.log_path = logdir / f"{name}.log"
        self._log = open(self.log_path, "w")  # noqa: SIM115 - closed in stop()
        self.lines: list[str] = []
        self.popen = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE if pipe else subprocess.DEVNULL,
            stdout=subprocess.PIPE if pipe else self._log,
            stderr=self._log,
            text=True,
            start_new_session=True,
        )
        self._reader: threading.Thread | None = None
        if pipe:
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_line(self, prefix: str, timeout: float) -> str | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for line in list(self.lines):
                if line.startswith(prefix):
                    return line
            if self.popen.poll() is not None and not any(x.startswith(prefix) for x in self.lines):
                time.sleep(0.2)  # let the reader catch the last lines
                return next((x for x in self.lines if x.startswith(prefix)), None)
            time.sleep(0.05)
        return None

    def send(self, text: str) -> None:
        assert self.popen.stdin is not None
        self.popen.stdin.write(text + "\n")
        self.popen.stdin.flush()

    def stop(self, timeout: float = 10) -> None:
        if self.popen.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGTERM)
            try:
                self.popen.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.popen.pid, signal.SIGKILL)
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.popen.wait(timeout=5)
        with contextlib.suppress(ProcessLookupError):  # anything it left behind in its group
            os.killpg(self.popen.pid, signal.SIGKILL)
        self._log.close()

    def tail(self, n: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


#: The ASGI servers the benchmarks can run (issue 26 picks production's by measurement). uvicorn
#: and granian are not project dependencies: ``pip install -e ".[bench]"`` installs them.
SERVERS = ("daphne", "uvicorn", "granian")


def server_command(server: str, port: int, target: str) -> list[str]:
    """The command line of one ``server`` process serving the ASGI ``target`` on ``port``."""
    if server == "daphne":
        return [str(BIN / "daphne"), "-b", HOST, "-p", str(port), target]
    if server == "uvicorn":  # uvloop, httptools and websockets, as uvicorn[standard] picks them
        return [
            str(BIN / "uvicorn"),
            "--host",
            HOST,
            "--port",
            str(port),
            "--no-access-log",
            "--lifespan",
            "off",
            target,
        ]
    if server == "granian":  # one worker process under granian's own: the group's CPU is counted
        return [
            *(str(BIN / "granian"), "--interface", "asgi", "--host", HOST, "--port", str(port)),
            *("--workers", "1", "--loop", "uvloop", target),
        ]
    raise ValueError(f"unknown server {server!r}")


def start_daphnes(
    count: int, env: dict[str, str], logdir: Path, *, tag: str, cwd: Path = ROOT, server: str = "daphne"
) -> tuple[list[Child], list[int]]:
    """``count`` server processes (Daphne unless ``server`` says) serving ``cwd``'s site, each on a
    free port (not waited for)."""
    ports = [free_port() for _ in range(count)]
    daphnes = [
        Child(
            f"{server}-{tag}-{i}",
            server_command(server, p, "rummy_site.asgi:application"),
            env,
            logdir,
            cwd=cwd,
        )
        for i, p in enumerate(ports)
    ]
    return daphnes, ports


def wait_for_daphnes(daphnes: list[Child], ports: list[int], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not all(port_open(p) for p in ports):
        if time.monotonic() > deadline or any(d.popen.poll() is not None for d in daphnes):
            raise RuntimeError("Daphne did not start:\n" + "\n".join(d.tail() for d in daphnes))
        time.sleep(0.2)


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex((HOST, port)) == 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


# ---------------------------------------------------------------------------- CPU accounting
def group_pids(pgid: int) -> list[int]:
    """Every process of the process group ``pgid`` (a server and the workers it started)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == pgid:  # the field after ppid: the process group
                out.append(int(entry.name))
    return sorted(out)


def _proc_ticks(pid: int) -> int:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])  # utime + stime
    except (OSError, IndexError, ValueError):
        return 0


def _pids_by_comm(*names: str) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                comm = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if comm in names or any(comm.startswith(n) for n in names):
                out.append(int(entry.name))
    return out


def _machine_ticks() -> tuple[int, int]:
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields), idle


def _pg_pids(database: str) -> list[int]:
    """PostgreSQL's processes working for this run: its database's backends and the shared ones
    (postmaster, WAL writer, checkpointer...), not the backends of other databases on the server."""
    out = []
    for pid in _pids_by_comm("postgres"):
        try:
            words = (
                Path(f"/proc/{pid}/cmdline")
                .read_bytes()
                .replace(b"\0", b" ")
                .decode(errors="replace")
                .split()
            )
        except OSError:
            continue
        # a backend reads "postgres: [<cluster>:] <user> <database> <host>(<port>)|[local] <state>"
        host = next(
            (i for i, w in enumerate(words) if i >= 3 and (w.endswith(")") and "(" in w or w == "[local]")),
            None,
        )
        if host is not None and words[host - 1] != database:
            continue
        out.append(pid)
    return out


class CpuMeter:
    """CPU use of each group of processes over a window, in % of one core."""

    def __init__(self, groups: dict[str, list[int]], database: str = "") -> None:
        self.groups = groups
        self.database = database

    def sample(self) -> dict[str, Any]:
        return {
            "t": time.monotonic(),
            "machine": _machine_ticks(),
            "groups": {name: {pid: _proc_ticks(pid) for pid in pids} for name, pids in self.groups.items()},
            "pg": {pid: _proc_ticks(pid) for pid in _pg_pids(self.database)},
            "redis": {pid: _proc_ticks(pid) for pid in _pids_by_comm("redis-server")},
        }

    @staticmethod
    def diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
        wall = b["t"] - a["t"]

        def pct(before: dict[int, int], after: dict[int, int]) -> float:
            ticks = sum(after[p] - before.get(p, 0) for p in after)
            return round(100 * ticks / CLK_TCK / wall, 1)

        out: dict[str, Any] = {}
        for name in b["groups"]:
            per = [
                round(100 * (b["groups"][name][p] - a["groups"][name].get(p, 0)) / CLK_TCK / wall, 1)
                for p in b["groups"][name]
            ]
            out[name] = per if name == "daphne" else round(sum(per), 1)
        out["postgres"] = pct(a["pg"], b["pg"])
        out["redis"] = pct(a["redis"], b["redis"])
        total = b["machine"][0] - a["machine"][0]
        idle = b["machine"][1] - a["machine"][1]
        out["machine_busy_pct"] = round(100 * (total - idle) / total, 1) if total else 0.0
        out["unit"] = "% of one core (machine_busy_pct: % of all cores)"
        return out


# ---------------------------------------------------------------------------- the database
#: pg_stat_database's counters for the run's database (no pg_stat_statements: it must be preloaded)
PG_COUNTERS = ("xact_commit", "xact_rollback", "tup_returned", "tup_fetched", "tup_inserted", "tup_updated")


def pg_counters(args: argparse.Namespace) -> dict[str, int]:
    import psycopg

    with psycopg.connect(args.admin_url, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            f"SELECT {', '.join(PG_COUNTERS)} FROM pg_stat_database WHERE datname = %s", [args.db_name]
        ).fetchone()
    return dict(zip(PG_COUNTERS, row or [0] * len(PG_COUNTERS), strict=True))


def reset_database(name: str, admin_url: str) -> None:
    import psycopg

    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def flush_redis(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=3)
    try:
        client.flushdb()
    finally:
        client.close()


def site_env(database_url: str, redis_url: str) -> dict[str, str]:
    """The environment a benchmark serves the site with: production settings, loopback only."""
    return {
        "DJANGO_SETTINGS_MODULE": "rummy_site.settings",
        "DEBUG": "0",
        "SECRET_KEY": "load-bench-secret-key-0123456789-not-for-production-abcdefghijkl",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "SECURE_SSL_REDIRECT": "0",
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "RUMMY_EMBEDDED_WORKER": "0",
        "LOG_LEVEL": "WARNING",
        # the benchmarks' clients send no pings (they would be load of their own, client.open_ws), and
        # the idle sockets of socket_memory.py are idle on purpose: no socket is closed for silence
        "WS_IDLE_SECONDS": "0",
    }


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()


def session_cookies(users: list[Any]) -> dict[int, str]:
    """A logged-in Django session for each user, made in one insert: user id -> Cookie header."""
    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore
    from django.contrib.sessions.models import Session
    from django.utils import timezone
    from django.utils.crypto import get_random_string

    store = SessionStore()
    expire = timezone.now() + timezone.timedelta(days=1)
    sessions = []
    cookies = {}
    for user in users:
        key = get_random_string(32, "abcdefghijklmnopqrstuvwxyz0123456789")
        data = {
            SESSION_KEY: str(user.pk),
            BACKEND_SESSION_KEY: "django.contrib.auth.backends.ModelBackend",
            HASH_SESSION_KEY: user.get_session_auth_hash(),
        }
        sessions.append(Session(session_key=key, session_data=store.encode(data), expire_date=expire))
        cookies[user.pk] = f"{settings.SESSION_COOKIE_NAME}={key}"
    Session.objects.bulk_create(sessions)
    return cookies


def create_players_and_tables(
    *, tables: int, players: int, fee: int, tag: str, turn_seconds: int, pause_seconds: int
) -> list[dict[str, Any]]:
    """T tables of one kind, P funded players each, seated through table_join; sessions for all."""
    from accounts.models import User
    from tables.models import Table, TableSettings
    from tables.services import table_join
    from wallet.services import grant

    kind = TableSettings.objects.create(
        name=f"load {tag}",
        format="101",
        entry_fee=fee,
        seats=players,
        turn_seconds=turn_seconds,
        extra_time_seconds=turn_seconds,
        declare_seconds=turn_seconds,
        pause_seconds=pause_seconds,
        rejoin_window_seconds=turn_seconds,
        split_offer_seconds=turn_seconds,
        start_countdown_seconds=turn_seconds,
    )
    table_rows = Table.objects.bulk_create(
        Table(settings=kind, name=f"load {tag} #{i + 1}") for i in range(tables)
    )
    users = User.objects.bulk_create(
        User(username=f"load-{tag}-{i}", display_name=f"Load {i}", password="!unusable")
        for i in range(tables * players)
    )
    for user in users:  # enough chips for many games and rejoins
        grant(user=user, amount=fee * 200, idempotency_key=f"load:{tag}:{user.pk}")
    cookies = session_cookies(users)
    out = []
    for t, table in enumerate(table_rows):
        seated = users[t * players : (t + 1) * players]
        for user in seated:
            table_join(table_id=table.pk, user=user)
        out.append({"id": table.pk, "seats": [{"user_id": u.pk, "cookie": cookies[u.pk]} for u in seated]})
    return out


# ---------------------------------------------------------------------------- one run
def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return 0.0
    k = max(0, min(len(sorted_values) - 1, int(round(q / 100 * (len(sorted_values) - 1)))))
    return sorted_values[k]


#: ``--keep-db``: the tables made so far in this sweep (their specs), played on by the next count.
_made: list[dict[str, Any]] = []


def run_once(
    args: argparse.Namespace, tables: int, env: dict[str, str], logdir: Path, daphne_count: int
) -> dict[str, Any]:
    from django.db import connections

    connections.close_all()
    for conn in connections.all():  # a pool's connections too: a fresh database drops them by force
        close_pool = getattr(conn, "close_pool", None)
        if close_pool is not None:
            close_pool()
    fresh = not (args.keep_db and _made)
    if fresh:
        _made.clear()
        reset_database(args.db_name, args.admin_url)
    flush_redis(env["REDIS_URL"])  # the worker re-arms every open game's timer when it starts
    from django.core.management import call_command

    if fresh:
        call_command("migrate", verbosity=0)
    children: list[Child] = []
    try:
        child_env = {**os.environ, **env, "PYTHONUNBUFFERED": "1"}
        daphnes, ports = start_daphnes(daphne_count, child_env, logdir, tag=str(tables), server=args.server)
        children += daphnes
        worker = Child(
            f"celery-worker-{tables}",
            [
                str(BIN / "celery"),
                "-A",
                "rummy_site",
                "worker",
                "-P",
                "solo",
                "-l",
                "WARNING",
                "-n",
                f"load-{os.getpid()}@%h",
                "--without-mingle",
                "--without-gossip",
                "--without-heartbeat",
            ],
            child_env,
            logdir,
        )
        beat = Child(
            f"celery-beat-{tables}",
            [
                str(BIN / "celery"),
                "-A",
                "rummy_site",
                "beat",
                "-l",
                "WARNING",
                "-s",
                str(logdir / f"beat-schedule-{tables}"),
            ],
            child_env,
            logdir,
        )
        children += [worker, beat]
        tag = f"{int(time.time()) % 100000}x{tables}"
        t0 = time.monotonic()
        if tables > len(_made):
            _made.extend(
                create_players_and_tables(
                    tables=tables - len(_made),
                    players=args.players,
                    fee=args.fee,
                    tag=tag,
                    turn_seconds=args.turn_seconds,
                    pause_seconds=args.pause_seconds,
                )
            )
        specs = [dict(spec, seats=[dict(seat) for seat in spec["seats"]]) for spec in _made[:tables]]
        setup_s = time.monotonic() - t0
        connections.close_all()  # its backend's statistics are flushed now, not inside the window
        wait_for_daphnes(daphnes, ports)
        for t, spec in enumerate(specs):  # a table's seats on different Daphnes: cross-process delivery
            for i, seat in enumerate(spec["seats"]):
                seat["port"] = ports[(t * args.players + i) % len(ports)]
                seat["lobby_port"] = ports[(t * args.players + i + 1) % len(ports)]
        config = {
            "think": args.think,
            "duration": args.duration,
            "strategy": args.strategy,
            "seed": args.seed,
            "drop_rate": args.drop_rate,
            "wrong_finish_rate": args.wrong_finish_rate,
            "reseat": True,
            "arranges_per_turn": args.arranges_per_turn,
            "evaluations_per_turn": args.evaluations_per_turn,
            "lobby": not args.no_lobby,
            "deflate": args.deflate == "1",
            "reconnect_fraction": args.reconnect_fraction,
            "connect_concurrency": 32,
            "connect_timeout": 240,
            "action_timeout": 20,
            "drain": args.drain,
        }
        groups = [specs[i :: args.client_procs] for i in range(args.client_procs)]
        clients = [
            Child(
                f"client-{tables}-{i}",
                [sys.executable, str(HERE / "client.py")],
                child_env,
                logdir,
                pipe=True,
            )
            for i in range(args.client_procs)
        ]
        children += clients
        for client, group in zip(clients, groups, strict=True):
            client.send(json.dumps({"tag": tag, "config": config, "tables": group}))
        for client in clients:
            if client.wait_line("READY", 300) is None:
                raise RuntimeError(f"{client.name} did not get ready:\n{client.tail()}")
        meter = CpuMeter(
            {
                "daphne": [pid for d in daphnes for pid in group_pids(d.popen.pid)],
                "celery": [worker.popen.pid, beat.popen.pid],
                "clients": [c.popen.pid for c in clients],
            },
            database=args.db_name,
        )
        for client in clients:
            client.send("GO")
        for client in clients:
            client.wait_line("PLAYING", 30)
        before, db_before = meter.sample(), pg_counters(args)
        profilers = start_profilers(args, [pid for d in daphnes for pid in group_pids(d.popen.pid)], tables)
        for client in clients:
            client.wait_line("STOPPED", args.duration + 60)
        for profiler in profilers:
            profiler.wait(timeout=60)
        after, db_after = meter.sample(), pg_counters(args)
        results = []
        for client in clients:
            line = client.wait_line("RESULT ", args.drain + 60)
            if line is None:
                raise RuntimeError(f"{client.name} gave no result:\n{client.tail()}")
            results.append(json.loads(line[len("RESULT ") :]))
    finally:
        for child in reversed(children):
            child.stop()
    from django.db import connections as conns

    conns.close_all()
    from tables.models import PoolGame
    from wallet.audit import check_ledger

    problems = check_ledger()
    finished = PoolGame.objects.filter(status=PoolGame.Status.FINISHED).count()
    latencies = sorted(x for r in results for x in r["latencies"])
    played = max(r["played_s"] for r in results) or args.duration
    actions = sum(r["actions"] for r in results)
    error_kinds: dict[str, int] = {}
    for r in results:
        for k, v in r["error_kinds"].items():
            error_kinds[k] = error_kinds.get(k, 0) + v
    cpu = CpuMeter.diff(before, after)
    turns = sum(r["turns"] for r in results)
    arranges = sum(r["arranges"] for r in results)
    evaluations = sum(r["evaluations"] for r in results)
    private = {
        kind: sorted(x for r in results for x in r["private_latencies"][kind])
        for kind in ("arrange", "evaluate")
    }
    refused: dict[str, int] = {}
    for r in results:
        for k, v in r["private_refused"].items():
            refused[k] = refused.get(k, 0) + v
    per_s = actions / played if played else 0.0

    def ms_per_action(pct: float) -> float:
        """% of one core over the window -> ms of CPU per table action."""
        return round(pct * 10 / per_s, 2) if per_s else 0.0

    return {
        "tables": tables,
        "connections": sum(r["connections"] for r in results),
        "daphnes": daphne_count,
        "server": args.server,
        "duration_s": round(played, 1),
        "actions": actions,
        "actions_per_s": round(actions / played, 1),
        "latency_ms": {
            "p50": round(percentile(latencies, 50), 1),
            "p95": round(percentile(latencies, 95), 1),
            "p99": round(percentile(latencies, 99), 1),
            "max": round(latencies[-1], 1) if latencies else 0.0,
        },
        "errors": sum(r["errors"] for r in results),
        "error_kinds": error_kinds,
        "lost_events": sum(r["lost_events"] for r in results),
        # versions seats lacked when play stopped, and still lacked after the drain (in lost_events)
        "behind_after_play": sum(r.get("behind_after_play", 0) for r in results),
        "behind_at_end": sum(r.get("behind_at_end", 0) for r in results),
        "drain_s": max((r.get("drain_s", 0.0) for r in results), default=0.0),
        "duplicated_events": sum(r["duplicated_events"] for r in results),
        "rebuilt_updates": sum(r["rebuilt"] for r in results),
        "games_finished": finished,
        "check_ledger": "clean" if not problems else problems[:20],
        "cpu": cpu,
        "cpu_ms_per_action": {
            "daphne": ms_per_action(sum(cpu["daphne"])),
            "postgres": ms_per_action(cpu["postgres"]),
            "redis": ms_per_action(cpu["redis"]),
            "celery": ms_per_action(cpu["celery"]),
            "clients": ms_per_action(cpu["clients"]),
        },
        "pg_per_action": {
            k: round((db_after[k] - db_before[k]) / actions, 2) if actions else 0.0 for k in PG_COUNTERS
        },
        "traffic": {
            "turns": turns,
            "arranges": arranges,
            "evaluations": evaluations,
            "arranges_per_turn": round(arranges / turns, 2) if turns else 0.0,
            "evaluations_per_turn": round(evaluations / turns, 2) if turns else 0.0,
            "arranges_per_s": round(arranges / played, 1) if played else 0.0,
            "evaluations_per_s": round(evaluations / played, 1) if played else 0.0,
            "arrange_ms": {q: round(percentile(private["arrange"], q), 1) for q in (50, 99)},
            "evaluate_ms": {q: round(percentile(private["evaluate"], q), 1) for q in (50, 99)},
            "private_refused": refused,
            "private_unanswered": sum(r["private_unanswered"] for r in results),
            "views_to_other_seats": sum(r["views"] for r in results),
            "lobby_sockets": sum(r["lobby_sockets"] for r in results),
            "lobby_updates": sum(r["lobby_updates"] for r in results),
            "reconnects": sum(r["reconnects"] for r in results),
        },
        "setup_s": round(setup_s, 1),
        "server_env": {
            k: env[k]
            for k in (
                "DB_CONN_MAX_AGE",
                "DB_POOL_SIZE",
                "WS_DB_THREADS",
                "NOTIFY_IN_BACKGROUND",
                "CHANNEL_LAYER",
                "WS_WRITE_AT_ONCE",
                "METRICS",
            )
        },
        **({"samples": [x for r in results for x in r["samples"]][:10]} if args.samples else {}),
    }


def plot(rows: list[dict[str, Any]], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(rows, key=lambda r: (r["daphnes"], r["tables"]))
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(12, 4.6), dpi=110)
    for daphnes in sorted({r["daphnes"] for r in rows}):
        mine = [r for r in rows if r["daphnes"] == daphnes]
        xs = [r["tables"] for r in mine]
        ax.plot(xs, [r["latency_ms"]["p99"] for r in mine], "o-", label=f"p99, {daphnes} Daphnes")
        ax.plot(xs, [r["latency_ms"]["p50"] for r in mine], "s--", label=f"p50, {daphnes} Daphnes")
    ax.axhline(250, color="grey", linestyle="--", linewidth=1, label="250 ms target")
    ax.set_xlabel("tables of 6 (a table socket and a lobby socket per player)")
    ax.set_ylabel("table action → every seat updated (ms)")
    t = rows[0].get("traffic", {})
    ax.set_title(
        f"one action per table every ~2 s, {t.get('arranges_per_turn', 0)} arranges and "
        f"{t.get('evaluations_per_turn', 0)} evaluations per turn",
        fontsize=9,
    )
    ax.set_yscale("log")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    tiers = ("daphne", "postgres", "redis", "celery", "clients")
    labels = [f"{r['tables']}\n{r['daphnes']}D" for r in rows]
    bottom = [0.0] * len(rows)
    for tier in tiers:
        values = [r.get("cpu_ms_per_action", {}).get(tier, 0.0) for r in rows]
        bx.bar(labels, values, bottom=bottom, label=tier)
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    bx.set_ylabel("ms of CPU per table action")
    bx.set_xlabel("tables / Daphne processes")
    bx.set_title("CPU per table action by process (arranges and evaluations included)", fontsize=9)
    bx.legend(fontsize=8)
    bx.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)


def start_profilers(args: argparse.Namespace, pids: list[int], tables: int) -> list[subprocess.Popen[bytes]]:
    """``--profile DIR``: py-spy on each server process for the measured window but its last 5 s
    (``--gil``: only samples holding the GIL, the CPU that counts), as collapsed stacks
    ``DIR/<tables>-<pid>.txt``; nothing without it."""
    if not args.profile:
        return []
    Path(args.profile).mkdir(parents=True, exist_ok=True)
    seconds = str(max(5, int(args.duration) - 5))
    return [
        subprocess.Popen(
            [
                str(Path(sys.executable).parent / "py-spy"),
                *("record", "--gil", "--format", "raw", "--rate", "200", "--duration", seconds),
                *("--pid", str(pid), "--output", str(Path(args.profile) / f"{tables}-{pid}.txt")),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for pid in pids
    ]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--sweep", default="", help="comma-separated table counts, run in turn")
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--think", type=float, default=2.0, help="seconds between two actions at one table")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of play measured")
    parser.add_argument("--daphnes", type=int, default=2)
    parser.add_argument(
        "--server", choices=SERVERS, default="daphne", help="the ASGI server of the site ('daphnes')"
    )
    parser.add_argument("--client-procs", type=int, default=1, help="processes running the WebSocket clients")
    parser.add_argument("--strategy", default="light", choices=["light", "random", "smart"])
    parser.add_argument("--drop-rate", type=float, default=0.12, help="light strategy: chance to drop a turn")
    parser.add_argument("--wrong-finish-rate", type=float, default=0.01)
    parser.add_argument("--fee", type=int, default=1_000, help="entry fee in paise")
    parser.add_argument("--turn-seconds", type=int, default=300, help="long timers: timeouts do not dominate")
    parser.add_argument("--pause-seconds", type=int, default=2, help="pause between deals (a server timer)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--plot", default="", help="write a PNG of p50/p99 against the table count")
    parser.add_argument("--db-name", default="rummy_load")
    parser.add_argument(
        "--pg", default=f"postgres://postgres@{HOST}:5432", help="PostgreSQL server (loopback)"
    )
    parser.add_argument("--redis", default=f"redis://{HOST}:6379", help="Redis server (loopback)")
    parser.add_argument("--redis-db", type=int, default=13)
    parser.add_argument(
        "--conn-max-age", default="0", help="DB_CONN_MAX_AGE for the servers (with --db-pool 0: 600 before)"
    )
    parser.add_argument("--db-pool", default="8", help="DB_POOL_SIZE for the servers (0: no pool)")
    parser.add_argument(
        "--ws-db-threads", default="4", help="WS_DB_THREADS for Daphne (0: one shared thread)"
    )
    parser.add_argument("--notify-in-background", default="1", help="NOTIFY_IN_BACKGROUND for the servers")
    parser.add_argument(
        "--channel-layer", default="pubsub", choices=["pubsub", "lists"], help="CHANNEL_LAYER for the servers"
    )
    parser.add_argument(
        "--arranges-per-turn", type=float, default=2.33, help="arranges a turn (bench/load/page_rates.py)"
    )
    parser.add_argument(
        "--evaluations-per-turn",
        type=float,
        default=4.17,
        help="evaluations a turn (bench/load/page_rates.py)",
    )
    parser.add_argument("--no-lobby", action="store_true", help="no lobby socket per player")
    parser.add_argument(
        "--reconnect-fraction",
        type=float,
        default=0.05,
        help="share of seats that drop and reopen their socket once",
    )
    parser.add_argument(
        "--keep-db",
        action="store_true",
        help="a sweep keeps its database: each count plays the tables made so far (games in progress) and new ones",
    )
    parser.add_argument("--rows", default="", help="JSON lines of earlier runs to add to the plot")
    parser.add_argument(
        "--write-at-once", default="1", help="WS_WRITE_AT_ONCE for Daphne (0: Twisted's own writes)"
    )
    parser.add_argument(
        "--deflate",
        default="0",
        help="1: the clients offer permessage-deflate as browsers do (WS_DEFLATE: Daphne agrees)",
    )
    parser.add_argument(
        "--metrics", default="1", help="METRICS for the servers (0: no metrics recorded: what they cost)"
    )
    parser.add_argument(
        "--drain", type=float, default=60.0, help="seconds to wait after play for every seat to catch up"
    )
    parser.add_argument("--samples", action="store_true", help="add a few failed actions to the output")
    parser.add_argument("--keep-logs", action="store_true", help="keep the children's logs (path on stderr)")
    parser.add_argument(
        "--profile", default="", help="py-spy each server over the window, collapsed stacks into this folder"
    )
    args = parser.parse_args()
    for url in (args.pg, args.redis):
        host = url.split("@")[-1].split("//")[-1].split(":")[0]
        if host not in ("127.0.0.1", "localhost"):
            parser.error(f"{url}: this benchmark targets loopback only")
    args.admin_url = f"{args.pg}/postgres"
    env = site_env(f"{args.pg}/{args.db_name}", f"{args.redis}/{args.redis_db}")
    env["DB_CONN_MAX_AGE"] = args.conn_max_age
    env["DB_POOL_SIZE"] = args.db_pool
    env["WS_DB_THREADS"] = args.ws_db_threads
    env["NOTIFY_IN_BACKGROUND"] = args.notify_in_background
    env["CHANNEL_LAYER"] = args.channel_layer
    env["WS_WRITE_AT_ONCE"] = args.write_at_once
    env["METRICS"] = args.metrics
    # "1000@4": 1000 tables on 4 Daphnes; a bare count uses --daphnes
    counts = [
        (int(x.split("@")[0]), int(x.split("@")[1]) if "@" in x else args.daphnes)
        for x in args.sweep.split(",")
        if x.strip()
    ] or [(args.tables, args.daphnes)]
    logdir = Path(tempfile.mkdtemp(prefix="rummy-load-"))
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    setup_django(env)
    rows = []
    try:
        for n, daphne_count in counts:
            row = run_once(args, n, env, logdir, daphne_count)
            rows.append(row)
            print(json.dumps(row), flush=True)
        if args.plot and rows:
            earlier = (
                [json.loads(x) for x in Path(args.rows).read_text().splitlines() if x.strip()]
                if args.rows
                else []
            )
            plot(earlier + rows, args.plot)
    finally:
        if args.keep_logs:
            print(f"logs: {logdir}", file=sys.stderr)
        else:
            shutil.rmtree(logdir, ignore_errors=True)


if __name__ == "__main__":
    main()
