"""The table fits every screen: 1920×1080, 1366×650, 1280×800, 740×360 and 375×740.

Six players at a real table (long names, the hand as the engine first groups it).
The player on turn opens the table page at each size, with 13 cards, then again with
14 after drawing: every interactive control (the deck, the open pile, the finish slot,
each hand card, each action and tool button) lies inside the viewport, and is the
element hit at its own centre (``document.elementFromPoint``), so nothing covers it;
the page does not scroll. The site's top bar, where it is shown (always at 375×740),
has every link on screen and uncovered, and the prize pill's text is whole, not cut.
Screenshots of each size go to ``artifacts/e2e/``.
"""

from __future__ import annotations

import contextlib
import threading
from typing import Any

import pytest
from django.db import connections

from game_engine.game import GameState
from tables import services
from tables.models import PoolGame, Table, TableSettings
from tests.e2e.pages import NAV_CHECK, VIEWPORTS, Player, assert_nav_fits, game_of, make_user, wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

NAMES = ["Priyanka Venkatesh", "Abhimanyu Raghavan", "Sri Lakshmi N", "Zoravar Singh", "Meenakshi S", "Ravi"]

CHECK = """
() => {
  const sel = ['#closed-deck', '#open-pile', '#finish-slot', '#groups .card', '#actions button',
               '#actions label.toggle', '.hand-tools button', '.tbl-tools button'];
  // the layout viewport: on a phone window.innerWidth grows to fit a page that is too wide
  const W = document.documentElement.clientWidth, H = document.documentElement.clientHeight;
  const out = {count: 0, problems: [], scroll: [document.documentElement.scrollWidth - W,
                                                document.documentElement.scrollHeight - H]};
  for (const s of sel) {
    for (const el of document.querySelectorAll(s)) {
      const r = el.getBoundingClientRect();
      const name = s + (el.dataset.code ? '[' + el.dataset.code + ']' : '') + (el.id ? '#' + el.id : '');
      out.count += 1;
      if (r.width === 0 || r.height === 0) { out.problems.push(name + ' is not shown'); continue; }
      if (r.left < 0 || r.top < 0 || r.right > W + 0.5 || r.bottom > H + 0.5) {
        out.problems.push(name + ' is outside the viewport ' + JSON.stringify([r.left, r.top, r.right, r.bottom]));
        continue;
      }
      const x = r.left + r.width / 2, y = r.top + r.height / 2;
      const hit = document.elementFromPoint(x, y);
      if (!hit || !(hit === el || el.contains(hit))) {
        out.problems.push(name + ' is covered at its centre by ' + (hit ? hit.outerHTML.slice(0, 80) : 'nothing'));
      }
    }
  }
  // no seat box lies over a pile (the cut joker, the deck, the open pile, the finish slot)
  const piles = ['#cut-joker', '#closed-deck', '#open-pile', '#finish-slot'].map((s) => document.querySelector(s));
  for (const seat of document.querySelectorAll('#seats .seat')) {
    const a = seat.getBoundingClientRect();
    if (a.right > W + 0.5 || a.bottom > H + 0.5 || a.left < 0 || a.top < 0) out.problems.push('seat ' + seat.dataset.seat + ' runs off screen');
    for (const pile of piles) {
      const b = pile.getBoundingClientRect();
      if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) {
        out.problems.push('seat ' + seat.dataset.seat + ' overlaps ' + pile.id);
      }
    }
  }
  return out;
}
"""

#: The prize pill shows its whole text: not cut inside (scrollWidth), not clipped by the header around it.
PRIZE_CHECK = """
() => {
  const pill = document.querySelector('#prize-pool');
  if (!pill) return 'no prize pill';
  const r = pill.getBoundingClientRect();
  if (r.width === 0) return 'the prize pill is not shown';
  if (pill.scrollWidth > pill.clientWidth) return 'the prize pill is cut: ' + pill.scrollWidth + ' > ' + pill.clientWidth;
  if (r.left < 0 || r.right > document.documentElement.clientWidth) return 'the prize pill runs off screen';
  for (const x of [r.left + 2, r.right - 2]) {
    const hit = document.elementFromPoint(x, r.top + r.height / 2);
    if (!hit || !(hit === pill || pill.contains(hit))) return 'the prize pill is clipped at x=' + x + ' by ' + (hit ? hit.outerHTML.slice(0, 60) : 'nothing');
  }
  return '';
}
"""


def check_layout(player: Player, size: str, cards: int) -> None:
    page = player.page
    wait_until(lambda: len(player.hand()) == cards, f"{cards} cards at {size}")
    page.wait_for_selector("#actions #btn-drop")
    page.wait_for_timeout(700)  # the deal's animation
    result = page.evaluate(CHECK)
    player.shot(f"layout-{size}-{cards}")
    assert result["count"] >= cards + 8, result
    assert result["problems"] == [], f"{size} with {cards} cards: {result['problems']}"
    assert result["scroll"][0] <= 0 and result["scroll"][1] <= 0, f"{size} scrolls by {result['scroll']}"
    assert page.evaluate(PRIZE_CHECK) == "", f"{size} with {cards} cards"
    if size == "375x740" or page.evaluate(NAV_CHECK)["shown"]:  # sideways phones hide the site bar
        assert_nav_fits(page, f"the table at {size} with {cards} cards")


@pytest.mark.slow  # every viewport, every screen of a game
def test_every_control_is_on_screen_and_uncovered(live_server_url: str, browser: Any) -> None:
    settings = TableSettings.objects.create(
        name="Six seats 101",
        format="101",
        entry_fee=1_000,
        seats=6,
        turn_seconds=300,
        extra_time_seconds=60,
        declare_seconds=60,
        pause_seconds=60,
    )
    table = Table.objects.create(settings=settings, name="Six seats, long names")
    users = [make_user(f"p{i}", name) for i, name in enumerate(NAMES)]

    def join_all() -> None:  # off Playwright's event loop: joining notifies the server's sockets
        for user in users:
            services.table_join(table_id=table.pk, user=user)
        connections.close_all()

    joiner = threading.Thread(target=join_all)
    joiner.start()
    joiner.join()
    assert game_of(table).status == PoolGame.Status.RUNNING
    state = GameState.from_dict(game_of(table).state)
    assert state.deal is not None
    on_turn = next(u for u in users if u.pk == int(state.players[state.deal.turn].id))
    players: list[Player] = []
    try:
        for cards in (13, 14):
            for size, device in VIEWPORTS.items():
                player = Player(browser, live_server_url, f"{on_turn.username}@{size}", device)
                players.append(player)
                player.log_in(on_turn)
                player.goto(f"/tables/{table.pk}/")
                player.page.wait_for_selector("#groups .card")
                if cards == 14 and len(player.hand()) == 13:
                    player.page.click("#closed-deck")
                    wait_until(lambda p=player: len(p.hand()) == 14, "the drawn card")  # type: ignore[misc]
                if cards == 14:
                    player.page.click("#groups .group:first-child .card:first-child")
                check_layout(player, size, cards)
                player.assert_clean()
                player.close()
    finally:
        for p in players:
            with contextlib.suppress(Exception):  # already closed
                p.close()
        connections.close_all()
