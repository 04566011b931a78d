"""One person behind several accounts, read from how the accounts play (pure Python, no Django).

A shared device or mailbox links accounts at sign-in (``integrity.capture``); a person with
fresh browsers and mailboxes leaves neither. What they cannot hide is how one person plays:

- **sit together**: the accounts sit at one table far more often than their activity gives by
  chance (most of the rarer one's games are with the other);
- **chips one way**: over paid games together, chips move from one to the other, in one
  direction, more often than the two players' results apart would give;
- **never at the same time**: both play enough games apart, often close in time (one after the
  other, taking turns), yet never once in two games at overlapping times: one person switching
  accounts. Games together are allowed (one person may seat two accounts at one table).

``judge`` combines them with the shared sign-in address (docs/integrity.md states each rule with
its numbers): an address alone never links; an address with any one of the three links and
flags; with no shared address, sitting together with either of the others flags for review
only. Three accounts of one person are judged pair by pair, so a ring of three is three pairs.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from integrity.digest import chip_flows
from integrity.stats import binom_sf, log5, shrunk

SIGNAL = "one_person"
#: How many games a finding lists (the scan's flags keep the first and latest of them).
GAMES_LISTED = 50


@dataclass(frozen=True)
class Rules:
    """The multi-account rules' numbers (docs/integrity.md); settable as
    ``INTEGRITY_MULTI_ACCOUNT_RULES``."""

    #: sit together: games together, and the share of the rarer one's games they are
    sit_min_games: int = 8
    sit_min_share: float = 0.5
    #: sit together: the odds that seats given by chance put them together this often, at most
    sit_alpha: float = 1e-3
    #: chips one way: paid games together in which chips moved between them, entry fees moved
    #: net, and the share of those games in which they moved the gainer's way
    chips_min_games: int = 8
    chips_min_fees: float = 4.0
    chips_min_share: float = 0.8
    #: chips one way: the odds that players of their results apart would finish that way, at most
    chips_alpha: float = 1e-2
    #: never at the same time: games apart from the other, each account
    apart_min_games: int = 8
    #: never at the same time: two games apart are "close" when one began within this many
    #: minutes of the other's end (or they overlap)
    close_minutes: float = 60.0
    #: never at the same time: an overlap shorter than this is not counted (clocks, a countdown)
    overlap_grace_seconds: float = 60.0
    #: never at the same time: the odds that two people playing when they do would never once
    #: overlap in their close games, at most
    apart_alpha: float = 1e-4
    #: how many games of an even record a player's own record is pulled toward
    prior_weight: float = 10.0


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game as these rules read it: who played (people, not bots), when (seconds on
    any one clock), the entry fee and each person's chips won minus paid."""

    ref: int
    start: float
    end: float
    people: tuple[str, ...]
    fee: int
    net: Mapping[str, int]


@dataclass
class Finding:
    """What the rules found for a pair: the figures, the games behind them, whether it is flagged
    for review and whether the pair is linked (kept apart at tables)."""

    users: tuple[str, str]
    figures: dict[str, Any]
    games: list[int]
    flagged: bool
    link: bool
    score: float


@dataclass
class _Pair:
    games: list[int] = field(default_factory=list)
    #: paid games together with chips between them: [to the second, to the first]
    ways: list[int] = field(default_factory=lambda: [0, 0])
    #: net chips from the first to the second, in entry fees
    fees: float = 0.0
    #: in paid games together, each one's finishes ahead of and behind anyone
    cmp: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    #: paid games together in which each finished ahead of the other
    ahead: list[int] = field(default_factory=lambda: [0, 0])


def _strength(p: float) -> float:
    return round(-math.log10(max(p, 1e-300)), 2)


