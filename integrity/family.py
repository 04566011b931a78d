"""A yardstick for the integrity signals: colluders drawn from a family nobody tuned the signals to.

``run(seed)`` draws a population from the seed: colluding groups (``game_engine.schemes``: a
random method, intensity, ring size or chain, and an honest style for when they do not cheat)
among honest players who drop as people do, friends who often sit together (some a strong and a
weak player heads-up), strong players and newcomers with few games. It seats tables of 2 to 6
(colluders usually together, friends often), plays the games through the engine in worker
processes, digests each as the scan does (``integrity.digest``) and, as an operator's scan does,
runs every signal (``integrity.detect.run_all``) over all games so far every ``scan_every``
finished games.

``Tracker`` counts what an operator would see: for each colluding group, how many games its
members had played together (two or more at one table) when a flagged finding first named two of
them, and how many chips had moved from its helpers to its gainers by then; for every other pair
that played together, whether a flagged finding ever named both (honest pairs, friends, and a
colluder with someone outside their group, counted apart). Every signal but the win rate names a
group. Pure Python, no Django, like ``integrity.simulation``.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from game_engine.collusion import HONEST_STYLES
from game_engine.formats import make_rules
from game_engine.schemes import DUMPING, METHODS, Role, play
from integrity import detect
from integrity.digest import digest

#: Ring shapes drawn for a group, with their weights: "1" to "5" helpers around one gainer, or a
#: chain (A helps B, B helps C).
SHAPES = {"1": 35, "2": 15, "3": 12, "4": 10, "5": 8, "chain": 20}
#: Table sizes of honest tables, with their weights.
TABLE_SIZES = {2: 25, 3: 25, 4: 20, 5: 15, 6: 15}
#: Games together a group must reach in a run: the last figure read is at 100.
GAMES_TOGETHER = 104
#: Pair classes besides colluding groups.
PAIR_CLASSES = ("honest", "friends", "colluder+other")
#: Games together at which detection is read.
READ_AT = (10, 20, 50, 100)
#: Intensity bands (lowest, highest) the detection rate is read by.
BANDS = ((0.10, 0.29), (0.30, 0.59), (0.60, 1.00))
#: The targets (issue 38): detection within 50 games at >= 30 % intensity, false flags.
TARGET_DETECTION, TARGET_GAMES, TARGET_INTENSITY = 0.80, 50, 0.30
TARGET_FALSE = 0.005


@dataclass(frozen=True)
class Group:
    """A colluding group: its ``edges`` (helper, gainer) say who loses to whom."""

    name: str
    method: str
    intensity: float
    shape: str
    members: tuple[str, ...]
    edges: tuple[tuple[str, str], ...]

    @property
    def gainers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(g for _, g in self.edges))


@dataclass
class Population:
    roles: dict[str, Role] = field(default_factory=dict)
    #: how often a player is picked for a seat (newcomers seldom)
    weight: dict[str, float] = field(default_factory=dict)
    #: "honest", "strong", "newcomer", "friend" or "colluder"
    kind: dict[str, str] = field(default_factory=dict)
    groups: list[Group] = field(default_factory=list)
    group_of: dict[str, Group] = field(default_factory=dict)
    friend_of: dict[str, str] = field(default_factory=dict)
    #: friends who play heads-up often (a strong and a weak player)
    heads_up: set[str] = field(default_factory=set)


def _drop_rate(rng: random.Random) -> float:
    """An honest player's first-drop rate: about a tenth to a quarter of hands, varying by player."""
    return round(rng.triangular(0.06, 0.32, 0.15), 3)


