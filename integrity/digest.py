"""One finished game reduced to what the integrity signals count (pure Python, no Django).

The signals read every finished game once: the scan digests each new game from its event log
(``tables.GameEvent``, the same events the players were sent) into a small JSON document, kept
on ``integrity.GameDigest``, and sums the digests of the window on each run. The simulation
(``integrity.simulation``) digests the engine's events the same way.

A digest counts, for each person at the table (bots are left out, ``None``):

- ``net``: chips won minus chips paid (entry and rejoin fees), in paise; ``fee`` the entry fee;
- ``won``: their share of first place (1 for the winner, 1/k each in a split among k);
- ``deals`` dealt in and ``drops`` taken by choice (a drop or an auto drop);
- ``conceded``: each way of losing a deal (or the game) on purpose, counted by ``WAYS``: a chosen
  ``drop``; a ``wrong_show`` (an invalid declaration); a ``timeout`` (the clock ran out: a drop for
  missed turns, a declaration not made in time, or a deal in which the server played a missed turn
  for them); ``left`` (leaving the game while still in it); ``split_refused`` (declining a split
  offer, which keeps a losing player in the game). A deal counts once, by how the player went out
  of it (a missed turn only when they did not go out otherwise);
- ``chances``: the chances to concede: deals dealt in, split offers, and a leave between deals
  (the game they forfeit); ``conceded`` summed is never more than ``chances``;
- ``takes``: [open-pile takes of the card another player just discarded, such chances]; a chance
  is the first draw after a discard that was not the server's (a missed turn's);
- ``given``: [costly discards another player took, discards another player took whose cost is
  known]: what the discard cost the thrower's own hand, read from the deal's replay once its seed
  is revealed (``integrity.discard_cost``);

and for each pair at the table (key ``"a|b"``, a < b):

- ``deals``: deals both were dealt in; ``drops``: [a's drops in them, b's drops in them];
- ``conceded``: ``{way: [a's, b's]}`` while the other was in the deal (or in the game, for a split
  offer to both or a leave between deals); ``chances``: [a's, b's] counted the same way;
- ``feeds``: [b took a's discard, chances of it, a took b's discard, chances of it];
- ``costly``: [of a's discards b took, the costly ones, those of known cost; the same of b's
  discards a took].
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from integrity.discard_cost import COSTLY_POINTS, discard_costs

VERSION = 3
#: Drop reasons that are a player's own choice at the table.
CHOSEN_DROPS = frozenset({"drop", "auto_drop"})
#: The ways of conceding the digest counts (docs/integrity.md, "every way of losing on purpose").
WAYS = ("drop", "wrong_show", "timeout", "left", "split_refused")
#: How a ``drop`` event's reason concedes the deal.
DROP_WAY = {"drop": "drop", "auto_drop": "drop", "missed_turns": "timeout", "left": "left"}
#: How a wrong ``declaration``'s reason concedes the deal: an invalid show is a wrong show, a show
#: not made in time is the clock's, a declarer who left has left.
DECLARATION_WAY = {"invalid": "wrong_show", "no_show": "timeout", "left": "left"}


def chip_flows(net: Mapping[str, int]) -> dict[tuple[str, str], float]:
    """Who lost to whom in one game: each loser's loss shared among the winners by their gains."""
    gains = {p: v for p, v in net.items() if v > 0}
    total = sum(gains.values())
    out: dict[tuple[str, str], float] = {}
    if total <= 0:
        return out
    for loser, v in net.items():
        if v < 0:
            for winner, g in gains.items():
                out[(loser, winner)] = -v * g / total
    return out


def pair_key(a: str, b: str) -> tuple[str, bool]:
    """The pair's key and whether ``a`` is its first member."""
    return (f"{a}|{b}", True) if a < b else (f"{b}|{a}", False)


