"""The small pieces of statistics the integrity signals use (no SciPy for a few formulas).

``binom_sf``: how likely at least ``k`` successes in ``n`` tries are if each succeeds with
probability ``p`` (the one-sided binomial test's p-value); ``betabinom_sf``: the same when the
rate itself is only known as a Beta distribution (a player's rate read from a finite record);
``log5``: the chance that a player whose rate of finishing ahead of an opponent is ``a`` finishes
ahead of one whose rate is ``b`` (Bill James' log5, the Bradley-Terry model from two rates
against the field), and ``log5_sf`` its tail over a record when both rates are read from
finite records; ``negbinom_sf``: a count's tail when its rate is known as a Gamma;
``normal_sf``: the upper tail of the standard normal.
"""

from __future__ import annotations

import math


def binom_sf(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed in log space (exact for any n the signals see)."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    lp, lq = math.log(p), math.log1p(-p)
    lgn = math.lgamma(n + 1)
    terms = [
        lgn - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp + (n - i) * lq for i in range(k, n + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def log5(a: float, b: float) -> float:
    """The chance that a player with rate ``a`` against the field beats one with rate ``b``."""
    a = min(max(a, 1e-6), 1 - 1e-6)
    b = min(max(b, 1e-6), 1 - 1e-6)
    return a * (1 - b) / (a * (1 - b) + b * (1 - a))


def log5_sf(k: int, n: int, a: float, a_games: float, b: float, b_games: float) -> float:
    """P(X >= k) for ``k`` of ``n`` head-to-head results going to a player of rate ``a`` against one
    of rate ``b``, each rate read from a record of so many games: log5's chance is itself uncertain
    (its variance by the delta method), so the tail is a beta-binomial with that mean and variance.
    A strong friend seen little apart is not taken for a dumper's partner on a point estimate."""
    a = min(max(a, 1e-6), 1 - 1e-6)
    b = min(max(b, 1e-6), 1 - 1e-6)
    mean = log5(a, b)
    d2 = (a + b - 2 * a * b) ** 2
    var = (
        (b * (1 - b)) ** 2 * a * (1 - a) / (a_games + 1) + (a * (1 - a)) ** 2 * b * (1 - b) / (b_games + 1)
    ) / (d2 * d2)
    concentration = mean * (1 - mean) / var - 1 if var > 0 else math.inf
    if concentration > 1e6:
        return binom_sf(k, n, mean)
    concentration = max(concentration, 1e-3)
    return betabinom_sf(k, n, mean * concentration, (1 - mean) * concentration)


def shrunk(successes: float, tries: float, prior: float, weight: float) -> float:
    """A rate pulled toward ``prior`` as if ``weight`` more tries had gone at that rate: a player
    with little history is judged by the population until their own record speaks."""
    return (successes + prior * weight) / (tries + weight)


def _lbeta(a: float, b: float) -> float:
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def betabinom_sf(k: int, n: int, a: float, b: float) -> float:
    """P(X >= k) for X ~ BetaBinomial(n, a, b): ``k`` or more successes in ``n`` tries at a rate
    drawn from Beta(a, b). Wider than the binomial when the rate is uncertain, so a player whose
    usual rate is read from few games is not judged as if it were known exactly."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    base = math.lgamma(n + 1) - _lbeta(a, b)
    terms = [
        base - math.lgamma(i + 1) - math.lgamma(n - i + 1) + _lbeta(i + a, n - i + b) for i in range(k, n + 1)
    ]
    top = max(terms)
    return min(1.0, math.exp(top) * sum(math.exp(t - top) for t in terms))


def normal_sf(z: float) -> float:
    """P(Z >= z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def negbinom_sf(k: int, mean: float, shape: float) -> float:
    """P(X >= k) for a count X whose rate is only known as a Gamma of ``shape`` around ``mean``
    (a negative binomial): wins that a player's strength, read from a finite record, predicts."""
    if k <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    p = shape / (shape + mean)
    log_p, log_q = math.log(p), math.log1p(-p)
    below = sum(
        math.exp(math.lgamma(x + shape) - math.lgamma(shape) - math.lgamma(x + 1) + shape * log_p + x * log_q)
        for x in range(k)
    )
    return min(1.0, max(0.0, 1.0 - below))


def fisher(p1: float, p2: float) -> float:
    """Two independent tests' odds as one (Fisher's method): the chance that honest play makes the
    product of the two odds this small. Two sound tests combined stay sound, and evidence that
    each shows a little of adds up."""
    q = max(p1 * p2, 1e-300)
    return min(1.0, q * (1.0 - math.log(q)))