def draw_population(
    seed: int,
    *,
    groups: int = 12,
    honest: int = 44,
    friends: int = 8,
    strong: int = 6,
    newcomers: int = 10,
    methods: Sequence[str] = METHODS,
) -> Population:
    """A seeded population: every method at least once (when ``groups`` allows), then at random."""
    rng = random.Random(seed)
    pop = Population()

    def add(pid: str, role: Role, kind: str, weight: float) -> None:
        pop.roles[pid], pop.kind[pid], pop.weight[pid] = role, kind, weight

    for i in range(honest):
        add(f"h{i:03d}", Role(rng.choice(HONEST_STYLES), _drop_rate(rng)), "honest", 1.0)
    for i in range(strong):
        add(f"s{i:03d}", Role("smart", round(rng.uniform(0.08, 0.2), 3)), "strong", 1.0)
    for i in range(newcomers):
        add(f"n{i:03d}", Role(rng.choice(HONEST_STYLES), _drop_rate(rng)), "newcomer", 0.06)
    for i in range(friends):
        a, b = f"f{i:03d}a", f"f{i:03d}b"
        if i < 3:  # a strong and a weak player, often heads-up
            add(a, Role("smart", _drop_rate(rng)), "friend", 1.0)
            add(b, Role("weak", _drop_rate(rng)), "friend", 1.0)
            pop.heads_up |= {a, b}
        else:
            add(a, Role(rng.choice(HONEST_STYLES), _drop_rate(rng)), "friend", 1.0)
            add(b, Role(rng.choice(HONEST_STYLES), _drop_rate(rng)), "friend", 1.0)
        pop.friend_of[a], pop.friend_of[b] = b, a
    chosen = list(methods)
    rng.shuffle(chosen)
    while len(chosen) < groups:
        chosen.append(rng.choice(list(methods)))
    for i, method in enumerate(chosen[:groups]):
        shape = rng.choices(list(SHAPES), weights=list(SHAPES.values()))[0]
        intensity = round(rng.uniform(0.10, 1.00), 2)
        name = f"c{i:02d}"
        members: tuple[str, ...]
        edges: tuple[tuple[str, str], ...]
        if shape == "chain":
            members = (f"{name}a", f"{name}b", f"{name}c")
            edges = ((members[0], members[1]), (members[1], members[2]))
        else:
            members = (*(f"{name}h{k}" for k in range(int(shape))), f"{name}g")
            edges = tuple((h, members[-1]) for h in members[:-1])
        group = Group(name, method, intensity, shape, members, edges)
        pop.groups.append(group)
        for pid in members:
            helps = tuple(g for h, g in edges if h == pid)
            if method == "soft":  # soft play is mutual: every member folds to the others
                helps = tuple(m for m in members if m != pid)
            partners = tuple(m for m in members if m != pid)
            gainer = not any(h == pid for h, _ in edges)
            style = (
                rng.choice(("smart", "smart", "grabby", "cautious")) if gainer else rng.choice(HONEST_STYLES)
            )
            role = Role(
                style,
                _drop_rate(rng),
                method if helps else None,
                intensity if helps else 0.0,
                helps,
                partners,
            )
            add(pid, role, "colluder", 0.4)
            pop.group_of[pid] = group
    return pop


def _fill(rng: random.Random, pop: Population, seated: list[str], size: int, avoid: set[str]) -> None:
    everyone = [p for p in pop.roles if p not in avoid]
    weights = [pop.weight[p] for p in everyone]
    while len(seated) < size:
        p = rng.choices(everyone, weights=weights)[0]
        if p not in seated:
            seated.append(p)


def _group_seats(rng: random.Random, g: Group) -> list[str]:
    if g.shape == "chain":
        r = rng.random()
        return list(g.members) if r < 0.6 else list(g.members[:2] if r < 0.8 else g.members[1:])
    helpers = [h for h, _ in g.edges]
    return [*rng.sample(helpers, rng.randint(1, len(helpers))), g.members[-1]]


def schedule(
    pop: Population, seed: int, *, group_share: float = 0.65, together: float = 0.7
) -> list[list[str]]:
    """Who sits at each game, until every group has played ``GAMES_TOGETHER`` games together.

    A group's table seats its gainer and some of its helpers (a dumping pair heads-up one time in
    two) and fills the other seats; an honest table has a host who brings a friend with
    probability ``together`` (a strong-and-weak pair heads-up one time in two)."""
    rng = random.Random(seed * 31 + 7)
    counts = Counter[str]()
    tables: list[list[str]] = []
    sizes, size_w = list(TABLE_SIZES), list(TABLE_SIZES.values())
    hosts = [p for p in pop.roles if pop.kind[p] != "colluder"]
    host_w = [pop.weight[p] for p in hosts]
    while True:
        behind = [g for g in pop.groups if counts[g.name] < GAMES_TOGETHER]
        if not behind:
            break
        if rng.random() < group_share:
            g = rng.choice(behind)
            seated = _group_seats(rng, g)
            if g.method in DUMPING and len(seated) == 2 and rng.random() < 0.5:
                size = 2
            else:
                size = max(len(seated), rng.choices(sizes, weights=size_w)[0])
            _fill(rng, pop, seated, size, set(g.members))
        else:
            host = rng.choices(hosts, weights=host_w)[0]
            seated = [host]
            size = rng.choices(sizes, weights=size_w)[0]
            friend = pop.friend_of.get(host)
            if friend is not None and rng.random() < together:
                seated.append(friend)
                if host in pop.heads_up and rng.random() < 0.5:
                    size = 2
            _fill(rng, pop, seated, size, set())
        rng.shuffle(seated)
        tables.append(seated)
        for met in {pop.group_of[p].name for p in seated if p in pop.group_of}:
            if sum(1 for p in seated if p in pop.group_of and pop.group_of[p].name == met) >= 2:
                counts[met] += 1
    return tables


