"""One deal as a state machine (docs/rules.md §4-6).

``DealState`` is mutable but only ever mutated on a private copy made by
``game.apply`` (copy-on-write), so callers never see a state change in place; it is
copied and saved with the game's state by ``game_engine.codec``.

A deal's phase is a ``DealPhase``, a seat's standing in it a ``SeatStatus``.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from game_engine import events as ev
from game_engine import fairness
from game_engine.cards import Card, is_joker, sort_key, wild_rank_for_cut
from game_engine.errors import IllegalActionError, InvalidArrangementError, NotYourTurnError
from game_engine.events import Deadline, Event
from game_engine.formats import TableRules
from game_engine.melds import is_valid_declaration, score_arrangement

HAND_SIZE = 13


class DealPhase(enum.StrEnum):
    """Where a deal stands."""

    TURN = "turn"  # someone is on turn
    FINISHING = "finishing"  # the declarer has placed a card in the finish slot and must show in time
    SHOWING = "showing"  # after a valid show, the losers show within the declaration time
    DONE = "done"


class SeatStatus(enum.StrEnum):
    """A seat's standing in the deal."""

    PLAYING = "playing"
    DROPPED = "dropped"  # a drop, an auto drop, three missed turns or leaving
    WRONG_SHOW = "wrong_show"
    WON = "won"
    SHOWN = "shown"  # a loser who showed or was scored at the declaration deadline


TURN, FINISHING, SHOWING, DONE = DealPhase.TURN, DealPhase.FINISHING, DealPhase.SHOWING, DealPhase.DONE
PLAYING, DROPPED, WRONG_SHOW = SeatStatus.PLAYING, SeatStatus.DROPPED, SeatStatus.WRONG_SHOW
WON, SHOWN = SeatStatus.WON, SeatStatus.SHOWN

Groups = list[list[Card]]


@dataclass(slots=True)
class Ctx:
    """What a deal needs from the pool game: its rules, seed and auto-drop flags."""

    rules: TableRules
    seed: int
    auto_drop: frozenset[int] = frozenset()
    events: list[Event] = field(default_factory=list)

    def emit(self, event: Event) -> None:
        """Record one event of the catalogue (``game_engine.events``)."""
        self.events.append(event)


@dataclass(slots=True)
class DealState:
    deal_no: int
    order: list[int]
    hands: dict[int, list[Card]]
    closed: list[Card]
    open_pile: list[Card]
    cut_joker: Card
    wild_rank: int
    extra_ms: dict[int, int]
    status: dict[int, SeatStatus]
    points: dict[int, int]
    turns_taken: dict[int, int]
    missed: dict[int, int]
    turn: int
    turn_started_at: int
    arrangements: dict[int, Groups] = field(default_factory=dict)
    shown: dict[int, Groups] = field(default_factory=dict)
    deal_show: list[int] = field(default_factory=list)
    drop_reason: dict[int, str] = field(default_factory=dict)
    phase: DealPhase = TURN
    drawn: Card | None = None
    drawn_source: str | None = None
    charged_until: int = 0
    in_extra: bool = False
    finish_slot: Card | None = None
    declarer: int | None = None
    declare_deadline: int = 0
    reshuffles: int = 0
    winner: int | None = None
    #: The verifiable shuffle (game_engine/fairness.py): secret until the deal is over.
    server_seed: str = ""
    client_seeds: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ queries
    def active(self) -> list[int]:
        """Seats still playing this deal, in play order."""
        return [s for s in self.order if self.status[s] == PLAYING]

    def turn_deadline(self, rules: TableRules) -> int:
        return self.turn_started_at + rules.turn_ms

    def deadline(self, rules: TableRules) -> Deadline | None:
        if self.phase == TURN:
            if self.in_extra:
                start = max(self.turn_deadline(rules), self.charged_until)
                return Deadline(start + self.extra_ms.get(self.turn, 0), "extra", self.turn)
            return Deadline(self.turn_deadline(rules), "turn", self.turn)
        if self.phase == FINISHING:
            return Deadline(self.declare_deadline, "declare", self.declarer)
        if self.phase == SHOWING:
            return Deadline(self.declare_deadline, "declare", None)
        return None

    def arrangement_of(self, seat: int) -> Groups:
        """The player's current grouping, or the default sorted arrangement."""
        groups = self.arrangements.get(seat)
        if groups is not None:
            return [list(g) for g in groups]
        return default_groups(self.hands[seat])

    def final_arrangements(self) -> dict[str, list[list[str]]]:
        """Each seat's hand as last grouped (its show if it showed), cards it no longer holds left
        out and cards in no group added as one more group: the replay shows the hands this way once
        the deal is over and every hand is open to its players (docs/rules.md §10.3)."""
        out: dict[str, list[list[str]]] = {}
        for seat in self.order:
            left = list(self.hands[seat])
            groups: list[list[str]] = []
            for g in self.shown.get(seat) or self.arrangement_of(seat):
                kept = []
                for c in g:
                    if c in left:
                        left.remove(c)
                        kept.append(c.code)
                if kept:
                    groups.append(kept)
            if left:
                groups.append([c.code for c in left])
            out[str(seat)] = groups
        return out

    def all_cards(self) -> list[Card]:
        """Every card of the deal (for conservation checks)."""
        out: list[Card] = [self.cut_joker, *self.closed, *self.open_pile]
        for hand in self.hands.values():
            out.extend(hand)
        if self.finish_slot is not None:
            out.append(self.finish_slot)
        return out

    def public_result(self) -> ev.DealResult:
        players: dict[str, ev.DealPlayerResult] = {}
        for s in self.order:
            shown = self.shown.get(s)
            players[str(s)] = {
                "status": self.status[s],
                "points": self.points[s],
                "deal_show": s in self.deal_show,
                "reason": self.drop_reason.get(s),
                "groups": [[c.code for c in g] for g in shown] if shown is not None else None,
            }
        return {
            "deal_no": self.deal_no,
            "winner": self.winner,
            "declarer": self.declarer,
            "cut_joker": self.cut_joker.code,
            "wild_rank": self.wild_rank,
            "finish_card": self.finish_slot.code if self.finish_slot else None,
            "players": players,
            # The deal is over: its seeds are revealed (docs/fairness.md).
            "server_seed": self.server_seed,
            "client_seeds": list(self.client_seeds),
            "commitment": fairness.commitment(self.server_seed),
        }


