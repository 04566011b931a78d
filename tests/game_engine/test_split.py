"""RULES §8: split amounts and eligibility."""

from __future__ import annotations

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