def _play(job: tuple[int, int, str, int, list[tuple[str, Role]]]) -> tuple[int, dict[str, Any] | None]:
    """One game (in a worker): its digest, made as ``integrity.simulation`` makes it."""
    index, seed, fmt, fee, seated = job
    rules = make_rules(fmt, max_players=6, entry_fee=fee, rake_bp=1000)
    state, events, _ = play(rules, seated, seed)
    ids = [pid for pid, _ in seated]
    wire = [e.to_dict() for e in events]
    return index, digest(wire, ids, [p.fees_paid for p in state.players], fee)


@dataclass
class GroupResult:
    name: str
    method: str
    intensity: float
    shape: str
    together: int = 0  # games with two or more members at one table
    flow: float = 0.0  # chips from helpers to gainers, in entry fees
    flagged_at: int | None = None  # games together at the first scan that flagged the group
    flow_at_flag: float | None = None  # chips moved by then, in entry fees
    flagged_by: list[str] = field(default_factory=list)  # the signals that named it at that scan
    flagged_scan: int | None = None
    #: the strongest unflagged finding naming two members at the last scan within TARGET_GAMES
    #: games together, while unflagged: what a missed group looked like to the signals
    nearest: str = ""
    nearest_score: float = -1.0
    nearest_scan: int = 0


@dataclass
class SeedResult:
    seed: int
    games: int = 0
    scans: int = 0
    seconds: float = 0.0
    scan_seconds: float = 0.0
    groups: list[GroupResult] = field(default_factory=list)
    #: which signals named each flagged pair outside the groups
    flagged_by: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: pair class -> [pairs that played together, pairs a flagged finding named]
    pairs: dict[str, list[int]] = field(default_factory=dict)
    flagged_pairs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)


