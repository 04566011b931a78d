"""Speed, memory and false flags of the multi-account rules (``integrity.multiaccount``) at scale.

    python bench/multiaccount_bench.py [--players N] [--games N] [--rings N] [--seed S]

Builds a synthetic window: ``--players`` honest players in ``--games`` three-seat games at random
times over 90 days (15 to 35 minutes each), half of them behind shared addresses (carrier
addresses of 25 accounts, households of 2 or 3), and ``--rings`` people with three accounts each
on one home address who sit together and take turns between their accounts. Prints the time and
peak memory of counting the pairs' games together (the scan has these counts already, from the
game signals' sums) and of ``multiaccount.find``, how many pairs it judged, and the flags and
links among honest pairs and among the rings' pairs.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from integrity import multiaccount  # noqa: E402
from integrity.multiaccount import Game  # noqa: E402

FEE = 1_000
DAY = 86_400.0


def _game(ref: int, start: float, minutes: float, people: tuple[str, ...], winner: str) -> Game:
    net = {p: (FEE * 2 if p == winner else -FEE) for p in people}
    return Game(ref, start, start + minutes * 60, people, FEE, net)


def build(players: int, games: int, rings: int, rng: random.Random) -> tuple[list[Game], dict, set]:
    names = [str(i) for i in range(players)]
    rows: list[Game] = []
    for ref in range(games):
        people = tuple(rng.sample(names, 3))
        start = rng.uniform(0, 90) * DAY
        rows.append(_game(ref, start, rng.uniform(15, 35), people, rng.choice(people)))
    # addresses: half the players behind shared ones
    order = names[:]
    rng.shuffle(order)
    address_of: dict[str, str] = {}
    i = 0
    while i < players // 4:  # a quarter on carrier addresses of 25 accounts
        for p in order[i : i + 25]:
            address_of[p] = f"carrier{i}"
        i += 25
    while i < players // 2:  # a quarter in households of 2 or 3
        size = rng.choice((2, 3))
        for p in order[i : i + size]:
            address_of[p] = f"home{i}"
        i += size
    by_address: dict[str, list[str]] = {}
    for p, a in address_of.items():
        by_address.setdefault(a, []).append(p)
    shared: dict[tuple[str, str], list[str]] = {}
    for a, users in by_address.items():
        for x, y in combinations(sorted(users), 2):
            shared[(x, y)] = [a]
    ring_pairs: set[tuple[str, str]] = set()
    ref = games
    strangers = names[:200]
    for k in range(rings):
        ring = [f"ring{k}a", f"ring{k}b", f"ring{k}c"]
        for x, y in combinations(sorted(ring), 2):
            shared[(x, y)] = [f"ringhome{k}"]
            ring_pairs.add((x, y))
        for day in range(12):  # together, wins going round
            rows.append(_game(ref, day * DAY + 3600, 25, tuple(ring), ring[day % 3]))
            ref += 1
        for day in range(12, 18):  # evenings of switching accounts, three rounds
            for turn in range(9):
                seated = (ring[turn % 3], *rng.sample(strangers, 2))
                start = day * DAY + 3600 + turn * 30 * 60
                rows.append(_game(ref, start, 25, seated, rng.choice(seated)))
                ref += 1
    return rows, shared, ring_pairs


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=100_000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--rings", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    rows, shared, ring_pairs = build(args.players, args.games, args.rings, rng)
    print(
        f"{args.players:,} players, {len(rows):,} games, {len(shared):,} pairs sharing an address, "
        f"{args.rings} rings of 3 accounts; peak memory after building {peak_mb():,.0f} MB"
    )
    r = multiaccount.Rules()
    least = min(r.sit_min_games, r.chips_min_games)
    t0 = time.perf_counter()
    counts = Counter(pair for g in rows for pair in combinations(sorted(set(g.people)), 2))
    together = [pair for pair, n in counts.items() if n >= least]
    t1 = time.perf_counter()
    print(
        f"counting games together: {t1 - t0:.1f} s ({len(counts):,} pairs met, {len(together):,} "
        f"with {least}+ games); peak {peak_mb():,.0f} MB"
    )
    del counts
    t2, c2 = time.perf_counter(), time.process_time()
    found = multiaccount.find(rows, shared, r, together)
    t3, c3 = time.perf_counter(), time.process_time()
    honest = [f for f in found if tuple(sorted(f.users)) not in ring_pairs]
    rings = [f for f in found if tuple(sorted(f.users)) in ring_pairs]
    print(
        f"multiaccount.find: {t3 - t2:.1f} s ({c3 - c2:.1f} s of CPU) for {len(found):,} pairs judged; "
        f"peak {peak_mb():,.0f} MB"
    )
    print(
        f"honest pairs: flagged {sum(f.flagged for f in honest)} of {len(honest):,}, "
        f"linked {sum(f.link for f in honest)}"
    )
    print(
        f"ring pairs: flagged {sum(f.flagged for f in rings)} of {len(ring_pairs)}, "
        f"linked {sum(f.link for f in rings)}"
    )


if __name__ == "__main__":
    main()