def default_groups(hand: Sequence[Card]) -> Groups:
    """Default sorted arrangement (docs/rules.md §5 [chosen]): sorted, one group per suit, printed jokers last."""
    groups: dict[str, list[Card]] = {}
    for c in sorted(hand, key=sort_key):
        groups.setdefault(c.suit or "PJ", []).append(c)
    return list(groups.values())


def check_groups(groups: Sequence[Sequence[Card]], hand: Sequence[Card], what: str) -> Groups:
    """The groups must hold exactly ``hand`` as a multiset."""
    flat = [c for g in groups for c in g]
    if Counter(flat) != Counter(hand):
        raise InvalidArrangementError(
            f"{what} must contain exactly the {len(hand)} cards of the hand, got {len(flat)} cards"
        )
    return [list(g) for g in groups if g]


def _remove(cards: list[Card], card: Card) -> None:
    cards.remove(card)


def _arr_remove(d: DealState, seat: int, card: Card) -> None:
    groups = d.arrangements.get(seat)
    if groups is None:
        return
    for g in groups:
        if card in g:
            g.remove(card)
            break
    d.arrangements[seat] = [g for g in groups if g]


def _arr_add(d: DealState, seat: int, card: Card) -> None:
    groups = d.arrangements.get(seat)
    if groups is not None:
        groups.append([card])


# ---------------------------------------------------------------------- dealing
def new_deal(
    deal_no: int,
    order: list[int],
    extra_ms: dict[int, int],
    at: int,
    ctx: Ctx,
    *,
    deck: list[Card],
    server_seed: str,
    client_seeds: list[str],
) -> DealState:
    """Deal ``deck`` (the fair shuffle's order, top first): 13 each, cut joker, first open card.

    docs/rules.md §6, §2; the layout is ``fairness.layout`` (docs/fairness.md).
    """
    hands, cut, open_card, pack = fairness.layout(deck, order, HAND_SIZE)
    wild = wild_rank_for_cut(cut)
    d = DealState(
        deal_no=deal_no,
        order=list(order),
        hands=hands,
        closed=pack,
        open_pile=[open_card],
        cut_joker=cut,
        wild_rank=wild,
        extra_ms={s: extra_ms[s] for s in order},
        status={s: PLAYING for s in order},
        points={s: 0 for s in order},
        turns_taken={s: 0 for s in order},
        missed={s: 0 for s in order},
        turn=order[0],
        turn_started_at=at,
        charged_until=at,
        server_seed=server_seed,
        client_seeds=list(client_seeds),
    )
    ctx.emit(
        ev.DealStarted(
            deal_no=deal_no,
            order=list(order),
            dealer=order[-1],
            first=order[0],
            cut_joker=cut.code,
            wild_rank=wild,
            open_card=open_card.code,
            closed_count=len(pack),
            commitment=fairness.commitment(server_seed),
            client_seeds=list(client_seeds),
        )
    )
    _start_turn(d, order[0], at, ctx)
    return d


