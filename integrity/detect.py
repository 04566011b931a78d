"""The integrity signals over game digests (pure Python; docs/integrity.md states each rule).

Each signal returns ``Finding`` rows: who (a pair, in the direction the signal reads, or one
player), the figures behind the verdict, the games behind it, and whether it passes the flag
threshold. The scan (``integrity.services.scan``) stores the rows for the signal pages and puts
flagged ones in the review queue; the simulation (``integrity.simulation``) counts them.

Every pair rule compares the pair with the players' own record away from each other, so a
player's style (careless, cautious, grabby, strong) is not mistaken for collusion, and asks for
odds of at most ``alpha`` (the chance an honest pair would look at least this bad) before it
flags: with thousands of pairs tested each run, a small ``alpha`` keeps honest pairs out of the
queue.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from integrity import chipflow
from integrity.digest import WAYS
from integrity.rates import FIT_MIN_CHANCES, RateModel
from integrity.stats import fisher, log5, log5_sf, negbinom_sf, normal_sf, shrunk
from integrity.sums import Digests, Pair

CHIP_DUMPING = "chip_dumping"
SOFT_PLAY = "soft_play"
FEEDING = "feeding"
WIN_RATE = "win_rate"
CHIP_RING = "chip_ring"
TEAM_PLAY = "team_play"
PAIR_SIGNALS = (CHIP_DUMPING, SOFT_PLAY, FEEDING, TEAM_PLAY)
#: the signals that name two or more players together (a ring names its gainer first)
GROUP_SIGNALS = (*PAIR_SIGNALS, CHIP_RING)

#: How many games a finding lists (the first ones the page links to).
GAMES_LISTED = 50
#: The least weight (in chances) of the prior on how often a thrower's taken discards cost them.
COSTLY_MIN_WEIGHT = 2.0


@dataclass(frozen=True)
class Thresholds:
    """Each signal's flag rule (docs/integrity.md); settable as ``INTEGRITY_THRESHOLDS``."""

    #: the odds an honest pair (or player) would look this bad, at most: for soft play, feeding and
    #: win rates, tested on every pair (thousands) that passes the size gates
    alpha: float = 1e-5
    #: chip dumping is tested only on the few pairs the chips gate lets through, hence its own
    dump_alpha: float = 1e-3
    #: a ring of accounts losing to one gainer, or a chain (integrity.chipflow), tested over every
    #: gainer with two or more suspected sources
    ring_alpha: float = 1e-5
    #: every pair signal: games together (one game's streak is not a pattern)
    min_games: int = 3
    #: chip dumping: games with a fee together, net chips moved one way (in entry fees)
    dump_min_games: int = 8
    dump_min_fees: float = 4.0
    #: soft play: chances to concede together; an optional floor on the excess over the usual rate
    #: (0: none; the test's odds already grow with the evidence, ``integrity.rates``)
    soft_min_deals: int = 20
    soft_min_excess: float = 0.0
    #: feeding: chances (the partner drew right after the player's discard); an optional floor on
    #: the excess of the take rate over the taker's usual rate (0: none)
    feed_min_chances: int = 15
    feed_min_excess: float = 0.0
    #: feeding's odds, at most: its chances come a few a game, so a feeder's evidence grows slowly,
    #: and the taker's rate is judged against their own record apart (``integrity.rates``), which
    #: keeps honest pairs well inside this (bench/integrity_family.py)
    feed_alpha: float = 1e-4
    #: team play: paid games a pair shared at tables of three or more
    team_min_games: int = 10
    #: win rate: games played; wins at least this many times what the seats give
    win_min_games: int = 30
    win_min_ratio: float = 1.6
    #: how many tries of the population's rate a player's own rate is pulled toward
    prior_weight: float = 30.0


@dataclass
class Finding:
    signal: str
    users: tuple[str, ...]
    figures: dict[str, Any]
    games: Sequence[Any]
    flagged: bool
    #: for ordering the signal page: the odds against, as -log10(p)
    score: float = 0.0


def _strength(p: float) -> float:
    return round(-math.log10(max(p, 1e-300)), 2)


