"""Chip flow as a graph: rings of accounts losing to one gainer, and chains (A -> B -> C).

Chip dumping (``integrity.detect.chip_dumping``) judges each pair against the gainer's record
apart from that one partner. Several accounts losing to one gainer defeat that: the other
sources make the gainer look strong, so no single pair looks unusual. Here each gainer is read
with all its suspected sources at once:

1. **who is in the ring** is read from where the accounts sit, not from how they did: every
   account that lost chips to the gainer and played at least ``RING_SHARE`` of its games with it
   (a ring's members sit with their gainer; choosing them by their losses would make any busy
   winner's unluckiest opponents look like a ring);
2. **the ring's test**: the gainer's strength is read from its games *without any* member, each
   member's excess against that (finishing behind the gainer, conceding with it in the deal), and
   the excesses summed over the ring (a normal test on the sum): evidence too weak in each pair
   adds up across the ring;
3. **chains**: an account that gains from one and loses to another, both edges unusual, is the
   middle of a chain (chips passed on): the chain's odds are its weaker edge's, each edge's first
   corrected for being the strongest of that account's edges.

A finding names the hub (the gainer, or a chain's middle) first, then the others, with each edge's
figures and games, the chips the ring moved and the share of the gainer's income that came from it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

from integrity.rates import RateModel
from integrity.stats import log5, normal_sf, shrunk

if TYPE_CHECKING:
    from integrity.detect import Thresholds
    from integrity.sums import Digests, Pair

#: A ring member: at least this share of its games played with the gainer, and paid games with it.
RING_SHARE = 0.25
RING_MIN_PAID = 3
#: A member a flagged ring names (and links): its own excess at least this many deviations, and
#: at odds of at most ``NAMED_P`` shared among the ring's members (a ring read with more accounts
#: asks more of each: one of many honest opponents of a real gainer passes 2 deviations by chance).
NAMED_Z = 2.0
NAMED_P = 0.05
#: A chain's edges: each at odds of at most this before the two are combined.
CHAIN_EDGE_P = 0.01
RINGS_LISTED = 8


@dataclass
class Edge:
    """Chips that moved from ``loser`` to ``gainer`` in the paid games they shared."""

    loser: str
    gainer: str
    pair: Pair
    #: the loser's index in the pair (0: the first of the sorted key)
    li: int
    fees: float
    flow: float

    @property
    def gainer_ahead(self) -> int:
        return self.pair.b_ahead if self.li == 0 else self.pair.a_ahead

    @property
    def loser_ahead(self) -> int:
        return self.pair.a_ahead if self.li == 0 else self.pair.b_ahead

    def cmp(self, who: str) -> tuple[int, int]:
        """``who``'s finishes ahead of and behind anyone, in the games the pair shared."""
        first = (self.li == 0) == (who == self.loser)
        c = self.pair.cmp
        return (c[0], c[1]) if first else (c[2], c[3])


@dataclass(frozen=True)
class Excess:
    """One edge judged: the excess of the gainer's finishes ahead over what the two players'
    strengths give, and of the loser's concessions over their usual rate, with variances."""

    expected: float
    finish: float
    finish_var: float
    concede: float
    concede_var: float

    def z(self) -> float:
        zf = (self.finish - 0.5) / math.sqrt(self.finish_var) if self.finish_var > 0 else 0.0
        zc = self.concede / math.sqrt(self.concede_var) if self.concede_var > 0 else 0.0
        return max(zf, zc)


def edges(s: Digests) -> dict[str, list[Edge]]:
    """Every gainer's incoming edges (paid games, chips moved its way)."""
    into: dict[str, list[Edge]] = {}
    for key, pair in s.pairs.items():
        if pair.paid == 0 or pair.flow == 0:
            continue
        a, b = key.split("|")
        if pair.flow > 0:
            e = Edge(a, b, pair, 0, pair.flow_fees, pair.flow)
        else:
            e = Edge(b, a, pair, 1, -pair.flow_fees, -pair.flow)
        into.setdefault(e.gainer, []).append(e)
    return into


