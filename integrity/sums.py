"""The window's digests summed once, for the signals to read (``integrity.detect``; pure Python).

``Digests`` reads each game's digest once and keeps, per player and per pair, the counts every
signal needs: deals, drops, ways of conceding and their chances, discards taken and what they
cost, and per pair the games together, the chips that moved between them and who finished ahead.
A pair keeps counts, not games; its games are read from the two players' lists when asked for
(``PairGames``).
"""

from __future__ import annotations

import copy
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from typing import Any, overload

from integrity.digest import chip_flows


class PairGames(Sequence[Any]):
    """The games a pair played together, in the order the digests came, read from the two
    players' own lists when asked for: a pair keeps its count, not a list (the window holds
    millions of pairs, and the games are read only for the findings a scan keeps).

    ``len`` is the count at once; slicing gives another ``PairGames`` (``[:n]`` and ``[-n:]`` stay
    lazy); iterating or indexing reads the games (the longer player's list once)."""

    __slots__ = ("_a", "_b", "_n", "_start", "_stop")

    def __init__(self, a: list[Any], b: list[Any], n: int, start: int = 0, stop: int | None = None) -> None:
        self._a, self._b, self._n = a, b, n
        self._start, self._stop = start, n if stop is None else stop

    def __len__(self) -> int:
        return max(0, self._stop - self._start)

    def _all(self) -> list[Any]:
        short, long = (self._a, self._b) if len(self._a) <= len(self._b) else (self._b, self._a)
        mine = set(short)
        together = [g for g in long if g in mine]
        return together[self._start : self._stop]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._all())

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> PairGames: ...
    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            start, stop, step = index.indices(len(self))
            if step != 1:
                return self._all()[index]
            return PairGames(self._a, self._b, self._n, self._start + start, self._start + max(start, stop))
        return self._all()[index]

    def __add__(self, other: Iterable[Any]) -> list[Any]:
        """The games, then ``other``'s, as a list (as two lists would add)."""
        return [*self, *other]

    def __radd__(self, other: Iterable[Any]) -> list[Any]:
        return [*other, *self]

    def __eq__(self, other: object) -> bool:
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self) -> str:
        return f"PairGames({list(self)!r})"


class Pair:
    """One pair's sums over the window (``a|b``, a < b): scalars in slots, read through the
    list-shaped attributes below, so millions of pairs fit a worker's memory."""

    __slots__ = (
        "_ga", "_gb", "n", "paid", "flow", "flow_fees", "a_ahead", "b_ahead", "c0", "c1", "c2", "c3",
        "deals", "d0", "d1", "f0", "f1", "f2", "f3", "g0", "g1", "g2", "g3", "k0", "k1", "h0", "h1",
        "w0", "w1", "other_ways",
        "won0", "won1", "seats_gave", "t0", "t1", "t2", "t3",
    )  # fmt: skip

    def __init__(self, a_games: list[Any] | None = None, b_games: list[Any] | None = None) -> None:
        self._ga: list[Any] = a_games if a_games is not None else []
        self._gb: list[Any] = b_games if b_games is not None else []
        self.n = 0  # games together
        self.paid = 0  # games with a fee
        self.flow = 0.0  # a -> b, paise (negative: b -> a)
        self.flow_fees = 0.0
        self.a_ahead = self.b_ahead = 0
        self.c0 = self.c1 = self.c2 = self.c3 = 0
        self.deals = 0
        self.d0 = self.d1 = 0
        self.f0 = self.f1 = self.f2 = self.f3 = 0
        self.g0 = self.g1 = self.g2 = self.g3 = 0  # costly discards taken (integrity.digest)
        self.k0 = self.k1 = 0  # conceded, every way
        self.h0 = self.h1 = 0  # chances to concede
        self.w0 = self.w1 = 0  # conceded by a drop
        #: the other ways of conceding ({way: [a's, b's]}), None until one is seen
        self.other_ways: dict[str, list[int]] | None = None
        self.won0 = self.won1 = 0.0  # each one's wins (a split's share) in every game together
        self.seats_gave = 0.0  # what the seats gave them (1 in n), every game together
        #: at tables of three or more, paid: the games, the pair's wins, what the seats gave, a's wins
        self.t0 = 0
        self.t1 = self.t2 = self.t3 = 0.0

    @property
    def games(self) -> PairGames:
        """The games together (``PairGames``: the count at once, the games when read)."""
        return PairGames(self._ga, self._gb, self.n)

    @property
    def cmp(self) -> list[int]:
        """Each player's finishes ahead of and behind anyone, in the paid games they shared:
        [a ahead, a behind, b ahead, b behind]."""
        return [self.c0, self.c1, self.c2, self.c3]

    @property
    def drops(self) -> list[int]:
        """Each one's chosen drops in the deals both were dealt in."""
        return [self.d0, self.d1]

    @property
    def feeds(self) -> list[int]:
        """[b took a's discard, chances of it, a took b's discard, chances of it]."""
        return [self.f0, self.f1, self.f2, self.f3]

    @property
    def costly(self) -> list[int]:
        """[of a's discards b took: the costly ones, those of known cost; the same of b's a took]."""
        return [self.g0, self.g1, self.g2, self.g3]

    @property
    def conceded(self) -> list[int]:
        """Each one's concessions (every way, ``integrity.digest.WAYS``) while the other was in the
        deal or the game."""
        return [self.k0, self.k1]

    @property
    def chances(self) -> list[int]:
        """Each one's chances to concede while the other was in the deal or the game."""
        return [self.h0, self.h1]

    @property
    def ways(self) -> dict[str, list[int]]:
        """The concessions by way: {way: [a's, b's]}, ``drop`` always, another way once seen."""
        out = {"drop": [self.w0, self.w1]}
        if self.other_ways:
            for way, counts in self.other_ways.items():
                out[way] = list(counts)
        return out

    @property
    def won(self) -> list[float]:
        """Each one's wins (a split's share) in every game together: [a's, b's]."""
        return [self.won0, self.won1]

    @property
    def team(self) -> list[float]:
        """At tables of three or more, in paid games together: [the games, the pair's wins, what
        the seats gave them (1 in n), a's wins]."""
        return [self.t0, self.t1, self.t2, self.t3]