class Activity:
    """The window's games summed once: each person's games in time order and each pair's games
    together (with the chips between them)."""

    def __init__(self, games: Iterable[Game], pairs: Collection[tuple[str, str]] | None = None) -> None:
        #: the pairs whose games together are summed (lower id first, as strings); None: every pair
        self.only = pairs
        #: the people of those pairs: only their results are summed
        self.members = None if pairs is None else {p for pair in pairs for p in pair}
        self.of: dict[str, list[Game]] = defaultdict(list)
        self.pairs: dict[tuple[str, str], _Pair] = defaultdict(_Pair)
        #: each person's other seats summed over their games, and all seats (for chance seating)
        self.others: dict[str, int] = defaultdict(int)
        self.seats = 0
        #: each person's finishes ahead of and behind anyone in paid games
        self.cmp: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for g in sorted(games, key=lambda g: (g.start, g.ref)):
            self._add(g)

    def _add(self, g: Game) -> None:
        people = tuple(sorted(set(g.people)))
        self.seats += len(people)
        for p in people:
            self.of[p].append(g)
            self.others[p] += len(people) - 1
        watched = people if self.members is None else tuple(p for p in people if p in self.members)
        if not watched:
            return
        paid = g.fee > 0
        net = {p: g.net.get(p, 0) for p in people}
        ahead: dict[str, int] = {}
        behind: dict[str, int] = {}
        if paid:
            for p in watched:
                ahead[p] = sum(1 for q in people if net[q] < net[p])
                behind[p] = sum(1 for q in people if net[q] > net[p])
                self.cmp[p][0] += ahead[p]
                self.cmp[p][1] += behind[p]
        flows: dict[tuple[str, str], float] | None = None
        for a, b in combinations(watched, 2):
            if self.only is not None and (a, b) not in self.only:
                continue
            pair = self.pairs[(a, b)]
            pair.games.append(g.ref)
            if not paid:
                continue
            if flows is None:
                flows = chip_flows(net)
            moved = flows.get((a, b), 0.0) - flows.get((b, a), 0.0)
            if moved > 0:
                pair.ways[0] += 1
            elif moved < 0:
                pair.ways[1] += 1
            pair.fees += moved / g.fee
            pair.cmp[0] += ahead[a]
            pair.cmp[1] += behind[a]
            pair.cmp[2] += ahead[b]
            pair.cmp[3] += behind[b]
            pair.ahead[0] += int(net[a] > net[b])
            pair.ahead[1] += int(net[b] > net[a])

    def together(self, a: str, b: str) -> _Pair:
        key = (a, b) if a < b else (b, a)
        return self.pairs.get(key) or _Pair()


# ---------------------------------------------------------------------------
# the three measures, each on one pair
# ---------------------------------------------------------------------------
def sit_together(act: Activity, a: str, b: str, r: Rules) -> tuple[bool, dict[str, Any], float]:
    """Whether the pair sits together far more than chance seats them: at least
    ``sit_min_games`` games together, at least ``sit_min_share`` of the rarer one's games, and
    odds of at most ``sit_alpha`` that seats taken at random among everyone's games would put
    them together this often."""
    together = len(act.together(a, b).games)
    rare, other = (a, b) if len(act.of[a]) <= len(act.of[b]) else (b, a)
    n_rare, n_other = len(act.of[rare]), len(act.of[other])
    # the chance one seat beside the rarer one is the other: their share of the remaining seats
    free = max(act.seats - n_rare, 1)
    chance = min(1.0, act.others[rare] * n_other / free / n_rare) if n_rare else 1.0
    p = binom_sf(together, n_rare, chance)
    share = together / n_rare if n_rare else 0.0
    passed = together >= r.sit_min_games and share >= r.sit_min_share and p <= r.sit_alpha
    return (
        passed,
        {
            "games_together": together,
            "rarer_games": n_rare,
            "share_together": round(share, 3),
            "chance_share": round(chance, 3),
            "sit_p_value": float(f"{p:.3g}"),
        },
        p,
    )


def chips_one_way(act: Activity, a: str, b: str, r: Rules) -> tuple[bool, dict[str, Any], float, bool]:
    """Whether chips move one way between the pair: at least ``chips_min_games`` paid games
    together in which chips moved between them, at least ``chips_min_fees`` entry fees net, the
    gainer's way in at least ``chips_min_share`` of them, and the gainer finishing ahead so often
    that players of their results apart (log5) would do it with odds of at most ``chips_alpha``.
    The last value: whether ``b`` is the one who loses (the pair reads the other way round)."""
    first, second = (a, b) if a < b else (b, a)
    pair = act.together(a, b)
    if pair.fees >= 0:  # first loses to second
        loser, gainer, fees, one_way = first, second, pair.fees, pair.ways[0]
        won, lost, l_cmp, g_cmp = pair.ahead[1], pair.ahead[0], pair.cmp[0:2], pair.cmp[2:4]
    else:
        loser, gainer, fees, one_way = second, first, -pair.fees, pair.ways[1]
        won, lost, l_cmp, g_cmp = pair.ahead[0], pair.ahead[1], pair.cmp[2:4], pair.cmp[0:2]
    moved = sum(pair.ways)
    la, lb = act.cmp[loser][0] - l_cmp[0], act.cmp[loser][1] - l_cmp[1]
    ga, gb = act.cmp[gainer][0] - g_cmp[0], act.cmp[gainer][1] - g_cmp[1]
    expected = log5(shrunk(ga, ga + gb, 0.5, r.prior_weight), shrunk(la, la + lb, 0.5, r.prior_weight))
    p = binom_sf(won, won + lost, expected)
    share = one_way / moved if moved else 0.0
    passed = (
        moved >= r.chips_min_games
        and fees >= r.chips_min_fees
        and share >= r.chips_min_share
        and p <= r.chips_alpha
    )
    return (
        passed,
        {
            "chips_loser": loser,
            "paid_games_with_chips": moved,
            "games_chips_one_way": one_way,
            "net_fees": round(fees, 2),
            "gainer_ahead": won,
            "loser_ahead": lost,
            "expected_share": round(expected, 3),
            "chips_p_value": float(f"{p:.3g}"),
        },
        p,
        loser == b,
    )


