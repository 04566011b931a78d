"""A family of colluding strategies with random parameters, and honest players who drop as people do.

The integrity signals must catch cheats they were not built from, so the colluders here are a
family: a ``method`` (how a helper moves chips to its gainer or protects it), an ``intensity``
(at each chance to cheat it cheats with that probability, else it plays its honest style), and
any number of helpers around one gainer (a ring) or a chain (A helps B, B helps C). Colluders see
their partners' hands, as people sharing a room or a call do; they never see anyone else's.

Methods (``METHODS``); "the gainer is in" means in the deal (or, between deals, in the game):

- ``dump_drop``: drops (first or middle) in a deal the gainer is in;
- ``dump_show``: after drawing, declares an invalid hand on purpose (a wrong show);
- ``dump_timeout``: stops playing and lets the turn clock run out (three missed turns drop it);
- ``dump_leave``: leaves the game while the gainer is in it; rejoins (another fee) when knocked
  out and refuses split offers, so it can lose again;
- ``soft``: gainer and helper fold to each other: a drop when the partner's hand is clearly
  better, and discards the partner can use rather than ones it cannot (no hard play);
- ``feed``: when the gainer plays next, discards a card the gainer will take;
- ``dump_play``: plays badly while the gainer is in: discards useful cards, never melds, never
  declares and never drops, so it loses on points (nothing a fold counter sees);
- ``squeeze``: the helper never discards a card another player (not a partner) has shown it
  collects, and gives the gainer what it needs when the gainer plays next: the third players
  are starved, the gainer wins more.

Honest play (``honest_action``) is ``game_engine.collusion``'s honest styles plus a first drop on
a poor hand at the player's own rate (``Role.drop_rate``): real players drop on roughly a tenth to
a quarter of their hands, so a fold counter must not mistake dropping for cheating.

``Table`` plays one seat's decisions for ``collusion.play_table`` (``decider`` and ``observe``).
A colluder's coins come from a random source of its own, so at intensity 0 it plays exactly as
its honest style would.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from game_engine import deal as dl
from game_engine import events as ev
from game_engine.actions import (
    UNSTAMPED,
    Action,
    Discard,
    Draw,
    Drop,
    Finish,
    Leave,
    Rejoin,
    SplitDecline,
)
from game_engine.arrange import best_arrangement
from game_engine.cards import Card, build_packs, is_joker, parse_card
from game_engine.collusion import Plan, _near, _next_to_play, _would_take, play_table
from game_engine.collusion import decide as honest_style_decide
from game_engine.events import Event
from game_engine.formats import TableRules
from game_engine.game import GameState
from game_engine.melds import GroupKind, classify_group
from game_engine.views import legal_actions

METHODS = (
    "dump_drop",
    "dump_show",
    "dump_timeout",
    "dump_leave",
    "soft",
    "feed",
    "dump_play",
    "squeeze",
)
#: Methods in which the helper loses on purpose (the gainer's part is to play on).
DUMPING = frozenset({"dump_drop", "dump_show", "dump_timeout", "dump_leave", "dump_play"})
#: How much worse (in points) a discard may leave the helper's hand when it helps a partner.
HELP_SLACK = 10
#: How much better (in points) the partner's hand must be before a soft player folds to it.
SOFT_MARGIN = 20
#: A soft player's gifts in one deal, at most: two soft partners giving without end would pass
#: the same cards back and forth and never finish the deal.
SOFT_GIVES = 2


@dataclass(frozen=True)
class Role:
    """How one player plays: an honest ``style`` and first-drop rate, and, for a colluder, its
    ``method`` and ``intensity``, the ``gainers`` it helps and the ``partners`` whose hands it sees
    (its whole group; player ids)."""

    style: str = "smart"
    drop_rate: float = 0.0
    method: str | None = None
    intensity: float = 0.0
    gainers: tuple[str, ...] = ()
    partners: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def _badness_quantiles() -> tuple[int, ...]:
    """The 0th..100th percentiles of ``_badness`` over random 13-card hands (seeded, computed once)."""
    rng = random.Random(20_240_601)
    values = []
    for _ in range(600):
        deck = build_packs(2)
        rng.shuffle(deck)
        values.append(_badness(deck[:13], rng.randint(1, 13)))
    values.sort()
    return tuple(values[min(len(values) - 1, round(q * (len(values) - 1) / 100))] for q in range(101))


def _badness(hand: Sequence[Card], wild: int) -> int:
    """How poor a hand is to a person deciding on a first drop: its points, worse without a joker
    or a pure sequence (the two things a hand needs to be declared)."""
    arr = best_arrangement(hand, wild)
    joker = any(is_joker(c, wild) for c in hand)
    pure = any(classify_group(g, wild) == GroupKind.PURE_SEQUENCE for g in arr.groups)
    return arr.points + (0 if joker else 30) + (0 if pure else 30)


def poor_hand(hand: Sequence[Card], wild: int, drop_rate: float) -> bool:
    """Whether a player who first-drops ``drop_rate`` of hands drops this one (its worst ones)."""
    if drop_rate <= 0:
        return False
    q = _badness_quantiles()
    cut = q[max(0, min(100, round(100 * (1 - drop_rate))))]
    return _badness(hand, wild) >= max(cut, q[0] + 1)


def honest_action(state: GameState, seat: int, role: Role, rng: random.Random) -> Action | None:
    """What ``seat`` does playing honestly: a first drop on a poor hand, else its style."""
    d = state.deal
    if (
        role.drop_rate > 0
        and d is not None
        and d.turn == seat
        and d.status.get(seat) == dl.PLAYING
        and d.drawn is None
        and d.turns_taken.get(seat, 0) == 0
        and d.phase == dl.TURN
        and state.drops_remaining(seat) > 0
        and "draw" in legal_actions(state, seat)
        and poor_hand(d.hands[seat], d.wild_rank, role.drop_rate)
    ):
        return Drop(at=UNSTAMPED, seat=seat)
    return honest_style_decide(state, seat, Plan(role.style), rng)


def _points(hand: Sequence[Card], wild: int) -> int:
    return best_arrangement(hand, wild).points


def _without(hand: Sequence[Card], card: Card) -> list[Card]:
    out = list(hand)
    out.remove(card)
    return out


class Table:
    """The decisions of every seat at one game (``decider``) and what they have seen (``observe``)."""

    def __init__(self, ids: Sequence[str], roles: Sequence[Role], seed: int) -> None:
        self.ids = list(ids)
        self.roles = list(roles)
        self.seat_of = {pid: i for i, pid in enumerate(self.ids)}
        # each seat's own coins: the honest game's random source is never touched by them
        self.coins = [random.Random(seed * 7_919 + 104_729 * (i + 1)) for i in range(len(ids))]
        self.cheating: dict[tuple[int, str, int, int], bool] = {}  # a chance -> whether it cheats
        self.cheat_turn: dict[tuple[int, int], int] = {}  # the turn the deal's cheat starts on
        self.collects: dict[int, set[Card]] = {}  # cards each seat took from the open pile this deal
        self.cheats: list[tuple[int, str, int]] = []  # (seat, method, deal_no) each cheat made
        self.chances: list[tuple[int, str, int]] = []  # (seat, method, deal_no) each chance to cheat

    # ------------------------------------------------------------------ what the table shows
    def observe(self, events: list[Event]) -> None:
        for e in events:
            if e.type == "deal_started":
                self.collects = {}
            elif isinstance(e, ev.Draw) and e.source == "open" and e.card:
                self.collects.setdefault(e.seat, set()).add(parse_card(e.card))

    # ------------------------------------------------------------------ helpers
    def _seats(self, ids: Sequence[str]) -> list[int]:
        return [self.seat_of[p] for p in ids if p in self.seat_of]

    def _coin(self, seat: int, key: str, deal_no: int, p: float, turn: int = -1) -> bool:
        """One chance to cheat: cheats with probability ``p``, tossed once per seat, step, deal
        (and turn, for the methods that cheat on single discards)."""
        k = (seat, key, deal_no, turn)
        if k not in self.cheating:
            self.chances.append((seat, key, deal_no))
            self.cheating[k] = self.coins[seat].random() < p
        return self.cheating[k]

    def _first_turn(self, seat: int, deal_no: int, early: float = 0.5) -> int:
        """The turn of a deal on which a dumper acts: the first (a first drop) or a middle one."""
        k = (seat, deal_no)
        if k not in self.cheat_turn:
            c = self.coins[seat]
            self.cheat_turn[k] = 0 if c.random() < early else c.randint(1, 4)
        return self.cheat_turn[k]

    def _did(self, seat: int, method: str, state: GameState, action: Action | None) -> Action | None:
        self.cheats.append((seat, method, state.deal_no))
        return action

    # ------------------------------------------------------------------ the decision
    def decide(self, state: GameState, seat: int, role: Role, rng: random.Random) -> Action | None:
        """The action of ``seat`` now: its honest one unless its method cheats at this chance."""
        honest = honest_action(state, seat, role, rng)  # always, so honest play's coins stay in step
        if role.method is None or role.intensity <= 0:
            return honest
        gainers = self._seats(role.gainers)
        if not gainers:
            return honest
        legal = legal_actions(state, seat)
        d = state.deal
        in_game = [g for g in gainers if not (state.players[g].eliminated or state.players[g].left)]
        in_deal = [g for g in gainers if d is not None and d.status.get(g) == dl.PLAYING]
        m, p = role.method, role.intensity
        my_turn = d is not None and d.phase == dl.TURN and d.turn == seat and d.status.get(seat) == dl.PLAYING
        n = state.deal_no
        if m == "dump_leave" and in_game:
            if "rejoin" in legal:
                if self._coin(seat, "rejoin", n, p):
                    return self._did(seat, m, state, Rejoin(at=UNSTAMPED, seat=seat))
                return honest
            if "split_decline" in legal:
                if self._coin(seat, "split", n, p):
                    return self._did(seat, m, state, SplitDecline(at=UNSTAMPED, seat=seat))
                return honest
            if my_turn and in_deal and "draw" in legal and self._coin(seat, m, n, p):
                return self._did(seat, m, state, Leave(at=UNSTAMPED, seat=seat))
            return honest
        if not my_turn or d is None:
            return honest
        turns = d.turns_taken.get(seat, 0)
        if m == "dump_drop" and in_deal and "draw" in legal:
            if self._coin(seat, m, n, p) and turns >= self._first_turn(seat, n):
                return self._did(seat, m, state, Drop(at=UNSTAMPED, seat=seat))
        elif m == "dump_show" and in_deal and "discard" in legal:
            if self._coin(seat, m, n, p) and turns >= self._first_turn(seat, n, early=0.3):
                hand = list(d.hands[seat])
                card = max(hand, key=lambda c: (not is_joker(c, d.wild_rank), c.points))
                rest = tuple(_without(hand, card))
                return self._did(seat, m, state, Finish(at=UNSTAMPED, seat=seat, card=card, groups=(rest,)))
        elif m == "dump_timeout" and in_deal and ("draw" in legal or "discard" in legal):
            if self._coin(seat, m, n, p) and turns >= self._first_turn(seat, n, early=0.3):
                return self._did(seat, m, state, None)
        elif m == "dump_play" and in_deal:
            if self._coin(seat, m, n, p):
                return self._play_badly(state, seat, legal, honest)
        elif m == "soft" and in_deal:
            return self._soft(state, seat, role, in_deal, legal, honest)
        elif m == "feed" and "discard" in legal:
            nxt = _next_to_play(state, seat)
            if nxt in in_deal and isinstance(honest, Discard):
                fed = self._give(state, seat, nxt, honest)
                if fed is not None and self._coin(seat, m, n, p, turns):
                    return self._did(seat, m, state, fed)
        elif (
            m == "squeeze"
            and in_deal
            and "discard" in legal
            and isinstance(honest, Discard)
            and self._coin(seat, m, n, p, turns)
        ):
            return self._did(seat, m, state, self._squeeze(state, seat, role, honest))
        return honest

    # ------------------------------------------------------------------ methods
    def _play_badly(
        self, state: GameState, seat: int, legal: Sequence[str], honest: Action | None
    ) -> Action | None:
        """Draw blind, throw away what helps, never declare, never drop: lose on points."""
        d = state.deal
        assert d is not None
        if "draw" in legal:
            self.cheats.append((seat, "dump_play", state.deal_no))
            source: Literal["closed", "open"] = "closed" if d.closed else "open"
            return Draw(at=UNSTAMPED, seat=seat, source=source)
        if "discard" in legal:
            hand = list(d.hands[seat])
            worst = max(
                (c for c in set(hand) if not is_joker(c, d.wild_rank)),
                key=lambda c: (_points(_without(hand, c), d.wild_rank), c.code),
                default=hand[0],
            )
            return self._did(seat, "dump_play", state, Discard(at=UNSTAMPED, seat=seat, card=worst))
        return honest

    def _give(self, state: GameState, seat: int, partner: int, base: Discard) -> Discard | None:
        """A discard costing at most ``HELP_SLACK`` points that ``partner`` (next to play) will take."""
        d = state.deal
        assert d is not None
        wild = d.wild_rank
        hand = list(d.hands[seat])
        theirs = list(d.hands[partner])
        own_best = _points(_without(hand, base.card), wild)
        # never the card just taken from the open pile: two helpers would pass it back and forth
        taken = d.drawn if d.drawn_source == "open" else None
        tried = 0
        for card in sorted(set(hand), key=lambda c: (-c.points, c.code)):
            if is_joker(card, wild) or card == taken or not _near(card, theirs):
                continue
            if card != base.card and _points(_without(hand, card), wild) > own_best + HELP_SLACK:
                continue
            tried += 1
            if _would_take(theirs, card, wild):
                return Discard(at=UNSTAMPED, seat=seat, card=card)
            if tried >= 3:
                break
        return None

    def _soft(
        self,
        state: GameState,
        seat: int,
        role: Role,
        in_deal: list[int],
        legal: Sequence[str],
        honest: Action | None,
    ) -> Action | None:
        """Fold to a partner holding a clearly better hand; never play hard against it."""
        d = state.deal
        assert d is not None
        n = state.deal_no
        if "draw" in legal and state.drops_remaining(seat) > 0:
            mine = _points(d.hands[seat], d.wild_rank)
            best = min(_points(d.hands[g], d.wild_rank) for g in in_deal)
            if mine >= best + SOFT_MARGIN and self._coin(seat, "soft", n, role.intensity):
                return self._did(seat, "soft", state, Drop(at=UNSTAMPED, seat=seat))
        gave = sum(1 for s, m, k in self.cheats if s == seat and m == "soft_give" and k == n)
        if "discard" in legal and isinstance(honest, Discard) and gave < SOFT_GIVES:
            nxt = _next_to_play(state, seat)
            if nxt in in_deal:
                given = self._give(state, seat, nxt, honest)
                if (
                    given is not None
                    and given.card != honest.card
                    and self._coin(seat, "soft_discard", n, role.intensity, d.turns_taken.get(seat, 0))
                ):
                    return self._did(seat, "soft_give", state, given)
        return honest

    def _squeeze(self, state: GameState, seat: int, role: Role, base: Discard) -> Discard:
        """Hold every card a non-partner has shown it collects; hand the gainer what it needs."""
        d = state.deal
        assert d is not None
        wild = d.wild_rank
        hand = list(d.hands[seat])
        friends = set(self._seats(role.partners)) | set(self._seats(role.gainers))
        wanted = [c for s, cards in self.collects.items() if s not in friends and s != seat for c in cards]
        nxt = _next_to_play(state, seat)
        if nxt in self._seats(role.gainers) and nxt is not None:
            given = self._give(state, seat, nxt, base)
            if given is not None and not _near(given.card, wanted):
                return given
        if not _near(base.card, wanted):
            return base
        own_best = _points(_without(hand, base.card), wild)
        safe = [
            c
            for c in sorted(set(hand), key=lambda c: (-c.points, c.code))
            if not is_joker(c, wild) and not _near(c, wanted)
        ]
        for card in safe:
            if _points(_without(hand, card), wild) <= own_best + HELP_SLACK:
                return Discard(at=UNSTAMPED, seat=seat, card=card)
        return base


def play(
    rules: TableRules,
    seated: Sequence[tuple[str, Role]],
    seed: int,
) -> tuple[GameState, list[Event], Table]:
    """One whole game between ``seated`` (id, role) through ``collusion.play_table``."""
    table = Table([pid for pid, _ in seated], [role for _, role in seated], seed)
    state, events = play_table(rules, seated, seed, decider=table.decide, observe=table.observe)
    return state, events, table