def _start_turn(d: DealState, seat: int, at: int, ctx: Ctx) -> None:
    d.turn = seat
    d.turn_started_at = at
    d.charged_until = at
    d.in_extra = False
    d.drawn = None
    d.drawn_source = None
    if seat in ctx.auto_drop:
        _drop(d, seat, at, ctx, "auto_drop")
        return
    ctx.emit(ev.Turn(seat=seat, deal_no=d.deal_no, started_at=at, deadline=at + ctx.rules.turn_ms))


def _next_turn(d: DealState, at: int, ctx: Ctx) -> None:
    """Pass the turn to the next player still in the deal, or end the deal (docs/rules.md §6)."""
    active = d.active()
    if len(active) <= 1:
        _end_last_standing(d, ctx)
        return
    i = d.order.index(d.turn)
    n = len(d.order)
    for k in range(1, n + 1):
        s = d.order[(i + k) % n]
        if d.status[s] == PLAYING:
            _start_turn(d, s, at, ctx)
            return


def _end_last_standing(d: DealState, ctx: Ctx) -> None:
    """Last player standing wins the deal with 0 (docs/rules.md §6)."""
    active = d.active()
    if active:
        d.winner = active[0]
        d.status[active[0]] = WON
        d.points[active[0]] = 0
    _done(d, ctx)


def _done(d: DealState, ctx: Ctx) -> None:
    d.phase = DONE
    d.drawn = None
    ctx.emit(ev.DealOver(**d.public_result()))


def _charge(d: DealState, seat: int, at: int, rules: TableRules) -> None:
    """Consume extra time used by an action taken after the turn time (docs/rules.md §6)."""
    tdl = d.turn_deadline(rules)
    bank = d.extra_ms.get(seat, 0)
    if at > tdl:
        start = max(tdl, d.charged_until)
        if at > start + bank:
            raise IllegalActionError("your time for this turn is up", rule="docs/rules.md §6.9")
        used = at - start
        if used > 0:
            d.extra_ms[seat] = bank - used
            d.charged_until = at
        # The turn time is over: the turn is in its extra time whether or not the
        # server's turn timer has been applied yet (docs/rules.md §6.9).
        d.in_extra = True


def _require_turn(d: DealState, seat: int) -> None:
    if d.phase != TURN:
        raise IllegalActionError("no turn is being played now", rule="docs/rules.md §6.4")
    if seat not in d.status:
        raise IllegalActionError(f"seat {seat} is not in this deal", rule="docs/rules.md §6.4")
    if d.status[seat] != PLAYING:
        raise IllegalActionError(f"seat {seat} is out of this deal", rule="docs/rules.md §6.4")
    if d.turn != seat:
        raise NotYourTurnError(f"it is seat {d.turn}'s turn, not seat {seat}'s", rule="docs/rules.md §6.4")


# ---------------------------------------------------------------------- moves
def draw(d: DealState, seat: int, source: str, at: int, ctx: Ctx) -> None:
    _require_turn(d, seat)
    if d.drawn is not None:
        raise IllegalActionError("you have already drawn a card this turn", rule="docs/rules.md §6.4")
    if source == "open":
        if not d.open_pile:
            raise IllegalActionError("the open pile is empty", rule="docs/rules.md §6.4")
        top = d.open_pile[-1]
        if is_joker(top, d.wild_rank):
            first_move = seat == d.order[0] and d.turns_taken[seat] == 0 and len(d.open_pile) == 1
            if not first_move:
                raise IllegalActionError(
                    "a joker on the open pile cannot be picked up (only the very first open card, "
                    "by the first player on their first move)",
                    rule="docs/rules.md §6.5",
                )
        _charge(d, seat, at, ctx.rules)
        card = d.open_pile.pop()
        ctx.emit(ev.Draw(seat=seat, source="open", card=card.code))
    elif source == "closed":
        if not d.closed:
            raise IllegalActionError("the closed deck is empty", rule="docs/rules.md §6.6")
        _charge(d, seat, at, ctx.rules)
        card = d.closed.pop()
        ctx.emit(ev.Draw(seat=seat, source="closed"))
    else:
        raise IllegalActionError(f"unknown draw source {source!r}", rule="API")
    d.hands[seat].append(card)
    _arr_add(d, seat, card)
    d.drawn = card
    d.drawn_source = source
    if not d.closed:
        _reshuffle(d, ctx)


