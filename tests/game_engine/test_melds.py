"""Groups (docs/rules.md §3), declarations (docs/rules.md §4) and the losers' count (docs/rules.md §5)."""

from __future__ import annotations

import pytest

from game_engine.cards import Card, parse_card
from game_engine.melds import (
    GroupKind,
    HandScore,
    classify_group,
    finish_card,
    is_valid_declaration,
    score_arrangement,
    verdict,
)

PURE = GroupKind.PURE_SEQUENCE
IMPURE = GroupKind.IMPURE_SEQUENCE
SET = GroupKind.SET
INVALID = GroupKind.INVALID


def g(text: str) -> list[Card]:
    return [parse_card(t) for t in text.split()]


def kind(text: str, wild: int) -> GroupKind:
    return classify_group(g(text), wild)


def arrangement(*groups: str) -> list[list[Card]]:
    return [g(t) for t in groups]


# --- docs/rules.md §3: groups ---------------------------------------------------------------


def test_rules_3_group_kind_values() -> None:
    assert [k.value for k in GroupKind] == ["pure_sequence", "impure_sequence", "set", "invalid"]
    assert GroupKind("set") is SET


@pytest.mark.parametrize("text", ["", "5H", "5H 6H", "PJ PJ", "7S 7H"])
def test_rules_3_fewer_than_three_cards_are_loose(text: str) -> None:
    assert kind(text, 2) is INVALID


def test_rules_3_sequence_three_consecutive_one_suit_is_pure() -> None:
    assert kind("5H 6H 7H", 2) is PURE
    assert kind("7H 5H 6H", 2) is PURE  # order of the cards in the group does not matter
    assert kind("9C 10C JC QC KC", 2) is PURE


def test_rules_3_sequence_needs_one_suit() -> None:
    assert kind("5H 6S 7H", 2) is INVALID


def test_rules_3_sequence_needs_consecutive_ranks() -> None:
    assert kind("5H 6H 8H", 2) is INVALID
    assert kind("5H 5H 6H", 2) is INVALID


def test_rules_3_ace_low_sequence() -> None:
    assert kind("AS 2S 3S", 9) is PURE


def test_rules_3_ace_high_sequence() -> None:
    assert kind("QD KD AD", 9) is PURE
    assert kind("JD QD KD AD", 9) is PURE


def test_rules_3_kqa_wraps_not_allowed() -> None:
    """K-A-2 is not a sequence: the Ace is low or high, never both."""
    assert kind("KS AS 2S", 9) is INVALID
    assert kind("QS KS AS 2S", 9) is INVALID
    # even with a joker the run cannot wrap
    assert kind("KS AS PJ 3S", 9) is INVALID


def test_rules_3_full_suit_run_is_pure() -> None:
    assert kind("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS", 5) is PURE


def test_rules_3_run_must_fit_within_a_to_a() -> None:
    # 13 naturals 2..A high plus one joker standing for the low Ace: 14 positions, fits
    assert kind("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS PJ", 5) is IMPURE
    # 15 cards cannot fit in 14 positions
    assert kind("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS PJ PJ", 5) is INVALID
    # Q K A + two jokers: the jokers extend downward to 10, J (fits)
    assert kind("QS KS AS PJ PJ", 5) is IMPURE


def test_rules_3_joker_fills_gap_or_extends_impure() -> None:
    assert kind("5H PJ 7H", 2) is IMPURE
    assert kind("5H 6H PJ", 2) is IMPURE
    assert kind("PJ 5H 6H", 2) is IMPURE
    assert kind("2S 3S PJ 5S", 9) is IMPURE
    assert kind("5H 9H PJ PJ", 2) is INVALID  # 5..9 needs 3 fillers, only 2 jokers


def test_rules_3_wild_card_as_joker_makes_impure() -> None:
    # 6 wild: a 6 of another suit stands in for 6H
    assert kind("5H 6S 7H", 6) is IMPURE


def test_rules_3_wild_card_in_natural_place_keeps_pure() -> None:
    """docs/rules.md §3: with 6 wild, 5H 6H 7H is pure."""
    assert kind("5H 6H 7H", 6) is PURE
    assert kind("6H 7H 8H", 6) is PURE
    assert kind("QD KD AD", 1) is PURE  # Aces wild, AD natural at the top


