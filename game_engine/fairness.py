"""The verifiable shuffle: commit to a server seed, mix in the players' seeds, reveal after the deal.

Everything here is a pure function of its arguments; docs/fairness.md states the
same algorithm in words, with a worked example, so anyone can reimplement it.

* ``server_seed``: 32 random bytes written as 64 lower-case hex digits, drawn by
  the server with ``secrets`` before the deal; its commitment is
  ``sha256(server_seed as ASCII text)`` in hex, published before the cards are dealt.
* ``client_seeds``: one string per engine seat, in seat order (seat 0 first),
  1-64 characters of ``[A-Za-z0-9_-]``, so ``|`` can separate them unambiguously.
* The stream: block ``i`` (``i`` = 0, 1, 2, ...) is
  ``HMAC-SHA256(key=bytes.fromhex(server_seed), msg=ASCII(label "|" seeds "|" deal_no "|" i))``
  where ``seeds`` is the client seeds joined by ``|``. Each block gives eight
  unsigned 32-bit big-endian words, used in order.
* ``below(n)``: draw words until one is ``< 2**32 - (2**32 % n)`` and return it ``% n``
  (rejection sampling: every residue equally likely, no modulo bias).
* The deck: ``decks`` copies of the pack ``S A..K, H A..K, D A..K, C A..K, printed
  joker`` (``game_engine.cards.build_packs``), shuffled by Fisher-Yates from the top
  index down: for ``i`` from ``len - 1`` to 1, swap ``deck[i]`` with ``deck[below(i + 1)]``.
  The shuffled list is the deck order, index 0 the top card.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from game_engine.cards import Card, build_packs, parse_card

#: The stream label of a deal's deck, toss and cut joker; reshuffles use ``reshuffle<k>``.
DEAL = "deal"
SEED_RE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
SERVER_SEED_RE = re.compile(r"^[0-9a-f]{64}$")

T = TypeVar("T")


def commitment(server_seed: str) -> str:
    """The SHA-256 of the seed's text, published before the deal and checked after it."""
    return hashlib.sha256(server_seed.encode("ascii")).hexdigest()


def valid_client_seed(seed: object) -> bool:
    return isinstance(seed, str) and bool(SEED_RE.match(seed))


def derived_seed(secret: str, what: str) -> str:
    """A 64-hex seed derived from ``secret`` (simulations, tests and generated client seeds)."""
    return hmac.new(secret.encode(), what.encode(), hashlib.sha256).hexdigest()


class Stream:
    """Uniform integers from HMAC-SHA256 in counter mode (see the module docstring)."""

    def __init__(self, server_seed: str, client_seeds: list[str], deal_no: int, label: str = DEAL) -> None:
        if not SERVER_SEED_RE.match(server_seed):
            raise ValueError("the server seed must be 64 lower-case hex digits")
        for s in client_seeds:
            if not valid_client_seed(s):
                raise ValueError(f"bad client seed {s!r}")
        self._key = bytes.fromhex(server_seed)
        self._prefix = f"{label}|{'|'.join(client_seeds)}|{deal_no}|"
        self._words = self._gen()

    def _gen(self) -> Iterator[int]:
        counter = 0
        while True:
            block = hmac.new(self._key, f"{self._prefix}{counter}".encode("ascii"), hashlib.sha256).digest()
            for k in range(0, 32, 4):
                yield int.from_bytes(block[k : k + 4], "big")
            counter += 1

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), by rejection sampling."""
        if not 0 < n <= 2**32:
            raise ValueError("n out of range")
        limit = 2**32 - (2**32 % n)
        while True:
            w = next(self._words)
            if w < limit:
                return w % n

    def shuffle(self, items: list[T]) -> None:
        """Fisher-Yates in place, from the last index down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


@dataclass(frozen=True, slots=True)
class Shuffled:
    """What one deal's stream fixes: the deck order (top first) and, when asked, the toss."""

    deck: list[Card]
    toss: list[Card]


