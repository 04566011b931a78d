"""The pool game (docs/rules.md §6-8, §9): one top-level state the server persists.

``new_game`` builds the state; ``apply(state, action)`` returns a new state and
the public events, never mutating its input. Every rule lives here or in
``deal.py``; the server only persists, broadcasts and schedules timers.
"""

from __future__ import annotations

import enum
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from game_engine import codec, fairness
from game_engine import deal as dl
from game_engine import events as ev
from game_engine.actions import (
    Action,
    Arrange,
    AutoDrop,
    ClientSeed,
    Discard,
    Draw,
    Drop,
    Finish,
    ImBack,
    Leave,
    Rejoin,
    Show,
    SplitAccept,
    SplitDecline,
    StartDeal,
    Timeout,
    action_from_dict,
)
from game_engine.cards import Card, toss_key
from game_engine.errors import IllegalActionError, PoolRuleError, RummyError, SplitRuleError
from game_engine.events import Deadline, DeadlineKind, Event
from game_engine.formats import TableRules
from game_engine.pool import can_rejoin, drops_remaining, is_eliminated, prize_pool, rejoin_score
from game_engine.shapes import TypedDict
from game_engine.split import auto_split_due, manual_split_eligible, split_amounts


class GamePhase(enum.StrEnum):
    """Where a pool game stands."""

    DEALING = "dealing"  # before the first deal: waiting for start_deal / timeout
    PLAYING = "playing"  # a deal is running, someone is on turn
    DECLARING = "declaring"  # a deal is in its declaration (finish slot or losers' shows)
    BETWEEN_DEALS = "between_deals"  # pause before the next deal
    REJOIN_WINDOW = "rejoin_window"  # eliminated players may rejoin before the next deal
    SPLIT_OFFER = "split_offer"  # a manual split is offered to the remaining players
    FINISHED = "finished"


DEALING, PLAYING, DECLARING = GamePhase.DEALING, GamePhase.PLAYING, GamePhase.DECLARING
BETWEEN_DEALS, REJOIN_WINDOW = GamePhase.BETWEEN_DEALS, GamePhase.REJOIN_WINDOW
SPLIT_OFFER, FINISHED = GamePhase.SPLIT_OFFER, GamePhase.FINISHED
PHASES = tuple(GamePhase)
STATE_FORMAT = 1


@dataclass(slots=True)
class PlayerState:
    id: str
    name: str
    score: int = 0
    eliminated: bool = False
    left: bool = False
    rejoins: int = 0
    fees_paid: int = 0
    auto_drop: bool = False
    extra_ms: int = 0
    #: This player's seed for the shuffle (docs/fairness.md); generated when they sent none.
    client_seed: str = ""
    client_seed_generated: bool = True


class RejoinOfferState(TypedDict):
    """The rejoin window's offer (docs/rules.md §7.4-7.7): the eligible seats still deciding."""

    seats: list[int]
    score: int
    fee: int


class SplitOfferState(TypedDict):
    """A manual split on offer (docs/rules.md §8.1): the amounts by seat, who accepted."""

    amounts: dict[int, int]
    accepted: list[int]


