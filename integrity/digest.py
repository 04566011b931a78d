"""One finished game reduced to what the integrity signals count (pure Python, no Django).

The signals read every finished game once: the scan digests each new game from its event log
(``tables.GameEvent``, the same events the players were sent) into a small JSON document, kept
on ``integrity.GameDigest``, and sums the digests of the window on each run. The simulation
(``integrity.simulation``) digests the engine's events the same way.

A digest counts, for each person at the table (bots are left out, ``None``):

- ``net``: chips won minus chips paid (entry and rejoin fees), in paise; ``fee`` the entry fee;
- ``won``: their share of first place (1 for the winner, 1/k each in a split among k);
- ``deals`` dealt in and ``drops`` taken by choice (a drop or an auto drop; a drop for missed
  turns or for leaving is not a choice made at the table);
- ``takes``: [open-pile takes of the card another player just discarded, such chances]; a chance
  is the first draw after a discard that was not the server's (a missed turn's);

and for each pair at the table (key ``"a|b"``, a < b):

- ``deals``: deals both were dealt in; ``drops``: [a's drops in them, b's drops in them];
- ``feeds``: [b took a's discard, chances of it, a took b's discard, chances of it].
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations
from typing import Any

VERSION = 1
#: Drop reasons that are a player's own choice at the table.
CHOSEN_DROPS = frozenset({"drop", "auto_drop"})


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
    people = [p for p in players if p is not None]
    deals = dict.fromkeys(people, 0)
    drops = dict.fromkeys(people, 0)
    takes = {p: [0, 0] for p in people}
    pairs: dict[str, dict[str, Any]] = {}
    for a, b in combinations(sorted(set(people)), 2):
        pairs[f"{a}|{b}"] = {"deals": 0, "drops": [0, 0], "feeds": [0, 0, 0, 0]}
    in_deal: list[str] = []
    last_discard: tuple[str | None, str] | None = None
    over: dict[str, Any] | None = None

    def who(seat: Any) -> str | None:
        return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else None

    for e in events:
        kind = e.get("type")
        if kind == "deal_started":
            in_deal = [p for p in (who(s) for s in e.get("order", ())) if p is not None]
            last_discard = None
            for p in in_deal:
                deals[p] += 1
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
        elif kind == "discard":
            last_discard = None if e.get("auto") else (who(e.get("seat")), str(e.get("card")))
        elif kind == "draw":
            if last_discard is not None:
                giver, card = last_discard
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
            last_discard = None
        elif kind in ("declaration", "deal_over", "reshuffle"):
            last_discard = None
        elif kind == "game_over":
            over = e
    if over is None:
        return None
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
        "pairs": pairs,
    }
