"""Build games with chosen hands, for tests, fixtures and replays of reported hands.

``scripted_game`` starts a real game and then stacks its first deal: the given
hands, open card, cut joker and the top of the closed deck; the rest of the packs
form the rest of the closed deck, so every card is still in exactly one place.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from game_engine.actions import StartDeal
from game_engine.cards import Card, build_packs, parse_card, parse_cards, wild_rank_for_cut
from game_engine.errors import InvalidCardError
from game_engine.formats import TableRules
from game_engine.game import PLAYING, GameState, apply, new_game


def scripted_game(
    rules: TableRules,
    hands: Sequence[Sequence[str]],
    *,
    open_card: str,
    cut: str,
    closed_top: Sequence[str] = (),
    order: Sequence[int] | None = None,
    scores: Sequence[int] | None = None,
    at: int = 0,
    seed: int = 1,
) -> GameState:
    """A game whose deal 1 is stacked: seat i holds ``hands[i]``; ``closed_top[0]`` is drawn first.

    ``order`` is the play order (dealer last), default seat order; ``scores`` the
    starting cumulative scores. The first player's turn starts at ``at``.
    """
    n = len(hands)
    players = [(f"p{i}", f"Player {i}") for i in range(n)]
    state = new_game(rules, players, seed, at)
    if scores is not None:
        for p, sc in zip(state.players, scores, strict=True):
            p.score = sc
    order_l = list(order) if order is not None else list(range(n))
    state.order = order_l
    state.need_toss = False
    # Start the deal with the order we want (rotate back, since start_deal rotates by one).
    state.order = order_l[-1:] + order_l[:-1]
    state, _ = apply(state, StartDeal(at=at))
    d = state.deal
    assert d is not None
    wanted = Counter(parse_cards([c for h in hands for c in h] + [open_card, cut, *closed_top]))
    rest = Counter(build_packs(rules.decks))
    missing = wanted - rest
    if missing:
        raise InvalidCardError(f"more copies than the packs hold: {sorted(missing.elements())}")
    rest.subtract(wanted)
    closed = sorted(rest.elements())
    closed.extend(reversed(parse_cards(closed_top)))  # top of the deck is the end of the list
    d.hands = {i: parse_cards(h) for i, h in enumerate(hands)}
    d.open_pile = [parse_card(open_card)]
    d.cut_joker = parse_card(cut)
    d.wild_rank = wild_rank_for_cut(d.cut_joker)
    d.closed = closed
    d.arrangements = {}
    # Deal state was built for the real deal; auto drop on the first turn is not re-run here.
    state.phase = PLAYING
    return state


def cards(text: str) -> list[Card]:
    """``cards("AS 2S 3S")`` → list of cards (test convenience)."""
    return parse_cards(text.split())
