"""Bots that cheat together, and honest bots of several styles, for measuring the integrity signals.

``manage.py simulate --collusion`` seats colluding pairs among honest bots and asks whether the
integrity signals (``integrity.detect``) find the pairs and leave the honest players alone. To be
a fair test the honest players are not all alike: some play well (``smart``), some carelessly
(``weak``: they lose to everyone, which a naive chip-dumping rule would call dumping), some drop
often (``cautious``: a naive soft-play rule would flag them) and some take from the open pile
whenever a card is near their hand (``grabby``: a naive feeding rule would flag them).

The colluders see their partner's hand (what two people sharing a room or a call do):

- ``dumper``: loses on purpose while its partner is in the game: drops at every turn while the
  partner is in the deal, rejoins (paying another fee) and refuses splits; the partner plays well;
- ``soft``: both partners fold to each other: when the partner's hand is clearly better, drop;
- ``feeder``: when its partner plays next, discards a card the partner will take from the open
  pile (among its own discards that cost it little); the partner plays well.

Everything here is the engine's: ``play_table`` runs one game through ``apply``, seeded.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from game_engine import deal as dl
from game_engine.actions import (
    UNSTAMPED,
    Action,
    Discard,
    Draw,
    Drop,
    Leave,
    Rejoin,
    SplitDecline,
    Timeout,
)
from game_engine.arrange import best_arrangement
from game_engine.bots import SMART, choose_action
from game_engine.cards import Card, is_joker, parse_card, parse_cards
from game_engine.events import Event
from game_engine.formats import TableRules
from game_engine.game import FINISHED, GameState, apply, new_game
from game_engine.views import View, legal_actions, view_for

HONEST_STYLES = ("smart", "weak", "cautious", "grabby")
#: A colluding pair's kind and the roles of its two players (the first is the one who cheats).
COLLUSION_ROLES = {"dump": ("dumper", "smart"), "soft": ("soft", "soft"), "feed": ("feeder", "smart")}
_PASSIVE = frozenset({"arrange", "auto_drop", "im_back", "leave"})
#: How many rejoins a dumper pays for in one game (each one is another fee into the pool).
DUMPER_REJOINS = 2


@dataclass(frozen=True)
class Plan:
    """How one seat plays: its ``style`` (an honest style or a colluding role) and its partner's seat."""

    style: str
    partner: int | None = None


def _in_deal(state: GameState, seat: int | None) -> bool:
    d = state.deal
    return seat is not None and d is not None and d.status.get(seat) == dl.PLAYING


def _next_to_play(state: GameState, seat: int) -> int | None:
    """The seat that plays after ``seat`` in this deal (as ``deal._next_turn`` picks it)."""
    d = state.deal
    if d is None or seat not in d.order:
        return None
    i, n = d.order.index(seat), len(d.order)
    for k in range(1, n):
        s = d.order[(i + k) % n]
        if d.status.get(s) == dl.PLAYING:
            return s
    return None


def _points(hand: Sequence[Card], wild: int) -> int:
    return best_arrangement(hand, wild).points


def _would_take(hand: Sequence[Card], card: Card, wild: int) -> bool:
    """The smart bot's rule for taking the open card (``bots.choose_action``), for a partner's hand."""
    if is_joker(card, wild):
        return False  # a joker on the open pile cannot be taken (docs/rules.md §6.5)
    now = _points(hand, wild)
    cards = [*hand, card]
    for c in sorted(set(cards)):
        rest = list(cards)
        rest.remove(c)
        after = best_arrangement(rest, wild)
        if after.valid or after.points < now:
            return True
    return False


def _near(card: Card, hand: Sequence[Card]) -> bool:
    """Whether ``card`` could join a group with a card of ``hand`` (same rank, or same suit within 2)."""
    return any(
        (c.rank == card.rank and c.suit != card.suit)
        or (c.suit == card.suit and 0 < abs(c.rank - card.rank) <= 2)
        for c in hand
        if c.code != "PJ"
    )


def _feed(state: GameState, seat: int, partner: int, view: View) -> Action | None:
    """A discard the partner (next to play) will take, if one costs the feeder at most 10 points."""
    d = state.deal
    assert d is not None
    wild = d.wild_rank
    hand = list(d.hands[seat])
    theirs = list(d.hands[partner])
    base = choose_action(view)
    if not isinstance(base, Discard):
        return base
    own_best = _points(_without(hand, base.card.code), wild)
    tried = 0
    for card in sorted(set(hand), key=lambda c: -c.points):
        if card.code == base.card.code or is_joker(card, wild) or not _near(card, theirs):
            continue
        if _points(_without(hand, card.code), wild) > own_best + 10:
            continue
        tried += 1
        if _would_take(theirs, card, wild):
            return Discard(at=UNSTAMPED, seat=seat, card=card)
        if tried >= 3:
            break
    return base


def _without(hand: Sequence[Card], code: str) -> list[Card]:
    out = list(hand)
    for i, c in enumerate(out):
        if c.code == code:
            del out[i]
            break
    return out