def digest(
    events: Iterable[dict[str, Any]],
    players: Sequence[str | None],
    fees: Sequence[int],
    entry_fee: int,
) -> dict[str, Any] | None:
    """The digest of one finished game; ``None`` if it has no ``game_over`` (cancelled, unfinished).

    ``events``: the game's events as sent (``{"type": ..., ...}``), in order; ``players``: who sat
    in each engine seat (``None``: a bot); ``fees``: what each seat paid in all, in paise.
    """
    events = list(events)
    people = [p for p in players if p is not None]
    deals = dict.fromkeys(people, 0)
    drops = dict.fromkeys(people, 0)
    takes = {p: [0, 0] for p in people}
    conceded = {p: dict.fromkeys(WAYS, 0) for p in people}
    chances = dict.fromkeys(people, 0)
    pairs: dict[str, dict[str, Any]] = {}
    for a, b in combinations(sorted(set(people)), 2):
        pairs[f"{a}|{b}"] = {
            "deals": 0,
            "drops": [0, 0],
            "feeds": [0, 0, 0, 0],
            "costly": [0, 0, 0, 0],
            "conceded": {w: [0, 0] for w in WAYS},
            "chances": [0, 0],
        }
    in_deal: list[str] = []
    dealing = False  # between ``deal_started`` and ``deal_over``
    out_by: dict[str, str] = {}  # how each player went out of the deal in play
    missed: set[str] = set()  # who had a turn played for them by the server in it
    live = set(people)  # in the game: not eliminated, not gone
    offered: list[str] = []
    last_discard: tuple[str | None, str, int] | None = None
    taken: list[tuple[int, str, str]] = []  # (the discard's index, giver, taker)
    over: dict[str, Any] | None = None

    def who(seat: Any) -> str | None:
        return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else None

    def concede(p: str, way: str, others: Iterable[str]) -> None:
        conceded[p][way] += 1
        for other in others:
            if other != p:
                key, first = pair_key(p, other)
                pairs[key]["conceded"][way][0 if first else 1] += 1

    def chance(p: str, others: Iterable[str]) -> None:
        chances[p] += 1
        for other in others:
            if other != p:
                key, first = pair_key(p, other)
                pairs[key]["chances"][0 if first else 1] += 1

    def close_deal() -> None:
        nonlocal dealing
        if dealing:
            for p in in_deal:
                way = out_by.get(p) or ("timeout" if p in missed else None)
                if way is not None:
                    concede(p, way, in_deal)
        dealing = False
        out_by.clear()
        missed.clear()

    for i, e in enumerate(events):
        kind = e.get("type")
        if kind == "deal_started":
            close_deal()
            in_deal = [p for p in (who(s) for s in e.get("order", ())) if p is not None]
            dealing = True
            last_discard = None
            for seated in in_deal:
                deals[seated] += 1
                chance(seated, in_deal)
            for a, b in combinations(sorted(set(in_deal)), 2):
                pairs[f"{a}|{b}"]["deals"] += 1
        elif kind == "drop":
            p = who(e.get("seat"))
            if p is not None and e.get("reason") in CHOSEN_DROPS:
                drops[p] += 1
                for other in in_deal:
                    if other != p:
                        key, first = pair_key(p, other)
                        pairs[key]["drops"][0 if first else 1] += 1
            if p is not None and dealing and p in in_deal:
                out_by.setdefault(p, DROP_WAY.get(str(e.get("reason")), "drop"))
        elif kind == "declaration":
            last_discard = None
            p = who(e.get("seat"))
            if p is not None and dealing and p in in_deal and not e.get("valid"):
                out_by.setdefault(p, DECLARATION_WAY.get(str(e.get("reason")), "wrong_show"))
        elif kind == "turn_missed":
            p = who(e.get("seat"))
            if p is not None:
                missed.add(p)
        elif kind == "player_left":
            p = who(e.get("seat"))
            if p is not None and p in live:
                if dealing and p in in_deal and p not in out_by:
                    out_by[p] = "left"  # the deal in play is conceded by leaving
                else:  # between deals: the rest of the game is forfeited
                    others = sorted(live)
                    chance(p, others)
                    concede(p, "left", others)
                live.discard(p)
        elif kind == "eliminated":
            p = who(e.get("seat"))
            if p is not None:
                live.discard(p)
        elif kind == "rejoined":
            p = who(e.get("seat"))
            if p is not None:
                live.add(p)
        elif kind == "split_offer":
            seats = (int(s) for s in (e.get("amounts") or {}) if str(s).isdigit())
            offered = [p for p in (who(s) for s in seats) if p is not None]
            for asked in offered:
                chance(asked, offered)
        elif kind == "split_declined":
            p = who(e.get("seat"))
            if p is not None and p in offered:
                concede(p, "split_refused", offered)
            offered = []
        elif kind == "discard":
            last_discard = None if e.get("auto") else (who(e.get("seat")), str(e.get("card")), i)
        elif kind == "draw":
            if last_discard is not None:
                giver, card, at = last_discard
                taker = who(e.get("seat"))
                took = e.get("source") == "open" and e.get("card") == card
                if taker is not None and taker != giver:
                    takes[taker][1] += 1
                    takes[taker][0] += int(took)
                    if giver is not None:
                        key, first = pair_key(giver, taker)
                        feeds = pairs[key]["feeds"]
                        base = 0 if first else 2  # giver first: slots 0-1 count the second taking
                        feeds[base] += int(took)
                        feeds[base + 1] += 1
                        if took:
                            taken.append((at, giver, taker))
            last_discard = None
        elif kind == "deal_over":
            last_discard = None
            close_deal()
        elif kind == "reshuffle":
            last_discard = None
        elif kind == "game_over":
            close_deal()
            over = e
    if over is None:
        return None
    given = {p: [0, 0] for p in people}
    costs = discard_costs(events, (at for at, _, _ in taken))
    for at, giver, taker in taken:
        if at in costs:
            costly = int(costs[at] >= COSTLY_POINTS)
            given[giver][0] += costly
            given[giver][1] += 1
            key, first = pair_key(giver, taker)
            counts = pairs[key]["costly"]
            base = 0 if first else 2
            counts[base] += costly
            counts[base + 1] += 1
    payouts = {str(k): int(v) for k, v in (over.get("payouts") or {}).items()}
    net = {p: 0 for p in people}
    for seat, p in enumerate(players):
        if p is not None:
            net[p] += payouts.get(p, 0) - int(fees[seat])
    won = dict.fromkeys(people, 0.0)
    if over.get("winner") is not None and str(over["winner"]) in won:
        won[str(over["winner"])] = 1.0
    elif over.get("split"):
        sharers = sum(1 for amount in payouts.values() if amount > 0)
        for p in people:
            if payouts.get(p, 0) > 0:
                won[p] += 1.0 / sharers
    return {
        "v": VERSION,
        "fee": int(entry_fee),
        "seats": len(players),
        "players": people,
        "net": net,
        "won": won,
        "deals": deals,
        "drops": drops,
        "takes": takes,
        "given": given,
        "conceded": conceded,
        "chances": chances,
        "pairs": pairs,
    }
