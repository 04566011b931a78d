"""What one seat (or a spectator) may see of a game: ``view_for(state, seat)``.

A view holds that player's own hand and arrangement and the public table only;
never another player's cards nor the closed deck order. Shown groups become
public once shown (the declaration, the losers' shows, the deal result). The last
deal's server seed is in a seat's ``last_result`` only: a spectator's has none
(``events.SEATS_ONLY``), since with it every hand of that deal is open.
"""

from __future__ import annotations

from typing import Literal

from game_engine import deal as dl
from game_engine import fairness
from game_engine.cards import Card, is_joker
from game_engine.events import DeadlineKind, DealResult, GameResult, result_for_spectators
from game_engine.formats import RulesView
from game_engine.game import DECLARING, FINISHED, PLAYING, REJOIN_WINDOW, SPLIT_OFFER, GamePhase, GameState
from game_engine.shapes import TypedDict

#: What a player may send (``legal``: a hint; the engine decides).
PlayerActionType = Literal[
    "draw",
    "discard",
    "finish",
    "show",
    "arrange",
    "drop",
    "auto_drop",
    "im_back",
    "client_seed",
    "rejoin",
    "split_accept",
    "split_decline",
    "leave",
]


class PlayerView(TypedDict):
    """One seat of a view: the public side of its player."""

    seat: int
    id: str
    """The player's user id, as a string."""
    name: str
    score: int
    eliminated: bool
    left: bool
    rejoins: int
    drops_remaining: int
    extra_ms: int
    """The extra-time bank left."""
    in_deal: bool
    status: dl.SeatStatus | None
    card_count: int
    turns_taken: int


class DeadlineView(TypedDict):
    """The server's next deadline: ``seat``'s clock, or the table's (None)."""

    at_ms: int
    kind: DeadlineKind
    seat: int | None


class RejoinOfferView(TypedDict):
    seats: list[int]
    score: int
    fee: int


class SplitOfferView(TypedDict):
    amounts: dict[str, int]
    """By seat, as a string."""
    accepted: list[int]


class ClientSeedView(TypedDict):
    seat: int
    seed: str
    generated: bool
    """Made by the server: the player sent none."""


class FairnessView(TypedDict):
    """The shuffle's public side (docs/fairness.md): commitments, never a secret seed."""

    deal_no: int | None
    commitment: str | None
    next_commitment: str | None
    client_seeds: list[ClientSeedView]


class View(TypedDict):
    """What one seat (or a spectator, ``seat`` None) may see of the game: the ``view`` of a
    snapshot or an update. Outside a deal its deal fields are None or empty; ``hand`` and the
    fields after it are the seat's own, None or empty for a spectator."""

    version: int
    phase: GamePhase
    format: Literal["pool", "points"]
    pool_limit: int
    rules: RulesView
    seat: int | None
    players: list[PlayerView]
    deal_no: int
    order: list[int]
    dealer: int | None
    toss: dict[str, str]
    deadline: DeadlineView | None
    fees_paid: int
    prize_pool: int
    rejoin_offer: RejoinOfferView | None
    split_offer: SplitOfferView | None
    last_result: DealResult | None
    result: GameResult | None
    fairness: FairnessView
    legal: list[PlayerActionType]
    """A hint of the actions this seat may send now; the server decides."""
    auto_drop: bool | None
    deal_phase: dl.DealPhase | None
    turn: int | None
    has_drawn: bool
    closed_count: int
    open_top: str | None
    open_pile: list[str]
    cut_joker: str | None
    wild_rank: int | None
    finish_slot_filled: bool
    declarer: int | None
    shown: dict[str, list[list[str]]]
    """Groups shown so far in the declaration, by seat."""
    hand: list[str] | None
    """This seat's own: None for a spectator and outside a deal."""
    arrangement: list[list[str]] | None
    arranged: bool
    drawn_card: str | None
    can_pick_open: bool
    drop_points: int | None
    """What a drop costs this seat now; None when it may not drop."""


def _codes(cards: list[Card]) -> list[str]:
    return [c.code for c in cards]


