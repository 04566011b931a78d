"""``best_arrangement`` is exact: it agrees with the exhaustive reference (docs/rules.md §3-5)."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_engine.arrange import Arrangement, best_arrangement
from game_engine.cards import PRINTED_JOKER, Card, build_packs, is_joker, parse_card
from game_engine.melds import GroupKind, classify_group, is_valid_declaration, score_arrangement
from game_engine.reference import reference_best_points

PACK2 = build_packs(2)
PACK3 = build_packs(3)
PLAIN = [c for c in build_packs(1) if not c.is_printed_joker]
SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow], "derandomize": False}


def cards(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def check(hand: Sequence[Card], wild: int) -> Arrangement:
    """The search equals the reference and its groups are a true, equally scored partition."""
    result = best_arrangement(hand, wild)
    expected = reference_best_points(hand, wild)
    assert result.points == expected, (wild, [c.code for c in hand], result)
    assert sorted(c for g in result.groups for c in g) == sorted(hand)
    rescored = score_arrangement(result.groups, wild)
    assert rescored.points == result.points
    assert rescored.valid == result.valid
    if len(hand) == 13:
        assert is_valid_declaration(result.groups, wild) == result.valid
    # loose cards, if any, are only in the last group
    for group in result.groups[:-1]:
        assert classify_group(group, wild) is not GroupKind.INVALID
    assert result.score() == min(result.points, 80)
    return result


@st.composite
def dealt_hand(draw: st.DrawFn, pack: list[Card] = PACK2, size: int = 13) -> tuple[list[Card], int]:
    idx = draw(st.lists(st.integers(0, len(pack) - 1), min_size=size, max_size=size, unique=True))
    wild = draw(st.integers(1, 13))
    return [pack[i] for i in idx], wild


@st.composite
def joker_heavy_hand(draw: st.DrawFn, pack: list[Card] = PACK2) -> tuple[list[Card], int]:
    wild = draw(st.integers(1, 13))
    jokers = [c for c in pack if is_joker(c, wild)]
    plain = [c for c in pack if not is_joker(c, wild)]
    k = draw(st.integers(4, min(8, len(jokers))))
    j_idx = draw(st.lists(st.integers(0, len(jokers) - 1), min_size=k, max_size=k, unique=True))
    p_idx = draw(st.lists(st.integers(0, len(plain) - 1), min_size=13 - k, max_size=13 - k, unique=True))
    return [jokers[i] for i in j_idx] + [plain[i] for i in p_idx], wild


@st.composite
def clustered_hand(draw: st.DrawFn) -> tuple[list[Card], int]:
    """Cards from few suits and a narrow rank band: many overlapping melds (greedy traps)."""
    suits = draw(st.lists(st.sampled_from("SHDC"), min_size=1, max_size=2, unique=True))
    low = draw(st.integers(1, 8))
    pool = [c for c in PACK2 if c.is_printed_joker or (c.suit in suits and low <= c.rank <= low + 5)]
    pool += [c for c in PACK2 if not c.is_printed_joker and low <= c.rank <= low + 1]
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=13, max_size=13, unique=True))
    wild = draw(st.integers(1, 13))
    return [pool[i] for i in idx], wild


@pytest.mark.slow  # thousands of hands against the reference solver: not in scripts/test --fast
@settings(max_examples=1200, **SETTINGS)  # type: ignore[arg-type]
@given(dealt_hand())
def test_random_two_pack_hands_match_reference(hand_wild: tuple[list[Card], int]) -> None:
    check(*hand_wild)


@pytest.mark.slow
@settings(max_examples=200, **SETTINGS)  # type: ignore[arg-type]
@given(joker_heavy_hand())
def test_joker_heavy_hands_match_reference(hand_wild: tuple[list[Card], int]) -> None:
    check(*hand_wild)


@pytest.mark.slow
@settings(max_examples=400, **SETTINGS)  # type: ignore[arg-type]
@given(dealt_hand(PACK3))
def test_three_pack_hands_match_reference(hand_wild: tuple[list[Card], int]) -> None:
    check(*hand_wild)


@pytest.mark.slow
@settings(max_examples=100, **SETTINGS)  # type: ignore[arg-type]
@given(joker_heavy_hand(PACK3))
def test_three_pack_joker_heavy_hands_match_reference(hand_wild: tuple[list[Card], int]) -> None:
    check(*hand_wild)


@pytest.mark.slow
@settings(max_examples=120, **SETTINGS)  # type: ignore[arg-type]
@given(clustered_hand())
def test_clustered_hands_match_reference(hand_wild: tuple[list[Card], int]) -> None:
    check(*hand_wild)


@pytest.mark.slow
@settings(max_examples=150, **SETTINGS)  # type: ignore[arg-type]
@given(dealt_hand(PACK2, 14))
def test_fourteen_card_hands_match_reference(hand_wild: tuple[list[Card], int]) -> None:
    check(*hand_wild)


@pytest.mark.slow
def test_thousands_of_seeded_deals_match_reference() -> None:
    rng = random.Random(20240611)
    deck = list(PACK2)
    for _ in range(3000):
        rng.shuffle(deck)
        check(deck[:13], rng.randint(1, 13))


def test_rules_5_greedy_trap_longest_run_is_not_best() -> None:
    """Oracle P05: 4H-7H (longest run) strands 7S 7D; 4-6H + 7H 7S 7D is better."""
    result = check(cards("4H 5H 6H 7H 7S 7D 9C 10C JC 2S 3D KH QD"), 8)
    assert result.points == 25
    assert any(sorted(g) == sorted(cards("7H 7S 7D")) for g in result.groups)


def test_rules_3_ace_used_once_q_k_a_beats_a_2_3() -> None:
    """Oracle P19: the AH can be in Q-K-A or in A-2-3, not both."""
    assert check(cards("QH KH AH 2H 3H 5C 5D 5S 9D 10D JD 7S 8C"), 4).points == 20


def test_rules_5_four_card_pure_run_is_not_two_sequences() -> None:
    """Oracle P21: a 4-card run cannot be split into two sequences."""
    assert check(cards("5H 6H 7H 8H KS KD KC 2C 9S QD 3D 10C 4S"), 11).points == 68


def test_rules_5_no_pure_sequence_returns_full_count() -> None:
    hand = cards("KS KD KC 9C 9D 9S 2H 4H 6H 8D 10C PJ QS")
    result = check(hand, 3)
    assert (result.valid, result.points, result.score()) == (False, 97, 80)


def test_rules_4_long_pure_run_splits_into_two_pure_sequences() -> None:
    # 2H..10H (9 cards) + 4 jokers: the run splits, 6 wild
    hand = cards("2H 3H 4H 5H 7H 8H 9H 10H JH QH 6S 6D PJ")
    result = check(hand, 6)
    assert result.valid


def test_rules_4_all_joker_group_serves_as_second_sequence() -> None:
    hand = cards("4H 5H 6H 9C 9D 9S KC KD KS KH PJ 2S 2D")
    result = check(hand, 2)
    assert result.valid
    assert is_valid_declaration(result.groups, 2)


def test_rules_4_leftover_jokers_are_placed_in_a_declaration() -> None:
    hand = cards("4H 5H 6H 7H 8H 9H 10H JH QH KH 2S 2D PJ")
    result = check(hand, 2)
    assert result.valid
    assert len(result.groups[-1]) >= 3  # no loose trailing group


def test_wild_card_in_natural_place_gives_the_pure_sequence() -> None:
    # 6 wild; the only pure sequence possible is 5H 6H 7H with 6H natural
    hand = cards("5H 6H 7H 9C 10C PJ QC KD KS KH 3S 3D 3C")
    result = check(hand, 6)
    assert result.valid
    assert any(sorted(g) == sorted(cards("5H 6H 7H")) for g in result.groups)


def test_only_jokers_and_no_pure_is_not_valid() -> None:
    hand = [PRINTED_JOKER] * 3 + [c for c in PACK3 if c.rank == 5][:10]
    result = check(hand, 5)
    assert (result.valid, result.points) == (False, 0)


def test_empty_and_tiny_hands() -> None:
    assert best_arrangement([], 5) == Arrangement(groups=(), valid=False, points=0)
    assert check(cards("KS"), 5).points == 10


def test_fourteen_card_hand_can_be_valid() -> None:
    hand = cards("AH 2H 3H 7S 8S 9S 10S JS 5D 5C PJ QH QS KD")
    result = check(hand, 12)
    assert result.valid  # KD joins the Q-wild set