def decide(state: GameState, seat: int, plan: Plan, rng: random.Random) -> Action | None:
    """The action ``seat`` takes now under ``plan`` (None: nothing; the timer moves on)."""
    legal = legal_actions(state, seat)
    if _PASSIVE.issuperset(legal):
        return None
    view = view_for(state, seat)
    d = state.deal
    style, partner = plan.style, plan.partner
    partner_in_game = partner is not None and not (
        state.players[partner].eliminated or state.players[partner].left
    )
    if style == "dumper" and partner_in_game:
        if "draw" in legal and _in_deal(state, partner):
            return Drop(at=UNSTAMPED, seat=seat)
        if "rejoin" in legal:
            if state.players[seat].rejoins < DUMPER_REJOINS:
                return Rejoin(at=UNSTAMPED, seat=seat)
            return Leave(at=UNSTAMPED, seat=seat)
        if "split_accept" in legal:
            return SplitDecline(at=UNSTAMPED, seat=seat)
    if (
        style == "soft"
        and partner is not None
        and partner_in_game
        and "draw" in legal
        and _in_deal(state, partner)
        and d is not None
    ):
        mine = _points(d.hands[seat], d.wild_rank)
        theirs = _points(d.hands[partner], d.wild_rank)
        if mine >= theirs + 20 and view["players"][seat]["drops_remaining"] > 0:
            return Drop(at=UNSTAMPED, seat=seat)
    if (
        style == "feeder"
        and partner is not None
        and "discard" in legal
        and _next_to_play(state, seat) == partner
    ):
        return _feed(state, seat, partner, view)
    if style == "cautious" and "draw" in legal and d is not None:
        me = view["players"][seat]
        if me["turns_taken"] == 0 and me["drops_remaining"] > 1:
            hand = d.hands[seat]
            if _points(hand, d.wild_rank) >= 55 and not any(is_joker(c, d.wild_rank) for c in hand):
                return Drop(at=UNSTAMPED, seat=seat)
    wild, codes = view["wild_rank"], view["hand"] or []
    if (
        style == "grabby"
        and "draw" in legal
        and view["can_pick_open"]
        and view["open_top"]
        and wild is not None
    ):
        top = parse_card(view["open_top"])
        if not is_joker(top, wild) and _near(top, parse_cards(codes)) and rng.random() < 0.6:
            return Draw(at=UNSTAMPED, seat=seat, source="open")
    action = choose_action(view, state.rules, rng, SMART)
    if style == "weak" and action is not None:
        if isinstance(action, Discard) and rng.random() < 0.35 and wild is not None:
            hand = [c for c in parse_cards(codes) if not is_joker(c, wild)]
            if hand:
                return Discard(at=UNSTAMPED, seat=seat, card=rng.choice(hand))
        if (
            isinstance(action, Draw)
            and action.source == "open"
            and view["closed_count"]
            and rng.random() < 0.5
        ):
            return Draw(at=UNSTAMPED, seat=seat, source="closed")
    return action


P = TypeVar("P")
#: How a seat chooses its action: (state, seat, its plan, the game's random source) -> action or None.
Decider = Callable[[GameState, int, P, random.Random], Action | None]


def play_table(
    rules: TableRules,
    players: Sequence[tuple[str, P]],
    seed: int,
    *,
    max_steps: int = 100_000,
    step_ms: int = 1_000,
    decider: Decider[Any] | None = None,
    observe: Callable[[list[Event]], None] | None = None,
) -> tuple[GameState, list[Event]]:
    """One whole game between ``players`` (id, plan), through ``apply``: its final state and events.

    ``decider`` replaces ``decide`` (other families of strategies, ``game_engine.schemes``);
    ``observe`` sees each step's events as they happen (what a player at the table sees).
    """
    choose: Decider[Any] = decider or decide
    rng = random.Random(seed)
    state = new_game(rules, [(pid, pid) for pid, _ in players], seed, at=1_700_000_000_000)
    plans = [plan for _, plan in players]
    events: list[Event] = []
    now = state.now
    for _ in range(max_steps):
        if state.phase == FINISHED:
            break
        acted = False
        for seat, plan in enumerate(plans):
            action = choose(state, seat, plan, rng)
            if action is None:
                continue
            dl_ = state.deadline
            at = now + step_ms
            if dl_ is not None and at >= dl_.at_ms:
                at = max(now, dl_.at_ms - 1)
            state, evs = apply(state, action.stamp(at=at))
            now = max(now, at)
            events.extend(evs)
            if observe is not None:
                observe(evs)
            acted = True
            break
        if not acted:
            dl_ = state.deadline
            assert dl_ is not None, f"stuck in phase {state.phase}"
            now = max(now, dl_.at_ms)
            state, evs = apply(state, Timeout(at=now))
            events.extend(evs)
            if observe is not None:
                observe(evs)
    return state, events
