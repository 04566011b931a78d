"""Corners of the rules found by the audit of issue 12; each test names the rule of docs/rules.md it pins."""

from __future__ import annotations

from typing import Any

import pytest

from game_engine.errors import IllegalActionError, PoolRuleError
from game_engine.formats import make_rules
from game_engine.game import GameState, apply
from game_engine.scenario import scripted_game

R = make_rules("101", entry_fee=10_000, rake_bp=1_000, turn_ms=1_000, extra_time_ms=5_000, declare_ms=10_000)
#: Auto split applies above 200000 paise (docs/rules.md §8.2).
HIGH = R.replace(entry_fee=300_000)

H = [
    ["AS", "2S", "3S", "4H", "5H", "6H", "7D", "7C", "7S", "9C", "10C", "JC", "2D"],  # + QC: valid
    ["2H", "3H", "4H", "9D", "10D", "JD", "8S", "8D", "8H", "KS", "QH", "3C", "6C"],
    ["KH", "KD", "QS", "JH", "9S", "9H", "4D", "4C", "2C", "3D", "6S", "6D", "10H"],
    ["AH", "2C", "3C", "4S", "5S", "6S", "7H", "8C", "9H", "10S", "JS", "QD", "KC"],
]
WIN0 = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "7C", "7S"], ["9C", "10C", "JC", "QC"]]


def act(state: GameState, **kw: Any) -> tuple[GameState, list[dict[str, Any]]]:
    kw.setdefault("at", state.now)
    new, events = apply(state, kw)
    return new, [e.to_dict() for e in events]


def timeout(state: GameState) -> tuple[GameState, list[dict[str, Any]]]:
    assert state.deadline is not None
    return act(state, type="timeout", at=max(state.now, state.deadline.at_ms))


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


# ---------------------------------------------------------------------- §7.6 the rejoin window
def test_rules_7_6_rejoin_window_belongs_to_the_deal_that_eliminated_the_player() -> None:
    state = scripted_game(R, H, open_card="5C", cut="5D", scores=[95, 55, 10, 10])
    for seat in (0, 1, 2):  # seat 0: 115, out; seat 1: 75; seat 2: 30; seat 3 wins the deal
        state, ev = act(state, type="drop", seat=seat)
    offer = next(e for e in ev if e["type"] == "rejoin_offer")
    assert offer["seats"] == [0]
    state, _ = timeout(state)  # seat 0 lets the window pass: out for good
    assert state.phase == "between_deals"
    state, _ = timeout(state)  # deal 2: order [1, 2, 3]
    assert state.deal is not None and state.deal.order[0] == 1
    # seat 1 makes a wrong show: 75 + 80, out in deal 2
    state, _ = act(state, type="draw", seat=1, source="closed")
    hand = [c.code for c in state.deal.hands[1]]
    state, _ = act(state, type="finish", seat=1, card=hand[0], groups=[hand[1:]])
    while state.phase == "playing":
        assert state.deal is not None
        state, ev2 = act(state, type="drop", seat=state.deal.turn)
        ev += ev2
    assert state.players[1].eliminated
    assert state.phase == "rejoin_window" and state.rejoin_offer is not None
    assert state.rejoin_offer["seats"] == [1]  # not seat 0, whose window closed with deal 2's start
    with pytest.raises(PoolRuleError):
        act(state, type="rejoin", seat=0)


# ---------------------------------------------------------------------- §6.9 extra time
def test_rules_6_9_extra_time_is_charged_once_when_the_turn_timer_lands_late() -> None:
    state = scripted_game(R, H[:2], open_card="5C", cut="5D")
    # Seat 0 draws 2 s into its extra time, before the server applied its turn timer.
    state, _ = act(state, type="draw", seat=0, source="closed", at=3_000)
    assert state.deal is not None and state.deal.extra_ms[0] == 3_000
    # The timer armed for the old version re-arms at the current deadline and is applied.
    if state.deadline is not None and state.deadline.at_ms <= 3_100:
        state, _ = act(state, type="timeout", at=3_100)
    state, _ = act(state, type="discard", seat=0, card="2D", at=3_500)
    # 2.5 s used beyond the turn time: the bank is charged 2.5 s, not 2 s + 2.5 s.
    assert state.deal.extra_ms[0] == 2_500


def test_rules_6_9_extra_deadline_after_a_late_action_counts_from_what_was_charged() -> None:
    state = scripted_game(R, H[:2], open_card="5C", cut="5D")
    state, _ = act(state, type="draw", seat=0, source="closed", at=3_000)
    # 3 s of bank left, charged up to 3 s: the turn ends at 6 s, not at the turn deadline of 1 s.
    assert state.deadline is not None and (state.deadline.kind, state.deadline.at_ms) == ("extra", 6_000)
    with pytest.raises(IllegalActionError):
        act(state, type="timeout", at=3_100)


# ---------------------------------------------------------------------- §7.9 leaving while another declares
def _finishing(n: int = 4) -> GameState:
    state = scripted_game(R, H[:n], open_card="5C", cut="5D", closed_top=["QC"])
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="finish", seat=0, card="2D")  # no groups yet: the finish window runs
    assert state.phase == "declaring" and state.deal is not None and state.deal.phase == "finishing"
    return state


