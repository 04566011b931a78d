"""Groups and the scoring of an arrangement (docs/rules.md §3-5).

A *group* is any run of cards the player shows together. :func:`classify_group`
tells what it is; :func:`score_arrangement` scores a whole arrangement the way
docs/rules.md §5 scores a loser, and says whether it is a valid declaration (docs/rules.md §4).

Vocabulary used throughout the engine:

* *printed joker*: ``PJ``, always a joker;
* *wild card*: a card of the wild rank this deal (``wild_rank``, 1..13); it is a
  joker, but may also stand as its natural self in a pure sequence (docs/rules.md §3);
* *natural*: any other card.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from game_engine.cards import ACE, PRINTED_JOKER_RANK, Card, card_points, parse_cards
from game_engine.shapes import NotRequired, TypedDict

#: The top position of a run: an Ace played high (Q-K-A) sits at 14.
ACE_HIGH = 14
#: A sequence fits within A..A: at most 14 positions (docs/rules.md §3).
MAX_RUN = 14
#: A declaration shows exactly 13 cards (docs/rules.md §4).
HAND_SIZE = 13


class GroupKind(enum.StrEnum):
    PURE_SEQUENCE = "pure_sequence"
    IMPURE_SEQUENCE = "impure_sequence"
    SET = "set"
    INVALID = "invalid"

    @property
    def is_valid(self) -> bool:
        return self is not GroupKind.INVALID

    @property
    def is_sequence(self) -> bool:
        return self is GroupKind.PURE_SEQUENCE or self is GroupKind.IMPURE_SEQUENCE


def _is_natural_run(ranks: list[int]) -> bool:
    """Distinct ranks that are consecutive with the Ace low, or with the Ace high."""
    n = len(ranks)
    if len(set(ranks)) != n:
        return False
    lo = sorted(ranks)
    if lo[-1] - lo[0] == n - 1:
        return True
    if lo[0] == ACE:
        hi = sorted(ACE_HIGH if r == ACE else r for r in ranks)
        return hi[-1] - hi[0] == n - 1
    return False


def _fits_run(ranks: list[int], size: int) -> bool:
    """Can naturals of distinct ``ranks`` sit in one run of ``size`` positions within A..A?

    The jokers (``size - len(ranks)``) fill the gaps and extend either end. An Ace is
    either low (1) or high (14), never both (K-A-2 is not a run).
    """
    if size > MAX_RUN or len(set(ranks)) != len(ranks):
        return False
    low_span = max(ranks) - min(ranks) + 1
    if low_span <= size:
        return True
    if ACE in ranks:
        high = [ACE_HIGH if r == ACE else r for r in ranks]
        return max(high) - min(high) + 1 <= size
    return False


def classify_group(cards: Sequence[Card], wild_rank: int) -> GroupKind:
    """What a group of cards is under docs/rules.md §3.

    * fewer than 3 cards: INVALID (loose cards);
    * PURE_SEQUENCE: 3+ cards of one suit in consecutive order with no joker standing
      in for another card; a wild card in its own natural place keeps it pure, a
      printed joker never does;
    * IMPURE_SEQUENCE: a sequence where jokers (printed or wild) fill gaps or extend
      an end, within A..A; a group made only of jokers is one too **[chosen]**;
    * SET: 3+ cards whose naturals share one rank with pairwise distinct suits, jokers
      filling (any size). A group that is both a set and a sequence (one natural and
      jokers) is reported as the more useful IMPURE_SEQUENCE.
    """
    n = len(cards)
    if n < 3:
        return GroupKind.INVALID
    printed = sum(1 for c in cards if c.rank == PRINTED_JOKER_RANK)
    if printed == 0 and len({c.suit for c in cards}) == 1 and _is_natural_run([c.rank for c in cards]):
        return GroupKind.PURE_SEQUENCE
    naturals = [c for c in cards if c.rank != PRINTED_JOKER_RANK and c.rank != wild_rank]
    if not naturals:
        return GroupKind.IMPURE_SEQUENCE
    if len({c.suit for c in naturals}) == 1 and _fits_run([c.rank for c in naturals], n):
        # Jokers are standing in (otherwise the pure test above would have passed).
        return GroupKind.IMPURE_SEQUENCE
    if len({c.rank for c in naturals}) == 1 and len({c.suit for c in naturals}) == len(naturals):
        return GroupKind.SET
    return GroupKind.INVALID


@dataclass(frozen=True)
class HandScore:
    """The verdict on one arrangement.

    ``valid``: a valid declaration (docs/rules.md §4: every card in a valid group, at least two
    sequences, at least one pure). ``points``: the docs/rules.md §5 count before the cap (0 when
    valid). ``score``: ``min(points, cap)``. ``kinds[i]`` classifies ``groups[i]``.
    """

    valid: bool
    points: int
    score: int
    kinds: tuple[GroupKind, ...]


def _points(cards: Sequence[Card], wild_rank: int) -> int:
    return sum(card_points(c, wild_rank) for c in cards)


def score_arrangement(groups: Sequence[Sequence[Card]], wild_rank: int, cap: int = 80) -> HandScore:
    """Score an arrangement as docs/rules.md §5 scores a loser.

    * no pure sequence among the groups: every card counts (jokers 0);
    * a pure sequence but only one sequence in total: everything except that pure
      sequence counts (sets do not help);
    * otherwise: the points of the cards not in valid groups.

    Empty groups hold no card and are ignored for validity.
    """
    kinds = tuple(classify_group(g, wild_rank) for g in groups)
    n_pure = sum(1 for k in kinds if k is GroupKind.PURE_SEQUENCE)
    n_seq = sum(1 for k in kinds if k.is_sequence)
    total = sum(_points(g, wild_rank) for g in groups)
    if n_pure == 0:
        points = total
    elif n_seq == 1:
        pure = next(g for g, k in zip(groups, kinds, strict=True) if k is GroupKind.PURE_SEQUENCE)
        points = total - _points(pure, wild_rank)
    else:
        points = sum(_points(g, wild_rank) for g, k in zip(groups, kinds, strict=True) if not k.is_valid)
    all_placed = all(k.is_valid or not g for g, k in zip(groups, kinds, strict=True))
    valid = all_placed and n_pure >= 1 and n_seq >= 2
    return HandScore(valid=valid, points=points, score=min(points, cap), kinds=kinds)


def is_valid_declaration(groups: Sequence[Sequence[Card]], wild_rank: int) -> bool:
    """docs/rules.md §4: exactly 13 cards, all in valid groups, 2+ sequences, 1+ pure."""
    if sum(len(g) for g in groups) != HAND_SIZE:
        return False
    return score_arrangement(groups, wild_rank).valid


def finish_card(
    groups: Sequence[Sequence[str]], cards: Sequence[Sequence[Card]], wild_rank: int
) -> str | None:
    """The card of a 14-card arrangement that, put in the finish slot, leaves the player's groups a
    valid declaration (docs/rules.md §4), or None: so that a page invites a declaration only when
    the arrangement as it stands makes one, never a wrong show. The first such card in hand order.
    """
    if sum(len(g) for g in cards) != HAND_SIZE + 1:
        return None
    # A card taken from one group changes that group alone, and a declaration needs every group
    # valid: with two groups invalid no card can make one, with one only a card of that group can.
    # Most arrangements are asked about mid-turn, far from a show, and end here after one pass.
    invalid = [
        gi for gi, group in enumerate(cards) if group and not classify_group(group, wild_rank).is_valid
    ]
    if len(invalid) > 1:
        return None
    for gi, group in enumerate(cards):
        if invalid and gi != invalid[0]:
            continue
        for ci in range(len(group)):
            rest = [g for k, g in enumerate(cards) if k != gi] + [[c for j, c in enumerate(group) if j != ci]]
            if is_valid_declaration([g for g in rest if g], wild_rank):
                return groups[gi][ci]
    return None


class GroupVerdict(TypedDict):
    """The engine's verdict on one group."""

    kind: Literal["pure_sequence", "impure_sequence", "set", "invalid"]
    points: int
    """What the group's cards count if it does not help (jokers 0)."""