def deal_stream(
    server_seed: str, client_seeds: list[str], deal_no: int, decks: int, toss_seats: int = 0
) -> Shuffled:
    """The deck order of a deal, then (same stream) the toss cards for ``toss_seats`` seats.

    The toss (docs/rules.md §6) draws one card per seat, in seat order, from a fresh
    unshuffled set of packs without replacement (``below`` over the cards left);
    if two seats drew the same card (one copy from each pack) the whole toss is
    drawn again from a fresh set, continuing the stream.
    """
    stream = Stream(server_seed, client_seeds, deal_no)
    deck = build_packs(decks)
    stream.shuffle(deck)
    toss: list[Card] = []
    while toss_seats:
        pool = [c for c in build_packs(decks) if not c.is_printed_joker]
        toss = [pool.pop(stream.below(len(pool))) for _ in range(toss_seats)]
        if len(set(toss)) == len(toss):
            break
    return Shuffled(deck=deck, toss=toss)


def deck_order(server_seed: str, client_seeds: list[str], deal_no: int, decks: int = 2) -> list[str]:
    """The deck order as card codes, top first (what ``verify`` compares)."""
    return [c.code for c in deal_stream(server_seed, client_seeds, deal_no, decks).deck]


def reshuffle(cards: list[Card], server_seed: str, client_seeds: list[str], deal_no: int, k: int) -> None:
    """The ``k``-th reshuffle of the open pile in a deal: Fisher-Yates on stream ``reshuffle<k>``."""
    Stream(server_seed, client_seeds, deal_no, f"reshuffle{k}").shuffle(cards)


def layout(
    deck: list[Card], order: list[int], hand_size: int
) -> tuple[dict[int, list[Card]], Card, Card, list[Card]]:
    """How a deck order is dealt: one card at a time round ``order`` from the top, ``hand_size``
    rounds; the next card is the cut joker, the next the first open card; the rest is the
    closed deck with its top first (returned as a list whose end is the top, as the engine keeps it)."""
    hands: dict[int, list[Card]] = {s: [] for s in order}
    i = 0
    for _ in range(hand_size):
        for s in order:
            hands[s].append(deck[i])
            i += 1
    cut, open_card = deck[i], deck[i + 1]
    closed = list(reversed(deck[i + 2 :]))
    return hands, cut, open_card, closed


def dealt_deck(
    hands: dict[int, list[Card]], order: list[int], cut: Card, open_card: Card, closed: list[Card]
) -> list[str]:
    """The inverse of ``layout``: the deck order (codes, top first) a deal was dealt from.

    Call it at the deal's start, before any card moved.
    """
    deck: list[str] = []
    for k in range(len(hands[order[0]])):
        deck += [hands[s][k].code for s in order]
    return deck + [cut.code, open_card.code] + [c.code for c in reversed(closed)]


def verify(record: dict[str, Any]) -> tuple[bool, str]:
    """Check a claimed deal: ``{server_seed, client_seeds, deal_no, decks?, commitment?, order}``.

    ``order`` is the claimed deck order (card codes, top first). Returns (ok, why).
    """
    try:
        seed = str(record["server_seed"])
        seeds = [str(s) for s in record["client_seeds"]]
        deal_no = int(record["deal_no"])
        decks = int(record.get("decks", 2))
        claimed = [parse_card(str(c)).code for c in record["order"]]
        expected = deck_order(seed, seeds, deal_no, decks)
    except (KeyError, TypeError, ValueError) as exc:
        return False, f"malformed record: {exc}"
    want = record.get("commitment")
    if want is not None and commitment(seed) != want:
        return False, "the server seed does not match the published commitment"
    if claimed != expected:
        bad = next((i for i, (a, b) in enumerate(zip(claimed, expected, strict=False)) if a != b), None)
        if bad is None:
            return False, f"the order has {len(claimed)} cards, the seeds give {len(expected)}"
        return False, f"mismatch at position {bad}: claimed {claimed[bad]}, the seeds give {expected[bad]}"
    return True, "ok: the order follows from the seeds"