def chip_dumping(s: Digests, t: Thresholds) -> list[Finding]:
    """A pair where chips flow one way, and either the loser finishes behind the gainer far more
    often than the two players' results against everyone else, away from each other, would give,
    or the loser concedes (by any way) far more often with the gainer in the deal than apart."""
    model = conceding_model(s)
    out = []
    for key, pair in s.pairs.items():
        if pair.paid == 0:
            continue
        a, b = key.split("|")
        if pair.flow >= 0:
            loser, gainer, flow, fees, li = a, b, pair.flow, pair.flow_fees, 0
            won, lost = pair.b_ahead, pair.a_ahead
            l_cmp, g_cmp = pair.cmp[0:2], pair.cmp[2:4]
        else:
            loser, gainer, flow, fees, li = b, a, -pair.flow, -pair.flow_fees, 1
            won, lost = pair.a_ahead, pair.b_ahead
            l_cmp, g_cmp = pair.cmp[2:4], pair.cmp[0:2]
        # each one's rate of finishing ahead of anyone, in the games without the other
        la, lb = s.cmp[loser][0] - l_cmp[0], s.cmp[loser][1] - l_cmp[1]
        ga, gb = s.cmp[gainer][0] - g_cmp[0], s.cmp[gainer][1] - g_cmp[1]
        r_loser = shrunk(la, la + lb, 0.5, t.prior_weight)
        r_gainer = shrunk(ga, ga + gb, 0.5, t.prior_weight)
        expected = log5(r_gainer, r_loser)
        # each strength is known from the games apart, and the prior's worth of games before them
        together = len(pair.games)
        apart_g = len(s.games[gainer]) - together + t.prior_weight
        apart_l = len(s.games[loser]) - together + t.prior_weight
        p = log5_sf(won, won + lost, r_gainer, apart_g, r_loser, apart_l)
        conceding = _conceding(s, pair, li, loser, model)
        moved = pair.paid >= t.dump_min_games and fees >= t.dump_min_fees
        flagged = moved and (p <= t.dump_alpha or conceding.beyond(t, t.dump_alpha))
        out.append(
            Finding(
                CHIP_DUMPING,
                (loser, gainer),
                {
                    "games": len(pair.games),
                    "paid_games": pair.paid,
                    "net_chips": round(flow),
                    "net_fees": round(fees, 2),
                    "gainer_ahead": won,
                    "loser_ahead": lost,
                    "expected_share": round(expected, 3),
                    "p_value": p,
                    "loser_conceded": conceding.conceded,
                    "loser_chances": conceding.chances,
                    "loser_ways": conceding.ways,
                    "loser_usual_rate": round(conceding.usual, 3),
                    "concede_p_value": float(f"{conceding.p:.3g}"),
                },
                pair.games[:GAMES_LISTED],
                flagged,
                _strength(min(p, conceding.p) if moved else p),
            )
        )
    return out


@dataclass(frozen=True)
class _Conceding:
    """One player's concessions in a pair's deals against their own record apart from the partner."""

    conceded: int
    chances: int
    chances_apart: int
    usual: float
    p: float
    ways: dict[str, int]

    @property
    def rate(self) -> float:
        return self.conceded / self.chances if self.chances else 0.0

    def beyond(self, t: Thresholds, alpha: float) -> bool:
        """Whether this conceding passes soft play's size gate (and any excess floor) at odds of ``alpha``."""
        return (
            self.chances >= t.soft_min_deals
            and self.rate >= self.usual + t.soft_min_excess
            and self.p <= alpha
        )


def conceding_model(s: Digests) -> RateModel:
    """How conceding varies in this window (``integrity.rates``)."""
    return RateModel.fit({p: (s.conceded[p], n) for p, n in s.chances.items()}, s.spread, squares=0, games=1)


def taking_model(s: Digests) -> RateModel:
    """How taking another's discard varies in this window."""
    return RateModel.fit(s.takes, s.spread, squares=2, games=3)


