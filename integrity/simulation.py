"""How well the integrity signals work, measured: colluding bot pairs among honest bots.

``manage.py simulate --collusion`` calls ``run``. A population of honest bots of four styles
(``game_engine.collusion``), some of them pairs of friends who often sit together and play
honestly, and colluding pairs of each kind (chip dumping, soft play, feeding) play thousands of
seeded games through the engine, in this process (and its workers), without the database: each
game is digested exactly as the scan digests a game from its event log (``integrity.digest``),
and the signals run over the digests exactly as the scan runs them (``integrity.detect``).

Printed: each signal's detection rate (colluding pairs of the kind it is meant for that it
flagged / such pairs) and false-flag rate (honest pairs flagged / honest pairs that played
together), for every kind of pair, and the win-rate signal per player.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from game_engine.collusion import COLLUSION_ROLES, HONEST_STYLES, Plan, play_table
from game_engine.formats import make_rules
from integrity import detect
from integrity.digest import digest

#: Which signal is meant to catch which kind of colluding pair.
TARGET = {"dump": detect.CHIP_DUMPING, "soft": detect.SOFT_PLAY, "feed": detect.FEEDING}
TABLE_SIZES = (2, 3, 3, 4, 4)


@dataclass
class Population:
    styles: dict[str, str] = field(default_factory=dict)
    partner: dict[str, str] = field(default_factory=dict)
    #: pair (sorted ids) -> "dump" | "soft" | "feed" | "friends"
    kinds: dict[tuple[str, str], str] = field(default_factory=dict)


def population(honest: int, friends: int, pairs_per_kind: int) -> Population:
    """``honest`` bots cycling through the honest styles, the first ``2 * friends`` of them in
    pairs of friends, and ``pairs_per_kind`` colluding pairs of each kind."""
    pop = Population()
    for i in range(honest):
        pop.styles[f"h{i:03d}"] = HONEST_STYLES[i % len(HONEST_STYLES)]
    for i in range(min(friends, honest // 2)):
        a, b = f"h{2 * i:03d}", f"h{2 * i + 1:03d}"
        pop.partner[a], pop.partner[b] = b, a
        pop.kinds[(a, b)] = "friends"
    for kind, (first, second) in COLLUSION_ROLES.items():
        for i in range(pairs_per_kind):
            a, b = f"{kind}{i}a", f"{kind}{i}b"
            pop.styles[a], pop.styles[b] = first, second
            pop.partner[a], pop.partner[b] = b, a
            pop.kinds[(a, b)] = kind
    return pop


def schedule(pop: Population, games: int, seed: int, together: float) -> list[list[str]]:
    """Who sits at each game: a random player picks a table of 2-4; a player with a partner brings
    them with probability ``together``; the other seats are filled at random. Chip dumpers play
    their partner heads-up when they can (4 times in 5): at a fuller table the chips they lose
    go to whoever wins, not to the partner."""
    rng = random.Random(seed)
    everyone = sorted(pop.styles)
    tables = []
    for _ in range(games):
        size = rng.choice(TABLE_SIZES)
        host = rng.choice(everyone)
        seated = [host]
        partner = pop.partner.get(host)
        if partner is not None and rng.random() < together:
            seated.append(partner)
            if pop.kinds.get((min(host, partner), max(host, partner))) == "dump" and rng.random() < 0.8:
                size = 2
        while len(seated) < size:
            p = rng.choice(everyone)
            if p not in seated:
                seated.append(p)
        rng.shuffle(seated)
        tables.append(seated)
    return tables


def _play(
    job: tuple[int, int, str, int, list[tuple[str, str, str | None]]],
) -> tuple[int, dict[str, Any] | None]:
    """One game (in a worker): its digest."""
    index, seed, fmt, fee, seated = job
    rules = make_rules(fmt, max_players=6, entry_fee=fee, rake_bp=1000)
    ids = [pid for pid, _, _ in seated]
    plans = [
        (pid, Plan(style, ids.index(partner) if partner in ids else None)) for pid, style, partner in seated
    ]
    state, events = play_table(rules, plans, seed)
    wire = [e.to_dict() for e in events]
    return index, digest(wire, ids, [p.fees_paid for p in state.players], fee)


@dataclass
class Outcome:
    games: int
    seconds: float
    findings: dict[str, list[detect.Finding]]
    pop: Population
    together: dict[tuple[str, str], int]


def run(
    *,
    games: int = 2000,
    seed: int = 1,
    fmt: str = "61",
    fee: int = 1_000,
    honest: int = 48,
    friends: int = 8,
    pairs_per_kind: int = 4,
    together: float = 0.7,
    workers: int = 2,
    thresholds: detect.Thresholds | None = None,
    progress: Callable[[int], None] | None = None,
) -> Outcome:
    """Play the games (seeded: the same arguments give the same figures) and run the signals."""
    pop = population(honest, friends, pairs_per_kind)
    tables = schedule(pop, games, seed, together)
    jobs = [
        (i, seed * 1_000_003 + i, fmt, fee, [(p, pop.styles[p], pop.partner.get(p)) for p in seated])
        for i, seated in enumerate(tables)
    ]
    started = time.perf_counter()
    digests: list[tuple[int, dict[str, Any]]] = []
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for n, (i, d) in enumerate(pool.map(_play, jobs, chunksize=8), 1):
                if d is not None:
                    digests.append((i, d))
                if progress and n % 250 == 0:
                    progress(n)
    else:
        for n, job in enumerate(jobs, 1):
            i, d = _play(job)
            if d is not None:
                digests.append((i, d))
            if progress and n % 250 == 0:
                progress(n)
    seconds = time.perf_counter() - started
    findings = detect.run_all(digests, thresholds)
    together_count: dict[tuple[str, str], int] = {}
    for seated in tables:
        for a in seated:
            for b in seated:
                if a < b:
                    together_count[(a, b)] = together_count.get((a, b), 0) + 1
    return Outcome(len(digests), seconds, findings, pop, together_count)


def _pair_class(pop: Population, a: str, b: str) -> str:
    kind = pop.kinds.get((min(a, b), max(a, b)))
    if kind is not None:
        return kind
    colluders = [p for p in (a, b) if not p.startswith("h")]
    return "colluder+other" if colluders else "honest"


def report(out: Outcome) -> list[str]:
    """The figures, as lines to print."""
    pop = out.pop
    classes = ("dump", "soft", "feed", "friends", "honest", "colluder+other")
    totals = {c: 0 for c in classes}
    for a, b in out.together:
        totals[_pair_class(pop, a, b)] += 1
    flagged: dict[str, dict[str, int]] = {s: dict.fromkeys(classes, 0) for s in detect.PAIR_SIGNALS}
    for signal in detect.PAIR_SIGNALS:
        seen: set[tuple[str, str]] = set()
        for f in out.findings[signal]:
            a, b = f.users
            key = (min(a, b), max(a, b))
            if f.flagged and key not in seen:
                seen.add(key)
                flagged[signal][_pair_class(pop, a, b)] += 1
    lines = [
        f"{out.games} games in {out.seconds:.1f} s ({out.games / out.seconds:.1f} games/s); "
        f"{len(pop.styles)} players, pairs that played together: "
        + ", ".join(f"{c} {totals[c]}" for c in classes)
    ]
    lines.append("pairs flagged by each signal, by kind of pair (flagged / pairs):")
    header = f"  {'signal':<13}" + "".join(f"{c:>16}" for c in classes)
    lines.append(header)
    for signal in detect.PAIR_SIGNALS:
        row = f"  {signal:<13}"
        for c in classes:
            row += f"{f'{flagged[signal][c]}/{totals[c]}':>16}"
        lines.append(row)
    honest_total = totals["honest"] + totals["friends"]
    for kind, signal in TARGET.items():
        detected = flagged[signal][kind] / totals[kind] if totals[kind] else 0.0
        false = (
            (flagged[signal]["honest"] + flagged[signal]["friends"]) / honest_total if honest_total else 0.0
        )
        lines.append(
            f"{signal}: detection rate {flagged[signal][kind]}/{totals[kind]} = {detected:.0%}; "
            f"false-flag rate {flagged[signal]['honest'] + flagged[signal]['friends']}/{honest_total} "
            f"= {false:.2%} (of them friends who sit together: {flagged[signal]['friends']}/{totals['friends']})"
        )
    winners = {p for (a, b), k in pop.kinds.items() if k != "friends" for p in (a, b)}
    flagged_players = {f.users[0] for f in out.findings[detect.WIN_RATE] if f.flagged}
    honest_players = [p for p in pop.styles if p.startswith("h")]
    lines.append(
        f"win_rate: colluding players flagged {len(flagged_players & winners)}/{len(winners)}; "
        f"honest players flagged {len(flagged_players & set(honest_players))}/{len(honest_players)} "
        f"= {len(flagged_players & set(honest_players)) / len(honest_players):.2%}"
        + (
            " ("
            + ", ".join(f"{p} {pop.styles[p]}" for p in sorted(flagged_players & set(honest_players)))
            + ")"
            if flagged_players & set(honest_players)
            else ""
        )
    )
    return lines
