"""What a discard cost the discarder's own hand, for the discards the next player took.

An honest player throws the card their hand needs least; a feeder throws the card the partner
after them needs, whatever it costs their own hand. Which discards a partner takes is public; what
each cost the thrower is not, until the deal is over: its ``deal_over`` event reveals the server
seed (docs/fairness.md), and with it the log rebuilds every hand (``game_engine.replay``). The scan
reads the log after the game, so it can weigh each taken discard against the thrower's hand.

The cost is in points (docs/rules.md §5): what the thrower's best arrangement held after the
discard, less what it would have held after their best discard. A discard is *costly* when it
costs anything: it was not the thrower's best. Players who often keep a card for a meld they hope
for throw many such discards; each thrower is judged against their own discards that others took,
so a habit counts against no one, only a difference with one partner.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from game_engine.arrange import best_arrangement
from game_engine.cards import Card, parse_card
from game_engine.replay import ReplayError, replay_deal

#: A discard that left the thrower's hand this many points worse than their best discard.
COSTLY_POINTS = 1
#: Cards in one pack (52 and two printed jokers): a deal's packs follow from its cards.
PACK = 54
HAND_SIZE = 13


def discard_cost(hand: Sequence[Card], card: Card, wild_rank: int) -> int:
    """How many more points ``hand`` less ``card`` holds than ``hand`` less its best discard."""

    def left(c: Card) -> int:
        rest = list(hand)
        rest.remove(c)
        return best_arrangement(rest, wild_rank).points

    points = {c: left(c) for c in set(hand)}  # each distinct card searched once, ``card`` among them
    return points[card] - min(points.values())


def discard_costs(events: Sequence[dict[str, Any]], discards: Iterable[int]) -> dict[int, int]:
    """The cost of each discard at the given indices of ``events`` (a game's log, in order). A deal
    whose hands cannot be rebuilt (its seed not revealed, a gap in its log) gives none."""
    wanted = sorted(set(discards))
    out: dict[int, int] = {}
    start: int | None = None
    at = 0
    for i, e in enumerate(events):
        if at >= len(wanted):
            break
        kind = e.get("type")
        if kind == "deal_started":
            start = i
        elif kind == "deal_over" and start is not None:
            mine = []
            while at < len(wanted) and wanted[at] < i:
                if wanted[at] > start:
                    mine.append(wanted[at])
                at += 1
            if mine:
                out.update(_deal_costs(events, start, i, mine))
            start = None
    return out


def _deal_costs(
    events: Sequence[dict[str, Any]], start: int, over: int, discards: list[int]
) -> dict[int, int]:
    began, end = events[start], events[over]
    if not end.get("server_seed"):
        return {}
    seats = len(began.get("order") or ())
    decks = max(1, round((HAND_SIZE * seats + 2 + int(began.get("closed_count", 0))) / PACK))
    seeds = {"server_seed": end["server_seed"], "client_seeds": end.get("client_seeds") or []}
    try:
        steps = replay_deal(events[start : over + 1], seeds, decks)
        wild = int(began["wild_rank"])
        out = {}
        for i in discards:
            # one step per event from deal_started on: the hand before the discard is the step before
            hand = [parse_card(c) for c in steps[i - start - 1]["hands"][str(events[i]["seat"])]]
            out[i] = discard_cost(hand, parse_card(events[i]["card"]), wild)
    except (ReplayError, KeyError, ValueError, IndexError):
        return {}
    return out
