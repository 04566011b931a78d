"""Whether the hourly integrity scan fits its slot on a big site (issue 38): ``integrity.services.scan``
over 100,000 players and 1,000,000 finished pool games in the window, timed phase by phase.

It drops and creates its own PostgreSQL database (``rummy_scanbench_data`` unless told; it only
drops names starting ``rummy_scanbench``), migrates it and fills it with COPY:

- ``--players`` players (100,000) and ``--games`` finished pool games (1,000,000) spread over the
  last ``INTEGRITY_WINDOW_DAYS``, each with its ``GameDigest``. The digests are real engine digests
  (``--templates`` games of 2 to 6 honest bots of every style played through ``game_engine``,
  digested as the scan digests a game) recycled with new player ids: the pair keys, per-pair
  counts and feeds are re-read in the new ids' order, net chips scaled to the table's fee
  (practice tables free), and a few concessions moved to the other ways (wrong show, timeout,
  leaving, refused split) so every way appears. Seats are drawn with a skewed activity (a
  log-normal number of games per player, so a few play thousands) inside ``rooms`` (players of one
  stake and hour who meet again and again), at tables of 2 to 6;
- one hour's worth of finished games with their seats and event logs but no digest yet, which
  the scan digests as it does every hour;
- sign-up and log-in events over ``INTEGRITY_RETENTION_DAYS``: a home address per household
  (some households share a device), and carrier-NAT addresses shared by thousands of players.

Then, in a process that did not build the data, it empties what a scan writes (signal rows,
flags, links, scan runs, the last hour's digests) and runs ``scan()`` as the beat task does,
printing each phase's wall time with the process's resident memory after it and its peak, the
total, and the peak RSS. ``--scale 0.1`` makes everything ten times smaller; ``--reuse`` keeps the
database built by an earlier run with the same sizes.

    .venv/bin/python bench/integrity_scan_bench.py [--scale 1] [--reuse] [--runs 1]

Target (issue 38): the scan well inside its 60-minute slot, in the memory of one worker.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/rummy_scanbench_data")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.test_settings")
sys.path.insert(0, str(ROOT / "bench"))

from admin_bench import Copier  # noqa: E402  (COPY through Django's connection)

NOW = datetime.now(UTC).replace(microsecond=0)
WINDOW_DAYS = 90
RETENTION_DAYS = 180
#: (entry fee in paise, share of games): practice tables are free
STAKES = ((0, 0.10), (1_000, 0.50), (5_000, 0.25), (10_000, 0.15))
#: (seats, share of games)
TABLE_SIZES = ((2, 0.25), (3, 0.15), (4, 0.15), (5, 0.15), (6, 0.30))
OTHER_WAYS = ("wrong_show", "timeout", "left", "split_refused")
MARKER_TABLE = "scanbench_meta"


# ---------------------------------------------------------------------------
# the database
# ---------------------------------------------------------------------------
def _admin_url(url: str) -> tuple[str, str]:
    parsed = urlparse(url)
    name = parsed.path.strip("/")
    if not name.startswith("rummy_scanbench"):
        raise SystemExit(f"refusing to use {name!r}: the bench only drops databases named rummy_scanbench*")
    return parsed._replace(path="/postgres").geturl(), name


def recreate_database(url: str) -> None:
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')


def built_sizes(url: str) -> dict[str, Any] | None:
    """The sizes the database was built with, or None when it is not (fully) built."""
    import psycopg

    admin, name = _admin_url(url)
    with psycopg.connect(admin, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            return None
    with psycopg.connect(url, autocommit=True) as conn:
        if not conn.execute("SELECT to_regclass(%s)", [MARKER_TABLE]).fetchone()[0]:
            return None
        row = conn.execute(f"SELECT sizes FROM {MARKER_TABLE}").fetchone()
        return json.loads(row[0]) if row else None


# ---------------------------------------------------------------------------
# engine games: the digest templates and the last hour's games
# ---------------------------------------------------------------------------
def play(
    job: tuple[int, list[str], str, int],
) -> tuple[list[dict[str, Any]], list[int], dict[str, Any] | None]:
    """One game of honest bots (in a worker): its wire events, each seat's fees and its digest."""
    from game_engine.collusion import HONEST_STYLES, Plan, play_table
    from game_engine.formats import make_rules
    from integrity.digest import digest

    seed, ids, fmt, fee = job
    rng = random.Random(seed)
    rules = make_rules(fmt, max_players=6, entry_fee=max(fee, 0), rake_bp=1000)
    plans = [(pid, Plan(rng.choice(HONEST_STYLES), None)) for pid in ids]
    state, events = play_table(rules, plans, seed)
    wire = [e.to_dict() for e in events]
    fees = [p.fees_paid for p in state.players]
    return wire, fees, digest(wire, ids, fees, fee)


