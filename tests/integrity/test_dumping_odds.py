"""Chip dumping's finishing test weighs how well the two players' strengths are known.

A strong and a weak friend who play mostly heads-up: the strong one finishes ahead nearly every
time. Whether that is dumping depends on their strengths apart, and a few games apart say little:
the test widens its odds by that uncertainty (``stats.log5_sf``) instead of taking the shrunk
rates as exact. The same record together against long, even records apart is still flagged.
"""

from __future__ import annotations

import random
from typing import Any

from integrity import detect
from integrity.stats import binom_sf, log5, log5_sf
from integrity.sums import Digests

FEE = 1_000


def _game(players: list[str], winner: str) -> dict[str, Any]:
    """A finished paid game's digest (the first format: drops only) that ``winner`` won alone."""
    prize = FEE * len(players) * 9 // 10
    net = {p: (prize - FEE if p == winner else -FEE) for p in players}
    pairs = {}
    for i, a in enumerate(sorted(players)):
        for b in sorted(players)[i + 1 :]:
            pairs[f"{a}|{b}"] = {"deals": 2, "drops": [0, 0], "feeds": [0, 0, 0, 0]}
    return {
        "players": players,
        "net": net,
        "fee": FEE,
        "seats": len(players),
        "deals": dict.fromkeys(players, 2),
        "drops": dict.fromkeys(players, 0),
        "takes": {p: [0, 0] for p in players},
        "won": {winner: 1.0},
        "pairs": pairs,
    }


def _friends(games_apart: int, strong_rate: float, weak_rate: float) -> dict[str, Any]:
    """The friends' pair finding after 20 heads-up games (the strong one first in 19) and
    ``games_apart`` games each at tables of three with strangers, won at the given rates."""
    rng = random.Random(7)
    games: list[tuple[int, dict[str, Any]]] = []
    for i in range(20):
        games.append((len(games), _game(["strong", "weak"], "weak" if i == 7 else "strong")))
    for i in range(games_apart):
        for who, rate in (("strong", strong_rate), ("weak", weak_rate)):
            table = [who, f"{who}-x{i}", f"{who}-y{i}"]
            winner = who if rng.random() < rate else table[1 + i % 2]
            games.append((len(games), _game(table, winner)))
    found = detect.chip_dumping(Digests(games), detect.Thresholds())
    (pair,) = [f for f in found if set(f.users) == {"strong", "weak"}]
    return {"flagged": pair.flagged, **pair.figures}


def test_friends_seen_little_apart_are_not_taken_for_dumpers() -> None:
    f = _friends(3, 0.7, 0.35)
    assert f["gainer_ahead"] == 19 and f["loser_ahead"] == 1
    # taken as exact, their shrunk strengths would have flagged them
    assert binom_sf(19, 20, f["expected_share"]) <= detect.Thresholds().dump_alpha
    assert not f["flagged"] and f["p_value"] > detect.Thresholds().dump_alpha


def test_the_same_record_against_long_even_records_apart_is_flagged() -> None:
    f = _friends(200, 1 / 3, 1 / 3)
    assert f["gainer_ahead"] == 19
    assert f["flagged"] and f["p_value"] <= detect.Thresholds().dump_alpha


def test_the_odds_widen_with_short_records_and_close_on_the_binomial_with_long_ones() -> None:
    exact = binom_sf(18, 20, log5(0.6, 0.45))
    short = log5_sf(18, 20, 0.6, 30, 0.45, 30)
    long = log5_sf(18, 20, 0.6, 1e7, 0.45, 1e7)
    assert short > 3 * exact
    assert abs(long - exact) < 1e-6 * max(exact, 1e-12) + 1e-12
    assert log5_sf(0, 20, 0.6, 30, 0.45, 30) == 1.0 and log5_sf(21, 20, 0.6, 30, 0.45, 30) == 0.0
