"""``verify_action`` through the real services (issue 12): over a whole practice game, for
every update each seat (and a spectator) receives, its events applied to what it knew before
give what a fresh snapshot gives it now, and no update holds another seat's cards."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from accounts.models import User
from game_engine.game import GameState
from tables import services
from tables.game import drivers, notify, selectors
from tables.models import PoolGame, Table
from tests.knowledge import SeatKnowledge
from tests.tables.conftest import FakeClock, make_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _nothing_known(players: int) -> dict[str, Any]:
    """A seat's knowledge before the game's first update: the seats and nothing dealt."""
    return {
        "phase": "dealing",
        "deal_no": 0,
        "players": [{"seat": s, "score": 0, "eliminated": False} for s in range(players)],
        "open_pile": [],
        "closed_count": 0,
        "turn": None,
        "hand": None,
    }


def test_every_update_each_seat_receives_gives_its_fresh_snapshot(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = make_table("101", fee=0, seats=4, practice=True, bot_wait_seconds=1, seed=4242)
    asha = make_player("asha")
    spectator = make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    game = PoolGame.objects.get(table=table)
    know: dict[str, SeatKnowledge] = {}
    users: dict[str, User] = {}
    updates = [0]

    def table_changed(
        *, table_id: int, game_id: int, version: int, events: list[dict[str, Any]], **kw: Any
    ) -> None:
        views = kw.get("views")
        if views is None:  # before the start an update is a whole snapshot (seats changed)
            return
        row = PoolGame.objects.get(pk=game_id)
        assert row.version == version
        state = GameState.from_dict(row.state)
        if not know:
            for seat in range(len(state.players)):
                know[str(seat)] = SeatKnowledge(seat, _nothing_known(len(state.players)))
                users[str(seat)] = User.objects.get(pk=int(state.players[seat].id))
            know["spectator"] = SeatKnowledge(-1, _nothing_known(len(state.players)))
            users["spectator"] = spectator
        tbl = Table.objects.get(pk=table_id)
        for key, k in know.items():
            sent = views[key]
            fresh = selectors.table_snapshot(table=tbl, user=users[key], game=row)["view"]
            assert sent == fresh, f"seat {key}: the update's view is not its snapshot at version {version}"
            if key == "spectator":
                assert sent["hand"] is None and sent["drawn_card"] is None and sent["arrangement"] is None
            elif sent["hand"] is not None:  # its own cards and nobody else's
                assert state.deal is not None
                assert Counter(sent["hand"]) == Counter(c.code for c in state.deal.hands[k.seat])
            k.apply(events, sent)
            k.compare(fresh)
        updates[0] += 1

    monkeypatch.setattr(notify, "table_changed", table_changed)
    monkeypatch.setattr(notify, "schedule_timeout", lambda **kw: None)
    monkeypatch.setattr(notify, "schedule_bot_move", lambda **kw: None)
    clock.advance(2)
    services.game_timeout(game_id=game.pk, version=game.version)
    final = drivers.play_out(game_id=game.pk, clock=clock)
    assert final.status == PoolGame.Status.FINISHED
    assert updates[0] > 30