def test_rules_7_9_leaving_during_anothers_finish_window_takes_the_player_out_of_the_deal() -> None:
    state = _finishing()
    state, ev = act(state, type="leave", seat=1)
    assert state.deal is not None and state.deal.status[1] == "dropped"
    assert {"type": "drop", "seat": 1, "points": R.first_drop, "reason": "left"} in ev
    # a wrong show: the turn passes to seat 2, never to the departed seat 1
    bad = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "7C", "7S"], ["9C", "10C"], ["JC", "QC"]]
    state, ev = act(state, type="show", seat=0, groups=bad)
    assert state.deal is not None and state.deal.turn == 2
    assert not any(e["type"] == "turn" and e["seat"] == 1 for e in ev)


def test_rules_7_9_leaving_during_the_finish_window_of_a_two_player_deal_ends_it() -> None:
    state = scripted_game(R, H[:2], open_card="5C", cut="5D", closed_top=["QC"])
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="finish", seat=0, card="2D")
    state, ev = act(state, type="leave", seat=1)
    assert state.phase == "finished" and ev[-1]["type"] == "game_over" and ev[-1]["winner"] == "p0"


def test_rules_7_9_leaving_in_every_phase_of_a_deal() -> None:
    # on turn's waiting side, in the finish window, and in the losers' shows
    state = scripted_game(R, H[:3], open_card="5C", cut="5D")
    state, _ = act(state, type="leave", seat=2)
    assert state.deal is not None and state.deal.status[2] == "dropped"
    state = _finishing()
    state, _ = act(state, type="show", seat=0, groups=WIN0)
    assert state.deal is not None and state.deal.phase == "showing"
    state, _ = act(state, type="leave", seat=2)
    assert state.deal is not None and state.deal.status[2] == "shown"


# ---------------------------------------------------------------------- §4.5 failing to declare
def test_rules_4_5_a_declarer_who_never_declares_in_time_makes_a_wrong_show() -> None:
    state = _finishing()
    # the hand at the table is arranged into a valid declaration, but never shown
    state, _ = act(state, type="arrange", seat=0, groups=WIN0)
    state, ev = timeout(state)
    decl = next(e for e in ev if e["type"] == "declaration")
    assert decl["valid"] is False and decl["points"] == R.wrong_show and decl["reason"] == "no_show"
    assert state.deal is not None and state.deal.status[0] == "wrong_show"
    assert state.deal.points[0] == 80 and state.deal.winner is None


def test_rules_4_5_a_declarer_who_leaves_before_showing_makes_a_wrong_show() -> None:
    state = _finishing()
    state, _ = act(state, type="arrange", seat=0, groups=WIN0)
    state, ev = act(state, type="leave", seat=0)
    decl = next(e for e in ev if e["type"] == "declaration")
    assert decl["valid"] is False and decl["reason"] == "left"
    assert state.deal is not None and state.deal.turn == 1


# ---------------------------------------------------------------------- §7.7 the offer is fixed
@pytest.mark.parametrize("first", [0, 1])
def test_rules_7_7_every_seat_offered_in_one_window_may_rejoin_whatever_the_click_order(first: int) -> None:
    # seats 0 and 1 go out in the same deal; the highest live score is then 79 (the threshold)
    state = scripted_game(R, H, open_card="5C", cut="5D", scores=[95, 90, 79, 10], order=[0, 1, 3, 2])
    for seat in (0, 1, 3):
        state, ev = act(state, type="drop", seat=seat)
    offer = next(e for e in ev if e["type"] == "rejoin_offer")
    assert offer["seats"] == [0, 1] and offer["score"] == 80
    state, _ = act(state, type="rejoin", seat=first)  # the highest live score is now 80 > 79
    state, ev = act(state, type="rejoin", seat=1 - first)  # still allowed: the offer was fixed
    assert [state.players[s].score for s in (0, 1)] == [80, 80]
    assert state.phase == "between_deals" and not any(p.eliminated for p in state.players)


# ---------------------------------------------------------------------- §7.8 rejoin before auto split
def _auto_split_and_rejoin_both_possible() -> tuple[GameState, list[dict[str, Any]]]:
    state = scripted_game(HIGH, H[:3], open_card="5C", cut="5D", scores=[95, 45, 70])
    state, _ = act(state, type="drop", seat=0)  # 115: out
    return act(state, type="drop", seat=1)  # 65 and 70 left: 1 drop each (auto split due); 70 ≤ 79


def test_rules_7_8_rejoin_window_comes_before_the_auto_split() -> None:
    state, ev = _auto_split_and_rejoin_both_possible()
    assert "game_over" not in kinds(ev) and state.phase == "rejoin_window"
    state, ev = act(state, type="rejoin", seat=0)  # 3 live, none at 0 drops: no auto split
    assert state.phase == "between_deals" and "game_over" not in kinds(ev)


def test_rules_7_8_auto_split_is_checked_when_the_rejoin_window_closes() -> None:
    state, _ = _auto_split_and_rejoin_both_possible()
    state, ev = timeout(state)
    assert ev[-1]["type"] == "game_over" and ev[-1]["split"] == "auto"
