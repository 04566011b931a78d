"""Bots that play only from ``view_for(state, seat)``: a sensible one and a random-legal one.

``choose_action(view, rules, rng=None, strategy="smart") -> action dict | None``
(None: nothing to do; the table's timer will move on). ``play_game`` runs a whole
game between bots through ``apply`` (tests and the bench).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from game_engine.arrange import Arrangement, best_arrangement
from game_engine.cards import Card, is_joker, parse_card, parse_cards
from game_engine.events import Event
from game_engine.formats import TableRules
from game_engine.game import FINISHED, GameState, apply, new_game
from game_engine.melds import GroupKind, classify_group
from game_engine.views import legal_actions, view_for

ActionDict = dict[str, Any]
SMART = "smart"
RANDOM = "random"


def _groups_codes(groups: Sequence[Sequence[Card]]) -> list[list[str]]:
    return [[c.code for c in g] for g in groups]


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
    view: dict[str, Any],
    rules: TableRules | None = None,
    rng: random.Random | None = None,
    strategy: str = SMART,
    rejoin_probability: float = 0.5,
) -> ActionDict | None:
    """Pick an action for ``view["seat"]`` from its view alone (no "at": the caller adds it)."""
    rng = rng or random.Random()
    seat = view["seat"]
    legal = view["legal"]
    if seat is None or not legal:
        return None
    if strategy == RANDOM:
        return _random_action(view, rng)
    if "split_accept" in legal:
        return {"type": "split_accept", "seat": seat}
    if "rejoin" in legal:
        if rng.random() < rejoin_probability:
            return {"type": "rejoin", "seat": seat}
        return {"type": "leave", "seat": seat}
    wild = view["wild_rank"]
    if "show" in legal:
        arr = best_arrangement(parse_cards(view["hand"]), wild)
        return {"type": "show", "seat": seat, "groups": _groups_codes(arr.groups)}
    if "draw" in legal:
        hand = parse_cards(view["hand"])
        me = view["players"][seat]
        if me["turns_taken"] == 0 and me["drops_remaining"] > 0 and _hopeless(hand, wild):
            return {"type": "drop", "seat": seat}
        if view["can_pick_open"] and view["open_top"]:
            top = parse_card(view["open_top"])
            now = best_arrangement(hand, wild).points
            _, after = _best_discard([*hand, top], wild)
            if after.valid or after.points < now or is_joker(top, wild):
                return {"type": "draw", "seat": seat, "source": "open"}
        if view["closed_count"] == 0:
            return {"type": "draw", "seat": seat, "source": "open"}
        return {"type": "draw", "seat": seat, "source": "closed"}
    if "discard" in legal:
        hand = parse_cards(view["hand"])
        card, arr = _best_discard(hand, wild)
        if arr.valid:
            return {"type": "finish", "seat": seat, "card": card.code, "groups": _groups_codes(arr.groups)}
        return {"type": "discard", "seat": seat, "card": card.code}
    return None


def _random_action(view: dict[str, Any], rng: random.Random) -> ActionDict | None:
    seat = view["seat"]
    legal = list(view["legal"])
    # Mostly play the game; sometimes do odd but legal things.
    if "split_accept" in legal:
        return {"type": rng.choice(["split_accept", "split_decline"]), "seat": seat}
    if "rejoin" in legal:
        return {"type": rng.choice(["rejoin", "leave"]), "seat": seat}
    hand = parse_cards(view["hand"]) if view["hand"] else []
    if hand and "arrange" in legal and rng.random() < 0.03:
        cards = list(hand)
        rng.shuffle(cards)
        cut = rng.randrange(1, len(cards) + 1)
        return {"type": "arrange", "seat": seat, "groups": _groups_codes([cards[:cut], cards[cut:]])}
    if "auto_drop" in legal and rng.random() < 0.005:
        return {"type": "auto_drop", "seat": seat, "on": True}
    if "im_back" in legal and rng.random() < 0.3:
        return {"type": "im_back", "seat": seat}
    r = rng.random()
    if "show" in legal:
        groups = [hand] if r < 0.5 else [list(g) for g in best_arrangement(hand, view["wild_rank"]).groups]
        return {"type": "show", "seat": seat, "groups": _groups_codes(groups)}
    if "draw" in legal:
        if r < 0.04:
            return {"type": "drop", "seat": seat}
        if r < 0.08:
            return None  # let the timer run
        src = "open" if view["can_pick_open"] and rng.random() < 0.4 else "closed"
        if view["closed_count"] == 0:
            src = "open"
        return {"type": "draw", "seat": seat, "source": src}
    if "discard" in legal:
        card = rng.choice(hand)
        if r < 0.02:
            rest = _without(hand, card)
            return {"type": "finish", "seat": seat, "card": card.code, "groups": _groups_codes([rest])}
        if r < 0.03:
            return {"type": "finish", "seat": seat, "card": card.code}
        if r < 0.06:
            return None
        return {"type": "discard", "seat": seat, "card": card.code}
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
            act["at"] = at
            state, evs = apply(state, act)
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
            state, evs = apply(state, {"type": "timeout", "at": now})
            events.extend(evs)
            if on_step:
                on_step(state, evs)
    return state, events