@dataclass(slots=True)
class GameState:
    """Everything of one game; saved after every move (``to_dict``, by ``game_engine.codec``)."""

    rules: TableRules
    seed: int
    players: list[PlayerState]
    started: int
    phase: GamePhase = DEALING
    version: int = 0
    deal_no: int = 0
    #: Play order of the last (or current) deal, all live seats; the dealer is last.
    order: list[int] = field(default_factory=list)
    need_toss: bool = True
    toss: dict[int, Card] = field(default_factory=dict)
    deal: dl.DealState | None = None
    phase_deadline: int | None = None
    rejoin_offer: RejoinOfferState | None = None
    split_offer: SplitOfferState | None = None
    last_result: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    now: int = 0
    #: The secret server seed of the next deal (docs/fairness.md), drawn by the server; with
    #: None, the next deal derives one from ``seed`` (simulations and tests).
    next_server_seed: str | None = None

    # ------------------------------------------------------------------ queries
    @property
    def deadline(self) -> Deadline | None:
        """When the server must send ``timeout`` (None: nothing pending)."""
        if self.phase in (PLAYING, DECLARING):
            assert self.deal is not None
            return self.deal.deadline(self.rules)
        if self.phase_deadline is None:
            return None
        kind: dict[GamePhase, DeadlineKind] = {
            DEALING: "next_deal",
            BETWEEN_DEALS: "next_deal",
            REJOIN_WINDOW: "rejoin",
            SPLIT_OFFER: "split",
        }
        return Deadline(self.phase_deadline, kind[self.phase], None)

    def seat_of(self, player_id: str) -> int | None:
        """The seat of the player whose id is ``player_id`` (the server's user id), or None."""
        return next((i for i, p in enumerate(self.players) if p.id == player_id), None)

    def live_seats(self) -> list[int]:
        return [i for i, p in enumerate(self.players) if not p.eliminated]

    def drops_remaining(self, seat: int) -> int:
        p = self.players[seat]
        if self.rules.is_points or p.eliminated:
            return 0
        return drops_remaining(self.rules.pool_limit, p.score, self.rules.first_drop)

    @property
    def fees_paid(self) -> int:
        return sum(p.fees_paid for p in self.players)

    @property
    def prize_pool(self) -> int:
        return prize_pool(self.fees_paid, self.rules)[0]

    # ------------------------------------------------------------------ copy / serialization
    def clone(self) -> GameState:
        """A deep copy (``apply`` changes its own copy only: copy-on-write)."""
        return _copy(self)  # type: ignore[no-any-return]  # the codec's generated functions are typed Any

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON values, as the server stores it (``PoolGame.state``)."""
        return {"format": STATE_FORMAT, **_encode(self)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        """A stored state back (one saved before a field existed gets the field's default)."""
        try:
            return _decode(d)  # type: ignore[no-any-return]  # the codec's generated functions are typed Any
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            if isinstance(exc, RummyError):
                raise
            raise PoolRuleError(f"corrupt game state: {exc!r}", rule="API") from exc


_encode, _decode, _copy = codec.encoder(GameState), codec.decoder(GameState), codec.copier(GameState)


# ---------------------------------------------------------------------- construction
def new_game(
    rules: TableRules,
    players: list[tuple[str, str]],
    seed: int | None,
    at: int,
    client_seeds: list[str | None] | None = None,
) -> GameState:
    """A pool game (or a points-rummy deal) for ``players`` = [(player id, display name)] by seat.

    The state starts in phase "dealing" with a "next_deal" deadline at ``at``: the
    server applies ``start_deal`` (or ``timeout``) to toss and deal the first hand.
    With ``seed`` None a seed is drawn from ``secrets`` (unpredictable, replayable).
    ``client_seeds`` by seat (docs/fairness.md): a seat without one gets a seed derived
    from ``seed`` and is marked as generated.
    """
    if not rules.min_players <= len(players) <= rules.max_players:
        raise PoolRuleError(
            f"a game needs {rules.min_players} to {rules.max_players} players, got {len(players)}"
        )
    ids = [p[0] for p in players]
    if len(set(ids)) != len(ids):
        raise PoolRuleError("player ids must be distinct")
    if seed is None:
        seed = secrets.randbits(63)
    given = list(client_seeds or [])
    given += [None] * (len(players) - len(given))
    for c in given:
        if c is not None and not fairness.valid_client_seed(c):
            raise PoolRuleError(f"bad client seed {c!r}")
    return GameState(
        rules=rules,
        seed=seed,
        players=[
            PlayerState(
                id=str(pid),
                name=str(name),
                fees_paid=rules.entry_fee,
                extra_ms=rules.extra_time_ms,
                client_seed=c if c is not None else fairness.derived_seed(str(seed), f"client:{i}")[:32],
                client_seed_generated=c is None,
            )
            for i, ((pid, name), c) in enumerate(zip(players, given, strict=True))
        ],
        started=len(players),
        phase=DEALING,
        phase_deadline=at,
        now=at,
    )


# ---------------------------------------------------------------------- apply
def apply(state: GameState, action: Action | Mapping[str, Any]) -> tuple[GameState, list[Event]]:
    """Apply one action; returns (new state, public events). The input is never mutated.

    Raises a ``RummyError`` subclass naming the rule when the action is illegal. A
    private action (``Action.private``: an arrangement) keeps ``version`` and ``now``:
    the version counts what the other seats can see, and they see nothing of it. The
    server passes typed actions; an action in the wire format (tests, tools) is read first.
    """
    if not isinstance(action, Action):
        action = action_from_dict(action)
    if action.at < 0:
        raise IllegalActionError("an action needs the server's time (Action.stamp)", rule="API")
    if state.phase == FINISHED:
        raise PoolRuleError("the game is over")
    seat = action.actor
    if seat is not None:
        if not 0 <= seat < len(state.players):
            raise IllegalActionError(f"no seat {seat} at this table", rule="API")
        if state.players[seat].left:
            raise IllegalActionError(f"seat {seat} has left the game", rule="docs/rules.md §7.9")
    s = state.clone()
    ctx = dl.Ctx(rules=s.rules, seed=s.seed, auto_drop=_auto_drop_set(s))
    _dispatch(s, action, ctx)
    if not action.private:
        s.version = state.version + 1
        s.now = max(state.now, action.at)
    return s, ctx.events


def _auto_drop_set(s: GameState) -> frozenset[int]:
    return frozenset(i for i, p in enumerate(s.players) if p.auto_drop)


def _dispatch(s: GameState, a: Action, ctx: dl.Ctx) -> None:
    at = a.at
    if isinstance(a, Timeout):
        _timeout(s, at, ctx)
    elif isinstance(a, StartDeal):
        if s.phase not in (DEALING, BETWEEN_DEALS):
            raise IllegalActionError(f"cannot start a deal in phase {s.phase}", rule="docs/rules.md §7.2")
        _start_deal(s, at, ctx)
    elif isinstance(a, Draw | Discard | Finish | Drop):
        d = _deal_for(s, a.seat, PLAYING)
        if isinstance(a, Draw):
            dl.draw(d, a.seat, a.source, at, ctx)
        elif isinstance(a, Discard):
            dl.discard(d, a.seat, a.card, at, ctx)
        elif isinstance(a, Finish):
            dl.finish(d, a.seat, a.card, a.groups, at, ctx)
        else:
            dl.drop(d, a.seat, at, ctx)
        _after_deal_step(s, at, ctx)
    elif isinstance(a, Show):
        d = _deal_for(s, a.seat, DECLARING)
        dl.show(d, a.seat, a.groups, at, ctx)
        _after_deal_step(s, at, ctx)
    elif isinstance(a, Arrange):
        if s.phase not in (PLAYING, DECLARING) or s.deal is None:
            raise IllegalActionError("there is no hand to arrange now", rule="docs/rules.md §6.3")
        dl.arrange(s.deal, a.seat, a.groups)
    elif isinstance(a, AutoDrop | ImBack):
        p = s.players[a.seat]
        if p.eliminated:
            raise PoolRuleError("you are not playing in this game")
        on = a.on if isinstance(a, AutoDrop) else False
        p.auto_drop = on
        if on and s.phase == PLAYING and s.deal is not None and dl.auto_drop_now(s.deal, a.seat, at, ctx):
            _after_deal_step(s, at, ctx)
    elif isinstance(a, ClientSeed):
        # Used from the next deal on: the current deal's seeds were fixed when it was dealt.
        s.players[a.seat].client_seed = a.seed
        s.players[a.seat].client_seed_generated = False
    elif isinstance(a, Rejoin):
        _rejoin(s, a.seat, at, ctx)
    elif isinstance(a, SplitAccept | SplitDecline):
        _split_answer(s, a.seat, isinstance(a, SplitAccept), at, ctx)
    elif isinstance(a, Leave):
        _leave(s, a.seat, at, ctx)
    else:  # pragma: no cover
        raise IllegalActionError(f"unsupported action {a.type}", rule="API")


def _deal_for(s: GameState, seat: int, phase: GamePhase) -> dl.DealState:
    if s.phase != phase or s.deal is None:
        what = "a turn" if phase == PLAYING else "a declaration"
        raise IllegalActionError(f"this needs {what} in progress; the game is in phase {s.phase}")
    return s.deal


def _sync_phase(s: GameState) -> None:
    assert s.deal is not None
    s.phase = PLAYING if s.deal.phase == dl.TURN else DECLARING


def _after_deal_step(s: GameState, at: int, ctx: dl.Ctx) -> None:
    assert s.deal is not None
    if s.deal.phase == dl.DONE:
        _end_deal(s, at, ctx)
    else:
        _sync_phase(s)


# ---------------------------------------------------------------------- toss and deals
def _toss(s: GameState, seats: list[int], cards: list[Card], ctx: dl.Ctx) -> list[int]:
    """Toss (docs/rules.md §6): one card each, highest plays first; the cards come from the
    deal's fair stream (``fairness.deal_stream``), which already re-drew exact duplicates."""
    s.toss = dict(zip(seats, cards, strict=True))
    order = sorted(seats, key=lambda x: toss_key(s.toss[x]), reverse=True)
    ctx.emit(ev.Toss(cards={str(k): c.code for k, c in s.toss.items()}, order=order, dealer=order[-1]))
    return order


def _start_deal(s: GameState, at: int, ctx: dl.Ctx) -> None:
    live = s.live_seats()
    deal_no = s.deal_no + 1
    server_seed = s.next_server_seed or fairness.derived_seed(str(s.seed), f"server:{deal_no}")
    s.next_server_seed = None
    client_seeds = [p.client_seed or f"seat{i}" for i, p in enumerate(s.players)]
    tossing = s.need_toss or not s.order
    shuffled = fairness.deal_stream(
        server_seed, client_seeds, deal_no, s.rules.decks, toss_seats=len(live) if tossing else 0
    )
    if tossing:
        order = _toss(s, live, shuffled.toss, ctx)
        s.need_toss = False
    else:
        # The previous first player becomes the dealer: rotate by one (docs/rules.md §6).
        rotated = s.order[1:] + s.order[:1]
        order = [x for x in rotated if x in live]
    s.order = order
    s.deal_no += 1
    s.phase_deadline = None
    s.rejoin_offer = None
    s.split_offer = None
    banks = {x: s.players[x].extra_ms for x in order}
    s.deal = dl.new_deal(
        s.deal_no,
        order,
        banks,
        at,
        ctx,
        deck=shuffled.deck,
        server_seed=server_seed,
        client_seeds=client_seeds,
    )
    _after_deal_step(s, at, ctx)


def _end_deal(s: GameState, at: int, ctx: dl.Ctx) -> None:
    d = s.deal
    assert d is not None and d.phase == dl.DONE
    rules = s.rules
    for seat in d.order:
        s.players[seat].extra_ms = d.extra_ms[seat]
    s.last_result = d.public_result()
    if rules.is_points:
        _points_game_over(s, d, ctx)
        return
    newly_out: list[int] = []
    for seat in d.order:
        p = s.players[seat]
        p.score += d.points[seat]
        if not p.eliminated and is_eliminated(p.score, rules):
            p.eliminated = True
            newly_out.append(seat)
    ctx.emit(
        ev.Scores(
            deal_no=d.deal_no,
            points={str(x): d.points[x] for x in d.order},
            scores={str(i): p.score for i, p in enumerate(s.players)},
            eliminated=list(newly_out),
            drops_remaining={str(i): s.drops_remaining(i) for i in range(len(s.players))},
        )
    )
    for seat in newly_out:
        ctx.emit(ev.Eliminated(seat=seat, score=s.players[seat].score))
    _between_deals(s, at, ctx, newly_out=newly_out)


def _between_deals(s: GameState, at: int, ctx: dl.Ctx, *, newly_out: list[int] | None = None) -> None:
    """After a deal (or a change of players): game over, rejoin window, auto split,
    manual split offer, then the pause before the next deal (docs/rules.md §7-8).

    ``newly_out``: the seats this deal eliminated, the only ones its rejoin window
    may offer a seat again (docs/rules.md §7.6); None when no deal just ended.
    """
    rules = s.rules
    live = s.live_seats()
    if len(live) <= 1:
        _game_over_winner(s, live[0] if live else None, ctx)
        return
    if newly_out:
        # The rejoin window comes before the auto split check (docs/rules.md §7.8).
        live_scores = [s.players[x].score for x in live]
        eligible = [i for i in newly_out if not s.players[i].left and can_rejoin(live_scores, rules)]
        if eligible:
            score = rejoin_score(live_scores)
            s.phase = REJOIN_WINDOW
            s.phase_deadline = at + rules.rejoin_ms
            s.rejoin_offer = {"seats": eligible, "score": score, "fee": rules.entry_fee}
            ctx.emit(
                ev.RejoinOffer(
                    seats=list(eligible), score=score, fee=rules.entry_fee, deadline=s.phase_deadline
                )
            )
            return
    s.rejoin_offer = None
    drops = [s.drops_remaining(x) for x in live]
    someone_out = len(live) < len(s.players)
    if auto_split_due(drops, someone_out, rules):
        _game_over_split(s, live, ctx, manual=False)
        return
    if (
        manual_split_eligible(drops, s.started) and s.prize_pool > 0
    ):  # a free table has nothing to split (docs/rules.md §8.1)
        amounts = split_amounts(s.prize_pool, rules.entry_fee, drops)
        s.phase = SPLIT_OFFER
        s.phase_deadline = at + rules.split_ms
        s.split_offer = {"amounts": dict(zip(live, amounts, strict=True)), "accepted": []}
        ctx.emit(
            ev.SplitOffer(
                amounts={str(x): a for x, a in zip(live, amounts, strict=True)},
                deadline=s.phase_deadline,
            )
        )
        return
    s.split_offer = None
    s.phase = BETWEEN_DEALS
    s.phase_deadline = at + rules.next_deal_ms
    ctx.emit(ev.NextDeal(deal_no=s.deal_no + 1, at=s.phase_deadline))


def _rejoin(s: GameState, seat: int, at: int, ctx: dl.Ctx) -> None:
    """Rejoin (docs/rules.md §7): the server has charged the fee; start at highest live score + 1."""
    if s.phase != REJOIN_WINDOW or s.rejoin_offer is None:
        raise PoolRuleError("rejoining is only possible in the rejoin window before the next deal")
    if seat not in s.rejoin_offer["seats"]:
        raise PoolRuleError("this seat may not rejoin now (highest live score above the rejoin threshold)")
    p = s.players[seat]
    p.eliminated = False
    p.score = int(s.rejoin_offer["score"])
    p.rejoins += 1
    p.fees_paid += s.rules.entry_fee
    p.auto_drop = False
    s.rejoin_offer["seats"].remove(seat)
    s.need_toss = True
    ctx.emit(ev.Rejoined(seat=seat, score=p.score, fee=s.rules.entry_fee, prize_pool=s.prize_pool))
    if not s.rejoin_offer["seats"]:
        _between_deals(s, at, ctx)


def _split_answer(s: GameState, seat: int, accept: bool, at: int, ctx: dl.Ctx) -> None:
    if s.phase != SPLIT_OFFER or s.split_offer is None:
        raise SplitRuleError("no split is being offered")
    if seat not in s.split_offer["amounts"]:
        raise SplitRuleError("only the remaining players answer a split offer")
    if not accept:
        ctx.emit(ev.SplitDeclined(seat=seat))
        s.split_offer = None
        s.phase = BETWEEN_DEALS
        s.phase_deadline = at + s.rules.next_deal_ms
        ctx.emit(ev.NextDeal(deal_no=s.deal_no + 1, at=s.phase_deadline))
        return
    if seat in s.split_offer["accepted"]:
        raise SplitRuleError("you have already accepted")
    s.split_offer["accepted"].append(seat)
    ctx.emit(ev.SplitAccepted(seat=seat))
    if set(s.split_offer["accepted"]) == set(s.split_offer["amounts"]):
        _game_over_split(s, sorted(s.split_offer["amounts"]), ctx, manual=True)


def _leave(s: GameState, seat: int, at: int, ctx: dl.Ctx) -> None:
    """Leave / forfeit: the player is out of the game for good (no refund, no rejoin)."""
    p = s.players[seat]
    was_live = not p.eliminated
    p.left = True
    p.eliminated = True
    p.auto_drop = False
    ctx.emit(ev.PlayerLeft(seat=seat))
    if s.phase in (PLAYING, DECLARING):
        assert s.deal is not None
        if seat in s.deal.status:
            dl.leave(s.deal, seat, at, ctx)
            _after_deal_step(s, at, ctx)
        return
    if s.phase == REJOIN_WINDOW and s.rejoin_offer is not None:
        if seat in s.rejoin_offer["seats"]:
            s.rejoin_offer["seats"].remove(seat)
        if not was_live:
            if not s.rejoin_offer["seats"]:
                _between_deals(s, at, ctx)
            return
    if was_live and s.phase in (DEALING, BETWEEN_DEALS, REJOIN_WINDOW, SPLIT_OFFER):
        s.split_offer = None
        pending_rejoin = s.phase == REJOIN_WINDOW and s.rejoin_offer is not None and s.rejoin_offer["seats"]
        if len(s.live_seats()) <= 1 or not pending_rejoin:
            if s.phase == DEALING and len(s.live_seats()) >= 2:
                s.need_toss = True
                return
            _between_deals(s, at, ctx)


def _timeout(s: GameState, at: int, ctx: dl.Ctx) -> None:
    deadline = s.deadline
    if deadline is None:
        raise IllegalActionError("no deadline is pending", rule="docs/rules.md §6.9")
    if at < deadline.at_ms:
        raise IllegalActionError(
            f"the {deadline.kind} deadline is at {deadline.at_ms}; a timeout at {at} is early",
            rule="docs/rules.md §6.9",
        )
    if s.phase in (PLAYING, DECLARING):
        assert s.deal is not None
        dl.timeout(s.deal, at, ctx)
        _after_deal_step(s, at, ctx)
    elif s.phase in (DEALING, BETWEEN_DEALS):
        _start_deal(s, at, ctx)
    elif s.phase == REJOIN_WINDOW:
        _between_deals(s, at, ctx)
    elif s.phase == SPLIT_OFFER:
        ctx.emit(ev.SplitDeclined(seat=None))
        s.split_offer = None
        s.phase = BETWEEN_DEALS
        s.phase_deadline = at + s.rules.next_deal_ms
        ctx.emit(ev.NextDeal(deal_no=s.deal_no + 1, at=s.phase_deadline))


# ---------------------------------------------------------------------- game over
def _finish(s: GameState, payload: dict[str, Any], ctx: dl.Ctx) -> None:
    s.phase = FINISHED
    s.phase_deadline = None
    s.rejoin_offer = None
    s.split_offer = None
    s.result = payload
    ctx.emit(ev.GameOver(**payload))


def _payload(
    s: GameState, paid: dict[int, int], rake: int, pool: int, winner: int | None, split: str | None
) -> dict[str, Any]:
    return {
        "payouts": {p.id: paid.get(i, 0) for i, p in enumerate(s.players)},
        "rake": rake,
        "prize_pool": pool,
        "fees_paid": s.fees_paid,
        "winner": s.players[winner].id if winner is not None else None,
        "winner_seat": winner,
        "split": split,
        "scores": {p.id: p.score for p in s.players},
    }


def _game_over_winner(s: GameState, winner: int | None, ctx: dl.Ctx) -> None:
    pool, rake = prize_pool(s.fees_paid, s.rules)
    if winner is None:  # pragma: no cover - cannot happen: a deal always has a survivor
        paid: dict[int, int] = {}
        rake = s.fees_paid
        pool = 0
    else:
        paid = {winner: pool}
    _finish(s, _payload(s, paid, rake, pool, winner, None), ctx)


def _game_over_split(s: GameState, seats: list[int], ctx: dl.Ctx, *, manual: bool) -> None:
    pool, rake = prize_pool(s.fees_paid, s.rules)
    amounts = split_amounts(pool, s.rules.entry_fee, [s.drops_remaining(x) for x in seats])
    paid = dict(zip(seats, amounts, strict=True))
    _finish(s, _payload(s, paid, rake, pool, None, "manual" if manual else "auto"), ctx)


def _points_game_over(s: GameState, d: dl.DealState, ctx: dl.Ctx) -> None:
    """Points rummy (docs/rules.md §9): losers pay points × point value to the winner, minus the rake.

    Each player's entry fee is the amount held (at least full count × point value);
    payouts return the held amounts, less losses, plus the winnings to the winner.
    """
    rules = s.rules
    for seat in d.order:
        s.players[seat].score = d.points[seat]
    winner = d.winner
    losses = {x: min(d.points[x] * rules.point_value, s.players[x].fees_paid) for x in d.order if x != winner}
    won = sum(losses.values())
    rake = rules.rake_of(won)
    paid = {i: p.fees_paid - losses.get(i, 0) for i, p in enumerate(s.players)}
    if winner is not None:
        paid[winner] += won - rake
    else:  # pragma: no cover
        rake = won
    _finish(s, _payload(s, paid, rake, won - rake, winner, None), ctx)