class Verdict(TypedDict):
    """The engine's verdict on groups (``verdict``)."""

    groups: list[GroupVerdict]
    points: int
    """The docs/rules.md §5 count of the whole, before the cap."""
    valid: bool
    """A valid declaration (docs/rules.md §4, 13 cards)."""
    score: NotRequired[int]
    """At a table: ``points`` capped at its full count (docs/rules.md §5.4)."""
    finish_with: NotRequired[str | None]
    """At a table, for 14 cards: the card to put in the finish slot for a valid declaration."""


def verdict(groups: Sequence[Sequence[str]], wild_rank: int, full_count: int | None = None) -> Verdict:
    """The engine's verdict on groups written in notation, as the table page labels them.

    Each group's ``kind`` and ``points`` (what its cards count if it does not help, jokers 0),
    the docs/rules.md §5 ``points`` of the whole, and whether it is a valid declaration
    (docs/rules.md §4, 13 cards). Given a table's ``full_count``, also ``score``: what the rules
    charge the hand as a loser's count there, ``points`` capped at the full count (docs/rules.md
    §5.4), so that a page shows the cap without knowing the rule, and ``finish_with``: the card
    to put in the finish slot for a valid declaration of these 14 cards (``finish_card``). Raises ``InvalidCardError`` on a
    card it cannot read. Shared by ``POST /api/groups/evaluate/`` and the table socket's
    ``evaluate`` (which knows its table's full count).
    """
    cards = [parse_cards(g) for g in groups]
    scored = (
        score_arrangement(cards, wild_rank)
        if full_count is None
        else score_arrangement(cards, wild_rank, full_count)
    )
    answer: Verdict = {
        "groups": [
            {"kind": kind.value, "points": _points(g, wild_rank)}
            for g, kind in zip(cards, scored.kinds, strict=True)
        ],
        "points": scored.points,
        # is_valid_declaration's answer, without scoring the groups a second time
        "valid": scored.valid and sum(len(g) for g in cards) == HAND_SIZE,
    }
    if full_count is not None:
        answer["score"] = scored.score
        answer["finish_with"] = finish_card(groups, cards, wild_rank)
    return answer
