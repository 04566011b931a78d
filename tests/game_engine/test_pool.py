"""docs/rules.md §5 table, §7 pool arithmetic, §9 points format."""

from __future__ import annotations

import pytest

from game_engine.errors import PoolRuleError
from game_engine.formats import FORMATS, TableRules, make_rules
from game_engine.pool import can_rejoin, is_eliminated, prize_pool, rejoin_score


@pytest.mark.parametrize(
    ("fmt", "first", "middle", "cap", "wrong", "rejoin"),
    [("61", 15, 30, 60, 60, 44), ("101", 20, 40, 80, 80, 79), ("201", 25, 50, 80, 80, 174)],
)
def test_rules_5_table(fmt: str, first: int, middle: int, cap: int, wrong: int, rejoin: int) -> None:
    r = FORMATS[fmt]
    assert (r.pool_limit, r.first_drop, r.middle_drop, r.full_count, r.wrong_show, r.rejoin_threshold) == (
        int(fmt),
        first,
        middle,
        cap,
        wrong,
        rejoin,
    )
    assert r.decks == 2 and r.max_players == 6


def test_rules_9_points_format() -> None:
    r = FORMATS["points"]
    assert r.is_points and (r.first_drop, r.middle_drop, r.full_count, r.wrong_show) == (20, 40, 80, 80)
    assert make_rules("points", point_value=200).entry_fee == 80 * 200


def test_rules_round_trip_and_unknown_setting() -> None:
    for r in FORMATS.values():
        assert TableRules.from_dict(r.to_dict()) == r
    with pytest.raises(PoolRuleError):
        TableRules.from_dict({"bogus": 1})
    with pytest.raises(PoolRuleError):
        make_rules("99")
    with pytest.raises(PoolRuleError):
        make_rules("101", decks=4)


def test_rules_7_rake_rounded_down() -> None:
    r = make_rules("101", rake_bp=1250)
    assert prize_pool(10_001, r) == (10_001 - 1250, 1250)
    assert prize_pool(999, r) == (999 - 124, 124)


def test_rules_7_elimination_at_limit() -> None:
    r = FORMATS["101"]
    assert not is_eliminated(100, r) and is_eliminated(101, r)


def test_rules_7_rejoin_threshold_and_start_score() -> None:
    r = FORMATS["101"]
    assert can_rejoin([79, 20], r) and not can_rejoin([80, 20], r)
    assert rejoin_score([79, 20]) == 80
    assert not can_rejoin([20, 20], make_rules("101", entry_fee=5000, rejoin_max_fee=5000))
    assert can_rejoin([20, 20], make_rules("101", entry_fee=4999, rejoin_max_fee=5000))
    assert not can_rejoin([20, 20], FORMATS["points"])
