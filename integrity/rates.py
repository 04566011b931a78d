"""How a per-chance rate (conceding, taking a discard) varies, and whether one count is beyond it.

A pair signal asks whether a player did something with one partner more often than they do apart.
Two things make a naive binomial test flag honest players: chances in one game are not independent
(a player on a bad run drops several deals of one game), and a player's usual rate is only known
from a finite record. ``RateModel`` measures both from the population at each scan:

- **dispersion**: how much more a player's per-game counts vary than independent chances would
  (the Pearson statistic of each player's games against their own rate, over its degrees of
  freedom; the median player's). Counts are divided by it before testing, so a game's worth of correlated chances
  weighs as what it is worth;
- **spread between players**: a Beta prior fitted to the players' rates (median and a robust
  spread), so a player with little record apart is judged by what players vary between, and
  one with a long record by their own.

The test is then a beta-binomial tail: the count with the partner against the player's rate read
from their record apart. Its power grows with the games played (a steady excess of any size is
found given enough of them), and a few games of a fluke are weighed as few.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from integrity.stats import betabinom_sf

#: Players' own records enter the fit only with at least this many chances.
FIT_MIN_CHANCES = 20
#: Bounds on the fitted values (a population of a handful of players says little; a prior never
#: counts for fewer than 30 chances: a mixture of styles must not make every rate look possible).
DISPERSION_BOUNDS = (1.0, 4.0)
PRIOR_WEIGHT_BOUNDS = (30.0, 400.0)
#: The prior weight, and no dispersion, until the population is large enough to fit them.
DEFAULT_PRIOR_WEIGHT = 30.0
FIT_MIN_PLAYERS = 30


@dataclass(frozen=True)
class Judged:
    """One count judged: the player's usual rate (read from their record apart), and the odds that
    an honest player with that record would do at least this much."""

    usual: float
    p: float


@dataclass(frozen=True)
class RateModel:
    """The population's typical rate, how far players differ (``weight``: the prior counts as that
    many chances), and the dispersion of per-game counts."""

    typical: float
    weight: float
    dispersion: float

    @classmethod
    def fit(
        cls,
        totals: Mapping[str, Sequence[float]],
        spread: Mapping[str, Sequence[float]],
        *,
        squares: int,
        games: int,
    ) -> RateModel:
        """From each player's totals ``[count, chances]`` and ``spread[player][squares]`` (the sum
        over games of count squared over chances) and ``spread[player][games]`` (games with a chance)."""
        rows = [(float(x), float(n)) for x, n in totals.values() if n > 0]
        pooled_n = sum(n for _, n in rows)
        pooled = sum(x for x, _ in rows) / pooled_n if pooled_n else 0.0
        each = []
        for player, (x, n) in totals.items():
            if n < FIT_MIN_CHANCES:
                continue
            mine = spread.get(player)
            g = int(mine[games]) if mine is not None else 0
            r = x / n
            if mine is None or g < 4 or r <= 0.0 or r >= 1.0:
                continue
            each.append((mine[squares] - x * x / n) / (r * (1 - r)) / (g - 1))
        # the median player's dispersion: a colluder's counts (all with a partner, none apart)
        # spread far more than anyone's, and must not make every count look ordinary
        phi = _median(each) if len(each) >= FIT_MIN_PLAYERS else 1.0
        phi = min(max(phi, DISPERSION_BOUNDS[0]), DISPERSION_BOUNDS[1])
        rates = sorted(x / n for x, n in rows if n >= FIT_MIN_CHANCES)
        if not rates:
            return cls(pooled, DEFAULT_PRIOR_WEIGHT, phi)
        typical = _median(rates)
        if len(rates) < FIT_MIN_PLAYERS:
            return cls(typical, DEFAULT_PRIOR_WEIGHT, phi)
        # a robust spread of the rates (colluders are few and far out), less what the players'
        # finite records alone would spread them by
        mad = 1.4826 * _median([abs(r - typical) for r in rates])
        noise = phi * typical * (1 - typical) * _median([1 / n for x, n in rows if n >= FIT_MIN_CHANCES])
        between = max(mad * mad - noise, 1e-6)
        weight = typical * (1 - typical) / between - 1 if 0 < typical < 1 else DEFAULT_PRIOR_WEIGHT
        weight = min(max(weight, PRIOR_WEIGHT_BOUNDS[0]), PRIOR_WEIGHT_BOUNDS[1])
        return cls(typical, weight, phi)

    def judge(self, count: float, chances: float, rest_count: float, rest_chances: float) -> Judged:
        """``count`` of ``chances`` with a partner against the same player's ``rest_count`` of
        ``rest_chances`` apart from them."""
        phi = self.dispersion
        typical = min(max(self.typical, 1e-4), 1 - 1e-4)
        a = typical * self.weight + max(rest_count, 0.0) / phi
        b = (1 - typical) * self.weight + max(rest_chances - rest_count, 0.0) / phi
        usual = a / (a + b)
        n = int(chances / phi + 0.5)
        k = min(int(math.floor(count / phi + 1e-9)), n)
        return Judged(usual, betabinom_sf(k, n, a, b) if n > 0 else 1.0)

    def excess(
        self, count: float, chances: float, rest_count: float, rest_chances: float
    ) -> tuple[float, float]:
        """The count's excess over the usual rate and its variance (the normal approximation the
        ring test sums over several partners)."""
        phi = self.dispersion
        typical = min(max(self.typical, 1e-4), 1 - 1e-4)
        a = typical * self.weight + max(rest_count, 0.0) / phi
        b = (1 - typical) * self.weight + max(rest_chances - rest_count, 0.0) / phi
        u = a / (a + b)
        rate_var = u * (1 - u) / (a + b + 1)
        return count - chances * u, phi * chances * u * (1 - u) + chances * chances * rate_var

    def figures(self) -> dict[str, float]:
        return {
            "typical": round(self.typical, 3),
            "prior_weight": round(self.weight, 1),
            "dispersion": round(self.dispersion, 2),
        }


def _median(values: Sequence[float]) -> float:
    v = sorted(values)
    if not v:
        return 0.0
    mid = len(v) // 2
    return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2
