"""Pool arithmetic (docs/rules.md §7): drops remaining, elimination, rejoin, prize pool."""

from __future__ import annotations

from collections.abc import Sequence

from game_engine.formats import TableRules


def drops_remaining(limit: int, score: int, first_drop: int) -> int:
    """⌊(limit − 1 − score) ÷ first drop⌋, never negative (docs/rules.md §7)."""
    if first_drop <= 0:
        return 0
    return max(0, (limit - 1 - score) // first_drop)


def is_eliminated(score: int, rules: TableRules) -> bool:
    """A player whose score reaches the limit is out (docs/rules.md §7 [chosen: ≥])."""
    return not rules.is_points and score >= rules.pool_limit


def can_rejoin(live_scores: Sequence[int], rules: TableRules) -> bool:
    """Rejoin allowed while the highest live score is at most the threshold (docs/rules.md §7)."""
    return rules.rejoin_allowed and len(live_scores) >= 2 and max(live_scores) <= rules.rejoin_threshold


def rejoin_score(live_scores: Sequence[int]) -> int:
    """A rejoining player starts at the highest live score + 1 (docs/rules.md §7)."""
    return max(live_scores) + 1


def prize_pool(fees_paid: int, rules: TableRules) -> tuple[int, int]:
    """(prize pool, rake): all fees paid minus the rake, rounded down (docs/rules.md §7)."""
    rake = rules.rake_of(fees_paid)
    return fees_paid - rake, rake
