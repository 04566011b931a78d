"""The scan's compact sums (``integrity.sums``: ``Pair`` in slots, a pair's games read from its
players' lists, the per-pair signals run a part at a time) find exactly what plain sums find:
every signal's findings (players, figures, games, flagged, score) over a few thousand engine
digests recycled among many players, old (version 1) and new digests mixed."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import pytest

from game_engine.collusion import Plan, play_table
from game_engine.formats import make_rules
from integrity import detect
from integrity.digest import chip_flows, digest
from integrity.sums import Digests

FEE = 1_000
PLAYERS = [str(n) for n in range(1, 121)]


def _game(seed: int, plans: list[Plan]) -> dict[str, Any]:
    rules = make_rules("61", max_players=6, entry_fee=FEE, rake_bp=1000)
    ids = [f"p{k}" for k in range(len(plans))]
    state, events = play_table(rules, list(zip(ids, plans, strict=True)), seed)
    out = digest([e.to_dict() for e in events], ids, [p.fees_paid for p in state.players], FEE)
    assert out is not None
    return out


def _templates() -> list[tuple[dict[str, Any], dict[str, str]]]:
    """Engine games: honest tables of every size, and colluding pairs (seats ``p0``, ``p1``) whose
    recycled games always seat the same two accounts (so the signals have something to find)."""
    rng = random.Random(5)
    styles = ("smart", "weak", "cautious", "grabby")
    out: list[tuple[dict[str, Any], dict[str, str]]] = []
    for i in range(15):
        plans = [Plan(rng.choice(styles)) for _ in range(2 + i % 5)]
        out.append((_game(700 + i, plans), {}))
    colluders = {"dumper": ("3", "4"), "soft": ("5", "6"), "feeder": ("7", "8")}
    for i, (style, (a, b)) in enumerate(colluders.items()):
        partner = "smart" if style != "soft" else "soft"
        for k in range(3):
            plans = [Plan(style, 1), Plan(partner, 0)] + [Plan(rng.choice(styles)) for _ in range(k)]
            out.append((_game(800 + 10 * i + k, plans), {"p0": a, "p1": b}))
    return out


def _swap(raw: dict[str, Any]) -> dict[str, Any]:
    f = raw["feeds"]
    out = {"deals": raw["deals"], "drops": raw["drops"][::-1], "feeds": [f[2], f[3], f[0], f[1]]}
    if "costly" in raw:
        g = raw["costly"]
        out["costly"] = [g[2], g[3], g[0], g[1]]
    if "chances" in raw:
        out["conceded"] = {w: c[::-1] for w, c in raw["conceded"].items()}
        out["chances"] = raw["chances"][::-1]
    return out


def _recycle(t: dict[str, Any], to: dict[str, str], fee: int, old: bool) -> dict[str, Any]:
    """Template ``t`` played by other accounts (``to``) at a table of ``fee``; ``old``: as a
    version 1 digest (chosen drops only)."""
    scale = fee / t["fee"]
    d: dict[str, Any] = {
        "v": 1 if old else t["v"],
        "fee": fee,
        "seats": t["seats"],
        "players": [to[p] for p in t["players"]],
        "net": {to[p]: round(v * scale) for p, v in t["net"].items()},
        "won": {to[p]: v for p, v in t["won"].items()},
        "deals": {to[p]: v for p, v in t["deals"].items()},
        "drops": {to[p]: v for p, v in t["drops"].items()},
        "takes": {to[p]: list(v) for p, v in t["takes"].items()},
    }
    if not old:
        d["given"] = {to[p]: list(v) for p, v in t["given"].items()}
        d["conceded"] = {to[p]: dict(v) for p, v in t["conceded"].items()}
        d["chances"] = {to[p]: v for p, v in t["chances"].items()}
    pairs = {}
    for key, raw in t["pairs"].items():
        if old:
            raw = {k: v for k, v in raw.items() if k not in ("conceded", "chances", "costly")}
        a, b = (to[p] for p in key.split("|"))
        pairs[f"{a}|{b}" if a < b else f"{b}|{a}"] = dict(raw) if a < b else _swap(raw)
    d["pairs"] = pairs
    return d


@pytest.fixture(scope="module")
def games() -> list[tuple[int, dict[str, Any]]]:
    rng = random.Random(38)
    weights = [rng.lognormvariate(0.0, 1.2) for _ in PLAYERS]  # some play far more than others
    templates = _templates()
    out = []
    for ref in range(1, 3_001):
        t, fixed = rng.choice(templates)
        others = [p for p in t["players"] if p not in fixed]
        drawn: list[str] = []
        while len(drawn) < len(others):
            uid = rng.choices(PLAYERS, weights=weights)[0]
            if uid not in drawn and uid not in fixed.values():
                drawn.append(uid)
        to = {**fixed, **dict(zip(others, drawn, strict=True))}
        fee = rng.choice((0, FEE, FEE, 5 * FEE))
        out.append((ref, _recycle(t, to, fee, old=rng.random() < 0.2)))
    return out


@dataclass
class _PlainPair:
    """A pair's sums as plain lists, every game listed."""

    games: list[Any] = field(default_factory=list)
    paid: int = 0
    flow: float = 0.0
    flow_fees: float = 0.0
    a_ahead: int = 0
    b_ahead: int = 0
    cmp: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    deals: int = 0
    drops: list[int] = field(default_factory=lambda: [0, 0])
    feeds: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    costly: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    conceded: list[int] = field(default_factory=lambda: [0, 0])
    chances: list[int] = field(default_factory=lambda: [0, 0])
    ways: dict[str, list[int]] = field(default_factory=dict)
    won: list[float] = field(default_factory=lambda: [0.0, 0.0])
    seats_gave: float = 0.0
    team: list[float] = field(default_factory=lambda: [0, 0.0, 0.0, 0.0])


