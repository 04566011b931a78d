"""The seeded shuffle of the browser tests: a running game's deal 1 replaced by a stacked one.

Every player keeps their id, name and fees; the deal's start is logged as a real one is (the
hand history's replay shows the stacked deal), and the game's version, deadline and event count
move on as a change of the game's would. Seat 0 plays first.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from game_engine.game import GameState
from game_engine.scenario import scripted_game
from tables import clock
from tables.models import GameEvent, PoolGame, Table


def stack_game(
    game_id: int,
    hands: Sequence[Sequence[str]],
    *,
    open_card: str,
    cut: str,
    closed_top: Sequence[str] = (),
    scores: Sequence[int] | None = None,
) -> GameState:
    """Replace game ``game_id``'s running deal by deal 1 of ``hands``; returns the new state."""
    with transaction.atomic():
        game = PoolGame.objects.select_for_update().select_related("table__settings").get(pk=game_id)
        real = GameState.from_dict(game.state)
        state = scripted_game(
            game.table.settings.rules(),
            hands,
            open_card=open_card,
            cut=cut,
            closed_top=closed_top,
            scores=scores,
            at=clock.now_ms(),
            seed=game.seed or 1,
        )
        for mine, theirs in zip(state.players, real.players, strict=True):
            mine.id, mine.name, mine.fees_paid = theirs.id, theirs.name, theirs.fees_paid
        state.version = game.version + 1
        game.state = state.to_dict()
        game.version = state.version
        assert state.deadline is not None
        game.deadline_at = clock.from_ms(state.deadline.at_ms)
        game.deadline_kind = state.deadline.kind
        deal = state.deal
        assert deal is not None
        started = {
            "deal_no": 1,
            "order": list(deal.order),
            "dealer": deal.order[-1],
            "first": deal.order[0],
            "cut_joker": cut,
            "wild_rank": deal.wild_rank,
            "open_card": open_card,
            "closed_count": len(deal.closed),
        }
        GameEvent.objects.create(
            game=game,
            deal_number=1,
            version=state.version,
            seq=game.event_count,
            type="deal_started",
            data=started,
        )
        game.event_count += 1
        game.save()
    return state


#: The deal most browser tests stack: Asha (seat 0) and Ravi's hands, the open card, the cut joker
#: and the top of the closed deck.
ASHA_HAND = ["AS", "2S", "3S", "7S", "4H", "5H", "6H", "7D", "KD", "7C", "9C", "10C", "JC"]
RAVI_HAND = ["2H", "3D", "4C", "5S", "6D", "8H", "9S", "10D", "JH", "QD", "KC", "AC", "3C"]
OPEN_CARD, CUT, CLOSED_TOP = "KH", "8D", ["QC", "KS"]


def _game_of(table: Table) -> PoolGame:
    game = PoolGame.objects.filter(table=table).order_by("-id").first()
    assert game is not None, f"no game at {table}"
    return game


def state_of(table: Table) -> GameState:
    return GameState.from_dict(_game_of(table).state)


def stack_deal(table: Table) -> GameState:
    """Asha and Ravi's deal in place of the freshly dealt deal 1 of a two-seat table."""
    real = state_of(table)
    assert real.phase == "playing" and real.deal_no == 1
    return stack_hands(table, [ASHA_HAND, RAVI_HAND])


def stack_hands(table: Table, hands: list[list[str]]) -> GameState:
    """Deal 1 replaced by a stacked one of ``hands``, for any number of seats."""
    return stack_game(_game_of(table).pk, hands, open_card=OPEN_CARD, cut=CUT, closed_top=CLOSED_TOP)