class Tracker:
    """What an operator's scans show about a known population, game by game and scan by scan."""

    def __init__(self, pop: Population) -> None:
        self.pop = pop
        self.results = {g.name: GroupResult(g.name, g.method, g.intensity, g.shape) for g in pop.groups}
        self.played: set[tuple[str, str]] = set()
        self.named: set[tuple[str, str]] = set()
        #: the signals that named each pair, for the report's list of false flags
        self.named_by: dict[tuple[str, str], set[str]] = {}
        self.games = 0
        self.scans = 0

    def add_game(self, d: Mapping[str, Any]) -> None:
        """Count one finished game's digest (its players, nets and fee)."""
        self.games += 1
        players = list(d["players"])
        for a, b in combinations(sorted(set(players)), 2):
            self.played.add((a, b))
        net: Mapping[str, int] = d["net"]
        fee = max(1, int(d["fee"]))
        won = sum(v for v in net.values() if v > 0)
        present = set(players)
        for g in self.pop.groups:
            if len(present & set(g.members)) < 2:
                continue
            r = self.results[g.name]
            r.together += 1
            if won <= 0:
                continue
            for helper, gainer in g.edges:
                if helper in present and gainer in present:
                    lost = max(0, -net.get(helper, 0))
                    r.flow += lost * max(0, net.get(gainer, 0)) / won / fee

    def scan(self, findings: Mapping[str, Iterable[detect.Finding]]) -> None:
        """One scan's findings: every flagged finding of a group signal names its players."""
        self.scans += 1
        for signal, rows in findings.items():
            if signal == detect.WIN_RATE:
                continue
            for f in rows:
                if not f.flagged:
                    self._nearest(signal, f)
                    continue
                users = set(f.users)
                for a, b in combinations(sorted(users), 2):
                    self.named.add((a, b))
                    self.named_by.setdefault((a, b), set()).add(signal)
                for g in self.pop.groups:
                    r = self.results[g.name]
                    if len(users & set(g.members)) < 2:
                        continue
                    if r.flagged_at is None:
                        r.flagged_at, r.flow_at_flag, r.flagged_scan = r.together, r.flow, self.scans
                    if r.flagged_scan == self.scans and signal not in r.flagged_by:
                        r.flagged_by.append(signal)

    def _nearest(self, signal: str, f: detect.Finding) -> None:
        users = set(f.users)
        for g in self.pop.groups:
            r = self.results[g.name]
            if r.flagged_at is not None or r.together > TARGET_GAMES or len(users & set(g.members)) < 2:
                continue
            if r.nearest_scan != self.scans:  # this scan's findings replace the last scan's
                r.nearest_scan, r.nearest, r.nearest_score = self.scans, "", -1.0
            if f.score > r.nearest_score:
                shown = {k: v for k, v in f.figures.items() if not isinstance(v, (list, dict))}
                r.nearest, r.nearest_score = f"{signal} {shown}", f.score

    def pair_class(self, a: str, b: str) -> str | None:
        """ "honest", "friends", "colluder+other", or None for two members of one group."""
        ga, gb = self.pop.group_of.get(a), self.pop.group_of.get(b)
        if ga is not None and ga is gb:
            return None
        if ga is not None or gb is not None:
            return "colluder+other"
        return "friends" if self.pop.friend_of.get(a) == b else "honest"

    def result(self, seed: int) -> SeedResult:
        out = SeedResult(seed, games=self.games, scans=self.scans)
        out.groups = [self.results[g.name] for g in self.pop.groups]
        out.pairs = {c: [0, 0] for c in PAIR_CLASSES}
        out.flagged_pairs = {c: [] for c in PAIR_CLASSES}
        for a, b in sorted(self.played):
            c = self.pair_class(a, b)
            if c is None:
                continue
            out.pairs[c][0] += 1
            if (a, b) in self.named:
                out.pairs[c][1] += 1
                out.flagged_pairs[c].append((a, b))
                out.flagged_by[(a, b)] = sorted(self.named_by.get((a, b), ()))
        return out


def run(
    seed: int,
    *,
    fmt: str = "61",
    fee: int = 1_000,
    scan_every: int = 25,
    workers: int = 2,
    population: Population | None = None,
    thresholds: detect.Thresholds | None = None,
    progress: Callable[[int, int], None] | None = None,
    played: Callable[
        [int, Iterator[tuple[int, dict[str, Any] | None]]], Iterator[tuple[int, dict[str, Any] | None]]
    ]
    | None = None,
) -> SeedResult:
    """Draw (or take) a population, play its schedule and scan as an operator does; seeded.

    ``played(count, games)`` may stand in for the games as played (the bench's cache of a
    seed's digests, to measure changed signals on the same play)."""
    pop = population or draw_population(seed)
    tables = schedule(pop, seed)
    jobs = [
        (i, seed * 1_000_003 + i, fmt, fee, [(p, pop.roles[p]) for p in seated])
        for i, seated in enumerate(tables)
    ]
    tracker = Tracker(pop)
    digests: list[tuple[int, dict[str, Any]]] = []
    started = time.perf_counter()
    scanning = 0.0

    def scan() -> None:
        nonlocal scanning
        t = time.perf_counter()
        tracker.scan(detect.run_all(digests, thresholds))
        scanning += time.perf_counter() - t

    def take(i: int, d: dict[str, Any] | None, n: int) -> None:
        if d is not None:
            digests.append((i, d))
            tracker.add_game(d)
        if n % scan_every == 0:
            scan()
        if progress is not None and n % 250 == 0:
            progress(n, len(jobs))

    def games() -> Iterator[tuple[int, dict[str, Any] | None]]:
        if workers > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                yield from pool.map(_play, jobs, chunksize=4)
        else:
            yield from map(_play, jobs)

    for n, (i, d) in enumerate(played(len(jobs), games()) if played else games(), 1):
        take(i, d, n)
    if len(jobs) % scan_every:
        scan()
    out = tracker.result(seed)
    out.seconds = time.perf_counter() - started
    out.scan_seconds = scanning
    return out
