"""Reads for the staff pages: a pool game in words and amounts in rupees, its live hands, and a
player's fair-play sections. The dashboard's reads are ``staff.dashboard``; the money controls
``staff.money_controls``."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.text import slugify

from accounts import play
from core.money import format_money
from game_engine.game import GameState
from game_engine.pool import prize_pool
from integrity.selectors import player_sections
from staff.shapes import (
    CardFace,
    GamePage,
    GamePageDeal,
    GamePagePlayer,
    GamePageResult,
    IntegritySection,
    LiveDeal,
    LiveHands,
)
from tables.models import Deal, PoolGame, Seat

SUITS = {"S": ("♠", False), "H": ("♥", True), "D": ("♦", True), "C": ("♣", False)}
PHASE_WORDS = {
    "dealing": "about to deal",
    "playing": "a deal is being played",
    "declaring": "a player declared; the others are showing",
    "between_deals": "between deals",
    "rejoin_window": "eliminated players may rejoin",
    "split_offer": "a split of the prize pool is offered",
    "finished": "finished",
}


def integrity_sections(user: Any, *, viewer: Any) -> list[IntegritySection]:
    """The player page's integrity sections (``integrity.selectors.player_sections``): sign-up and
    recent log-in addresses and devices, and linked accounts, as tables of cells (``text``, and a
    ``link`` where there is one). Addresses and devices are personal data: only for a viewer
    with ``integrity.view_signals`` (the Game integrity role, docs/integrity.md)."""
    if viewer is None or not viewer.has_perm("integrity.view_signals"):
        return []
    return [
        {
            "id": slugify(section["title"]),
            "title": section["title"],
            "columns": ["", ""],
            "rows": [
                [{"text": row["label"]}, {"text": row["value"], "link": row.get("link")}]
                for row in section["rows"]
            ],
        }
        for section in player_sections(user)
    ]


def card(code: str) -> CardFace:
    """A card code as a picture's parts: rank, suit symbol, colour (``PJ``: the printed joker)."""
    if code == "PJ":
        return {"code": code, "rank": "★", "suit": "JKR", "red": False, "joker": True}
    rank, suit = code[:-1], code[-1]
    symbol, red = SUITS.get(suit, (suit, False))
    return {"code": code, "rank": rank, "suit": symbol, "red": red, "joker": False}


def cards(codes: list[str]) -> list[CardFace]:
    return [card(c) for c in codes]


def game_page(game: PoolGame) -> GamePage:
    """Everything the staff game page shows, with amounts already in rupees."""
    seats = list(game.seats.select_related("user").order_by("position"))
    by_user = {str(s.user_id): s for s in seats}
    state = GameState.from_dict(game.state) if game.state else None
    entry_fee = game.table.settings.entry_fee
    players: list[GamePagePlayer] = []
    live: LiveDeal | None = None
    if state is None:
        fees_paid = sum(1 for s in seats if s.left_at is None) * entry_fee
        pool_shown, rake_shown = "—", "—"
    else:
        pool, rake = prize_pool(state.fees_paid, state.rules)
        fees_paid = state.fees_paid
        pool_shown, rake_shown = format_money(pool), format_money(rake)
        players = [
            {
                "seat": i,
                "name": p.name,
                "user": by_user[p.id].user if p.id in by_user else None,
                "score": p.score,
                "drops_remaining": state.drops_remaining(i),
                "eliminated": p.eliminated,
                "left": p.left,
                "rejoins": p.rejoins,
                "fees_paid": format_money(p.fees_paid),
                "auto_drop": p.auto_drop,
                "blocked": play.block_reason(by_user[p.id].user) if p.id in by_user else None,
            }
            for i, p in enumerate(state.players)
        ]
        live = _live(state) if game.status == PoolGame.Status.RUNNING else None
    names = {str(i): p["name"] for i, p in enumerate(players)}
    deals = [_deal_row(d, names) for d in game.deals.order_by("number")]
    result = _result(game.result, by_user)
    if game.result and game.result.get("cancelled"):  # what the cancellation actually paid
        pool_shown = format_money(int(game.result.get("prize_pool") or 0))
        rake_shown = format_money(int(game.result.get("rake") or 0))
    return {
        "game": game,
        "state": state,
        "seats": seats,
        "entry_fee": format_money(entry_fee),
        "fees_paid": format_money(fees_paid),
        "prize_pool": pool_shown,
        "rake": rake_shown,
        "players": players,
        "live": live,
        "deals": deals,
        "result": result,
    }