def legal_actions(state: GameState, seat: int | None) -> list[PlayerActionType]:
    """Action types ``seat`` may send now (a hint for clients and bots; ``apply`` decides)."""
    if seat is None or not 0 <= seat < len(state.players) or state.phase == FINISHED:
        return []
    p = state.players[seat]
    if p.left:
        return []
    out: list[PlayerActionType] = []
    d = state.deal
    if state.phase == PLAYING and d is not None and d.status.get(seat) == dl.PLAYING and d.turn == seat:
        out += ["finish", "discard"] if d.drawn is not None else ["draw", "drop"]
    declaring = state.phase == DECLARING and d is not None
    if declaring and d is not None:
        must_show = (d.phase == dl.FINISHING and d.declarer == seat) or (
            d.phase == dl.SHOWING and d.status.get(seat) == dl.PLAYING
        )
        if must_show:
            out.append("show")
    if state.phase in (PLAYING, DECLARING) and d is not None and seat in d.hands:
        out.append("arrange")
    if not p.eliminated:
        out.append("im_back" if p.auto_drop else "auto_drop")
    if state.phase == REJOIN_WINDOW and state.rejoin_offer and seat in state.rejoin_offer["seats"]:
        out.append("rejoin")
    if (
        state.phase == SPLIT_OFFER
        and state.split_offer
        and seat in state.split_offer["amounts"]
        and seat not in state.split_offer["accepted"]
    ):
        out += ["split_accept", "split_decline"]
    out.append("leave")
    return out


def view_for(state: GameState, seat: int | None) -> View:
    """JSON-compatible view of ``state`` for ``seat`` (None: a spectator)."""
    rules = state.rules
    d = state.deal
    in_deal = d is not None and state.phase in (PLAYING, DECLARING)
    players: list[PlayerView] = []
    for i, p in enumerate(state.players):
        entry: PlayerView = {
            "seat": i,
            "id": p.id,
            "name": p.name,
            "score": p.score,
            "eliminated": p.eliminated,
            "left": p.left,
            "rejoins": p.rejoins,
            "drops_remaining": state.drops_remaining(i),
            "extra_ms": p.extra_ms,
            "in_deal": bool(in_deal and d is not None and i in d.status),
            "status": d.status.get(i) if in_deal and d is not None else None,
            "card_count": len(d.hands[i]) if in_deal and d is not None and i in d.hands else 0,
            "turns_taken": d.turns_taken.get(i, 0) if in_deal and d is not None else 0,
        }
        if in_deal and d is not None and i in d.extra_ms:
            entry["extra_ms"] = d.extra_ms[i]
        players.append(entry)
    dl_ = state.deadline
    view: View = {
        "version": state.version,
        "phase": state.phase,
        "format": rules.kind,
        "pool_limit": rules.pool_limit,
        "rules": rules.to_dict(),
        "seat": seat,
        "players": players,
        "deal_no": state.deal_no,
        "order": list(d.order) if in_deal and d is not None else list(state.order),
        "dealer": (d.order[-1] if in_deal and d is not None else (state.order[-1] if state.order else None)),
        "toss": {str(k): c.code for k, c in state.toss.items()},
        "deadline": {"at_ms": dl_.at_ms, "kind": dl_.kind, "seat": dl_.seat} if dl_ is not None else None,
        "fees_paid": state.fees_paid,
        "prize_pool": state.prize_pool,
        "rejoin_offer": (
            {**state.rejoin_offer, "seats": list(state.rejoin_offer["seats"])} if state.rejoin_offer else None
        ),
        "split_offer": (
            {
                "amounts": {str(k): v for k, v in state.split_offer["amounts"].items()},
                "accepted": list(state.split_offer["accepted"]),
            }
            if state.split_offer
            else None
        ),
        # a spectator's without the server seed, which opens every hand of that deal
        "last_result": state.last_result if seat is not None else result_for_spectators(state.last_result),
        "result": state.result,
        "fairness": _fairness(state),
        "legal": legal_actions(state, seat),
        "auto_drop": state.players[seat].auto_drop
        if seat is not None and 0 <= seat < len(state.players)
        else None,
        # Deal-specific (None/empty outside a deal).
        "deal_phase": None,
        "turn": None,
        "has_drawn": False,
        "closed_count": 0,
        "open_top": None,
        "open_pile": [],
        "cut_joker": None,
        "wild_rank": None,
        "finish_slot_filled": False,
        "declarer": None,
        "shown": {},
        "hand": None,
        "arrangement": None,
        "arranged": False,
        "drawn_card": None,
        "can_pick_open": False,
        "drop_points": None,
    }
    if d is None or not in_deal:
        if d is not None:
            view["cut_joker"] = d.cut_joker.code
            view["wild_rank"] = d.wild_rank
        return view
    view.update(
        {
            "deal_phase": d.phase,
            "turn": d.turn if d.phase == dl.TURN else None,
            "has_drawn": d.drawn is not None,
            "closed_count": len(d.closed),
            "open_top": d.open_pile[-1].code if d.open_pile else None,
            "open_pile": _codes(d.open_pile),
            "cut_joker": d.cut_joker.code,
            "wild_rank": d.wild_rank,
            "finish_slot_filled": d.finish_slot is not None,
            "declarer": d.declarer,
            "shown": {str(k): [_codes(g) for g in v] for k, v in d.shown.items()},
        }
    )
    _add_private(state, seat, view)
    return view