def costly_model(s: Digests) -> RateModel:
    """How often the discards others take cost the thrower's hand, in this window.

    Players differ in this far more than in other rates, and not around a middle: a careful
    player's discards cost nothing, a hopeful one keeps cards for melds and throws others half the
    time. The fitted prior (a robust spread around the median player) would read that as players
    not differing at all, and judge a thrower with a short record apart as if their discards never
    cost them. The prior here is the pooled rate with the plain spread of the players' rates
    (colluders, far out, widen it: the safe way), the dispersion as fitted."""
    fitted = RateModel.fit(s.given, s.spread, squares=4, games=5)
    # exact sums (math.fsum): the same window gives the same model whatever order it came in
    rows = [(x, n) for x, n in s.given.values() if n > 0]
    total = math.fsum(n for _, n in rows)
    if not total:
        return fitted
    pooled = min(max(math.fsum(x for x, _ in rows) / total, 1e-4), 1 - 1e-4)
    rates = [x / n for x, n in rows if n >= FIT_MIN_CHANCES]
    if len(rates) < 2:
        return RateModel(pooled, COSTLY_MIN_WEIGHT, fitted.dispersion)
    mean = math.fsum(rates) / len(rates)
    var = math.fsum((r - mean) ** 2 for r in rates) / (len(rates) - 1)
    weight = pooled * (1 - pooled) / var - 1 if var > 0 else fitted.weight
    return RateModel(pooled, max(min(weight, fitted.weight), COSTLY_MIN_WEIGHT), fitted.dispersion)


def _conceding(s: Digests, pair: Pair, i: int, me: str, model: RateModel) -> _Conceding:
    """How often ``me`` (the pair's member ``i``) conceded with the partner in the deal or game, by
    any way (a drop, a wrong show, the clock, leaving, a refused split), against their own record
    in their other games (``RateModel.judge``)."""
    x, n = pair.conceded[i], pair.chances[i]
    rest_x, rest_n = s.conceded[me] - x, s.chances[me] - n
    judged = model.judge(x, n, rest_x, rest_n)
    ways = {w: pair.ways[w][i] for w in WAYS if w in pair.ways and pair.ways[w][i]}
    return _Conceding(x, n, rest_n, judged.usual, judged.p, ways)


def soft_play(s: Digests, t: Thresholds) -> list[Finding]:
    """A player who concedes far more often with one partner in the deal than in their other
    games (or than the population, for a player seen little without that partner), by any way:
    a drop, a wrong show, letting the clock run out, leaving, refusing a split."""
    model = conceding_model(s)
    out = []
    for key, pair in s.pairs.items():
        if pair.chances == [0, 0]:
            continue
        a, b = key.split("|")
        best: Finding | None = None
        for i, (me, other) in enumerate(((a, b), (b, a))):
            c = _conceding(s, pair, i, me, model)
            flagged = len(pair.games) >= t.min_games and c.beyond(t, t.alpha)
            f = Finding(
                SOFT_PLAY,
                (me, other),
                {
                    "games": len(pair.games),
                    "deals_together": pair.deals,
                    "chances_together": c.chances,
                    "conceded_together": c.conceded,
                    "ways_together": c.ways,
                    "rate_together": round(c.rate, 3),
                    "usual_rate": round(c.usual, 3),
                    "chances_apart": c.chances_apart,
                    "population_rate": round(model.typical, 3),
                    "p_value": c.p,
                },
                pair.games[:GAMES_LISTED],
                flagged,
                _strength(c.p),
            )
            if best is None or (f.flagged, f.score) > (best.flagged, best.score):
                best = f
        assert best is not None
        out.append(best)
    return out