def _apart(act: Activity, me: str, other: str) -> list[Game]:
    return [g for g in act.of[me] if other not in g.people]


def never_same_time(act: Activity, a: str, b: str, r: Rules) -> tuple[bool, dict[str, Any], float, list[int]]:
    """Whether two accounts take turns like one person: each has at least ``apart_min_games``
    games without the other; of all the times a game of one began within ``close_minutes`` of a
    game of the other (or overlapped it), none overlapped; and the odds of that for two people
    playing when they do are at most ``apart_alpha``. Each close time would overlap with chance
    (d1 + d2) / (d1 + d2 + 2w) for games of lengths d1, d2 placed at random within w of each
    other; the odds are the product over the close times. Returns the close games too."""
    mine, theirs = _apart(act, a, b), _apart(act, b, a)
    w = r.close_minutes * 60
    grace = r.overlap_grace_seconds
    starts = [g.start for g in theirs]  # in time order (``Activity`` sorts them)
    longest = max((g.end - g.start for g in theirs), default=0.0)
    close = overlaps = 0
    log_p = 0.0
    behind: set[int] = set()
    for x in mine:
        lo = bisect_left(starts, x.start - longest - w)
        hi = bisect_right(starts, x.end + w)
        for y in theirs[lo:hi]:
            gap = max(y.start - x.end, x.start - y.end)  # negative: they overlap by that much
            if gap > w:
                continue
            close += 1
            behind.update((x.ref, y.ref))
            if gap < -grace:
                overlaps += 1
            span = (x.end - x.start) + (y.end - y.start)
            log_p += math.log1p(-span / (span + 2 * w)) if span > 0 else 0.0
    enough = min(len(mine), len(theirs)) >= r.apart_min_games
    p = math.exp(log_p) if overlaps == 0 else 1.0
    passed = enough and overlaps == 0 and close > 0 and p <= r.apart_alpha
    return (
        passed,
        {
            "games_apart": [len(mine), len(theirs)],
            "close_games": close,
            "overlaps": overlaps,
            "apart_p_value": float(f"{p:.3g}"),
        },
        p,
        sorted(behind),
    )


# ---------------------------------------------------------------------------
# the rule
# ---------------------------------------------------------------------------
def judge(act: Activity, a: str, b: str, addresses: Sequence[str], r: Rules) -> Finding:
    """The pair judged: with a shared address, any one measure flags and links them; without,
    sitting together with chips one way or never at the same time flags them for review only."""
    sit, sit_f, sit_p = sit_together(act, a, b, r)
    chips, chips_f, chips_p, reversed_ = chips_one_way(act, a, b, r)
    apart, apart_f, apart_p, close = never_same_time(act, a, b, r)
    shared = bool(addresses)
    # with an address, any one measure; without, sitting together and one of the others
    flagged = (sit or chips or apart) if shared else (sit and (chips or apart))
    users = (b, a) if chips and reversed_ else (a, b)  # a chips finding reads loser first
    chips_f = {k: v for k, v in chips_f.items() if k != "chips_loser"}
    figures = {
        "shared_addresses": sorted(addresses)[:5],
        "sit_together": sit,
        "chips_one_way": chips,
        "never_same_time": apart,
        **sit_f,
        **chips_f,
        **apart_f,
        "linked": shared and flagged,
    }
    passed = [p for p, ok in ((sit_p, sit), (chips_p, chips), (apart_p, apart)) if ok]
    score = sum(_strength(p) for p in passed) if passed else _strength(min(sit_p, chips_p, apart_p)) / 10
    together = act.together(a, b).games
    games = sorted(set(together) | set(close))
    return Finding(users, figures, games, flagged, shared and flagged, round(score, 2))


def find(
    games: Iterable[Game],
    shared: Mapping[tuple[str, str], Sequence[str]],
    r: Rules | None = None,
    together: Iterable[tuple[str, str]] | None = None,
) -> list[Finding]:
    """Every pair worth judging, judged: the pairs that share an address (``shared``: the
    addresses of each, lower id first) and those with enough games together for sitting together
    or chips one way (``together``, if the caller counted them already; without an address,
    sitting together is required)."""
    r = r or Rules()
    games = list(games)
    least = min(r.sit_min_games, r.chips_min_games)
    if together is None:
        counts = Counter(pair for g in games for pair in combinations(sorted(set(g.people)), 2))
        together = [pair for pair, n in counts.items() if n >= least]
    pairs = {(a, b) if a < b else (b, a) for a, b in (*shared, *together) if a != b}
    act = Activity(games, pairs)
    out = []
    for a, b in sorted(pairs):
        if act.of.get(a) and act.of.get(b):
            out.append(judge(act, a, b, shared.get((a, b), ()), r))
    return out
