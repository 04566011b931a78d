"""The best arrangement of a hand: the one with the lowest docs/rules.md §5 points.

Exact, not greedy. The three scoring regimes of docs/rules.md §5 are handled separately:

(a) no pure sequence: every card counts, ``T`` (the hand total, jokers 0);
(b) one pure sequence and nothing else that is a sequence: ``T`` minus the points of
    the richest pure run in the hand (a whole maximal run, any length);
(c) a pure sequence plus at least one more sequence, sets allowed: the points of the
    loose cards. This is the only hard case, solved by a depth-first branch and bound
    over *cores* (the natural cards of a group; jokers are interchangeable and counted).

Facts the search relies on (each keeps it exact):

* A sequence of 6+ cards splits into runs of 3-5 (a piece of only jokers is an
  impure sequence, a piece of only naturals is pure), so cores span at most 5
  positions; more sequences never cost points in (c).
* A set never needs more than 4 naturals, nor a joker when it has 3 or 4.
* Jokers cost 0 points, so a joker left over is free; in a declaration leftovers are
  added to some group (always possible, see :func:`_place_leftover_jokers`).
* A wild card matters as a natural only in a pure sequence; anywhere else it is as good
  as a printed joker.
* The hand is a multiset: cards with the same notation are one *kind* with a count.
  A position is a packed integer with one 4-bit field per kind (52 fields, rank-major
  with the ranks in falling points order A K Q J 10 9 .. 2) holding ``8 + count``;
  removing a core is one subtraction, and a borrow clears a guard bit (SWAR). The
  lowest non-empty natural field is always the highest-point undecided card.
* The cores of one suit depend only on which ranks it holds: they are computed once
  per 13-bit rank mask and cached for every later hand (likewise sets per suit mask).
  The caches are bounded by the 8192 masks (real hands touch a small fraction of them).
* Branching always on the highest-point undecided card (it is in a core, or loose),
  memoising the lowest loose-points at which each position was expanded, pruning on
  the best total found, stopping at 0.

Loose cards are returned together in one trailing group (after the valid groups).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Final

from game_engine.cards import ACE, PRINTED_JOKER_RANK, SUITS, Card, sort_key
from game_engine.errors import InvalidArrangementError
from game_engine.melds import ACE_HIGH

#: Field layout: field = rank_order * 4 + suit index, 4 bits each (guard bit 8).
_RANK_ORDER: Final = (1, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2)
_RO: Final = tuple([0] + [_RANK_ORDER.index(r) for r in range(1, 14)])
_SUIT_INDEX: Final = {s: i for i, s in enumerate(SUITS)}
_POINTS: Final = (0, 10, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
_FIELD_POINTS: Final = tuple(_POINTS[_RANK_ORDER[f >> 2]] for f in range(52))
_UNIT: Final = tuple(tuple(1 << (4 * (_RO[r] * 4 + si)) for si in range(4)) if r else () for r in range(14))
_GUARDS: Final = sum(8 << (4 * f) for f in range(52))
_COUNTS_OF_RANK: Final = tuple(
    sum(7 << (4 * (_RO[r] * 4 + si)) for si in range(4)) if r else 0 for r in range(14)
)
_NAT_MASK: Final = tuple(sum(_COUNTS_OF_RANK[r] for r in range(1, 14) if r != w) for w in range(14))
#: Core types (index into the flag transition table).
_SET: Final = 0
_IMPURE: Final = 1
_PURE: Final = 2
#: Search flags: bit 2 = a pure sequence chosen; bits 0-1 = sequences chosen, capped at 2.
_HAS_PURE: Final = 4
_DONE: Final = _HAS_PURE | 2
_NEEDS_JOKER_RUN: Final = _HAS_PURE | 1
_TRANS: Final[tuple[tuple[int, int, int], ...]] = tuple(
    (f, (f & _HAS_PURE) | min(2, (f & 3) + 1), _HAS_PURE | min(2, (f & 3) + 1)) for f in range(8)
)
_MAX_CORE_SPAN: Final = 5
_MAX_COUNT: Final = 7


@dataclass(frozen=True)
class Arrangement:
    """Groups partitioning the hand; loose cards, if any, form the last group.

    ``valid``: the groups are a valid declaration (docs/rules.md §4). ``points``: the docs/rules.md §5
    count of this arrangement before the cap, the lowest any arrangement reaches.
    """

    groups: tuple[tuple[Card, ...], ...]
    valid: bool
    points: int

    def score(self, cap: int = 80) -> int:
        return min(self.points, cap)


# ----------------------------------------------------------------------------------------
# Per-suit tables, cached by rank mask (bit r set when rank r is held).

#: (rank pattern, jokers needed, points) of impure sequence cores of one suit.
_ImpureTable = tuple[tuple[int, int, int], ...]
#: windows: (rank pattern, ranks, points); runs: maximal pure runs (ranks, points).
_PureTable = tuple[tuple[tuple[int, tuple[int, ...], int], ...], tuple[tuple[tuple[int, ...], int], ...]]

_impure_cache: dict[int, _ImpureTable] = {}
_pure_cache: dict[int, _PureTable] = {}
_set_cache: dict[int, tuple[tuple[int, int], ...]] = {}


def _rank_pattern(ranks: Sequence[int]) -> int:
    return sum(1 << (16 * _RO[r]) for r in ranks)


def _positions(mask: int) -> list[tuple[int, int]]:
    """(position, rank) of held ranks; the Ace sits at 1 and at 14."""
    out = [(r, r) for r in range(1, 14) if mask >> r & 1]
    if mask >> ACE & 1:
        out.append((ACE_HIGH, ACE))
    return out


def _impure_table(mask: int) -> _ImpureTable:
    """Cores for impure sequences: held ranks spanning <= 5 positions, needing >= 1 joker."""
    table = _impure_cache.get(mask)
    if table is not None:
        return table
    positions = _positions(mask)
    best: dict[tuple[int, ...], int] = {}
    for start, (p0, r0) in enumerate(positions):
        later = [(p, r) for p, r in positions[start + 1 :] if p - p0 < _MAX_CORE_SPAN and r != r0]
        for size in range(0, len(later) + 1):
            for combo in combinations(later, size):
                span = combo[-1][0] - p0 + 1 if combo else 1
                jokers = max(3, span) - 1 - size
                if jokers < 1:
                    continue
                ranks = tuple(sorted((r0, *(r for _, r in combo))))
                if best.get(ranks, 99) > jokers:
                    best[ranks] = jokers
    table = tuple(
        (_rank_pattern(ranks), jokers, sum(_POINTS[r] for r in ranks)) for ranks, jokers in best.items()
    )
    _impure_cache[mask] = table
    return table


def _pure_table(mask: int) -> _PureTable:
    """Pure cores (windows of 3..5 consecutive held positions) and maximal pure runs."""
    table = _pure_cache.get(mask)
    if table is not None:
        return table
    held = [False] * (ACE_HIGH + 2)
    for p, _ in _positions(mask):
        held[p] = True
    runs: list[tuple[int, int]] = []
    pos = 1
    while pos <= ACE_HIGH:
        if not held[pos]:
            pos += 1
            continue
        end = pos
        while held[end + 1]:
            end += 1
        # never both Aces in one run: A..K and 2..A are the longest possible
        for lo, hi in {(pos, min(end, 13)), (max(pos, 2), end)}:
            if hi - lo >= 2:
                runs.append((lo, hi))
        pos = end + 1

    def ranks_of(lo: int, hi: int) -> tuple[int, ...]:
        return tuple(ACE if p == ACE_HIGH else p for p in range(lo, hi + 1))

    windows: dict[tuple[int, ...], None] = {}
    for lo, hi in runs:
        for a in range(lo, hi - 1):
            for b in range(a + 2, min(hi, a + _MAX_CORE_SPAN - 1) + 1):
                windows[ranks_of(a, b)] = None
    table = (
        tuple((_rank_pattern(r), r, sum(_POINTS[x] for x in r)) for r in windows),
        tuple((ranks_of(lo, hi), sum(_POINTS[x] for x in ranks_of(lo, hi))) for lo, hi in runs),
    )
    _pure_cache[mask] = table
    return table


def _set_table(suit_mask: int) -> tuple[tuple[int, int], ...]:
    """Set cores of one rank: (suit pattern, jokers) for 2..4 distinct held suits."""
    table = _set_cache.get(suit_mask)
    if table is not None:
        return table
    suits = [si for si in range(4) if suit_mask >> si & 1]
    table = tuple(
        (sum(1 << (4 * si) for si in combo), max(0, 3 - size))
        for size in range(2, len(suits) + 1)
        for combo in combinations(suits, size)
    )
    _set_cache[suit_mask] = table
    return table


# ----------------------------------------------------------------------------------------


def best_arrangement(cards: Sequence[Card], wild_rank: int) -> Arrangement:
    """The arrangement of ``cards`` with the lowest points (docs/rules.md §5), exact.

    Works for any hand size (13 normally, 14 after a draw). A valid declaration is
    returned whenever one exists. Loose cards form one trailing group.
    """
    w = wild_rank
    suit_index = _SUIT_INDEX
    unit = _UNIT
    points = _POINTS
    smask = [0, 0, 0, 0]
    rank_suits = [0] * 14
    wild_suits = 0
    n_wild = 0
    n_printed = 0
    total = 0
    state = _GUARDS
    for c in cards:
        r = c.rank
        if r == PRINTED_JOKER_RANK:
            n_printed += 1
            continue
        si = suit_index[c.suit]
        u = unit[r][si]
        if (state // u) & 15 == 8 + _MAX_COUNT:
            raise InvalidArrangementError(f"more than {_MAX_COUNT} copies of {c.code} in one hand")
        state += u
        if r == w:
            wild_suits |= 1 << si
            n_wild += 1
        else:
            total += points[r]
            smask[si] |= 1 << r
            rank_suits[r] |= 1 << si

    # Is there any pure run at all? (Ace also at bit 14; K-A-2 cannot wrap.)
    run_suits = []
    for si in range(4):
        m = smask[si]
        if not m:
            continue
        if wild_suits >> si & 1:
            m |= 1 << w
        mm = m | ((m >> 1 & 1) << 14)
        if mm & (mm >> 1) & (mm >> 2):
            run_suits.append((si, m))
    if not run_suits:
        everything = (tuple(sorted(cards, key=sort_key)),) if cards else ()
        return Arrangement(groups=everything, valid=False, points=total)

    # Regime (b): the richest maximal pure run, everything else loose.
    best_value = -1
    best_run: tuple[int, tuple[int, ...]] = (0, ())
    w_points = points[w]
    for si, m in run_suits:
        for ranks, value in _pure_table(m)[1]:
            if w in ranks:
                value -= w_points
            if value > best_value:
                best_value, best_run = value, (si, ranks)
    b_points = total - best_value

    found = _search(state, smask, rank_suits, wild_suits, n_printed + n_wild, w, run_suits, b_points + 1)
    if found is None:
        si, ranks = best_run
        suit = SUITS[si]
        pools = _card_pools(cards)
        run = [pools[(r, suit)].pop() for r in ranks]
        rest = sorted((c for v in pools.values() for c in v), key=sort_key)
        b_groups: tuple[tuple[Card, ...], ...] = (tuple(run), tuple(rest)) if rest else (tuple(run),)
        return Arrangement(groups=b_groups, valid=False, points=b_points)
    c_points, chosen, needs_joker_run = found
    groups = _build_groups(cards, w, chosen, needs_joker_run, c_points == 0)
    return Arrangement(groups=groups, valid=c_points == 0, points=c_points)


def _search(
    state: int,
    smask: list[int],
    rank_suits: list[int],
    wild_suits: int,
    pool0: int,
    w: int,
    run_suits: list[tuple[int, int]],
    bound: int,
) -> tuple[int, list[tuple[int, int, int]], bool] | None:
    """Regime (c): lowest loose points below ``bound`` with a pure and a second sequence.

    Returns (points, chosen cores as (vec, jokers, core type), needs an all-joker run)
    or None when nothing below ``bound`` exists.
    """
    nat_mask = _NAT_MASK[w]
    w_points = _POINTS[w]
    w_shift = 16 * _RO[w]
    # field of the core's highest-point natural -> (value, -jokers, vec, cost, type)
    cores: dict[int, list[tuple[int, int, int, int, int]]] = {}

    def add(vec: int, jokers: int, wilds: int, core_type: int, value: int) -> None:
        nat = vec & nat_mask
        field = ((nat & -nat).bit_length() - 1) >> 2
        entry = (value, -jokers, vec, jokers + wilds, core_type)
        lst = cores.get(field)
        if lst is None:
            cores[field] = [entry]
        else:
            lst.append(entry)

    for si, m in run_suits:
        shift = 4 * si
        has_wild = wild_suits >> si & 1
        for pattern, _ranks, value in _pure_table(m)[0]:
            if has_wild and pattern >> w_shift & 1:
                add(pattern << shift, 0, 1, _PURE, value - w_points)
            else:
                add(pattern << shift, 0, 0, _PURE, value)
    if pool0:
        for si in range(4):
            m = smask[si]
            if m:
                shift = 4 * si
                for pattern, jokers, value in _impure_table(m):
                    if jokers <= pool0:
                        add(pattern << shift, jokers, 0, _IMPURE, value)
    for r in range(1, 14):
        sm = rank_suits[r]
        if sm & (sm - 1):
            shift = 16 * _RO[r]
            value1 = _POINTS[r]
            for pattern, jokers in _set_table(sm):
                if jokers <= pool0:
                    add(pattern << shift, jokers, 0, _SET, value1 * (pattern.bit_count()))

    core_lists: list[list[tuple[int, int, int]]] = [[] for _ in range(52)]
    for field, lst in cores.items():
        lst.sort(reverse=True)
        core_lists[field] = [(vec, cost, core_type) for _v, _j, vec, cost, core_type in lst]

    guard = _GUARDS
    field_points = _FIELD_POINTS
    trans = _TRANS
    best = bound
    best_path: list[tuple[int, int, int]] = []
    best_flags = 0
    path: list[tuple[int, int, int]] = []
    memo: dict[int, int] = {}

    def dfs(state: int, pool: int, flags: int, loose: int) -> None:
        nonlocal best, best_path, best_flags
        if loose >= best:
            return
        counts = state & nat_mask
        if not counts:
            if flags == _DONE or (flags == _NEEDS_JOKER_RUN and pool >= 3):
                best = loose
                best_path = list(path)
                best_flags = flags
            return
        key = (state << 12) | (pool << 3) | flags
        seen_at = memo.get(key)
        if seen_at is not None and seen_at <= loose:
            return
        memo[key] = loose
        field = ((counts & -counts).bit_length() - 1) >> 2
        for core in core_lists[field]:
            vec, cost, core_type = core
            rest = state - vec
            if rest & guard != guard or cost > pool:
                continue
            path.append(core)
            dfs(rest, pool - cost, trans[flags][core_type], loose)
            path.pop()
            if best == 0:
                return
        more = loose + field_points[field]
        if more < best:
            dfs(state - (1 << (field << 2)), pool, flags, more)

    dfs(state, pool0, 0, 0)
    if best >= bound:
        return None
    return best, best_path, best_flags == _NEEDS_JOKER_RUN


# ----------------------------------------------------------------------------------------
# Turning the chosen cores back into groups of cards.


def _card_pools(cards: Sequence[Card]) -> dict[tuple[int, str], list[Card]]:
    pools: dict[tuple[int, str], list[Card]] = {}
    for c in cards:
        pools.setdefault((c.rank, c.suit), []).append(c)
    return pools


def _decode(vec: int) -> list[tuple[int, str]]:
    """The (rank, suit) kinds of a core vector, in rising rank order."""
    out = []
    f = 0
    while vec:
        if vec & 15:
            out.append((_RANK_ORDER[f >> 2], SUITS[f & 3]))
        vec >>= 4
        f += 1
    out.sort()
    return out


def _display_order(kinds: list[tuple[int, str]], core_type: int) -> list[tuple[int, str]]:
    """Sequences low to high with the Ace high after a King or Queen; sets by suit."""
    if core_type == _SET:
        return sorted(kinds, key=lambda k: SUITS.index(k[1]))
    if kinds and kinds[0][0] == ACE and kinds[-1][0] >= 10:
        return kinds[1:] + kinds[:1]
    return kinds


def _build_groups(
    cards: Sequence[Card],
    w: int,
    chosen: list[tuple[int, int, int]],
    needs_joker_run: bool,
    valid: bool,
) -> tuple[tuple[Card, ...], ...]:
    pools = _card_pools(cards)
    groups: list[tuple[int, list[Card]]] = []
    jokers_needed: list[int] = []
    for vec, cost, core_type in chosen:
        kinds = _display_order(_decode(vec), core_type)
        groups.append((core_type, [pools[k].pop() for k in kinds]))
        jokers_needed.append(cost - sum(1 for r, _ in kinds if r == w))
    joker_pool = [c for k, v in pools.items() if k[0] in (PRINTED_JOKER_RANK, w) for c in v]
    joker_pool.sort(key=sort_key, reverse=True)
    for (_, members), need in zip(groups, jokers_needed, strict=True):
        for _ in range(need):
            members.append(joker_pool.pop())
    if needs_joker_run:
        groups.append((_IMPURE, joker_pool))
        joker_pool = []
    if valid and joker_pool:
        _place_leftover_jokers(groups, joker_pool)
        joker_pool = []
    order = {_PURE: 0, _IMPURE: 1, _SET: 2}
    groups.sort(key=lambda g: order[g[0]])
    out = [tuple(members) for _, members in groups]
    loose = [c for k, v in pools.items() if k[0] not in (PRINTED_JOKER_RANK, w) for c in v] + joker_pool
    if loose:
        out.append(tuple(sorted(loose, key=sort_key)))
    return tuple(out)


def _place_leftover_jokers(groups: list[tuple[int, list[Card]]], jokers: list[Card]) -> None:
    """Put spare jokers in a set, else an impure sequence, else the last of 2+ pure ones.

    Cores span at most 5 positions, so any sequence can take the jokers of a 13-card
    hand and stay within A..A; a declaration has 2+ sequences, so when all of them are
    pure, spoiling one still leaves a pure sequence.
    """
    for wanted in (_SET, _IMPURE, _PURE):
        for i in range(len(groups) - 1, -1, -1):
            if groups[i][0] == wanted:
                groups[i][1].extend(jokers)
                if wanted == _PURE:
                    groups[i] = (_IMPURE, groups[i][1])
                return
    raise AssertionError("a declaration always has a group")  # pragma: no cover