class Digests:
    """The window's digests summed once; each signal reads these sums.

    ``games`` may be any iterable (the scan streams the window's digests through it, never holding
    them all): each digest is read once and dropped. A pair keeps counts only; its games are read
    from the two players' lists when asked for (``Pair.games``)."""

    def __init__(self, games: Iterable[tuple[Any, dict[str, Any]]]) -> None:
        self.pairs: dict[str, Pair] = defaultdict(Pair)
        self.deals: dict[str, int] = defaultdict(int)
        self.drops: dict[str, int] = defaultdict(int)
        #: every way of conceding, summed, and the chances to (``integrity.digest``)
        self.conceded: dict[str, int] = defaultdict(int)
        self.chances: dict[str, int] = defaultdict(int)
        self.takes: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        #: of each one's discards another player took: the costly ones, those of known cost
        self.given: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.cmp: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # ahead, behind (paid games)
        self.won: dict[str, float] = defaultdict(float)
        self.expected: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])  # mean, variance
        self.games: dict[str, list[Any]] = defaultdict(list)
        #: per player, for how much per-game counts spread (``RateModel.fit``): the sum over games
        #: of count squared over chances, and the games with a chance, for conceding, for takes and
        #: for costly discards taken
        self.spread: dict[str, list[float]] = defaultdict(lambda: [0.0, 0, 0.0, 0, 0.0, 0])
        self.count = 0  # digests read
        for ref, d in games:
            self._add(ref, d)
            self.count += 1

    def part(self, pairs: dict[str, Pair]) -> Digests:
        """These sums with only ``pairs`` for the pairs (the players' sums all kept): a pair signal
        run over each part in turn finds what it finds over the whole."""
        view = copy.copy(self)
        view.pairs = pairs
        return view

    def parts(self, size: int) -> Iterator[Digests]:
        """The sums, ``size`` pairs at a time (``part``), the pairs in their usual order."""
        chunk: dict[str, Pair] = {}
        for key, pair in self.pairs.items():
            chunk[key] = pair
            if len(chunk) >= size:
                yield self.part(chunk)
                chunk = {}
        if chunk or not self.pairs:
            yield self.part(chunk)

    def _add(self, ref: Any, d: dict[str, Any]) -> None:
        people: list[str] = d["players"]
        net: dict[str, int] = d["net"]
        fee = d["fee"]
        paid = fee > 0
        seats = max(int(d.get("seats") or len(people)), 1)
        flows = chip_flows(net) if paid else {}
        if paid:
            ahead = {p: sum(1 for q in people if q != p and net[p] > net[q]) for p in people}
            behind = {p: sum(1 for q in people if q != p and net[p] < net[q]) for p in people}
        # a digest made before every way of conceding was counted (version 1) has chosen drops
        # only: read as the concessions of its deals until the scan digests the game again
        old = "chances" not in d
        deals, drops, takes, won = d["deals"], d["drops"], d["takes"], d["won"]
        given = d.get("given") or {}
        share = 1 / seats
        for p in people:
            self.deals[p] += deals.get(p, 0)
            self.drops[p] += drops.get(p, 0)
            if old:
                x, n = drops.get(p, 0), deals.get(p, 0)
            else:
                x, n = sum(d["conceded"].get(p, {}).values()), d["chances"].get(p, 0)
            self.conceded[p] += x
            self.chances[p] += n
            t = takes.get(p, (0, 0))
            mine = self.takes[p]
            mine[0] += t[0]
            mine[1] += t[1]
            spread = self.spread[p]
            if n:
                spread[0] += x * x / n
                spread[1] += 1
            if t[1]:
                spread[2] += t[0] * t[0] / t[1]
                spread[3] += 1
            g = given.get(p)
            if g and g[1]:
                gave = self.given[p]
                gave[0] += g[0]
                gave[1] += g[1]
                spread[4] += g[0] * g[0] / g[1]
                spread[5] += 1
            self.won[p] += won.get(p, 0.0)
            e = self.expected[p]
            e[0] += share
            e[1] += share * (1 - share)
            self.games[p].append(ref)
            if paid:
                c = self.cmp[p]
                c[0] += ahead[p]
                c[1] += behind[p]
        raw_pairs = d["pairs"]
        for a, b in combinations(sorted(set(people)), 2):
            key = f"{a}|{b}"
            pair = self.pairs.get(key)
            if pair is None:
                pair = self.pairs[key] = Pair(self.games[a], self.games[b])
            pair.n += 1
            raw = raw_pairs.get(key)
            if raw:
                pair.deals += raw["deals"]
                d0, d1 = raw["drops"]
                pair.d0 += d0
                pair.d1 += d1
                f0, f1, f2, f3 = raw["feeds"]
                pair.f0 += f0
                pair.f1 += f1
                pair.f2 += f2
                pair.f3 += f3
                if "costly" in raw:
                    g0, g1, g2, g3 = raw["costly"]
                    pair.g0 += g0
                    pair.g1 += g1
                    pair.g2 += g2
                    pair.g3 += g3
                if "chances" in raw:
                    for way, (x, y) in raw["conceded"].items():
                        if not (x or y):
                            continue
                        if way == "drop":
                            pair.w0 += x
                            pair.w1 += y
                        else:
                            if pair.other_ways is None:
                                pair.other_ways = {}
                            mine = pair.other_ways.setdefault(way, [0, 0])
                            mine[0] += x
                            mine[1] += y
                        pair.k0 += x
                        pair.k1 += y
                    h0, h1 = raw["chances"]
                    pair.h0 += h0
                    pair.h1 += h1
                else:
                    pair.w0 += d0
                    pair.w1 += d1
                    pair.k0 += d0
                    pair.k1 += d1
                    pair.h0 += raw["deals"]
                    pair.h1 += raw["deals"]
            won_a, won_b = won.get(a, 0.0), won.get(b, 0.0)
            pair.won0 += won_a
            pair.won1 += won_b
            pair.seats_gave += share
            if seats >= 3 and paid:
                pair.t0 += 1
                pair.t1 += won_a + won_b
                pair.t2 += share
                pair.t3 += won_a
            if paid:
                pair.paid += 1
                moved = flows.get((a, b), 0.0) - flows.get((b, a), 0.0)
                pair.flow += moved
                pair.flow_fees += moved / fee
                pair.a_ahead += int(net[a] > net[b])
                pair.b_ahead += int(net[b] > net[a])
                pair.c0 += ahead[a]
                pair.c1 += behind[a]
                pair.c2 += ahead[b]
                pair.c3 += behind[b]