def feeding(s: Digests, t: Thresholds) -> list[Finding]:
    """A player whose discards one partner takes from the open pile far more often than that
    partner takes anyone else's discards (or than the population does), the odds weighed with
    what the discards taken cost the thrower's own hand against what the discards others take
    from them cost (``integrity.discard_cost``): a feeder throws what the partner needs, not what
    their own hand needs least."""
    taking = taking_model(s)
    giving = costly_model(s)
    out = []
    for key, pair in s.pairs.items():
        a, b = key.split("|")
        best: Finding | None = None
        for giver, taker, k, n, c, m in (
            (a, b, pair.feeds[0], pair.feeds[1], pair.costly[0], pair.costly[1]),
            (b, a, pair.feeds[2], pair.feeds[3], pair.costly[2], pair.costly[3]),
        ):
            if n == 0:
                continue
            judged = taking.judge(k, n, s.takes[taker][0] - k, s.takes[taker][1] - n)
            usual, p_take = judged.usual, judged.p
            gave = s.given[giver]
            cost = giving.judge(c, m, gave[0] - c, gave[1] - m) if m else None
            p = fisher(p_take, cost.p) if cost is not None else p_take
            rate = k / n
            # the floor on the take rate's excess, when one is set: a feeder may hand over what the
            # partner would have taken anyway, which only the cost of the discards shows
            flagged = (
                len(pair.games) >= t.min_games
                and n >= t.feed_min_chances
                and (t.feed_min_excess <= 0 or rate >= usual + t.feed_min_excess)
                and p <= t.feed_alpha
            )
            figures: dict[str, Any] = {
                "games": len(pair.games),
                "chances": n,
                "taken": k,
                "rate": round(rate, 3),
                "taker_usual_rate": round(usual, 3),
                "population_rate": round(taking.typical, 3),
                "p_take": p_take,
            }
            if cost is not None:
                figures |= {
                    "taken_costly": c,
                    "taken_known": m,
                    "giver_usual_costly": round(cost.usual, 3),
                    "p_cost": cost.p,
                }
            figures["p_value"] = p
            f = Finding(FEEDING, (giver, taker), figures, pair.games[:GAMES_LISTED], flagged, _strength(p))
            if best is None or (f.flagged, f.score) > (best.flagged, best.score):
                best = f
        if best is not None:
            out.append(best)
    return out


def win_rate(s: Digests, t: Thresholds) -> list[Finding]:
    """A player who wins far more games than their seats give (1 in n at an n-player table)."""
    out = []
    for player, games in s.games.items():
        won = s.won[player]
        mean, var = s.expected[player]
        z = (won - mean) / math.sqrt(var) if var > 0 else 0.0
        p = normal_sf(z)
        ratio = won / mean if mean else 0.0
        flagged = len(games) >= t.win_min_games and ratio >= t.win_min_ratio and p <= t.alpha
        out.append(
            Finding(
                WIN_RATE,
                (player,),
                {
                    "games": len(games),
                    "won": round(won, 2),
                    "expected": round(mean, 2),
                    "ratio": round(ratio, 2),
                    "z": round(z, 2),
                    "p_value": p,
                },
                games[-GAMES_LISTED:],
                flagged,
                _strength(p),
            )
        )
    return out


#: How many wins' worth of an ordinary player's record a strength is read with beside the
#: player's own: a player seen little apart is judged as anyone might be, not as ordinary.
STRENGTH_PRIOR_WINS = 5.0


def _strength_apart(s: Digests, me: str, pair: Pair, i: int) -> tuple[float, float]:
    """``me``'s strength in games without the partner, as a Gamma: (times what the seats give
    they win, and how many wins' worth of record that rests on)."""
    won = max(s.won[me] - pair.won[i], 0.0)
    gave = max(s.expected[me][0] - pair.seats_gave, 0.0)
    return (won + STRENGTH_PRIOR_WINS) / (gave + STRENGTH_PRIOR_WINS), won + STRENGTH_PRIOR_WINS


def _wins_beyond(won: float, parts: list[tuple[float, float]]) -> float:
    """The odds of at least ``won`` wins where each part (expected wins, the shape of its
    strength) is a negative binomial, their sum matched by its mean and variance."""
    mean = sum(m for m, _ in parts)
    extra = sum(m * m / shape for m, shape in parts)
    if mean <= 0:
        return 1.0 if won <= 0 else 0.0
    return negbinom_sf(math.floor(won + 1e-9), mean, mean * mean / extra if extra > 0 else 1e9)