def _plain_sums(games: list[tuple[int, dict[str, Any]]]) -> Digests:
    """The sums written out plainly, each count added where a digest holds it."""
    s = Digests([])
    s.pairs = defaultdict(_PlainPair)  # type: ignore[arg-type]
    for ref, d in games:
        people, net, fee = d["players"], d["net"], d["fee"]
        seats = max(int(d.get("seats") or len(people)), 1)
        flows = chip_flows(net) if fee > 0 else {}
        old = "chances" not in d
        for p in people:
            s.deals[p] += d["deals"].get(p, 0)
            s.drops[p] += d["drops"].get(p, 0)
            if old:
                x, n = d["drops"].get(p, 0), d["deals"].get(p, 0)
            else:
                x, n = sum(d["conceded"].get(p, {}).values()), d["chances"].get(p, 0)
            s.conceded[p] += x
            s.chances[p] += n
            t = d["takes"].get(p, [0, 0])
            s.takes[p][0] += t[0]
            s.takes[p][1] += t[1]
            if n:
                s.spread[p][0] += x * x / n
                s.spread[p][1] += 1
            if t[1]:
                s.spread[p][2] += t[0] * t[0] / t[1]
                s.spread[p][3] += 1
            g = d.get("given", {}).get(p, [0, 0])
            s.given[p][0] += g[0]
            s.given[p][1] += g[1]
            if g[1]:
                s.spread[p][4] += g[0] * g[0] / g[1]
                s.spread[p][5] += 1
            s.won[p] += d["won"].get(p, 0.0)
            s.expected[p][0] += 1 / seats
            s.expected[p][1] += (1 / seats) * (1 - 1 / seats)
            s.games[p].append(ref)
            if fee > 0:
                s.cmp[p][0] += sum(1 for q in people if net[p] > net[q])
                s.cmp[p][1] += sum(1 for q in people if net[p] < net[q])
        for a, b in combinations(sorted(set(people)), 2):
            pair: Any = s.pairs[f"{a}|{b}"]
            pair.games.append(ref)
            raw = d["pairs"].get(f"{a}|{b}")
            if raw:
                pair.deals += raw["deals"]
                for i in range(2):
                    pair.drops[i] += raw["drops"][i]
                for i in range(4):
                    pair.feeds[i] += raw["feeds"][i]
                    pair.costly[i] += raw.get("costly", [0, 0, 0, 0])[i]
                counts = raw["conceded"] if "chances" in raw else {"drop": raw["drops"]}
                chances = raw["chances"] if "chances" in raw else [raw["deals"], raw["deals"]]
                for way, c in counts.items():
                    mine = pair.ways.setdefault(way, [0, 0])
                    for i in range(2):
                        mine[i] += c[i]
                        pair.conceded[i] += c[i]
                for i in range(2):
                    pair.chances[i] += chances[i]
            won_a, won_b = d["won"].get(a, 0.0), d["won"].get(b, 0.0)
            pair.won[0] += won_a
            pair.won[1] += won_b
            pair.seats_gave += 1 / seats
            if seats >= 3 and fee > 0:
                pair.team[0] += 1
                pair.team[1] += won_a + won_b
                pair.team[2] += 1 / seats
                pair.team[3] += won_a
            if fee > 0:
                pair.paid += 1
                moved = flows.get((a, b), 0.0) - flows.get((b, a), 0.0)
                pair.flow += moved
                pair.flow_fees += moved / fee
                pair.a_ahead += int(net[a] > net[b])
                pair.b_ahead += int(net[b] > net[a])
                for i, p in enumerate((a, b)):
                    pair.cmp[2 * i] += sum(1 for q in people if net[p] > net[q])
                    pair.cmp[2 * i + 1] += sum(1 for q in people if net[p] < net[q])
    return s


def _as_rows(found: list[detect.Finding]) -> list[tuple[Any, ...]]:
    return [(f.signal, f.users, f.figures, list(f.games), f.flagged, f.score) for f in found]


def test_compact_sums_find_what_plain_sums_find(games: list[tuple[int, dict[str, Any]]]) -> None:
    t = detect.Thresholds()
    plain = _plain_sums(games)
    compact = Digests(iter(games))  # streamed, as the scan reads the window
    assert compact.count == len(games)
    assert len(compact.pairs) == len(plain.pairs) > 1_000
    whole = detect.run_all(games, t)
    for name, fn in detect.SIGNALS.items():
        expected = _as_rows(fn(plain, t))
        assert expected, name
        assert _as_rows(whole[name]) == expected, name
        # in parts of an odd size, as a scan over millions of pairs reads the per-pair signals
        parted = [f for batch in detect.findings(compact, name, t, part=97) for f in batch]
        assert _as_rows(parted) == expected, name
    flagged = {name for name, found in whole.items() if any(f.flagged for f in found)}
    assert {detect.CHIP_DUMPING, detect.SOFT_PLAY, detect.FEEDING} <= flagged


def test_a_pairs_games_read_lazily_match_the_list(games: list[tuple[int, dict[str, Any]]]) -> None:
    plain = _plain_sums(games)
    compact = Digests(games)
    for key, pair in list(compact.pairs.items())[:300]:
        listed = plain.pairs[key].games
        assert len(pair.games) == len(listed)
        assert list(pair.games) == listed
        assert list(pair.games[:3]) == listed[:3] and list(pair.games[-3:]) == listed[-3:]
        assert pair.games[:2] + pair.games[-2:] == listed[:2] + listed[-2:]