def templates(count: int, seed: int, workers: int) -> dict[int, list[dict[str, Any]]]:
    """``count`` engine digests by table size (players ``p0``.. at a 1,000-paise table), cached."""
    cache = Path(tempfile.gettempdir()) / f"integrity_scan_bench_templates_{count}_{seed}.json"
    if cache.exists():
        raw = json.loads(cache.read_text())
        return {int(k): v for k, v in raw.items()}
    rng = random.Random(seed)
    jobs = []
    for i in range(count):
        size = 2 + i % 5
        jobs.append(
            (rng.randrange(2**40), [f"p{k}" for k in range(size)], rng.choice(("61", "101", "201")), 1_000)
        )
    out: dict[int, list[dict[str, Any]]] = {n: [] for n in range(2, 7)}
    started = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for _, _, d in pool.map(play, jobs, chunksize=4):
            if d is not None:
                out[len(d["players"])].append(d)
    print(f"  {count} template games played in {time.perf_counter() - started:.0f} s", flush=True)
    cache.write_text(json.dumps(out))
    return out


def _swap_pair(raw: dict[str, Any]) -> dict[str, Any]:
    """A pair's counts read with its two members the other way round."""
    f = raw["feeds"]
    return {
        "deals": raw["deals"],
        "drops": raw["drops"][::-1],
        "feeds": [f[2], f[3], f[0], f[1]],
        "conceded": {w: c[::-1] for w, c in raw["conceded"].items()},
        "chances": raw["chances"][::-1],
    }


def recycle(t: dict[str, Any], ids: list[str], fee: int, rng: random.Random) -> dict[str, Any]:
    """Template ``t`` played by ``ids`` at a table of ``fee``: every count keyed by the new ids."""
    old = t["players"]
    to = dict(zip(old, ids, strict=True))
    scale = fee / t["fee"] if t["fee"] else 0
    d: dict[str, Any] = {
        "v": t["v"],
        "fee": fee,
        "seats": t["seats"],
        "players": ids,
        "net": {to[p]: round(v * scale) for p, v in t["net"].items()},
        "won": {to[p]: v for p, v in t["won"].items()},
        "deals": {to[p]: v for p, v in t["deals"].items()},
        "drops": {to[p]: v for p, v in t["drops"].items()},
        "takes": {to[p]: list(v) for p, v in t["takes"].items()},
        "conceded": {to[p]: dict(v) for p, v in t["conceded"].items()},
        "chances": {to[p]: v for p, v in t["chances"].items()},
    }
    pairs = {}
    for key, raw in t["pairs"].items():
        a, b = (to[p] for p in key.split("|"))
        if a < b:
            pairs[f"{a}|{b}"] = {
                "deals": raw["deals"],
                "drops": list(raw["drops"]),
                "feeds": list(raw["feeds"]),
                "conceded": {w: list(c) for w, c in raw["conceded"].items()},
                "chances": list(raw["chances"]),
            }
        else:
            pairs[f"{b}|{a}"] = _swap_pair(raw)
    d["pairs"] = pairs
    if rng.random() < 0.05:  # one concession another way than a drop
        p = rng.choice(ids)
        if sum(d["conceded"][p].values()) < d["chances"][p]:
            way = rng.choice(OTHER_WAYS)
            d["conceded"][p][way] += 1
            for q in ids:
                if q != p:
                    key, i = (f"{p}|{q}", 0) if p < q else (f"{q}|{p}", 1)
                    pair = pairs[key]
                    if sum(c[i] for c in pair["conceded"].values()) < pair["chances"][i]:
                        pair["conceded"][way][i] += 1
    return d