def test_rules_3_wild_card_of_right_suit_out_of_place_is_a_joker() -> None:
    # 6 wild: 6H cannot be natural here (it would need to be 8H)
    assert kind("6H 7H 9H", 6) is IMPURE
    assert kind("6H 6H 7H 8H", 6) is IMPURE  # one 6H natural, the other a joker


def test_rules_3_printed_joker_never_in_pure_sequence() -> None:
    assert kind("5H 6H 7H PJ", 2) is IMPURE
    assert kind("PJ 2H 3H", 9) is IMPURE


def test_rules_3_sequence_with_only_one_natural_and_jokers() -> None:
    assert kind("5H PJ PJ", 2) is IMPURE
    assert kind("KH PJ 2S", 2) is IMPURE  # 2S is wild: KH + two jokers


def test_rules_3_set_of_three_or_four_distinct_suits() -> None:
    assert kind("7S 7H 7D", 2) is SET
    assert kind("7S 7H 7D 7C", 2) is SET


def test_rules_3_set_with_duplicate_suit_invalid() -> None:
    """7S 7S 7H is not a set, even with two packs."""
    assert kind("7S 7S 7H", 2) is INVALID
    assert kind("7S 7H 7D 7S", 2) is INVALID
    assert kind("8H 8H 8S", 10) is INVALID


def test_rules_3_set_with_jokers_and_over_four_cards() -> None:
    """5D 5C PJ QH QS is a valid 5-card set when Q is wild."""
    assert kind("5D 5C PJ QH QS", 12) is SET
    assert kind("7S 7H PJ", 2) is SET
    assert kind("7S 7H 7D 7C PJ", 2) is SET
    assert kind("7S 7H 7D 7C PJ PJ", 2) is SET
    assert kind("7S 7S PJ", 2) is INVALID  # duplicate suit still invalid with a joker


def test_rules_3_set_ranks_must_match() -> None:
    assert kind("7S 8H 7D", 2) is INVALID


def test_rules_3_all_joker_group_is_impure_sequence() -> None:
    """[chosen] A group made only of jokers is a valid impure sequence."""
    assert kind("PJ PJ 2S", 2) is IMPURE
    assert kind("2S 2S 2H", 2) is IMPURE  # wild cards only (even same suit twice)
    assert kind("2S 2H 2D 2C", 2) is IMPURE


def test_rules_3_wild_rank_set_is_still_jokers() -> None:
    # 3 wild: 3S 3H 4H -> 4H with two jokers: a sequence (more useful than the set)
    assert kind("3S 3H 4H", 3) is IMPURE


# --- docs/rules.md §4: declaration ----------------------------------------------------------


def test_rules_4_valid_declaration() -> None:
    groups = arrangement("AH 2H 3H", "7S 8S 9S 10S JS", "5D 5C PJ QH QS")
    assert is_valid_declaration(groups, 12)
    score = score_arrangement(groups, 12)
    assert score == HandScore(valid=True, points=0, score=0, kinds=(PURE, PURE, SET))


def test_rules_4_needs_a_pure_sequence() -> None:
    groups = arrangement("AH PJ 3H", "7S 8S 9S 10S 2D", "5D 5C 5H", "KS KD")
    assert not is_valid_declaration(groups, 2)


def test_rules_4_needs_two_sequences() -> None:
    groups = arrangement("AH 2H 3H", "7S 7H 7D", "5D 5C 5H", "KS KD KH KC")
    assert not is_valid_declaration(groups, 9)
    score = score_arrangement(groups, 9)
    assert not score.valid
    assert score.points == 21 + 15 + 40  # only the pure run is excluded


def test_rules_4_every_card_in_a_valid_group() -> None:
    groups = arrangement("AH 2H 3H", "7S 8S 9S", "5D 5C 5H", "KS KD KH", "QC")
    assert not is_valid_declaration(groups, 9)  # QC is loose
    score = score_arrangement(groups, 9)
    assert (score.valid, score.points) == (False, 10)