def _live(state: GameState) -> LiveDeal:
    """What any staff member sees of a deal being played: what the players all see, no hand."""
    deal = state.deal
    live: LiveDeal = {
        "phase": PHASE_WORDS.get(state.phase, state.phase),
        "deal_no": state.deal_no,
        "deadline": state.deadline,
    }
    if deal is not None:
        live.update(
            {
                "turn": state.players[deal.turn].name,
                "has_drawn": deal.drawn is not None,
                "cut_joker": card(deal.cut_joker.code),
                "wild_rank": deal.wild_rank,
                "open_top": card(deal.open_pile[-1].code) if deal.open_pile else None,
                "closed_count": len(deal.closed),
                "hand_counts": [
                    {"name": state.players[seat].name, "cards": len(deal.hands.get(seat, []))}
                    for seat in deal.order
                ],
            }
        )
    return live


def live_hands(game: PoolGame) -> LiveHands | None:
    """Every hand and the closed deck in order of the deal being played, for the one role whose
    job needs them (``staff.view_live_hands``); the caller records the view. ``None``: no deal runs."""
    if game.status != PoolGame.Status.RUNNING or not game.state:
        return None
    state = GameState.from_dict(game.state)
    deal = state.deal
    if deal is None:
        return None
    return {
        **_live(state),
        "closed": [card(c.code) for c in reversed(deal.closed)],  # the next card drawn first
        "hands": [
            {
                "name": state.players[seat].name,
                "status": deal.status.get(seat, ""),
                "on_turn": seat == deal.turn,
                "cards": cards([c.code for c in deal.hands.get(seat, [])]),
            }
            for seat in deal.order
        ],
    }


def _deal_row(deal: Deal, names: dict[str, str]) -> GamePageDeal:
    result = deal.result or {}
    players = result.get("players", {})
    scores = result.get("scores", {})
    winner = result.get("winner")
    return {
        "number": deal.number,
        "finished": deal.finished_at,
        "winner": names.get(str(winner), "—") if winner is not None else "—",
        "rows": [
            {
                "name": names.get(seat, seat),
                "status": p.get("status", ""),
                "reason": p.get("reason") or "",
                "points": p.get("points", 0),
                "score": scores.get(seat, ""),
            }
            for seat, p in players.items()
        ],
        "replay": reverse("deal-detail", args=[deal.pk]) if deal.finished_at else None,
    }


def _result(result: dict[str, Any] | None, by_user: dict[str, Seat]) -> GamePageResult | None:
    if not result:
        return None

    def who(uid: str) -> str:
        seat = by_user.get(str(uid))
        return seat.user.table_name if seat else f"user {uid}"

    return {
        "cancelled": bool(result.get("cancelled")),
        "reason": result.get("reason", ""),
        "rule": result.get("rule", ""),
        "settlement": result.get("settlement")
        or result.get("split")
        or ("winner" if result.get("winner") else ""),
        "winner": who(result["winner"]) if result.get("winner") else None,
        "payouts": [
            (who(uid), format_money(int(a))) for uid, a in (result.get("payouts") or {}).items() if a
        ],
        "rake": format_money(int(result.get("rake") or 0)),
        "prize_pool": format_money(int(result.get("prize_pool") or 0)),
    }
