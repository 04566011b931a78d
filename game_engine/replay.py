"""A finished deal rebuilt from its stored events and revealed seeds alone (docs/fairness.md).

``replay_deal(events, seeds, decks)`` deals the deck the seeds give, then follows the
events: a closed draw takes the next closed card, an open draw the open top, a
discard, finish, show and reshuffle move what they say. Every step is checked
against the events (a discarded card must be in the hand, a shown hand must be the
hand held, counts must agree), so a replay that completes is itself a check that
the stored history is complete and that the dealt order follows from the seeds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from game_engine import fairness
from game_engine.cards import Card, parse_card

HAND_SIZE = 13


class ReplayError(ValueError):
    """The events do not follow from the seeds (a gap or a change in the history)."""


def _codes(cards: Sequence[Card]) -> list[str]:
    return [c.code for c in cards]


def replay_deal(
    events: Sequence[dict[str, Any]], seeds: dict[str, Any], decks: int = 2
) -> list[dict[str, Any]]:
    """One step per event from ``deal_started`` to ``deal_over``: the event and the table after it."""
    client = seeds["client_seeds"]
    ordered = [client[k] for k in sorted(client, key=int)] if isinstance(client, dict) else list(client)
    server = str(seeds["server_seed"])
    steps: list[dict[str, Any]] = []
    hands: dict[int, list[Card]] = {}
    closed: list[Card] = []  # index 0 is drawn next
    open_pile: list[Card] = []
    cut: Card | None = None
    deal_no = 0
    reshuffles = 0
    turn: int | None = None
    started = False
    for e in events:
        kind = e.get("type")
        if kind == "deal_started":
            if e.get("commitment") and fairness.commitment(server) != e["commitment"]:
                raise ReplayError("the revealed server seed does not match the commitment")
            deal_no = int(e["deal_no"])
            deck = fairness.deal_stream(server, ordered, deal_no, decks).deck
            order = [int(s) for s in e["order"]]
            hands = {s: [] for s in order}
            top = 0
            for _ in range(HAND_SIZE):
                for s in order:
                    hands[s].append(deck[top])
                    top += 1
            cut, open_pile, closed = deck[top], [deck[top + 1]], deck[top + 2 :]
            if (
                cut.code != e["cut_joker"]
                or open_pile[0].code != e["open_card"]
                or len(closed) != e["closed_count"]
            ):
                raise ReplayError("the deal_started event does not match the seeds' deck")
            started = True
        elif not started:
            continue
        elif kind == "turn":
            turn = int(e["seat"])
        elif kind == "draw":
            seat = int(e["seat"])
            if e["source"] == "closed":
                if not closed:
                    raise ReplayError("a draw from an empty closed deck")
                card = closed.pop(0)
            else:
                if not open_pile or open_pile[-1].code != e.get("card"):
                    raise ReplayError(f"seat {seat} drew {e.get('card')} but the open top was different")
                card = open_pile.pop()
            hands[seat].append(card)
            steps.append(_step(e, hands, open_pile, closed, cut, turn, drawn=card.code))
            continue
        elif kind == "discard":
            seat = int(e["seat"])
            card = parse_card(e["card"])
            if card not in hands[seat]:
                raise ReplayError(f"seat {seat} discarded {card} that it did not hold")
            hands[seat].remove(card)
            open_pile.append(card)
        elif kind == "reshuffle":
            reshuffles += 1
            shuffled = open_pile[:-1]
            fairness.reshuffle(shuffled, server, ordered, deal_no, reshuffles)
            closed = list(reversed(shuffled))  # the engine draws from the end
            open_pile = open_pile[-1:]
            if len(closed) != e["closed_count"] or open_pile[-1].code != e["open_top"]:
                raise ReplayError("the reshuffle does not match the replayed piles")
        elif kind in ("declaration", "show"):
            seat = int(e["seat"])
            shown = Counter(parse_card(c) for g in e.get("groups") or [] for c in g)
            held = Counter(hands[seat])
            if kind == "declaration":
                extra = held - shown
                if shown and (sum(extra.values()) != 1 or shown - held):
                    raise ReplayError(f"seat {seat}'s declaration is not the hand it held")
                if shown:
                    finish = next(iter(extra))
                    hands[seat].remove(finish)
                    if not e["valid"]:
                        open_pile.append(finish)
            elif shown and shown != held:
                raise ReplayError(f"seat {seat}'s show is not the hand it held")
        elif kind == "deal_over":
            steps.append(_step(e, hands, open_pile, closed, cut, turn))
            return steps
        steps.append(_step(e, hands, open_pile, closed, cut, turn))
    if not started:
        raise ReplayError("no deal_started event")
    raise ReplayError("the events end before deal_over: the history is incomplete")


def _step(
    e: dict[str, Any],
    hands: dict[int, list[Card]],
    open_pile: list[Card],
    closed: list[Card],
    cut: Card | None,
    turn: int | None,
    drawn: str | None = None,
) -> dict[str, Any]:
    return {
        "event": dict(e),
        "hands": {str(s): _codes(h) for s, h in hands.items()},
        "open_pile": _codes(open_pile),
        "closed_count": len(closed),
        "cut_joker": cut.code if cut else None,
        "turn": turn,
        "drawn": drawn,
    }
