"""Bots that play only from ``view_for(state, seat)``: a sensible one and a random-legal one.

``choose_action(view, rules, rng=None, strategy="smart") -> Action | None``
(None: nothing to do; the table's timer will move on). The action is ``UNSTAMPED``: whoever
sends it stamps its time (``Action.stamp``), as the server stamps a person's. ``play_game`` runs a whole
game between bots through ``apply`` (tests and the bench).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Literal

from game_engine.actions import (
    UNSTAMPED,
    Action,
    Arrange,
    AutoDrop,
    Discard,
    Draw,
    Drop,
    Finish,
    Groups,
    ImBack,
    Leave,
    Rejoin,
    Show,
    SplitAccept,
    SplitDecline,
    Timeout,
)
from game_engine.arrange import Arrangement, best_arrangement
from game_engine.cards import Card, is_joker, parse_card, parse_cards
from game_engine.events import Event
from game_engine.formats import TableRules
from game_engine.game import FINISHED, GameState, apply, new_game
from game_engine.melds import GroupKind, classify_group
from game_engine.views import View, legal_actions, view_for

SMART = "smart"
RANDOM = "random"


def _groups(groups: Sequence[Sequence[Card]]) -> Groups:
    return tuple(tuple(g) for g in groups)


def _without(cards: Sequence[Card], card: Card) -> list[Card]:
    out = list(cards)
    out.remove(card)
    return out


def _best_discard(hand: Sequence[Card], wild: int) -> tuple[Card, Arrangement]:
    """The card whose removal leaves the lowest best-arrangement points (ties: discard high points)."""
    best: tuple[tuple[int, int, int], Card, Arrangement] | None = None
    for card in sorted(set(hand)):
        arr = best_arrangement(_without(hand, card), wild)
        joker = is_joker(card, wild)
        key = (0 if arr.valid else 1, arr.points + (1000 if joker else 0), 0 if joker else -card.points)
        if best is None or key < best[0]:
            best = (key, card, arr)
    assert best is not None
    return best[1], best[2]


def _hopeless(hand: Sequence[Card], wild: int) -> bool:
    """A hand to drop on the first turn: many points, no joker, no pure sequence and
    hardly any pair of cards that could grow into one."""
    if any(is_joker(c, wild) for c in hand):
        return False
    arr = best_arrangement(hand, wild)
    if arr.points < 60 or any(classify_group(g, wild) == GroupKind.PURE_SEQUENCE for g in arr.groups):
        return False
    near = 0
    ranks = {(c.suit, c.rank) for c in hand}
    for suit, rank in ranks:
        if (suit, rank + 1) in ranks or (suit, rank + 2) in ranks:
            near += 1
    return near < 2


def choose_action(
    view: View,
    rules: TableRules | None = None,
    rng: random.Random | None = None,
    strategy: str = SMART,
    rejoin_probability: float = 0.5,
) -> Action | None:
    """Pick an action for ``view["seat"]`` from its view alone (unstamped: the caller stamps its time)."""
    rng = rng or random.Random()
    seat = view["seat"]
    legal = view["legal"]
    if seat is None or not legal:
        return None
    if strategy == RANDOM:
        return _random_action(view, rng)
    if "split_accept" in legal:
        return SplitAccept(at=UNSTAMPED, seat=seat)
    if "rejoin" in legal:
        if rng.random() < rejoin_probability:
            return Rejoin(at=UNSTAMPED, seat=seat)
        return Leave(at=UNSTAMPED, seat=seat)
    codes, wild = view["hand"], view["wild_rank"]
    if codes is None or wild is None:  # no deal of this seat's running: nothing more to choose
        return None
    if "show" in legal:
        arr = best_arrangement(parse_cards(codes), wild)
        return Show(at=UNSTAMPED, seat=seat, groups=_groups(arr.groups))
    if "draw" in legal:
        hand = parse_cards(codes)
        me = view["players"][seat]
        if me["turns_taken"] == 0 and me["drops_remaining"] > 0 and _hopeless(hand, wild):
            return Drop(at=UNSTAMPED, seat=seat)
        if view["can_pick_open"] and view["open_top"]:
            top = parse_card(view["open_top"])
            now = best_arrangement(hand, wild).points
            _, after = _best_discard([*hand, top], wild)
            if after.valid or after.points < now or is_joker(top, wild):
                return Draw(at=UNSTAMPED, seat=seat, source="open")
        if view["closed_count"] == 0:
            return Draw(at=UNSTAMPED, seat=seat, source="open")
        return Draw(at=UNSTAMPED, seat=seat, source="closed")
    if "discard" in legal:
        hand = parse_cards(codes)
        card, arr = _best_discard(hand, wild)
        if arr.valid:
            return Finish(at=UNSTAMPED, seat=seat, card=card, groups=_groups(arr.groups))
        return Discard(at=UNSTAMPED, seat=seat, card=card)
    return None


def _random_action(view: View, rng: random.Random) -> Action | None:
    seat = view["seat"]
    if seat is None:
        return None
    legal = list(view["legal"])
    # Mostly play the game; sometimes do odd but legal things.
    if "split_accept" in legal:
        return rng.choice([SplitAccept, SplitDecline])(at=UNSTAMPED, seat=seat)
    if "rejoin" in legal:
        return rng.choice([Rejoin, Leave])(at=UNSTAMPED, seat=seat)
    hand = parse_cards(view["hand"]) if view["hand"] else []
    if hand and "arrange" in legal and rng.random() < 0.03:
        cards = list(hand)
        rng.shuffle(cards)
        cut = rng.randrange(1, len(cards) + 1)
        return Arrange(at=UNSTAMPED, seat=seat, groups=_groups([cards[:cut], cards[cut:]]))
    if "auto_drop" in legal and rng.random() < 0.005:
        return AutoDrop(at=UNSTAMPED, seat=seat, on=True)
    if "im_back" in legal and rng.random() < 0.3:
        return ImBack(at=UNSTAMPED, seat=seat)
    r = rng.random()
    wild = view["wild_rank"]
    if "show" in legal and wild is not None:
        groups = [hand] if r < 0.5 else [list(g) for g in best_arrangement(hand, wild).groups]
        return Show(at=UNSTAMPED, seat=seat, groups=_groups(groups))
    if "draw" in legal:
        if r < 0.04:
            return Drop(at=UNSTAMPED, seat=seat)
        if r < 0.08:
            return None  # let the timer run
        src: Literal["closed", "open"] = "open" if view["can_pick_open"] and rng.random() < 0.4 else "closed"
        if view["closed_count"] == 0:
            src = "open"
        return Draw(at=UNSTAMPED, seat=seat, source=src)
    if "discard" in legal:
        card = rng.choice(hand)
        if r < 0.02:
            rest = _without(hand, card)
            return Finish(at=UNSTAMPED, seat=seat, card=card, groups=_groups([rest]))
        if r < 0.03:
            return Finish(at=UNSTAMPED, seat=seat, card=card)
        if r < 0.06:
            return None
        return Discard(at=UNSTAMPED, seat=seat, card=card)
    return None


_PASSIVE = frozenset({"arrange", "auto_drop", "im_back", "leave"})


def play_game(
    rules: TableRules,
    n_players: int,
    seed: int,
    strategy: str | Sequence[str] = SMART,
    *,
    max_steps: int = 200_000,
    on_step: Callable[[GameState, list[Event]], None] | None = None,
    step_ms: int = 1_000,
) -> tuple[GameState, list[Event]]:
    """Play a whole game between bots through ``apply``; returns the final state and all events.

    Each step, every seat's bot (from its own view only) may act; when nobody does,
    the pending deadline fires as a ``timeout``.
    """
    strategies = [strategy] * n_players if isinstance(strategy, str) else list(strategy)
    rng = random.Random(seed)
    players = [(f"p{i}", f"Player {i}") for i in range(n_players)]
    state = new_game(rules, players, seed, at=1_700_000_000_000)
    events: list[Event] = []
    now = state.now
    for _ in range(max_steps):
        if state.phase == FINISHED:
            break
        acted = False
        for seat in range(n_players):
            if strategies[seat] == SMART and _PASSIVE.issuperset(legal_actions(state, seat)):
                continue
            view = view_for(state, seat)
            act = choose_action(view, rules, rng, strategies[seat])
            if act is None:
                continue
            dl = state.deadline
            at = now + step_ms
            if dl is not None and at >= dl.at_ms:
                at = max(now, dl.at_ms - 1)
            state, evs = apply(state, act.stamp(at=at))
            now = max(now, at)
            events.extend(evs)
            if on_step:
                on_step(state, evs)
            acted = True
            break
        if not acted:
            dl = state.deadline
            assert dl is not None, f"stuck in phase {state.phase}"
            now = max(now, dl.at_ms)
            state, evs = apply(state, Timeout(at=now))
            events.extend(evs)
            if on_step:
                on_step(state, evs)
    return state, events