def _reshuffle(d: DealState, ctx: Ctx) -> None:
    """The closed deck ran out: the open pile except its top becomes the closed deck (docs/rules.md §6)."""
    if len(d.open_pile) <= 1:
        return
    d.reshuffles += 1
    cards = d.open_pile[:-1]
    fairness.reshuffle(cards, d.server_seed, d.client_seeds, d.deal_no, d.reshuffles)
    d.closed = cards
    d.open_pile = d.open_pile[-1:]
    ctx.emit(ev.Reshuffle(closed_count=len(d.closed), open_top=d.open_pile[-1].code))


def discard(d: DealState, seat: int, card: Card, at: int, ctx: Ctx) -> None:
    _require_turn(d, seat)
    if d.drawn is None:
        raise IllegalActionError("draw a card before discarding", rule="docs/rules.md §6.4")
    if card not in d.hands[seat]:
        raise IllegalActionError(f"{card.code} is not in your hand", rule="docs/rules.md §6.4")
    _charge(d, seat, at, ctx.rules)
    _discard(d, seat, card, ctx, auto=False)
    d.missed[seat] = 0
    d.turns_taken[seat] += 1
    _next_turn(d, at, ctx)


def _discard(d: DealState, seat: int, card: Card, ctx: Ctx, *, auto: bool) -> None:
    _remove(d.hands[seat], card)
    _arr_remove(d, seat, card)
    d.open_pile.append(card)
    d.drawn = None
    ctx.emit(ev.Discard(seat=seat, card=card.code, auto=auto))


def drop(d: DealState, seat: int, at: int, ctx: Ctx) -> None:
    """Drop before drawing: first drop on the first turn, middle drop later (docs/rules.md §6)."""
    _require_turn(d, seat)
    if d.drawn is not None:
        raise IllegalActionError("you can only drop before drawing", rule="docs/rules.md §6.7")
    _charge(d, seat, at, ctx.rules)
    _drop(d, seat, at, ctx, "drop")


def drop_points(d: DealState, seat: int, rules: TableRules) -> int:
    """What a drop by ``seat`` costs now: a first drop before its first turn, else a middle drop (docs/rules.md §6.7)."""
    return rules.first_drop if d.turns_taken[seat] == 0 else rules.middle_drop


def _drop(d: DealState, seat: int, at: int, ctx: Ctx, reason: str, *, advance: bool = True) -> None:
    rules = ctx.rules
    pts = drop_points(d, seat, rules)
    if reason == "missed_turns":
        pts = rules.middle_drop
    d.status[seat] = DROPPED
    d.points[seat] = pts
    d.drop_reason[seat] = reason
    ctx.emit(ev.Drop(seat=seat, points=pts, reason=reason))
    if advance:
        _next_turn(d, at, ctx)


def auto_drop_now(d: DealState, seat: int, at: int, ctx: Ctx) -> bool:
    """Auto drop armed on the player's own turn before drawing drops them at once."""
    if d.phase == TURN and d.turn == seat and d.status.get(seat) == PLAYING and d.drawn is None:
        _drop(d, seat, at, ctx, "auto_drop")
        return True
    return False


