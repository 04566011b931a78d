"""Cards, packs, notation and wild jokers (docs/rules.md §1-2).

A card is a small frozen value. Two physically different cards with the same
notation (one from each pack) are equal for every rule, so a card carries no
pack identity: a hand is a multiset of cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from game_engine.errors import InvalidCardError

#: Suits in tie-break order for the toss (docs/rules.md §6): S > H > D > C.
SUITS: Final[tuple[str, ...]] = ("S", "H", "D", "C")
#: Ranks 1..13, Ace low by number. Ace-high is handled by the meld rules.
RANKS: Final[tuple[int, ...]] = tuple(range(1, 14))
ACE: Final = 1
JACK: Final = 11
QUEEN: Final = 12
KING: Final = 13
#: The rank value used for the printed joker.
PRINTED_JOKER_RANK: Final = 0

_RANK_NAMES: Final[dict[int, str]] = {
    1: "A",
    2: "2",
    3: "3",
    4: "4",
    5: "5",
    6: "6",
    7: "7",
    8: "8",
    9: "9",
    10: "10",
    11: "J",
    12: "Q",
    13: "K",
}
_RANK_BY_NAME: Final[dict[str, int]] = {v: k for k, v in _RANK_NAMES.items()} | {"T": 10, "1": 1}
_SUIT_SYMBOLS: Final[dict[str, str]] = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card; ``rank`` 0 with ``suit`` "" is the printed joker."""

    rank: int
    suit: str
    #: Canonical notation: ``10H``, ``QS``, ``AD``, ``PJ``. Made once with the card: the state, the
    #: views and the events write every card's code at every action (a property costs a busy server's CPU).
    code: str = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.rank == PRINTED_JOKER_RANK:
            if self.suit != "":
                raise InvalidCardError(f"the printed joker has no suit, got {self.suit!r}")
            object.__setattr__(self, "code", "PJ")
        elif self.rank not in _RANK_NAMES or self.suit not in SUITS:
            raise InvalidCardError(f"no such card: rank {self.rank!r} suit {self.suit!r}")
        else:
            object.__setattr__(self, "code", _RANK_NAMES[self.rank] + self.suit)

    @property
    def is_printed_joker(self) -> bool:
        return self.rank == PRINTED_JOKER_RANK

    @property
    def points(self) -> int:
        """Face points before jokers are considered (docs/rules.md §1): A,K,Q,J = 10."""
        if self.rank == PRINTED_JOKER_RANK:
            return 0
        if self.rank == ACE or self.rank >= JACK:
            return 10
        return self.rank

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


PRINTED_JOKER: Final = Card(PRINTED_JOKER_RANK, "")
#: Every card by its canonical code: parsing the stored state (canonical codes only) is a lookup.
_BY_CODE: Final[dict[str, Card]] = {"PJ": PRINTED_JOKER} | {
    c.code: c for c in (Card(rank, suit) for rank in RANKS for suit in SUITS)
}


def parse_card(text: str) -> Card:
    """Parse notation such as ``10H``, ``th``, ``Q♠`` or ``PJ`` (docs/rules.md §1)."""
    if not isinstance(text, str):
        raise InvalidCardError(f"a card must be a string, got {type(text).__name__}")
    known = _BY_CODE.get(text)
    if known is not None:  # a canonical code: the card the slow path below would build
        return known
    raw = text.strip()
    upper = raw.upper()
    if upper in ("PJ", "JOKER"):
        return PRINTED_JOKER
    if len(upper) < 2:
        raise InvalidCardError(f"malformed card {text!r}: expected rank then suit, e.g. 10H")
    suit = _SUIT_SYMBOLS.get(raw[-1], upper[-1])
    rank_name = upper[:-1]
    if suit not in SUITS or rank_name not in _RANK_BY_NAME or rank_name == "1":
        raise InvalidCardError(f"malformed card {text!r}: expected rank A,2-10,J,Q,K then suit S,H,D,C")
    return Card(_RANK_BY_NAME[rank_name], suit)


def parse_cards(texts: Iterable[str]) -> list[Card]:
    return [parse_card(t) for t in texts]


def parse_rank(text: str) -> int:
    """Parse a rank name (``7``, ``T``, ``Q``, ``A``) or ``PJ`` (rank 0)."""
    upper = str(text).strip().upper()
    if upper in ("PJ", "JOKER"):
        return PRINTED_JOKER_RANK
    if upper not in _RANK_BY_NAME or upper == "1":
        raise InvalidCardError(f"malformed rank {text!r}: expected A,2-10,J,Q,K or PJ")
    return _RANK_BY_NAME[upper]


def rank_name(rank: int) -> str:
    return "PJ" if rank == PRINTED_JOKER_RANK else _RANK_NAMES[rank]


def wild_rank_for_cut(cut: Card) -> int:
    """The rank that is wild this deal (docs/rules.md §2): a printed joker cut makes Aces wild."""
    return ACE if cut.is_printed_joker else cut.rank


def is_joker(card: Card, wild_rank: int) -> bool:
    """Printed jokers are always jokers; every card of the wild rank is one too."""
    return card.rank == PRINTED_JOKER_RANK or card.rank == wild_rank


def card_points(card: Card, wild_rank: int) -> int:
    """Points a card costs in a loser's count: every joker is 0 (docs/rules.md §1)."""
    return 0 if is_joker(card, wild_rank) else card.points


def build_packs(decks: int = 2) -> list[Card]:
    """``decks`` packs of 52 cards plus one printed joker each (docs/rules.md §1)."""
    if decks not in (1, 2, 3):
        raise InvalidCardError(f"a table uses 2 or 3 packs, got {decks}")
    one = [Card(r, s) for s in SUITS for r in RANKS] + [PRINTED_JOKER]
    return one * decks


def sort_key(card: Card) -> tuple[int, int]:
    """Default arrangement order: by suit (S, H, D, C, then jokers), then rank."""
    if card.is_printed_joker:
        return (len(SUITS), 0)
    return (SUITS.index(card.suit), card.rank)


def sorted_hand(cards: Sequence[Card]) -> list[Card]:
    return sorted(cards, key=sort_key)


def toss_key(card: Card) -> tuple[int, int]:
    """Higher is better in the toss (docs/rules.md §6): A high, then K..2; S > H > D > C."""
    rank = 14 if card.rank == ACE else card.rank
    return (rank, len(SUITS) - SUITS.index(card.suit) if card.suit else 0)
