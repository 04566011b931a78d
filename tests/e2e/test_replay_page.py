"""The replay page steps through a finished deal to the result sheet with every hand shown (Chromium)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.test_practice_and_names import in_thread, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _finished_deal_with(username: str) -> int:
    from game_engine.game import GameState
    from tables import services
    from tables.models import Deal, PoolGame
    from tests.tables.conftest import make_player, make_table

    me = User.objects.get(username=username)
    from wallet.services import grant

    grant(user=me, amount=100_000, idempotency_key="test-grant:replayer")
    table = make_table(seats=2)
    other = make_player("ravi")
    services.table_join(table_id=table.pk, user=other)
    services.table_join(table_id=table.pk, user=me)
    game = PoolGame.objects.get(table=table)
    users = {str(u.pk): u for u in (me, other)}
    state = GameState.from_dict(game.state)
    assert state.deal is not None
    on_turn = users[state.players[state.deal.turn].id]
    services.game_act(
        game_id=game.pk, user=on_turn, request_id="d", action={"type": "draw", "source": "closed"}
    )
    state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
    assert state.deal is not None
    card = state.deal.hands[state.deal.turn][0].code
    services.game_act(game_id=game.pk, user=on_turn, request_id="x", action={"type": "discard", "card": card})
    nxt = users[state.players[1 - state.deal.turn].id]
    services.game_act(game_id=game.pk, user=nxt, request_id="drop", action={"type": "drop"})
    deal_id = Deal.objects.get(game=game, number=1).pk
    from django.db import connection

    connection.close()  # this thread's connection, so the test database can be dropped
    return deal_id


def test_stepping_through_a_replay_to_the_result_sheet(live_server_url: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    sign_up(page, live_server_url, "replayer", "Replayer")
    deal_id = in_thread(lambda: _finished_deal_with("replayer"))
    page.goto(f"{live_server_url}/history/deals/{deal_id}/")
    hands = page.locator("#replay-hands .replay-hand")
    page.click("#replay-controls button[data-step=first]")
    shots = ARTIFACTS / "replay"
    shots.mkdir(parents=True, exist_ok=True)
    seen: list[str] = []
    for i in range(40):
        text = page.locator("#replay-now").inner_text()
        seen.append(text)
        if hands.count():
            counts = [hands.nth(k).locator(".mini-card").count() for k in range(hands.count())]
            assert all(c in (13, 14) for c in counts), counts
        page.locator("#replay-board").screenshot(path=str(shots / f"step-{i:02d}.png"))
        if text.startswith("Deal over"):
            break
        page.click("#replay-controls button[data-step=next]")
    assert seen[0].startswith("Deal 1 dealt") or "dealt" in " ".join(seen[:3])
    assert any("draws from the deck" in s for s in seen) and any("discards" in s for s in seen)
    assert seen[-1].startswith("Deal over")
    assert hands.count() == 2
    assert page.locator("#deal-result tr").count() >= 3  # the result sheet: header and both players
    page.locator("#deal-sheet").screenshot(path=str(shots / "result-sheet.png"))
