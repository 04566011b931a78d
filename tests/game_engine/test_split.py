"""docs/rules.md §8: split amounts and eligibility."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game_engine.errors import SplitRuleError
from game_engine.formats import make_rules
from game_engine.split import auto_split_due, drops_remaining, manual_split_eligible, split_amounts


def test_rules_8_seed_002_worked_example() -> None:
    # pool ₹150, entry ₹25, drops 3/1/0 → 75+16.67, 25+16.67, 16.66 (odd paise to most drops first)
    assert split_amounts(15000, 2500, [3, 1, 0]) == [9167, 4167, 1666]


def test_rules_8_equal_drops_equal_shares_leftover_by_seat() -> None:
    assert split_amounts(100, 2500, [2, 2, 2]) == [34, 33, 33]
    assert split_amounts(101, 0, [1, 2, 2]) == [33, 34, 34]


def test_rules_8_excess_payments_scaled_down_when_above_pool() -> None:
    # excess 4×1000 and 0 exceeds the 3000 pool: the excess is scaled to 3000, nothing left to share
    assert split_amounts(3000, 1000, [4, 0]) == [3000, 0]
    # 3001×4000÷6000 → 2000, 3001×2000÷6000 → 1000; the odd paisa goes to most drops remaining
    assert split_amounts(3001, 1000, [4, 2, 0]) == [2001, 1000, 0]
    assert split_amounts(101, 2500, [1, 2, 2]) == [0, 51, 50]


def test_rules_8_bad_input_rejected() -> None:
    with pytest.raises(SplitRuleError):
        split_amounts(100, 10, [])
    with pytest.raises(SplitRuleError):
        split_amounts(-1, 10, [1, 2])


@given(
    st.integers(0, 10**9),
    st.integers(0, 10**7),
    st.lists(st.integers(0, 12), min_size=1, max_size=6),
)
def test_rules_8_split_always_sums_to_pool_and_is_non_negative(pool: int, fee: int, drops: list[int]) -> None:
    amounts = split_amounts(pool, fee, drops)
    assert sum(amounts) == pool
    assert all(a >= 0 for a in amounts)
    # more drops remaining never gets less
    for i in range(len(drops)):
        for j in range(len(drops)):
            if drops[i] > drops[j]:
                assert amounts[i] >= amounts[j]


def test_rules_7_drops_remaining_formula() -> None:
    assert drops_remaining(101, 0, 20) == 5
    assert drops_remaining(101, 80, 20) == 1
    assert drops_remaining(101, 81, 20) == 0
    assert drops_remaining(101, 150, 20) == 0  # never negative
    assert drops_remaining(61, 0, 15) == 4
    assert drops_remaining(201, 25, 25) == 7


def test_rules_8_manual_split_eligibility() -> None:
    assert manual_split_eligible([3, 1, 2], started=4)
    assert not manual_split_eligible([3, 1, 2], started=3)  # nobody gone yet
    assert not manual_split_eligible([3, 0, 2], started=6)  # spread 3 > 2
    assert not manual_split_eligible([1, 1, 1, 1], started=6)  # 4 left
    assert manual_split_eligible([0, 2], started=3)


def test_rules_8_auto_split_eligibility() -> None:
    high = make_rules("101", entry_fee=200_001)
    low = make_rules("101", entry_fee=200_000)
    assert auto_split_due([0, 0, 1, 1], True, high)
    assert not auto_split_due([0, 1, 1, 1], True, high)
    assert auto_split_due([0, 1, 1], True, high)
    assert not auto_split_due([1, 1, 1], True, high)
    assert auto_split_due([1, 1], True, high)
    assert not auto_split_due([1, 2], True, high)
    assert not auto_split_due([0, 0], False, high)  # nobody eliminated yet
    assert not auto_split_due([0, 0], True, low)  # fee not above the threshold
    assert not auto_split_due([0, 0, 0, 0, 0], True, high)


# Golden table of split cases (docs/rules.md §8.3-8.4): pool, entry fee, drops remaining → shares.
# Each share is its exact rational share rounded down or up; the leftover paise go by largest
# remainder, ties to most drops remaining, then seat order.
SPLIT_GOLDEN = [
    # seed 002: 75 + 16.67, 25 + 16.67, 0 + 16.67
    (15_000, 2_500, [3, 1, 0], [9_167, 4_167, 1_666]),
    (100, 2_500, [2, 2, 2], [34, 33, 33]),
    (101, 0, [1, 2, 2], [33, 34, 34]),
    (3_000, 1_000, [4, 0], [3_000, 0]),
    (3_001, 1_000, [4, 2, 0], [2_001, 1_000, 0]),
    (101, 2_500, [1, 2, 2], [0, 51, 50]),
    # scaled down: exact 1999, 999.5, 999.5, 0 → the leftover paisa goes to a half, never to the whole 1999
    (3_998, 1_000, [2, 1, 1, 0], [1_999, 1_000, 999, 0]),
    # scaled down: exact 2401.2, 1600.8 → 2401 and 1601 (largest remainder), not 2402 and 1600
    (4_002, 1_000, [3, 2, 0], [2_401, 1_601, 0]),
    # scaled down over five: exact 1000.33 ×2, 500.17 ×2, 0 → the paisa to the larger remainder (seat order)
    (3_001, 1_000, [2, 2, 1, 1, 0], [1_001, 1_000, 500, 500, 0]),
    # nothing to level: equal shares, odd paise to seat order
    (10, 500, [1, 1, 1], [4, 3, 3]),
    (0, 500, [3, 1, 0], [0, 0, 0]),
    # excess exactly the pool: nothing left to share equally
    (3_000, 1_000, [3, 0], [3_000, 0]),
    (7, 0, [5], [7]),
]


@pytest.mark.parametrize(("pool", "fee", "drops", "expected"), SPLIT_GOLDEN)
def test_rules_8_4_split_golden_table(pool: int, fee: int, drops: list[int], expected: list[int]) -> None:
    assert split_amounts(pool, fee, drops) == expected


def _exact_shares(pool: int, fee: int, drops: list[int]) -> list[Fraction]:
    low = min(drops)
    excess = [(d - low) * fee for d in drops]
    total = sum(excess)
    if total > pool:
        return [Fraction(pool * e, total) for e in excess]
    return [e + Fraction(pool - total, len(drops)) for e in excess]


@given(
    st.integers(0, 10**8),
    st.integers(0, 10**6),
    st.lists(st.integers(0, 12), min_size=1, max_size=6),
)
def test_rules_8_4_every_share_is_its_exact_share_rounded_down_or_up(
    pool: int, fee: int, drops: list[int]
) -> None:
    amounts = split_amounts(pool, fee, drops)
    for amount, exact in zip(amounts, _exact_shares(pool, fee, drops), strict=True):
        assert math.floor(exact) <= amount <= math.ceil(exact)
    assert sum(amounts) == pool