def leave(d: DealState, seat: int, at: int, ctx: Ctx) -> None:
    """A player leaving mid-deal is dropped (their drawn card, if any, is discarded)."""
    if seat not in d.status or d.phase == DONE:
        return
    if d.phase == TURN and d.status[seat] == PLAYING:
        on_turn = d.turn == seat
        if on_turn and d.drawn is not None:
            _discard(d, seat, d.drawn, ctx, auto=True)
        _drop(d, seat, at, ctx, "left", advance=False)
        if on_turn or len(d.active()) <= 1:
            _next_turn(d, at, ctx)
    elif d.phase == FINISHING and d.declarer == seat:
        # A declarer who leaves has not declared: a wrong show (docs/rules.md §4.5, §7.9).
        _wrong_show(d, seat, d.arrangement_of(seat), at, ctx, reason="left")
    elif d.phase == FINISHING and d.status[seat] == PLAYING:
        # Out of the deal at once, even while another player declares (docs/rules.md §7.9).
        _drop(d, seat, at, ctx, "left", advance=False)
        if len(d.active()) <= 1:
            _end_last_standing(d, ctx)
    elif d.phase == SHOWING and d.status[seat] == PLAYING:
        _score_loser(d, seat, d.arrangement_of(seat), ctx)
        _maybe_all_shown(d, ctx)


def arrange(d: DealState, seat: int, groups: Sequence[Sequence[Card]]) -> None:
    if seat not in d.hands:
        raise IllegalActionError(f"seat {seat} is not in this deal", rule="docs/rules.md §6.3")
    if d.phase == DONE:
        raise IllegalActionError("the deal is over", rule="docs/rules.md §6.3")
    d.arrangements[seat] = check_groups(groups, d.hands[seat], "an arrangement")


# ---------------------------------------------------------------------- declaration
def finish(
    d: DealState, seat: int, card: Card, groups: Sequence[Sequence[Card]] | None, at: int, ctx: Ctx
) -> None:
    """Place a card in the finish slot and (now or within the declaration time) show (docs/rules.md §4)."""
    _require_turn(d, seat)
    if d.drawn is None:
        raise IllegalActionError("draw a card before finishing", rule="docs/rules.md §4.1")
    if card not in d.hands[seat]:
        raise IllegalActionError(f"{card.code} is not in your hand", rule="docs/rules.md §4.1")
    if groups is not None:
        rest = list(d.hands[seat])
        rest.remove(card)
        checked = check_groups(groups, rest, "a show")
    _charge(d, seat, at, ctx.rules)
    _remove(d.hands[seat], card)
    _arr_remove(d, seat, card)
    d.finish_slot = card
    d.drawn = None
    d.declarer = seat
    d.missed[seat] = 0
    d.phase = FINISHING
    d.declare_deadline = at + ctx.rules.declare_ms
    ctx.emit(ev.Finish(seat=seat, deadline=d.declare_deadline))
    if groups is not None:
        _evaluate_declaration(d, seat, checked, at, ctx)


def show(d: DealState, seat: int, groups: Sequence[Sequence[Card]], at: int, ctx: Ctx) -> None:
    """The declarer's show after ``finish``, or a loser's show after a valid declaration (docs/rules.md §4-5)."""
    if d.phase == FINISHING:
        if seat != d.declarer:
            raise NotYourTurnError("only the declarer shows now", rule="docs/rules.md §4.1")
        if at > d.declare_deadline:
            raise IllegalActionError("the declaration time is over", rule="docs/rules.md §4.5")
        _evaluate_declaration(d, seat, check_groups(groups, d.hands[seat], "a show"), at, ctx)
    elif d.phase == SHOWING:
        if d.status.get(seat) != PLAYING:
            raise IllegalActionError("you have nothing to show in this deal", rule="docs/rules.md §5.1")
        if at > d.declare_deadline:
            raise IllegalActionError("the declaration time is over", rule="docs/rules.md §5.6")
        _score_loser(d, seat, check_groups(groups, d.hands[seat], "a show"), ctx)
        _maybe_all_shown(d, ctx)
    else:
        raise IllegalActionError("there is no show to make now", rule="docs/rules.md §4.1")


def _evaluate_declaration(d: DealState, seat: int, groups: Groups, at: int, ctx: Ctx) -> None:
    rules = ctx.rules
    valid = is_valid_declaration(groups, d.wild_rank)
    d.shown[seat] = [list(g) for g in groups]
    if valid:
        d.status[seat] = WON
        d.points[seat] = 0
        d.winner = seat
        d.phase = SHOWING
        d.declare_deadline = at + rules.declare_ms
        ctx.emit(
            ev.Declaration(
                seat=seat,
                valid=True,
                points=0,
                groups=[[c.code for c in g] for g in groups],
                deadline=d.declare_deadline,
                open_top=None,
                reason=None,
            )
        )
        _maybe_all_shown(d, ctx)
        return
    _wrong_show(d, seat, groups, at, ctx, reason="invalid")