def _pair(s: Digests, x: str, y: str) -> tuple[Pair | None, int]:
    a, b = sorted((x, y))
    return s.pairs.get(f"{a}|{b}"), 0 if x == a else 1


def judge(s: Digests, e: Edge, model: RateModel, t: Thresholds, without: set[str]) -> Excess:
    """Edge ``e`` against the gainer's record apart from every account in ``without`` (the edge's
    loser among them) and the loser's record apart from the gainer."""
    ga, gb = s.cmp[e.gainer]
    for other in without:
        pair, i = _pair(s, e.gainer, other)
        if pair is not None:
            ga -= pair.cmp[2 * i]
            gb -= pair.cmp[2 * i + 1]
    la, lb = s.cmp[e.loser]
    mine = e.cmp(e.loser)
    la, lb = la - mine[0], lb - mine[1]
    r_gainer = shrunk(max(ga, 0), max(ga, 0) + max(gb, 0), 0.5, t.prior_weight)
    r_loser = shrunk(la, la + lb, 0.5, t.prior_weight)
    expected = log5(r_gainer, r_loser)
    n = e.gainer_ahead + e.loser_ahead
    x, c = e.pair.conceded[e.li], e.pair.chances[e.li]
    concede, concede_var = model.excess(x, c, s.conceded[e.loser] - x, s.chances[e.loser] - c)
    return Excess(
        expected, e.gainer_ahead - n * expected, n * expected * (1 - expected), concede, concede_var
    )


def _ring_p(judged: dict[str, Excess]) -> tuple[float, float, float]:
    """The ring's odds: its summed excesses (finishing, conceding), each a normal test, the
    stronger one counted twice (two tests)."""
    f = sum(x.finish for x in judged.values()) - 0.5
    fv = sum(x.finish_var for x in judged.values())
    c = sum(x.concede for x in judged.values())
    cv = sum(x.concede_var for x in judged.values())
    zf = f / math.sqrt(fv) if fv > 0 else 0.0
    zc = c / math.sqrt(cv) if cv > 0 else 0.0
    return min(1.0, 2 * normal_sf(max(zf, zc))), zf, zc


def _edge_figures(e: Edge, x: Excess) -> dict[str, Any]:
    return {
        "from": e.loser,
        "to": e.gainer,
        "paid_games": e.pair.paid,
        "net_fees": round(e.fees, 2),
        "gainer_ahead": e.gainer_ahead,
        "loser_ahead": e.loser_ahead,
        "expected_share": round(x.expected, 3),
        "loser_conceded": e.pair.conceded[e.li],
        "loser_chances": e.pair.chances[e.li],
        "z": round(x.z(), 2),
    }


def _games(listed: list[Any], limit: int) -> list[Any]:
    seen: dict[Any, None] = {}
    for g in listed:
        seen.setdefault(g, None)
    return list(seen)[:limit]


def named_z(members: int) -> float:
    """The deviations a member's own excess needs for a ring of ``members`` to name it."""
    return max(NAMED_Z, NormalDist().inv_cdf(1 - NAMED_P / max(members, 1)))


