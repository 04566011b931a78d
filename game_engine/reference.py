"""A slow, obviously-correct reference for the lowest points of a hand (tests only).

Written independently of :mod:`game_engine.arrange`: it shares only
:func:`game_engine.melds.classify_group` (the rules of docs/rules.md §3) and nothing of the
search. It lists every subset of 3+ cards that :func:`classify_group` accepts, then
tries every way of covering the hand with disjoint such groups (each card is either
in one chosen group or loose) and scores each partition by the docs/rules.md §5 rules:

* no pure sequence: every card counts;
* a pure sequence and no other sequence: all but that pure sequence counts;
* otherwise: the loose cards count.

The only shortcut is a pruning of the subsets considered: a valid group's non-joker
cards share a suit (sequence) or a rank (set), so candidate groups are drawn from one
suit plus the jokers, or one rank plus the jokers. Memoisation is keyed by the
multiset of remaining cards, which is exact because equal cards are interchangeable.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from game_engine.cards import PRINTED_JOKER_RANK, Card, card_points, is_joker
from game_engine.melds import GroupKind, classify_group

_INF = 10**9


def reference_best_points(cards: Sequence[Card], wild_rank: int) -> int:
    """The lowest docs/rules.md §5 points of any arrangement of ``cards`` (exhaustive)."""
    hand = sorted(cards, key=lambda c: (is_joker(c, wild_rank), c.rank, c.suit))
    n = len(hand)
    pts = [card_points(c, wild_rank) for c in hand]
    total = sum(pts)
    jokers = [i for i, c in enumerate(hand) if is_joker(c, wild_rank)]
    naturals = [i for i, c in enumerate(hand) if not is_joker(c, wild_rank)]

    pools: list[list[int]] = []
    for suit in "SHDC":
        pools.append([i for i in naturals if hand[i].suit == suit] + jokers)
        # a wild card may be a natural of its suit in a pure sequence: it is in ``jokers``
    for rank in range(1, 14):
        pools.append([i for i in naturals if hand[i].rank == rank] + jokers)
    pools.append(list(jokers))

    groups: dict[int, GroupKind] = {}
    for pool in pools:
        for size in range(3, len(pool) + 1):
            for combo in combinations(pool, size):
                mask = sum(1 << i for i in combo)
                if mask in groups:
                    continue
                kind = classify_group([hand[i] for i in combo], wild_rank)
                if kind is not GroupKind.INVALID:
                    groups[mask] = kind

    by_first: list[list[tuple[int, GroupKind]]] = [[] for _ in range(n)]
    for mask, kind in groups.items():
        by_first[(mask & -mask).bit_length() - 1].append((mask, kind))

    codes = [(c.rank, c.suit) if c.rank != PRINTED_JOKER_RANK else (0, "") for c in hand]
    distinct = sorted(set(codes))

    def canon(mask: int) -> tuple[int, ...]:
        counts = dict.fromkeys(distinct, 0)
        for i in range(n):
            if mask >> i & 1:
                counts[codes[i]] += 1
        return tuple(counts.values())

    best = total  # regime (a): everything loose, or no pure sequence

    # Regime (b): one pure sequence, nothing else counted as a sequence.
    for mask, kind in groups.items():
        if kind is GroupKind.PURE_SEQUENCE:
            best = min(best, total - sum(pts[i] for i in range(n) if mask >> i & 1))

    # Regime (c): partitions with a pure sequence and at least two sequences.
    memo: dict[tuple[tuple[int, ...], bool, int], int] = {}

    def solve(mask: int, has_pure: bool, n_seq: int) -> int:
        if mask == 0:
            return 0 if has_pure and n_seq >= 2 else _INF
        key = (canon(mask), has_pure, n_seq)
        if key in memo:
            return memo[key]
        first = (mask & -mask).bit_length() - 1
        result = pts[first] + solve(mask & ~(1 << first), has_pure, n_seq)
        for gmask, kind in by_first[first]:
            if gmask & mask == gmask:
                result = min(
                    result,
                    solve(
                        mask & ~gmask,
                        has_pure or kind is GroupKind.PURE_SEQUENCE,
                        min(2, n_seq + (1 if kind.is_sequence else 0)),
                    ),
                )
        memo[key] = result
        return result

    return min(best, solve((1 << n) - 1, False, 0))