def test_rules_4_thirteen_cards_required() -> None:
    twelve = arrangement("AH 2H 3H", "7S 8S 9S", "5D 5C 5H", "KS KD KH")
    assert not is_valid_declaration(twelve, 9)
    assert score_arrangement(twelve, 9).valid  # the groups themselves are fine


def test_rules_4_impure_second_sequence_with_pure_is_valid() -> None:
    groups = arrangement("5H 6H 7H", "9C 10C PJ QC", "KD KS KH", "3S 3D 3C")
    assert is_valid_declaration(groups, 6)


def test_rules_4_two_pure_sequences_from_identical_cards() -> None:
    groups = arrangement("4H 5H 6H", "4H 5H 6H", "9C 9D 9S", "KC KD KS KH")
    assert is_valid_declaration(groups, 2)


def test_rules_4_all_joker_group_can_be_the_second_sequence() -> None:
    groups = arrangement("4H 5H 6H", "PJ 2S 2D", "9C 9D 9S", "KC KD KS KH")
    assert is_valid_declaration(groups, 2)
    groups = arrangement("PJ 2S 2D", "2H 2C PJ", "9C 9D 9S", "KC KD KS KH")
    assert not is_valid_declaration(groups, 2)  # never the pure one


def test_rules_4_empty_groups_are_ignored() -> None:
    groups = arrangement("AH 2H 3H", "7S 8S 9S 10S JS", "5D 5C PJ QH QS", "")
    assert is_valid_declaration(groups, 12)


# --- docs/rules.md §5: scoring the losers ---------------------------------------------------


def test_rules_5_no_pure_all_cards_count() -> None:
    """Seed: two impure sequences, no pure -> all cards count (jokers 0)."""
    groups = arrangement("3H PJ 5H", "8C 9C 7D", "KS KD KH", "2S 2D 2C", "QD")
    score = score_arrangement(groups, 7)
    assert score.kinds == (IMPURE, IMPURE, SET, SET, INVALID)
    assert (score.valid, score.points, score.score) == (False, 71, 71)


def test_rules_5_pure_but_no_second_sequence_sets_do_not_help() -> None:
    groups = arrangement("2H 3H 4H", "KS KD KC", "9C 9D 9S", "5D 7C JH QS")
    score = score_arrangement(groups, 6)
    assert (score.points, score.score) == (89, 80)


def test_rules_5_pure_and_second_sequence_only_loose_cards_count() -> None:
    groups = arrangement("9D 10D JD", "2C 3C 4C", "KS QH QD", "7S 7H 7D", "7S")
    score = score_arrangement(groups, 12)
    # Q wild: KS with two jokers is a sequence
    assert score.kinds == (PURE, PURE, IMPURE, SET, INVALID)
    assert (score.valid, score.points) == (False, 7)


def test_rules_5_invalid_groups_count_in_full() -> None:
    groups = arrangement("9D 10D JD", "2C 3C PJ", "KS KD", "5H 6S 8C")
    assert score_arrangement(groups, 12).points == 20 + 19


def test_rules_5_cap_is_the_full_count() -> None:
    groups = arrangement("KS KD KC", "9C 9D 9S", "2H 4H 6H", "8D 10C PJ QS")
    assert score_arrangement(groups, 3).points == 97
    assert score_arrangement(groups, 3).score == 80
    assert score_arrangement(groups, 3, cap=60).score == 60


def test_rules_5_4_the_verdict_at_a_table_gives_the_capped_score_the_page_shows() -> None:
    groups = [["KS", "KD", "KC"], ["9C", "9D", "9S"], ["2H", "4H", "6H"], ["8D", "10C", "PJ", "QS"]]
    at_61 = verdict(groups, 3, full_count=60)
    assert (at_61["points"], at_61["score"], at_61["valid"]) == (97, 60, False)
    assert verdict(groups, 3, full_count=80)["score"] == 80
    small = [["AH", "2H", "3H"], ["5S", "9D"]]  # 5 + 9 = 14, under any cap
    assert verdict(small, 12, full_count=60)["score"] == verdict(small, 12)["points"] == 14
    assert "score" not in verdict(groups, 3)  # without a table, no full count to cap at