def _fairness(state: GameState) -> FairnessView:
    """The shuffle's public side (docs/fairness.md): commitments, never a secret seed.

    ``commitment`` is the current (or last) deal's; ``next_commitment`` the next deal's,
    published before that deal is dealt. A deal's seed is revealed only in its result.
    """
    d = state.deal
    return {
        "deal_no": d.deal_no if d is not None else None,
        "commitment": fairness.commitment(d.server_seed) if d is not None and d.server_seed else None,
        "next_commitment": fairness.commitment(state.next_server_seed) if state.next_server_seed else None,
        "client_seeds": [
            {"seat": i, "seed": p.client_seed, "generated": p.client_seed_generated}
            for i, p in enumerate(state.players)
        ],
    }


def _add_private(state: GameState, seat: int | None, view: View) -> None:
    """What only ``seat`` sees of the running deal: its hand, arrangement and drawn card."""
    d = state.deal
    if d is None or seat is None or seat not in d.hands or state.phase not in (PLAYING, DECLARING):
        return
    view["hand"] = _codes(d.hands[seat])
    view["arrangement"] = [_codes(g) for g in d.arrangement_of(seat)]
    view["arranged"] = seat in d.arrangements
    if d.phase == dl.TURN and d.status.get(seat) == dl.PLAYING:
        # what dropping (or auto drop) costs this seat now: the page states it, never computes it
        view["drop_points"] = dl.drop_points(d, seat, state.rules)
    if d.phase == dl.TURN and d.turn == seat and d.drawn is not None:
        view["drawn_card"] = d.drawn.code
    if d.phase == dl.TURN and d.turn == seat and d.drawn is None and d.open_pile:
        top = d.open_pile[-1]
        view["can_pick_open"] = not is_joker(top, d.wild_rank) or (
            seat == d.order[0] and d.turns_taken[seat] == 0 and len(d.open_pile) == 1
        )


def views_for_all(state: GameState) -> dict[str, View]:
    """Every seat's view (keys ``"0"``, ``"1"``, ...) and the spectator's (``"spectator"``).

    Each equals ``view_for`` for that seat; the public part is built once and the
    views share it, so treat them as read-only (they are meant for encoding).
    """
    public = view_for(state, None)
    views: dict[str, View] = {}
    for seat, player in enumerate(state.players):
        view = public.copy()
        view["seat"] = seat
        view["legal"] = legal_actions(state, seat)
        view["auto_drop"] = player.auto_drop
        view["last_result"] = state.last_result  # with the seed, which the spectator's has not
        _add_private(state, seat, view)
        views[str(seat)] = view
    views["spectator"] = public
    return views
