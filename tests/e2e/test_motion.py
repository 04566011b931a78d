"""Motion at the table (issue 25): the deal, a draw, a discard, a show and the result sheet animate
for at most 300 ms each (delay included), and a browser that asks for reduced motion sees none.

A player deals a practice game and plays a turn, once with motion and once with
`prefers-reduced-motion: reduce`; every `animationstart` of the page is recorded from before its
first script runs. Attention pulses that repeat (the reconnect banner, the last seconds of a clock)
are not moves: they are counted apart, and they too stop under reduced motion."""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from tests.e2e.conftest import DESKTOP
from tests.e2e.pages import Player, make_user, play_practice_now

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

RECORD = """
window.__anims = [];
document.addEventListener("animationstart", (e) => {
  const cs = getComputedStyle(e.target);
  const secs = (list) => list.split(",").map((x) => parseFloat(x) * (x.trim().endsWith("ms") ? 0.001 : 1));
  const i = cs.animationName.split(",").map((x) => x.trim()).indexOf(e.animationName);
  const k = Math.max(0, i);
  window.__anims.push({
    name: e.animationName,
    seconds: secs(cs.animationDuration)[k] + secs(cs.animationDelay)[k],
    count: cs.animationIterationCount.split(",")[k].trim(),
    where: e.target.id || e.target.className || e.target.tagName,
  });
}, true);
"""


@pytest.fixture
def users(transactional_db: None) -> dict[str, User]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    return {name: make_user(name) for name in ("mover", "calm")}


def _deal_and_play_a_turn(
    browser: Any, base: str, user: User, device: dict[str, Any]
) -> list[dict[str, Any]]:
    player = Player(browser, base, user.username, device)
    try:
        player.context.add_init_script(RECORD)
        player.log_in(user)
        player.goto("/")
        play_practice_now(player.page, "101", 2)
        player.page.wait_for_selector("#groups .card")
        player.play_a_turn()
        player.page.wait_for_timeout(400)  # the discard's landing has ended
        player.assert_clean()
        return list(player.page.evaluate("window.__anims"))
    finally:
        player.close()


def test_moves_animate_briefly_and_not_at_all_under_reduced_motion(
    users: dict[str, User], live_server_url: str, browser: Any
) -> None:
    seen = _deal_and_play_a_turn(browser, live_server_url, users["mover"], DESKTOP)
    moves = [a for a in seen if a["count"] != "infinite"]
    names = {a["name"] for a in moves}
    assert {"deal-in", "draw-in", "land"} <= names, names  # the deal, the draw, the discard
    too_long = [a for a in moves if a["seconds"] > 0.3 + 1e-9]
    assert not too_long, too_long

    calm = _deal_and_play_a_turn(
        browser, live_server_url, users["calm"], {**DESKTOP, "reduced_motion": "reduce"}
    )
    assert calm == [], calm