def test_rules_5_jokers_count_zero_when_loose() -> None:
    groups = arrangement("9D 10D JD", "2C 3C 4C", "PJ 5H 5S")  # 5 wild: all three loose jokers... a run
    assert score_arrangement(groups, 5).kinds[2] is IMPURE
    loose = arrangement("9D 10D JD", "2C 3C 4C", "PJ 5H")
    assert score_arrangement(loose, 5).points == 0
    assert not score_arrangement(loose, 5).valid


def test_rules_5_pure_exclusion_counts_only_that_run() -> None:
    # a single pure run plus an invalid rest: the run's 5+6+7+8 are excluded
    groups = arrangement("5H 6H 7H 8H", "KS KD KC 2C 9S QD 3D 10C 4S")
    assert score_arrangement(groups, 11).points == 68


def test_verdict_names_the_finish_card_of_a_fourteen_card_declaration() -> None:
    """The table page invites a declaration only when the server names the card that makes one."""
    groups = [["AS", "2S", "3S", "9S"], ["4H", "5H", "6H"], ["7D", "8D", "9D"], ["10C", "JC", "QC", "KC"]]
    assert verdict(groups, 5, 80)["finish_with"] == "9S"
    by_rank = [[c] for c in ["AS", "2S", "3S", "4H", "5H", "6H", "7D", "8D", "10C", "JC", "QC", "KC"]] + [
        ["9D", "9S"]
    ]
    assert verdict(by_rank, 5, 80)["finish_with"] is None
    assert verdict(groups[:3], 5, 80)["finish_with"] is None  # 10 cards: nothing to finish
    assert "finish_with" not in verdict(groups, 5)  # the HTTP API's answer is unchanged


def _finish_card_by_trying_every_card(
    groups: list[list[str]], cards: list[list[Card]], wild_rank: int
) -> str | None:
    """``finish_card`` as first written: every card of the 14 tried in the finish slot, in hand order."""
    if sum(len(g) for g in cards) != 14:
        return None
    for gi, group in enumerate(cards):
        for ci in range(len(group)):
            rest = [g for k, g in enumerate(cards) if k != gi] + [[c for j, c in enumerate(group) if j != ci]]
            if is_valid_declaration([g for g in rest if g], wild_rank):
                return groups[gi][ci]
    return None


def test_finish_card_names_what_trying_every_card_names() -> None:
    """The shortcut (two invalid groups: no card; one: only its cards) changes no answer: random
    14-card arrangements, many of them one card away from a declaration, against the slow search."""
    import random

    from game_engine.cards import build_packs

    rng = random.Random(26)
    deck = [c.code for c in build_packs(2)]
    declarations = [
        [["AS", "2S", "3S", "9S"], ["4H", "5H", "6H"], ["7D", "8D", "9D"], ["10C", "JC", "QC", "KC"]],
        [["5H", "6H", "7H"], ["9C", "PJ", "JC"], ["KD", "KS", "KH", "2D"], ["3S", "4S", "5S", "6S"]],
        [["QH", "KH", "AH", "7C"], ["2C", "2D", "2S"], ["8S", "9S", "10S"], ["4D", "5D", "PJ", "7D"]],
    ]
    named = 0
    for trial in range(1500):
        if trial % 3 == 0:  # a near-declaration, its groups and cards shuffled
            groups = [list(g) for g in rng.choice(declarations)]
            rng.shuffle(groups)
            for g in groups:
                rng.shuffle(g)
            if trial % 2:  # and a card moved to another group
                source, target = rng.sample(range(len(groups)), 2)
                groups[target].append(groups[source].pop())
        else:  # 14 random cards in 1 to 6 groups
            hand = rng.sample(deck, 14)
            cuts = sorted(rng.sample(range(1, 14), rng.randint(0, 5)))
            groups = [hand[a:b] for a, b in zip([0, *cuts], [*cuts, 14], strict=True)]
        wild = rng.randint(1, 13)
        cards = [[parse_card(c) for c in g] for g in groups]
        expected = _finish_card_by_trying_every_card(groups, cards, wild)
        assert finish_card(groups, cards, wild) == expected, (groups, wild)
        named += expected is not None
    assert named > 100  # the near-declarations do reach the search's answers, not only None