def rings(
    s: Digests, t: Thresholds, model: RateModel, games_listed: int
) -> list[tuple[tuple[str, ...], dict[str, Any], list[Any], bool, float]]:
    """Each gainer's ring of sources, tested as a ring: (users, figures, games, flagged, p)."""
    out = []
    into = edges(s)
    for gainer, incoming in into.items():
        if len(incoming) < 2:
            continue
        ring = [
            e
            for e in incoming
            if e.pair.paid >= RING_MIN_PAID and len(e.pair.games) >= RING_SHARE * len(s.games[e.loser])
        ]
        if len(ring) < 2:
            continue
        without = {e.loser for e in ring}
        judged = {e.loser: judge(s, e, model, t, without) for e in ring}
        p, zf, zc = _ring_p(judged)
        fees = sum(e.fees for e in ring)
        paid = sum(e.pair.paid for e in ring)
        income = sum(e.fees for e in incoming)
        top3 = sum(sorted((e.fees for e in incoming), reverse=True)[:3])
        flagged = paid >= t.dump_min_games and fees >= t.dump_min_fees and p <= t.ring_alpha
        ring.sort(key=lambda e: -e.fees)
        # the ring is tested whole (chosen by where they sit); it names, and links, only the
        # members whose own excess points the ring's way (``named_z``): an honest newcomer who
        # happened to sit with the gainer is read in the test but not accused by it
        named = [e for e in ring if judged[e.loser].z() >= named_z(len(ring))]
        flagged = flagged and len(named) >= 1
        figures = {
            "shape": "ring",
            "members": [e.loser for e in named],
            "read_with": len(ring),
            "sources": len(named),
            "paid_games": paid,
            "net_fees": round(fees, 2),
            "income_share": round(fees / income, 3) if income else 0.0,
            "top3_share": round(top3 / income, 3) if income else 0.0,
            "z_finishing": round(zf, 2),
            "z_conceding": round(zc, 2),
            "p_value": p,
            "edges": [_edge_figures(e, judged[e.loser]) for e in ring],
        }
        listed = [g for e in named for g in e.pair.games[:games_listed]]
        out.append(((gainer, *(e.loser for e in named)), figures, _games(listed, games_listed), flagged, p))
    return out


def chains(
    s: Digests, t: Thresholds, model: RateModel, games_listed: int
) -> list[tuple[tuple[str, ...], dict[str, Any], list[Any], bool, float]]:
    """Accounts that gain from one and lose to another, both edges unusual: (A, B, C) for A -> B -> C."""
    into = edges(s)
    strong_in: dict[str, tuple[Edge, Excess, float]] = {}
    strong_out: dict[str, tuple[Edge, Excess, float]] = {}
    degree_out: dict[str, int] = {}
    for incoming in into.values():
        for e in incoming:
            degree_out[e.loser] = degree_out.get(e.loser, 0) + 1
    for gainer, incoming in into.items():
        for e in incoming:
            x = judge(s, e, model, t, {e.loser})
            p = normal_sf(x.z())
            if p <= CHAIN_EDGE_P:
                if gainer not in strong_in or p < strong_in[gainer][2]:
                    strong_in[gainer] = (e, x, p)
                if e.loser not in strong_out or p < strong_out[e.loser][2]:
                    strong_out[e.loser] = (e, x, p)
    out: list[tuple[tuple[str, ...], dict[str, Any], list[Any], bool, float]] = []
    for middle in strong_in.keys() & strong_out.keys():
        (e1, x1, p1), (e2, x2, p2) = strong_in[middle], strong_out[middle]
        if e1.loser == e2.gainer:
            continue
        # each edge was the strongest of the middle's: its odds times the edges it was chosen from
        p1 = min(1.0, 2 * p1 * len(into[middle]))
        p2 = min(1.0, 2 * p2 * degree_out[middle])
        # a chain is both edges at once: the weaker edge's odds are the chain's (an overwhelming
        # edge must not carry a chance one onto an honest player beyond it)
        p = max(p1, p2)
        fees = e1.fees + e2.fees
        paid = e1.pair.paid + e2.pair.paid
        flagged = paid >= t.dump_min_games and fees >= t.dump_min_fees and p <= t.ring_alpha
        figures = {
            "shape": "chain",
            "members": [e1.loser, middle, e2.gainer],
            "paid_games": paid,
            "net_fees": round(fees, 2),
            "passed_on_fees": round(min(e1.fees, e2.fees), 2),
            "p_value": p,
            "edges": [_edge_figures(e1, x1), _edge_figures(e2, x2)],
        }
        listed = e1.pair.games[:games_listed] + e2.pair.games[:games_listed]
        out.append(((middle, e1.loser, e2.gainer), figures, _games(listed, games_listed), flagged, p))
    return out
