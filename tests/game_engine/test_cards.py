"""Cards, notation, packs and wild jokers (docs/rules.md §1-2)."""

from __future__ import annotations

from collections import Counter

import pytest

from game_engine.cards import (
    ACE,
    PRINTED_JOKER,
    Card,
    build_packs,
    card_points,
    is_joker,
    parse_card,
    parse_cards,
    parse_rank,
    sorted_hand,
    wild_rank_for_cut,
)
from game_engine.errors import InvalidCardError, RummyError


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("AS", 1, "S"),
        ("2H", 2, "H"),
        ("10D", 10, "D"),
        ("JC", 11, "C"),
        ("QS", 12, "S"),
        ("KH", 13, "H"),
    ],
)
def test_rules_1_notation(text: str, rank: int, suit: str) -> None:
    card = parse_card(text)
    assert (card.rank, card.suit) == (rank, suit)
    assert card.code == text
    assert str(card) == text


def test_rules_1_t_for_ten_and_lower_case() -> None:
    assert parse_card("TH") == Card(10, "H")
    assert parse_card("th") == Card(10, "H")
    assert parse_card("10h") == Card(10, "H")
    assert parse_card("qs") == Card(12, "S")
    assert parse_card(" ad ") == Card(1, "D")


@pytest.mark.parametrize(("text", "code"), [("Q♠", "QS"), ("10♥", "10H"), ("a♦", "AD"), ("7♣", "7C")])
def test_rules_1_suit_symbols(text: str, code: str) -> None:
    assert parse_card(text).code == code


def test_rules_1_printed_joker() -> None:
    assert parse_card("PJ") is PRINTED_JOKER or parse_card("PJ") == PRINTED_JOKER
    assert parse_card("pj").is_printed_joker
    assert PRINTED_JOKER.code == "PJ"


@pytest.mark.parametrize("text", ["", "H", "1H", "11H", "0S", "ZS", "10X", "KK", "10", "PJS", "A S"])
def test_rules_1_malformed_cards_are_rejected(text: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_card(text)
    assert isinstance(info.value, RummyError)
    assert info.value.rule == "docs/rules.md §1"


def test_rules_1_non_string_rejected() -> None:
    with pytest.raises(InvalidCardError):
        parse_card(10)  # type: ignore[arg-type]


def test_rules_1_card_constructor_validates() -> None:
    with pytest.raises(InvalidCardError):
        Card(14, "S")
    with pytest.raises(InvalidCardError):
        Card(5, "X")
    with pytest.raises(InvalidCardError):
        Card(0, "S")


def test_rules_1_same_notation_cards_are_equal() -> None:
    a, b = parse_cards(["7S", "7♠"])
    assert a == b
    assert hash(a) == hash(b)
    assert Counter([a, b])[Card(7, "S")] == 2


@pytest.mark.parametrize(
    ("text", "points"),
    [("AS", 10), ("KH", 10), ("QD", 10), ("JC", 10), ("10S", 10), ("9H", 9), ("2D", 2), ("PJ", 0)],
)
def test_rules_1_card_points(text: str, points: int) -> None:
    # wild rank 5 here: none of these is wild
    assert card_points(parse_card(text), 5) == points


def test_rules_1_every_joker_scores_zero() -> None:
    assert card_points(parse_card("7H"), 7) == 0
    assert card_points(parse_card("KH"), 13) == 0
    assert card_points(PRINTED_JOKER, 3) == 0
    assert card_points(parse_card("7H"), 8) == 7


@pytest.mark.parametrize("decks", [2, 3])
def test_rules_1_packs(decks: int) -> None:
    pack = build_packs(decks)
    assert len(pack) == 53 * decks
    counts = Counter(pack)
    assert counts[PRINTED_JOKER] == decks
    assert all(n == decks for n in counts.values())
    assert len(counts) == 53


def test_rules_1_bad_pack_count() -> None:
    with pytest.raises(InvalidCardError):
        build_packs(4)


def test_rules_2_wild_rank_from_cut() -> None:
    assert wild_rank_for_cut(parse_card("7D")) == 7
    assert wild_rank_for_cut(parse_card("KS")) == 13
    assert wild_rank_for_cut(parse_card("AH")) == ACE


def test_rules_2_printed_joker_cut_makes_aces_wild() -> None:
    wild = wild_rank_for_cut(PRINTED_JOKER)
    assert wild == ACE
    assert all(is_joker(parse_card(f"A{s}"), wild) for s in "SHDC")
    assert not is_joker(parse_card("KS"), wild)


def test_rules_2_every_suit_of_the_wild_rank_and_printed_jokers_are_jokers() -> None:
    wild = wild_rank_for_cut(parse_card("9C"))
    assert all(is_joker(parse_card(f"9{s}"), wild) for s in "SHDC")
    assert is_joker(PRINTED_JOKER, wild)
    assert not is_joker(parse_card("8C"), wild)


def test_parse_rank() -> None:
    assert parse_rank("7") == 7
    assert parse_rank("T") == 10
    assert parse_rank("10") == 10
    assert parse_rank("q") == 12
    assert parse_rank("A") == 1
    assert parse_rank("PJ") == 0
    for bad in ("1", "11", "X", ""):
        with pytest.raises(InvalidCardError):
            parse_rank(bad)


def test_sorted_hand_groups_by_suit_then_rank_jokers_last() -> None:
    hand = parse_cards(["PJ", "2C", "KS", "AS", "5H"])
    assert [c.code for c in sorted_hand(hand)] == ["AS", "KS", "5H", "2C", "PJ"]


def test_parse_card_of_every_canonical_code_is_that_card() -> None:
    """The canonical codes (what the stored state holds) parse to the card they name."""
    for card in [PRINTED_JOKER, *(Card(rank, suit) for rank in range(1, 14) for suit in "SHDC")]:
        assert parse_card(card.code) == card
        assert parse_card(f" {card.code.lower()} ") == card
