"""Splitting the prize pool (docs/rules.md §8)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

from game_engine.errors import SplitRuleError
from game_engine.formats import TableRules
from game_engine.pool import drops_remaining

__all__ = ["auto_split_due", "drops_remaining", "manual_split_eligible", "split_amounts"]


def split_amounts(pool: int, entry_fee: int, drops: Sequence[int]) -> list[int]:
    """Each player's share of ``pool`` (minor units), in the order of ``drops`` (docs/rules.md §8.3).

    1. Every player's drops remaining are levelled down to the lowest; each player
       is owed their excess drops × ``entry_fee``.
    2. If those excess payments exceed the pool they are scaled down in
       proportion: player i's exact share is pool × excess_i ÷ total excess.
       Otherwise the rest of the pool is shared equally: excess_i + rest ÷ n.
    3. **Largest remainder** (docs/rules.md §8.4): each player gets their exact
       rational share rounded down; the paise left over go one each to the
       players with the largest fractional remainders, ties broken by most drops
       remaining, then by position in ``drops`` (seat order). So every share is
       its exact share rounded down or up, and the shares sum to ``pool``.

    Example (seed 002): pool 15000, entry 2500, drops [3, 1, 0] → [9167, 4167, 1666].
    """
    n = len(drops)
    if n == 0:
        raise SplitRuleError("a split needs at least one player")
    if pool < 0 or entry_fee < 0 or any(d < 0 for d in drops):
        raise SplitRuleError("pool, entry fee and drops remaining must be non-negative")
    low = min(drops)
    excess = [(d - low) * entry_fee for d in drops]
    total_excess = sum(excess)
    if total_excess > pool:
        exact = [Fraction(pool * e, total_excess) for e in excess]
    else:
        equal = Fraction(pool - total_excess, n)
        exact = [e + equal for e in excess]
    amounts = [math.floor(x) for x in exact]
    leftover = pool - sum(amounts)
    order = sorted(range(n), key=lambda i: (-(exact[i] - amounts[i]), -drops[i], i))
    for i in order[:leftover]:
        amounts[i] += 1
    return amounts


def manual_split_eligible(drops: Sequence[int], started: int) -> bool:
    """Manual split offer (docs/rules.md §8): fewer left than started, fewer than 4 left,
    and highest minus lowest drops remaining at most 2."""
    n = len(drops)
    return 2 <= n < started and n < 4 and max(drops) - min(drops) <= 2


def auto_split_due(drops: Sequence[int], someone_eliminated: bool, rules: TableRules) -> bool:
    """Auto split (docs/rules.md §8) on tables whose entry fee is above the threshold,
    once at least one player has been eliminated:
    4 left: at least two have 0 and the others 0 or 1; 3 left: at least one has 0
    and the others 0 or 1; 2 left: both have 0 or 1."""
    if not rules.auto_split or not someone_eliminated:
        return False
    n = len(drops)
    if n not in (2, 3, 4) or any(d > 1 for d in drops):
        return False
    zeros = sum(1 for d in drops if d == 0)
    need = {4: 2, 3: 1, 2: 0}[n]
    return zeros >= need