def team_play(s: Digests, t: Thresholds) -> list[Finding]:
    """Two who win far more often, together, at tables of three or more than their strengths
    apart give: partners who share hands and play as a team against the rest of the table
    (neither discarding what a third player needs, both holding what the others want), the chips
    coming from the others rather than from each other."""
    out = []
    for key, pair in s.pairs.items():
        games, won, gave, won_a = pair.team
        if games == 0:
            continue
        a, b = key.split("|")
        (q_a, r_a), (q_b, r_b) = _strength_apart(s, a, pair, 0), _strength_apart(s, b, pair, 1)
        n = int(games)
        # the seats give each the same share at a table; each wins it times their strength, known
        # as well as their record apart tells. Read three ways (the pair's wins, each one's), the
        # strongest counted three times
        part_a, part_b = (gave * q_a, r_a), (gave * q_b, r_b)
        tests = {"pair": (won, [part_a, part_b]), a: (won_a, [part_a]), b: (won - won_a, [part_b])}
        odds = {k: _wins_beyond(w, parts) for k, (w, parts) in tests.items()}
        strongest = min(odds, key=lambda k: odds[k])
        p = min(1.0, 3 * odds[strongest])
        flagged = len(pair.games) >= t.min_games and n >= t.team_min_games and p <= t.alpha
        ahead = a if won_a >= won - won_a else b
        other = b if ahead == a else a
        out.append(
            Finding(
                TEAM_PLAY,
                (ahead, other),
                {
                    "games": len(pair.games),
                    "games_of_three_or_more": n,
                    "won_together": round(won, 2),
                    "expected": round(gave * (q_a + q_b), 2),
                    "won_by_each": [round(tests[ahead][0], 2), round(tests[other][0], 2)],
                    "expected_each": [round(tests[ahead][1][0][0], 2), round(tests[other][1][0][0], 2)],
                    "strongest_reading": "the pair" if strongest == "pair" else "one of them",
                    "p_value": p,
                },
                pair.games[:GAMES_LISTED],
                flagged,
                _strength(p),
            )
        )
    return out


def chip_ring(s: Digests, t: Thresholds) -> list[Finding]:
    """Accounts losing chips to one gainer, tested as a ring, and chains that pass chips on
    (``integrity.chipflow``); one finding per hub (the gainer, or a chain's middle), the strongest."""
    model = conceding_model(s)
    best: dict[str, Finding] = {}
    for users, figures, games, flagged, p in [
        *chipflow.rings(s, t, model, GAMES_LISTED),
        *chipflow.chains(s, t, model, GAMES_LISTED),
    ]:
        f = Finding(CHIP_RING, users, figures, games, flagged, _strength(p))
        old = best.get(users[0])
        if old is None or (f.flagged, f.score) > (old.flagged, old.score):
            best[users[0]] = f
    return list(best.values())


SIGNALS = {
    CHIP_DUMPING: chip_dumping,
    SOFT_PLAY: soft_play,
    FEEDING: feeding,
    TEAM_PLAY: team_play,
    CHIP_RING: chip_ring,
    WIN_RATE: win_rate,
}
#: The signals that judge each pair on its own (its sums and the two players'): run over the pairs
#: a part at a time (``findings``), so a scan never holds a finding for every pair of the window.
#: A signal that reads several pairs at once (``chip_ring``: who loses to whom) is not one of them.
PER_PAIR = frozenset({CHIP_DUMPING, SOFT_PLAY, FEEDING, TEAM_PLAY})
#: How many pairs a per-pair signal reads at a time.
PART_PAIRS = 100_000


def findings(sums: Digests, name: str, t: Thresholds, *, part: int = PART_PAIRS) -> Iterator[list[Finding]]:
    """The signal ``name``'s findings, a batch at a time: a per-pair signal's ``part`` pairs at a
    time, any other signal's all at once."""
    fn = SIGNALS[name]
    if name not in PER_PAIR:
        yield fn(sums, t)
        return
    for piece in sums.parts(part):
        yield fn(piece, t)


def run_all(
    games: Iterable[tuple[Any, dict[str, Any]]], t: Thresholds | None = None
) -> dict[str, list[Finding]]:
    """Every game signal over ``games`` (ref, digest)."""
    t = t or Thresholds()
    sums = Digests(games)
    return {name: [f for batch in findings(sums, name, t) for f in batch] for name in SIGNALS}
