"""Speed of ``best_arrangement`` (docs/rules.md §5 exact search).

    python bench/arrange_bench.py [--hands N] [--seed S] [--check]

Two workloads: (1) random 13-card hands dealt from 2 packs with a random cut joker;
(2) joker-heavy hands (4 to 7 jokers, printed or wild). Prints hands per second and
the median, p99 and max microseconds per hand. ``--check`` cross-checks every hand
against the exhaustive reference (slow) and prints how many were checked.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game_engine.arrange import best_arrangement  # noqa: E402
from game_engine.cards import Card, build_packs, is_joker, wild_rank_for_cut  # noqa: E402
from game_engine.reference import reference_best_points  # noqa: E402

Hand = tuple[list[Card], int]


def random_hands(rng: random.Random, n: int) -> list[Hand]:
    deck = build_packs(2)
    hands = []
    for _ in range(n):
        rng.shuffle(deck)
        hands.append((deck[:13], wild_rank_for_cut(deck[13])))
    return hands


def joker_heavy_hands(rng: random.Random, n: int) -> list[Hand]:
    deck = build_packs(2)
    hands = []
    for _ in range(n):
        rng.shuffle(deck)
        wild = wild_rank_for_cut(deck[0])
        rest = deck[1:]
        jokers = [c for c in rest if is_joker(c, wild)]
        plain = [c for c in rest if not is_joker(c, wild)]
        k = rng.randint(4, min(7, len(jokers)))
        hands.append((jokers[:k] + plain[: 13 - k], wild))
    return hands


def run(name: str, hands: list[Hand], check: bool) -> int:
    times = []
    cpu_times = []
    mismatches = 0
    for cards, wild in hands:
        c0 = time.thread_time_ns()
        t0 = time.perf_counter()
        result = best_arrangement(cards, wild)
        times.append(time.perf_counter() - t0)
        cpu_times.append(time.thread_time_ns() - c0)
        if check and reference_best_points(cards, wild) != result.points:
            mismatches += 1
            print(f"  MISMATCH wild={wild} {' '.join(c.code for c in cards)} -> {result.points}")
    us = sorted(t * 1e6 for t in times)
    p99 = us[min(len(us) - 1, int(len(us) * 0.99))]
    print(
        f"{name:<26} hands={len(us):>6}  hands/s={len(us) / sum(times):>9.0f}  "
        f"median={statistics.median(us):7.1f}us  p99={p99:8.1f}us  max={us[-1]:8.1f}us"
    )
    # A wall-clock sample can include the process being descheduled on a busy machine;
    # this thread's CPU time for the same first (cold-cache) call cannot.
    cpu_us = sorted(t / 1000 for t in cpu_times)
    print(
        f"{'':<26} CPU time per hand (first call, cold caches included): "
        f"median={statistics.median(cpu_us):7.1f}us  p99={cpu_us[min(len(cpu_us) - 1, int(len(cpu_us) * 0.99))]:8.1f}us"
        f"  max={cpu_us[-1]:8.1f}us"
    )
    # And the 50 slowest by wall clock timed again (best of 5), to show a hand's own cost.
    slowest = sorted(range(len(hands)), key=lambda i: times[i], reverse=True)[:50]
    retimed = []
    for i in slowest:
        cards, wild = hands[i]
        best = float("inf")
        for _ in range(5):
            t0 = time.perf_counter()
            best_arrangement(cards, wild)
            best = min(best, time.perf_counter() - t0)
        retimed.append((best * 1e6, i))
    worst_us, worst_i = max(retimed)
    cards, wild = hands[worst_i]
    print(
        f"{'':<26} slowest 50 re-timed (best of 5): max={worst_us:8.1f}us  "
        f"[wild={wild} {' '.join(c.code for c in cards)}]"
    )
    if check:
        print(f"{'':<26} checked against reference: {len(hands)} hands, {mismatches} mismatches")
    return mismatches


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hands", type=int, default=20000, help="hands per workload (default 20000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", action="store_true", help="cross-check every hand against the reference")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    random_set = random_hands(rng, args.hands)
    heavy_set = joker_heavy_hands(rng, args.hands)
    # The 2 x 20000 prepared hands are the bench's data, not the engine's: left where the
    # collector walks them, each full collection (15-35 ms) would land inside some hand's
    # timing. Frozen, a collection measures only what the engine itself allocates and keeps.
    gc.collect()
    gc.freeze()
    # warm-up so imports and first-call costs are not measured
    for cards, wild in random_set[:50]:
        best_arrangement(cards, wild)
    bad = run("random 2-pack hands", random_set, args.check)
    bad += run("joker-heavy (4-7 jokers)", heavy_set, args.check)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
