"""How many ``arrange`` actions and ``evaluate`` requests the real table page sends per turn.

Run with pytest (it reuses the browser tests' Daphne server and Chromium fixtures):

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/rummy_rates CI=true \\
        .venv/bin/python -m pytest bench/load/page_rates.py -q -s -p no:cacheprovider

Two players play real turns in headless Chromium, with clicks and drags only, and
rearrange their hands the way the browser tests' players do: at the first turn of a
deal they sort by suit; every turn, after drawing, they drag the card drawn next to a
card of its suit and one card of their first group to their last; every other turn they
also select two cards and press Group; then they select a card and press Discard. Those gestures per turn are the assumption;
what the page sends for them (debounced arranges, evaluations of every new grouping,
including the hand changed by a draw or a discard) is what is measured, from the
frames the page puts on its sockets and its HTTP requests. Prints one ``PAGE_RATES``
JSON line; bench/load/client.py plays at those rates (``--arranges-per-turn``,
``--evaluations-per-turn`` of bench/load/run.py).
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from django.db import connections

from tests.e2e.conftest import DESKTOP, browser, live_server_url  # noqa: F401 - fixtures
from tests.e2e.pages import CARD_SPOT, Player, game_of, make_user, wait_until
from tests.e2e.test_table_journeys import join_from_lobby, pool_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]
TURNS = int(os.environ.get("PAGE_RATES_TURNS", "12"))


def _suit(code: str) -> str:
    return code[-1]


def _play_turn(player: Player, first_of_deal: bool, turn_no: int) -> int:
    """One turn with typical rearranging; returns the gestures made (sort, drag, group)."""
    page = player.page
    gestures = 0
    if first_of_deal:
        page.click("#btn-sort-suit")
        gestures += 1
        page.wait_for_timeout(400)
    page.wait_for_selector("#closed-deck.can")
    before = len(player.hand())
    page.click("#closed-deck")
    wait_until(lambda: len(player.hand()) == before + 1, f"{player.name}'s drawn card")
    page.wait_for_selector("#groups .card.fresh")
    fresh = str(page.get_attribute("#groups .card.fresh", "data-code"))
    mate = next((c for g in player.hand_dom() for c in g if c != fresh and _suit(c) == _suit(fresh)), None)
    if mate is not None:
        player.drag(
            page.locator(f"#groups .card[data-code='{fresh}']").first,
            page.locator(f"#groups .card[data-code='{mate}']").first,
            to_end=True,
        )
        gestures += 1
    page.wait_for_timeout(500)  # past the page's 350 ms debounce, as a person pauses
    groups = player.hand_dom()
    if len(groups) > 1 and len(groups[0]) > 1:  # tidy up: the first group's first card to the last group
        player.drag(
            page.locator(f"#groups .card[data-code='{groups[0][0]}']").first,
            page.locator(f"#groups .card[data-code='{groups[-1][-1]}']").first,
            to_end=True,
        )
        gestures += 1
        page.wait_for_timeout(500)
    if turn_no % 2 == 1:
        cards = page.locator("#groups .card")
        cards.nth(0).click(position=CARD_SPOT)
        cards.nth(1).click(position=CARD_SPOT)
        page.click("#btn-group:not([disabled])")
        gestures += 1
        page.wait_for_timeout(500)
    last = player.hand_dom()[-1][-1]
    page.click(f"#groups .card[data-code='{last}']", position=CARD_SPOT)
    page.click("#btn-discard:not([disabled])")
    wait_until(lambda: len(player.hand()) == before, f"{player.name}'s discard")
    page.wait_for_timeout(400)
    return gestures


def test_page_rates(live_server_url: str, browser: Any) -> None:  # noqa: F811 - the fixtures
    table = pool_table("Rates 101", 2, turn_seconds=120)
    players = []
    for name, shown in (("asha", "Asha"), ("ravi", "Ravi")):
        user = make_user(name, shown)
        player = Player(browser, live_server_url, shown, DESKTOP)
        player.log_in(user)
        players.append(player)
    try:
        for player in players:
            join_from_lobby(player, table)
        for player in players:
            player.page.wait_for_selector("#groups .card")
            wait_until(lambda p=player: len(p.hand()) == 13, f"{player.name}'s hand")
            player.page.wait_for_timeout(600)
        marks = {p.name: (len(p.sent), len(p.requests)) for p in players}
        turns: dict[str, int] = {p.name: 0 for p in players}
        gestures: dict[str, int] = {p.name: 0 for p in players}
        deal_of: dict[str, int] = {}
        for _ in range(TURNS):
            player = wait_until(lambda: next((p for p in players if p.my_turn()), None), "someone's turn")
            deal_no = player.view()["deal_no"]  # type: ignore[index]
            first = deal_of.get(player.name) != deal_no
            deal_of[player.name] = deal_no
            gestures[player.name] += _play_turn(player, first, turns[player.name])
            turns[player.name] += 1
        for player in players:
            player.page.wait_for_timeout(800)
        rows = {}
        for player in players:
            sent = player.sent[marks[player.name][0] :]
            requests = player.requests[marks[player.name][1] :]
            actions = [m["action"]["type"] for m in sent if m.get("type") == "action"]
            rows[player.name] = {
                "turns": turns[player.name],
                "gestures": gestures[player.name],
                "arranges": actions.count("arrange"),
                "evaluations_socket": sum(1 for m in sent if m.get("type") == "evaluate"),
                "evaluations_http": sum(1 for r in requests if "/groups/evaluate/" in r),
                "other_actions": len(actions) - actions.count("arrange"),
            }
        total_turns = sum(r["turns"] for r in rows.values())
        total = {k: sum(r[k] for r in rows.values()) for k in next(iter(rows.values()))}
        result = {
            "turns": total_turns,
            "per_turn": {
                k: round(total[k] / total_turns, 2)
                for k in ("gestures", "arranges", "evaluations_socket", "evaluations_http", "other_actions")
            },
            "players": rows,
            "game_version": game_of(table).version,
        }
        print("PAGE_RATES " + json.dumps(result), flush=True)
        assert total_turns == TURNS
        for player in players:
            player.assert_clean()
    finally:
        for player in players:
            player.close()
        connections.close_all()