# ---------------------------------------------------------------------------
# who plays with whom
# ---------------------------------------------------------------------------
def activity(players: int, rng: random.Random) -> list[float]:
    """Each player's weight: log-normal (a long tail of players with thousands of games)."""
    return [rng.lognormvariate(0.0, 1.5) for _ in range(players)]


class Seater:
    """Draws the players of each table: a room (a stake and an hour), then players of the room by
    their activity; a fifth of the seats go to anyone (tables that fill from the whole lobby)."""

    def __init__(self, players: int, rooms: int, rng: random.Random) -> None:
        self.rng = rng
        weights = activity(players, rng)
        self.ids = list(range(1, players + 1))
        self.cum_all = _cumulative(weights)
        self.rooms: list[tuple[list[int], list[float]]] = []
        members: list[list[int]] = [[] for _ in range(rooms)]
        for uid in self.ids:
            members[rng.randrange(rooms)].append(uid)
        for room in members:
            self.rooms.append((room, _cumulative([weights[u - 1] for u in room])))
        self.room_cum = _cumulative([r[1][-1] if r[1] else 0.0 for r in self.rooms])

    def table(self, size: int) -> list[int]:
        rng = self.rng
        room, cum = self.rooms[rng.choices(range(len(self.rooms)), cum_weights=self.room_cum)[0]]
        seated: list[int] = []
        while len(seated) < size:
            if rng.random() < 0.2 or len(room) < size:
                uid = rng.choices(self.ids, cum_weights=self.cum_all)[0]
            else:
                uid = rng.choices(room, cum_weights=cum)[0]
            if uid not in seated:
                seated.append(uid)
        return seated


def _cumulative(weights: list[float]) -> list[float]:
    out, total = [], 0.0
    for w in weights:
        total += w
        out.append(total)
    return out


def _pick(options: tuple[tuple[int, float], ...], rng: random.Random) -> int:
    return rng.choices([o for o, _ in options], weights=[w for _, w in options])[0]


# ---------------------------------------------------------------------------
# the fill
# ---------------------------------------------------------------------------
GAME_COLUMNS = [
    "id", "table_id", "status", "state", "version", "event_count", "deadline_at", "deadline_kind",
    "timer_at", "seed", "bot_seats", "result", "answers", "created_at", "started_at", "finished_at",
]  # fmt: skip


