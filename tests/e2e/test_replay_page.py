"""The replay page steps through a finished deal to the result sheet with every hand shown (Chromium)."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from tests.e2e.conftest import ARTIFACTS
from tests.e2e.pages import in_thread, sign_up

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def _finished_deal_with(username: str) -> tuple[int, list[list[str]], int]:
    """Deal 1 of a two-player game: a draw and a discard, ``username`` groups their hand its own
    way (not by suit), then a drop ends it. Returns the deal id, that grouping and their seat."""
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
    state = GameState.from_dict(PoolGame.objects.get(pk=game.pk).state)
    assert state.deal is not None
    mine = next(i for i, p in enumerate(state.players) if p.id == str(me.pk))
    held = [c.code for c in state.deal.hands[mine]]
    groups = [held[0:4], held[4:7], held[7:10], held[10:]]
    answer = services.game_act(
        game_id=game.pk, user=me, request_id="arr", action={"type": "arrange", "groups": groups}
    )
    assert answer["ok"], answer
    services.game_act(game_id=game.pk, user=nxt, request_id="drop", action={"type": "drop"})
    deal_id = Deal.objects.get(game=game, number=1).pk
    from django.db import connection

    connection.close()  # this thread's connection, so the test database can be dropped
    return deal_id, groups, mine


def test_stepping_through_a_replay_to_the_result_sheet(live_server_url: str, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    sign_up(page, live_server_url, "replayer", "Replayer")
    deal_id, my_groups, my_seat = in_thread(lambda: _finished_deal_with("replayer"))
    page.goto(f"{live_server_url}/history/deals/{deal_id}/")
    page.wait_for_selector("#replay-timeline")
    hands = page.locator("#replay-hands .replay-hand")
    page.click("#replay-controls button[data-step=first]")
    shots = ARTIFACTS / "replay"
    shots.mkdir(parents=True, exist_ok=True)
    seen: list[str] = []
    for i in range(40):
        text = page.locator("#replay-now").inner_text()
        seen.append(text)
        if hands.count():
            counts = [hands.nth(k).locator(".card").count() for k in range(hands.count())]
            assert all(c in (13, 14) for c in counts), counts
        page.locator("#replay-board").screenshot(path=str(shots / f"step-{i:02d}.png"))
        if text.startswith("Deal over"):
            break
        page.click("#replay-controls button[data-step=next]")
    assert seen[0].startswith("Deal 1 dealt") or "dealt" in " ".join(seen[:3])
    assert any("draws from the deck" in s for s in seen) and any("discards" in s for s in seen)
    assert seen[-1].startswith("Deal over")
    assert hands.count() == 2
    steps = len(seen)

    # the timeline: drag it back to the start, then to a middle move
    timeline = page.locator("#replay-timeline")
    timeline.fill("0")
    assert page.inner_text("#replay-step").startswith("move 1 of")
    assert seen[0] in page.inner_text("#replay-now")
    timeline.fill("2")
    assert (
        page.inner_text("#replay-step").startswith("move 3 of") and page.inner_text("#replay-now") == seen[2]
    )
    page.screenshot(path=str(shots / "timeline.png"), full_page=True)

    # jump to turn 2: whose turn it is, and the label says so
    page.fill("#replay-turn-no", "2")
    page.click("#replay-jump button[type=submit]")
    assert "turn 2 of" in page.inner_text("#replay-step")
    assert page.inner_text("#replay-now").endswith("'s turn")
    assert page.locator("#replay-hands .replay-hand.on-turn").count() == 1
    page.screenshot(path=str(shots / "jump-to-turn-2.png"), full_page=True)

    # markers: the drop, and the end of the deal, each a step of the timeline
    drop = page.locator("#replay-marks .mark-drop")
    assert drop.count() == 1 and page.locator("#replay-marks .mark-over").count() == 1
    drop.click()
    assert " drops (" in page.inner_text("#replay-now")
    assert page.locator("#replay-result").count() == 0  # the result sheet comes with the end
    page.locator("#replay-marks .mark-over").click()
    assert page.inner_text("#replay-now").startswith("Deal over")
    assert page.locator("#replay-result tbody tr").count() == 2
    page.locator("#replay-app").screenshot(path=str(shots / "replay-result.png"))

    # the hands at the end, grouped as their players last arranged them
    mine = page.locator(f'#replay-hands .replay-hand[data-seat="{my_seat}"] .replay-group')
    shown = [
        mine.nth(k).locator(".card").evaluate_all("els => els.map(e => e.dataset.code)")
        for k in range(mine.count())
    ]
    assert shown == my_groups, (shown, my_groups)
    page.click("#replay-controls button[data-step=last]")
    total = page.locator("#deal-events li").count()
    assert page.inner_text("#replay-step").startswith(f"move {total} of {total}") and steps <= total

    assert page.locator("#deal-result tr").count() >= 3  # the result sheet: header and both players
    page.locator("#deal-sheet").screenshot(path=str(shots / "result-sheet.png"))
    page.click("#game-link")
    page.wait_for_selector("#game-deals")
    assert page.locator(f'#game-deals a[href="/history/deals/{deal_id}/"]').count() == 1
    page.screenshot(path=str(shots / "game-page.png"), full_page=True)
    assert errors == [], errors


def test_a_support_agent_steps_through_the_deal_as_the_table_saw_it(
    live_server_url: str, browser: Any
) -> None:
    """Staff who did not play see the public moves and the result sheet, no hand (docs/staff.md)."""
    from django.contrib.auth.models import Group

    from tests.e2e.watch import log_in

    page = browser.new_page(viewport={"width": 1200, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    sign_up(page, live_server_url, "replayer", "Replayer")
    deal_id, _, _ = in_thread(lambda: _finished_deal_with("replayer"))

    def support_agent() -> None:
        helper = User.objects.create_user("helper", password="helper-Pass-2026", is_staff=True)
        helper.groups.add(Group.objects.get(name="Support agent"))

    in_thread(support_agent)
    page.context.clear_cookies()
    log_in(page, live_server_url, "helper", "helper-Pass-2026")
    page.goto(f"{live_server_url}/history/deals/{deal_id}/")
    page.wait_for_selector("#replay-timeline")
    assert page.locator("#table-view-note").count() == 1 and page.locator("#face-up-link").count() == 0
    page.locator("#replay-marks .mark-over").click()
    assert page.inner_text("#replay-now").startswith("Deal over")
    assert page.locator("#replay-hands").count() == 0 and page.locator("#fair-deal").count() == 0
    assert page.locator("#deal-result tr").count() >= 3  # the result sheet the table saw
    page.screenshot(path=str(ARTIFACTS / "replay" / "table-view.png"), full_page=True)
    assert errors == [], errors
