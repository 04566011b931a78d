"""The table's pure modules, run in Chromium as the page runs them (issue 41): when the player's
own time left is said, and which table Drop & go offers. A page of the live server loads the
modules themselves; no game is needed."""

from __future__ import annotations

from typing import Any

import pytest
from django.templatetags.static import static

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: The seconds said as a turn of ``turn_s`` runs down from full to nothing, one tick a quarter second.
SAID_IN_A_TURN = """
async ([url, turnS]) => {
  const { crossedThreshold } = await import(url);
  const now = 1_000_000;
  const S = {
    view: { seat: 0, deal_no: 1, rules: { turn_ms: turnS * 1000 }, players: [{ extra_ms: 30000 }],
            deadline: { kind: "turn", seat: 0, at_ms: now + turnS * 1000 } },
    thresholds: { key: "", said: [] },
  };
  const said = [];
  for (let t = now; t < now + turnS * 1000; t += 250) {
    const secs = crossedThreshold(S, t);
    if (secs != null) said.push(secs);
  }
  return said;
}
"""

OFFERED = """
async ([url, rows]) => {
  const { nextTable } = await import(url);
  const row = nextTable(rows, 1);
  return row ? row.id : null;
}
"""


def _row(table_id: int, seats_taken: int, **extra: Any) -> dict[str, Any]:
    return {
        "id": table_id,
        "seats_taken": seats_taken,
        "seats": 4,
        "practice": False,
        "private": False,
        **extra,
    }


def test_time_left_is_said_only_when_it_runs_low_for_the_turn(live_server_url: str, browser: Any) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(live_server_url + "/")
        url = live_server_url + static("js/table/speech.js")
        # a 30-second turn is not "30 seconds left" as it starts: only 10 and 5
        assert page.evaluate(SAID_IN_A_TURN, [url, 30]) == [10, 5]
        assert page.evaluate(SAID_IN_A_TURN, [url, 90]) == [30, 10, 5]
        assert page.evaluate(SAID_IN_A_TURN, [url, 15]) == [5]
    finally:
        context.close()


def test_drop_and_go_offers_only_a_table_with_someone_seated(live_server_url: str, browser: Any) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(live_server_url + "/")
        url = live_server_url + static("js/table/nextseat.js")
        assert page.evaluate(OFFERED, [url, [_row(2, 0), _row(3, 0)]]) is None
        assert page.evaluate(OFFERED, [url, [_row(2, 0), _row(3, 1), _row(4, 4)]]) == 3
        assert (
            page.evaluate(OFFERED, [url, [_row(1, 2), _row(5, 1), _row(6, 3, practice=True), _row(7, 2)]])
            == 7
        )
    finally:
        context.close()


#: "While you were away" from the events a page caught up with; seat 0 is the player.
AWAY = """
async ([url, events]) => {
  const { awaySummary } = await import(url);
  return awaySummary(events, { isMe: (s) => s === 0, nameOf: (s) => (s === 0 ? "You" : "Ravi") });
}
"""


def test_while_you_were_away_tells_the_deals_that_ended(live_server_url: str, browser: Any) -> None:
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(live_server_url + "/")
        url = live_server_url + static("js/table/ticker.js")
        events = [
            {"type": "turn_missed", "seat": 0},
            {"type": "deal_over", "deal_no": 2, "winner": 1},
            {"type": "deal_over", "deal_no": 3, "winner": 0},
        ]
        lines = page.evaluate(AWAY, [url, events])
        assert lines == [
            "The timer played 1 turn for you (a missed turn discards the card drawn).",
            "Deal 2 ended: Ravi won it.",
            "Deal 3 ended: you won it.",
        ], lines
        assert page.evaluate(AWAY, [url, [{"type": "deal_over", "deal_no": 4, "winner": None}]]) == [
            "Deal 4 ended."
        ]
    finally:
        context.close()