def fill(
    *, players: int, games: int, new_games: int, n_templates: int, seed: int, workers: int
) -> dict[str, int]:
    from django.db import connection

    rng = random.Random(seed)
    counts: dict[str, int] = {}
    by_size = templates(n_templates, seed, workers)
    stakes = [fee for fee, _ in STAKES]
    with connection.cursor() as cursor:
        raw = cursor.cursor
        raw.execute("SET session_replication_role = replica")  # no triggers: ids chosen here
        copy = Copier(raw)
        started = time.perf_counter()
        joined = NOW - timedelta(days=RETENTION_DAYS + 30)
        counts["users"] = copy(
            "accounts_user",
            ["id", "password", "is_superuser", "username", "first_name", "last_name", "email", "is_staff",
             "is_active", "date_joined", "display_name", "is_bot", "age_confirmed_at", "terms_accepted_at",
             "confirmed_email"],
            ((i, "!", False, f"player{i:06d}", "", "", f"player{i:06d}@example.com", False, True, joined, "",
              False, joined, joined, True) for i in range(1, players + 1)),
        )  # fmt: skip
        copy(
            "tables_tablesettings",
            ["id", "name", "format", "entry_fee", "seats", "decks", "turn_seconds", "extra_time_seconds",
             "declare_seconds", "pause_seconds", "start_countdown_seconds", "rejoin_window_seconds",
             "split_offer_seconds", "rake_bp", "auto_split_min_fee", "rejoin_max_fee", "point_value",
             "practice", "bot_wait_seconds", "active"],
            ((s + 1, f"Pool {fee}", "101", fee, 6, 2, 30, 60, 45, 10, 20, 20, 20, 1000, 200_000, None, 100,
              fee == 0, 5, True) for s, fee in enumerate(stakes)),
        )  # fmt: skip
        copy(
            "tables_table",
            ["id", "settings_id", "name", "owner_id", "created_at", "is_open"],
            ((s + 1, s + 1, f"Table {fee}", None, joined, True) for s, fee in enumerate(stakes)),
        )
        seater = Seater(players, max(1, players // 200), rng)
        total = games + new_games
        # the window's games in the order they finished (ids follow time); the last hour's last
        span = WINDOW_DAYS * 86400 - 2 * 3600
        ends = sorted(rng.randrange(span) for _ in range(games))
        played: list[int] = [0] * (players + 1)

        def window_games() -> Iterator[tuple[Any, ...]]:
            for g in range(1, games + 1):
                fee = _pick(STAKES, rng)
                seated = seater.table(_pick(TABLE_SIZES, rng))
                for u in seated:
                    played[u] += 1
                t = rng.choice(by_size[len(seated)])
                d = recycle(t, [str(u) for u in seated], fee, rng)
                at = NOW - timedelta(days=WINDOW_DAYS) + timedelta(seconds=60 + ends[g - 1])
                yield g, 1 + stakes.index(fee), at, json.dumps(d, separators=(",", ":"))

        digests_rows: list[tuple[int, datetime, str]] = []

        def games_and_digests() -> Iterator[tuple[Any, ...]]:
            for g, table_id, at, data in window_games():
                digests_rows.append((g, at, data))
                if len(digests_rows) >= 20_000:
                    flush_digests()
                yield (g, table_id, "finished", "{}", 1, 1, None, "", None, None, "[]", "{}", "{}",
                       at - timedelta(minutes=20), at - timedelta(minutes=20), at)  # fmt: skip

        def flush_digests() -> None:
            # a second connection: one COPY at a time per connection
            digest_copy.send(digests_rows)
            digests_rows.clear()

        import psycopg

        with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as second:
            second.execute("SET session_replication_role = replica")

            class _DigestCopy:
                n = 0

                def send(self, rows: list[tuple[int, datetime, str]]) -> None:
                    with second.cursor().copy(
                        "COPY integrity_gamedigest (game_id, finished_at, data) FROM STDIN"
                    ) as c:
                        for row in rows:
                            c.write_row(row)
                    self.n += len(rows)

            digest_copy = _DigestCopy()
            counts["games"] = copy("tables_poolgame", GAME_COLUMNS, games_and_digests())
            flush_digests()
            counts["digests"] = digest_copy.n
        print(f"  window's games and digests: {time.perf_counter() - started:.0f} s", flush=True)

        # the last hour's games: played through the engine, event logs and seats, no digest yet
        started = time.perf_counter()
        jobs, seats_of = [], []
        for g in range(games + 1, total + 1):
            fee = _pick(STAKES, rng)
            seated = seater.table(_pick(TABLE_SIZES, rng))
            seats_of.append((g, fee, seated))
            jobs.append((rng.randrange(2**40), [str(u) for u in seated], "101", fee))
        game_rows, seat_rows, event_rows = [], [], []
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for (g, fee, seated), (wire, fees, _) in zip(
                seats_of, pool.map(play, jobs, chunksize=2), strict=True
            ):
                at = NOW - timedelta(seconds=rng.randrange(3000))
                state = {"players": [{"fees_paid": f} for f in fees]}
                game_rows.append((g, 1 + stakes.index(fee), "finished", json.dumps(state), len(wire), len(wire),
                                  None, "", None, None, "[]", "{}", "{}", at - timedelta(minutes=20),
                                  at - timedelta(minutes=20), at))  # fmt: skip
                for k, u in enumerate(seated):
                    seat_rows.append((g, k, u, False, k, at - timedelta(minutes=20), None, ""))
                for seq, e in enumerate(wire):
                    data = {k: v for k, v in e.items() if k != "type"}
                    event_rows.append((g, 0, seq + 1, seq, e["type"], json.dumps(data), at))
        copy("tables_poolgame", GAME_COLUMNS, game_rows)
        counts["last hour's games"] = len(game_rows)
        copy(
            "tables_seat",
            [
                "game_id",
                "position",
                "user_id",
                "is_bot",
                "engine_seat",
                "joined_at",
                "left_at",
                "client_seed",
            ],
            seat_rows,
        )
        counts["events"] = copy(
            "tables_gameevent",
            ["game_id", "deal_number", "version", "seq", "type", "data", "created_at"],
            event_rows,
        )
        print(f"  last hour's games: {time.perf_counter() - started:.0f} s", flush=True)

        started = time.perf_counter()
        counts["sign-in events"] = copy(
            "integrity_signinevent",
            ["user_id", "kind", "at", "address", "device", "user_agent"],
            sign_ins(players, played, rng),
        )
        print(f"  sign-in events: {time.perf_counter() - started:.0f} s", flush=True)
        raw.execute("SET session_replication_role = origin")
        for table in ("accounts_user", "tables_tablesettings", "tables_table", "tables_poolgame"):
            raw.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
            )
    return counts


def sign_ins(players: int, played: list[int], rng: random.Random) -> Iterator[tuple[Any, ...]]:
    """A sign-up and log-ins (more for busier players) per player: from the household's address
    (households of 1 to 4, a few sharing a device) or a carrier-NAT address, which thousands share."""
    nat = [f"100.{64 + i // 250}.{i % 250}.{1 + (i * 7) % 250}" for i in range(max(20, players // 250))]
    nat_cum = _cumulative([1 / (1 + i) ** 0.7 for i in range(len(nat))])  # a few big carriers
    uid = 1
    household = 0
    device = 0
    span = RETENTION_DAYS * 86400
    while uid <= players:
        household += 1
        size = rng.choices((1, 2, 3, 4), weights=(80, 12, 5, 3))[0]
        members = list(range(uid, min(players, uid + size - 1) + 1))
        uid += size
        home = f"10.{household // 65536 % 256}.{household // 256 % 256}.{household % 256}"
        shared_device = len(members) > 1 and rng.random() < 0.3
        if shared_device:
            device += 1
        common = f"{device:064x}"
        for u in members:
            if not shared_device:
                device += 1
            mine = common if shared_device else f"{device:064x}"
            mobile = rng.choices(nat, cum_weights=nat_cum, k=rng.randint(1, 3))
            on_mobile = rng.random()
            logins = 1 + min(played[u] // 5, 120)
            for n in range(logins):
                at = NOW - timedelta(seconds=rng.randrange(span))
                address = rng.choice(mobile) if rng.random() < on_mobile else home
                yield (u, "signup" if n == 0 else "login", at, address, mine, "bench")


# ---------------------------------------------------------------------------
# the scan
# ---------------------------------------------------------------------------
def _status_kb(field: str) -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def _cpu() -> float:
    """This process's CPU seconds (user and system): the machine may be shared, wall time not ours."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def reset(new_from: int) -> None:
    """Empty what a scan writes, and the last hour's digests: each run starts from the same place."""
    from integrity.models import AccountLink, Flag, GameDigest, ScanRun, SignalRow

    SignalRow.objects.all().delete()
    Flag.objects.all().delete()  # and their updates and warnings
    AccountLink.objects.all().delete()
    ScanRun.objects.all().delete()
    GameDigest.objects.filter(game_id__gte=new_from).delete()


def run_scan() -> tuple[float, list[tuple[str, float, int, int]]]:
    from integrity import services

    rows: list[tuple[str, float, int, int]] = []
    cpu = [_cpu()]

    def on_phase(name: str, seconds: float) -> None:
        rows.append((name, seconds, _status_kb("VmRSS"), _status_kb("VmHWM")))
        if name == "load digests":  # streamed inside "build sums": its CPU is counted there
            print(f"  {name:<34} {seconds:>9.1f} s  cpu (with sums)", flush=True)
            return
        now = _cpu()
        used, cpu[0] = now - cpu[0], now
        print(f"  {name:<34} {seconds:>9.1f} s  cpu {used:>7.1f} s   rss {_status_kb('VmRSS') / 1024:>7.0f} MB"
              f"   peak {_status_kb('VmHWM') / 1024:>7.0f} MB", flush=True)  # fmt: skip

    started, cpu_start = time.perf_counter(), _cpu()
    run = services.scan(on_phase=on_phase)
    total = time.perf_counter() - started
    print(
        f"  {'total':<34} {total:>9.1f} s  cpu {_cpu() - cpu_start:>7.1f} s   peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB"
        f"\n  games digested {run.games_digested:,}, in the window {run.games_in_window:,}, flags raised "
        f"{run.flags_raised:,}, links made {run.links_made:,}",
        flush=True,
    )
    from django.db.models import Count

    from integrity.models import Flag, SignalRow

    by_signal = dict(Flag.objects.values_list("signal").annotate(n=Count("id")).values_list("signal", "n"))
    rows_kept = dict(
        SignalRow.objects.values_list("signal").annotate(n=Count("id")).values_list("signal", "n")
    )
    print(f"  flags by signal {by_signal}; signal rows {rows_kept}", flush=True)
    return total, rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=1.0, help="1: 100,000 players and 1,000,000 games")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--games", type=int, default=None)
    parser.add_argument(
        "--templates", type=int, default=None, help="engine games to recycle (2,000 at full size)"
    )
    parser.add_argument("--seed", type=int, default=38)
    parser.add_argument("--workers", type=int, default=2, help="processes that play the engine games")
    parser.add_argument("--reuse", action="store_true", help="keep a database built with the same sizes")
    parser.add_argument("--runs", type=int, default=1, help="scans to time, each from the same start")
    parser.add_argument("--fill-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    players = args.players or int(100_000 * args.scale)
    games = args.games or int(1_000_000 * args.scale)
    new_games = max(10, math.ceil(games / (WINDOW_DAYS * 24)))
    n_templates = args.templates or max(300, int(2_000 * min(1.0, args.scale * 3)))
    sizes = {
        "players": players,
        "games": games,
        "new_games": new_games,
        "templates": n_templates,
        "seed": args.seed,
    }
    url = os.environ["DATABASE_URL"]

    if args.fill_only:
        recreate_database(url)
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        started = time.perf_counter()
        call_command("migrate", verbosity=0)
        print(f"  migrate: {time.perf_counter() - started:.0f} s", flush=True)
        counts = fill(players=players, games=games, new_games=new_games, n_templates=n_templates,
                      seed=args.seed, workers=args.workers)  # fmt: skip
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
            cursor.execute(f"CREATE TABLE {MARKER_TABLE} (sizes text)")
            cursor.execute(f"INSERT INTO {MARKER_TABLE} VALUES (%s)", [json.dumps(sizes)])
        print("  " + ", ".join(f"{k}: {v:,}" for k, v in counts.items()), flush=True)
        return

    if not (args.reuse and built_sizes(url) == sizes):
        print(f"building {urlparse(url).path.strip('/')}: {sizes}", flush=True)
        started = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--fill-only", *sys.argv[1:]], check=True)
        print(f"built in {time.perf_counter() - started:.0f} s", flush=True)
    import django

    django.setup()
    from django.db import connection

    print(f"database {connection.settings_dict['NAME']}: {players:,} players, {games:,} games in the window, "
          f"{new_games:,} finished in the last hour; RSS before the scan {_status_kb('VmRSS') / 1024:.0f} MB")  # fmt: skip
    for n in range(args.runs):
        reset(games + 1)
        print(f"scan {n + 1}:", flush=True)
        run_scan()


if __name__ == "__main__":
    main()