def _wrong_show(d: DealState, seat: int, groups: Groups, at: int, ctx: Ctx, *, reason: str) -> None:
    """Wrong show (docs/rules.md §4.4): penalty, and the finish card goes to the open pile as their discard."""
    rules = ctx.rules
    d.shown[seat] = [list(g) for g in groups]
    d.status[seat] = WRONG_SHOW
    if reason != "invalid":
        d.drop_reason[seat] = reason
    d.points[seat] = rules.wrong_show
    assert d.finish_slot is not None
    d.open_pile.append(d.finish_slot)
    d.finish_slot = None
    d.declarer = None
    d.turns_taken[seat] += 1
    d.phase = TURN
    ctx.emit(
        ev.Declaration(
            seat=seat,
            valid=False,
            points=rules.wrong_show,
            groups=[[c.code for c in g] for g in groups],
            deadline=None,
            open_top=d.open_pile[-1].code,
            reason=reason,
        )
    )
    d.turn = seat
    _next_turn(d, at, ctx)


def _score_loser(d: DealState, seat: int, groups: Groups, ctx: Ctx) -> None:
    """Loser's count (docs/rules.md §5): via ``score_arrangement`` with the full-count cap; deal show halves."""
    rules = ctx.rules
    hs = score_arrangement(groups, d.wild_rank, rules.full_count)
    pts = min(hs.score, rules.full_count)
    if d.turns_taken[seat] == 0 and pts > 0:
        pts = min(max(pts // 2, 2), 40)
        d.deal_show.append(seat)
    d.status[seat] = SHOWN
    d.points[seat] = pts
    d.shown[seat] = [list(g) for g in groups]
    ctx.emit(
        ev.Show(
            seat=seat,
            points=pts,
            deal_show=seat in d.deal_show,
            groups=[[c.code for c in g] for g in groups],
        )
    )


def _maybe_all_shown(d: DealState, ctx: Ctx) -> None:
    if d.phase == SHOWING and not d.active():
        _done(d, ctx)


# ---------------------------------------------------------------------- timers
def timeout(d: DealState, at: int, ctx: Ctx) -> None:
    """The deal's deadline passed (docs/rules.md §6 timers)."""
    rules = ctx.rules
    dl = d.deadline(rules)
    if dl is None:
        raise IllegalActionError("no deal deadline is pending", rule="docs/rules.md §6.9")
    if at < dl.at_ms:
        raise IllegalActionError(
            f"the {dl.kind} deadline is at {dl.at_ms}, not yet reached", rule="docs/rules.md §6.9"
        )
    if d.phase == TURN:
        seat = d.turn
        if not d.in_extra and d.extra_ms.get(seat, 0) > 0:
            d.in_extra = True
            # Never back: time already charged by an action is not charged again (docs/rules.md §6.9).
            d.charged_until = max(d.charged_until, d.turn_deadline(rules))
            ctx.emit(ev.ExtraTime(seat=seat, bank_ms=d.extra_ms[seat], deadline=dl.at_ms + d.extra_ms[seat]))
            return
        d.extra_ms[seat] = 0
        _missed_turn(d, seat, at, ctx)
    elif d.phase == FINISHING:
        assert d.declarer is not None
        seat = d.declarer
        # Failing to declare in time is a wrong show, whatever the cards (docs/rules.md §4.5).
        _wrong_show(d, seat, d.arrangement_of(seat), at, ctx, reason="no_show")
    elif d.phase == SHOWING:
        for seat in d.active():
            _score_loser(d, seat, d.arrangement_of(seat), ctx)
        _maybe_all_shown(d, ctx)


def _missed_turn(d: DealState, seat: int, at: int, ctx: Ctx) -> None:
    """Missed turn: a drawn card is discarded for them; three in a row → middle drop (docs/rules.md §6)."""
    if d.drawn is not None:
        _discard(d, seat, d.drawn, ctx, auto=True)
    d.missed[seat] += 1
    d.turns_taken[seat] += 1
    ctx.emit(ev.TurnMissed(seat=seat, misses=d.missed[seat]))
    if d.missed[seat] >= 3:
        _drop(d, seat, at, ctx, "missed_turns")
    else:
        _next_turn(d, at, ctx)
