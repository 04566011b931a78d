"""The pool game (docs/rules.md §6 toss, §7 pool, §8 split, §9 points) and the apply interface."""

from __future__ import annotations

import json
from typing import Any

import pytest

from game_engine.actions import Draw, action_from_dict
from game_engine.bots import play_game
from game_engine.cards import toss_key
from game_engine.errors import IllegalActionError, PoolRuleError, RummyError, SplitRuleError
from game_engine.formats import make_rules
from game_engine.game import GameState, apply, new_game
from game_engine.scenario import scripted_game

R = make_rules("101", entry_fee=10_000, rake_bp=1_000)
H = [
    ["AS", "2S", "3S", "4H", "5H", "6H", "7D", "7C", "7S", "9C", "10C", "JC", "2D"],
    ["2H", "3H", "4H", "9D", "10D", "JD", "8S", "8D", "8H", "KS", "QH", "3C", "6C"],
    ["KH", "KD", "QS", "JH", "9S", "9H", "4D", "4C", "2C", "3D", "6S", "6D", "10H"],
]


def act(state: GameState, **kw: Any) -> tuple[GameState, list[dict[str, Any]]]:
    kw.setdefault("at", state.now)
    new, events = apply(state, kw)
    return new, [e.to_dict() for e in events]


def game3(scores: list[int], rules: Any = R) -> GameState:
    return scripted_game(rules, H, open_card="5C", cut="5D", scores=scores)


def test_rules_6_toss_orders_seats_highest_first_dealer_last() -> None:
    state = new_game(R, [(f"u{i}", f"U{i}") for i in range(5)], seed=11, at=0)
    assert state.phase == "dealing" and state.deadline is not None and state.deadline.kind == "next_deal"
    state, ev = act(state, type="start_deal")
    toss = next(e for e in ev if e["type"] == "toss")
    order = toss["order"]
    keys = [toss_key(state.toss[s]) for s in order]
    assert keys == sorted(keys, reverse=True) and len(set(state.toss.values())) == 5
    assert state.deal is not None and state.deal.order == order and state.deal.turn == order[0]
    assert toss["dealer"] == order[-1]


def test_rules_6_without_retoss_first_player_becomes_dealer() -> None:
    state = new_game(R, [("a", "A"), ("b", "B"), ("c", "C")], seed=5, at=0)
    state, _ = act(state, type="start_deal")
    first = list(state.order)
    for seat in first[:2]:
        state, _ = act(state, type="drop", seat=seat)
    assert state.phase == "between_deals"
    state, ev = act(state, type="start_deal")
    assert not any(e["type"] == "toss" for e in ev)
    assert state.order == first[1:] + first[:1]


def test_rules_7_elimination_rejoin_at_highest_plus_one_and_retoss() -> None:
    state = game3([95, 30, 10])
    state, _ = act(state, type="drop", seat=0)  # 115 → out
    state, ev = act(state, type="drop", seat=1)  # 50
    assert {"type": "eliminated", "seat": 0, "score": 115} in ev
    offer = next(e for e in ev if e["type"] == "rejoin_offer")
    assert offer["seats"] == [0] and offer["score"] == 51
    assert state.phase == "rejoin_window" and state.deadline is not None and state.deadline.kind == "rejoin"
    with pytest.raises(PoolRuleError):
        act(state, type="rejoin", seat=1)
    fees = state.fees_paid
    state, ev = act(state, type="rejoin", seat=0)
    assert state.players[0].score == 51 and not state.players[0].eliminated
    assert state.fees_paid == fees + R.entry_fee and state.players[0].rejoins == 1
    assert state.phase == "between_deals"
    state, ev = act(state, type="timeout", at=state.deadline.at_ms if state.deadline else 0)
    assert any(e["type"] == "toss" for e in ev)  # a player joined: re-toss


def test_rules_7_no_rejoin_above_threshold() -> None:
    state = game3([95, 78, 10])
    state, _ = act(state, type="drop", seat=0)
    state, ev = act(state, type="drop", seat=1)  # 98 > 79
    assert not any(e["type"] == "rejoin_offer" for e in ev)
    assert state.phase == "between_deals"


def test_rules_7_last_player_left_wins_the_prize_pool() -> None:
    state = scripted_game(R, H[:2], open_card="5C", cut="5D", scores=[95, 0])
    state, ev = act(state, type="drop", seat=0)
    over = ev[-1]
    assert over["type"] == "game_over" and state.phase == "finished"
    assert (
        over["payouts"] == {"p0": 0, "p1": 18_000} and over["rake"] == 2_000 and over["prize_pool"] == 18_000
    )
    assert sum(over["payouts"].values()) + over["rake"] == state.fees_paid
    assert state.deadline is None
    with pytest.raises(PoolRuleError):
        act(state, type="timeout")


def test_rules_8_manual_split_all_accept() -> None:
    state = game3([95, 50, 40])
    state, _ = act(state, type="drop", seat=0)
    state, _ = act(state, type="drop", seat=1)  # 70 → 1 drop; seat 2: 40 → 3 drops
    assert state.phase == "rejoin_window"
    state, ev = act(state, type="leave", seat=0)  # declines the rejoin
    offer = next(e for e in ev if e["type"] == "split_offer")
    assert offer["amounts"] == {"1": 3_500, "2": 23_500}
    assert state.phase == "split_offer" and state.deadline is not None and state.deadline.kind == "split"
    state, _ = act(state, type="split_accept", seat=2)
    with pytest.raises(SplitRuleError):
        act(state, type="split_accept", seat=2)
    state, ev = act(state, type="split_accept", seat=1)
    over = ev[-1]
    assert over["type"] == "game_over" and over["split"] == "manual"
    assert over["payouts"] == {"p0": 0, "p1": 3_500, "p2": 23_500}
    assert sum(over["payouts"].values()) + over["rake"] == 30_000


def test_rules_8_manual_split_declined_continues() -> None:
    state = game3([95, 50, 40])
    state, _ = act(state, type="drop", seat=0)
    state, _ = act(state, type="drop", seat=1)
    state, _ = act(state, type="timeout", at=state.deadline.at_ms if state.deadline else 0)
    assert state.phase == "split_offer"
    state, ev = act(state, type="split_decline", seat=1)
    assert state.phase == "between_deals" and state.split_offer is None
    with pytest.raises(SplitRuleError):
        act(state, type="split_accept", seat=2)


def test_rules_8_no_split_offer_at_a_free_table() -> None:
    free = make_rules("101", entry_fee=0, rake_bp=0)
    state = game3([95, 50, 40], free)
    state, _ = act(state, type="drop", seat=0)
    state, _ = act(state, type="drop", seat=1)
    state, ev = act(state, type="leave", seat=0)  # as in the paid game above, where a split is offered
    assert state.prize_pool == 0
    assert not any(e["type"] == "split_offer" for e in ev) and state.split_offer is None
    assert state.phase == "between_deals"


def test_rules_8_auto_split_on_high_fee_tables() -> None:
    rules = make_rules("101", entry_fee=300_000, rake_bp=1_000)
    state = game3([95, 75, 80], rules)
    state, _ = act(state, type="drop", seat=0)  # 115 out
    state, ev = act(state, type="drop", seat=1)  # 95 → 0 drops; seat 2 at 80 → 1 drop
    over = ev[-1]
    assert over["type"] == "game_over" and over["split"] == "auto"
    assert over["payouts"] == {"p0": 0, "p1": 255_000, "p2": 555_000}
    assert over["rake"] == 90_000


def test_rules_9_points_rummy_single_deal_payouts() -> None:
    rules = make_rules("points", point_value=100, rake_bp=1_000)
    state = scripted_game(rules, H, open_card="5C", cut="5D", closed_top=["QC"])
    state, _ = act(state, type="draw", seat=0, source="closed")
    groups = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "7C", "7S"], ["9C", "10C", "JC", "QC"]]
    state, _ = act(state, type="finish", seat=0, card="2D", groups=groups)
    state, _ = act(state, type="show", seat=1, groups=[H[1]])  # no pure: 29+... all counted
    state, ev = act(state, type="show", seat=2, groups=[H[2]])
    over = ev[-1]
    assert over["type"] == "game_over" and state.phase == "finished"
    p1 = min(sum(c for c in [2, 3, 4, 9, 10, 10, 8, 8, 8, 10, 10, 3, 6]), 80) // 2
    assert over["payouts"]["p1"] == 8_000 - p1 * 100
    assert over["payouts"]["p2"] == 8_000 - 40 * 100
    won = (p1 + 40) * 100
    assert over["rake"] == won // 10 and over["payouts"]["p0"] == 8_000 + won - won // 10
    assert sum(over["payouts"].values()) + over["rake"] == state.fees_paid


def test_rules_7_leaving_mid_deal_with_two_players_ends_the_game() -> None:
    state = scripted_game(R, H[:2], open_card="5C", cut="5D")
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, ev = act(state, type="leave", seat=1)
    assert ev[0] == {"type": "player_left", "seat": 1}
    assert ev[-1]["type"] == "game_over" and ev[-1]["winner"] == "p0"


def test_new_game_validates_players() -> None:
    with pytest.raises(PoolRuleError):
        new_game(R, [("a", "A")], None, 0)
    with pytest.raises(PoolRuleError):
        new_game(R, [(str(i), "x") for i in range(7)], None, 0)
    with pytest.raises(PoolRuleError):
        new_game(R, [("a", "A"), ("a", "B")], None, 0)
    assert isinstance(new_game(R, [("a", "A"), ("b", "B")], None, 0).seed, int)


def test_apply_is_pure_versions_and_round_trip() -> None:
    state = new_game(R, [("a", "A"), ("b", "B"), ("c", "C")], seed=9, at=0)
    before = state.to_dict()
    s1, _ = apply(state, {"type": "start_deal", "at": 0})
    assert state.to_dict() == before and s1.version == state.version + 1
    text = json.dumps(s1.to_dict())
    restored = GameState.from_dict(json.loads(text))
    assert restored.to_dict() == s1.to_dict()
    seat = s1.deal.turn if s1.deal else 0
    a, ea = apply(s1, {"type": "draw", "seat": seat, "source": "closed", "at": 5})
    b, eb = apply(restored, {"type": "draw", "seat": seat, "source": "closed", "at": 5})
    assert a.to_dict() == b.to_dict() and [e.to_dict() for e in ea] == [e.to_dict() for e in eb]


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "nope", "at": 0},
        {"type": "draw", "seat": 0, "source": "middle", "at": 0},
        {"type": "draw", "seat": True, "source": "closed", "at": 0},
        {"type": "draw", "source": "closed", "at": 0},
        {"type": "discard", "seat": 0, "card": "11X", "at": 0},
        {"type": "show", "seat": 0, "groups": "AS", "at": 0},
        {"type": "draw", "seat": 0, "source": "closed", "at": "soon"},
        {"type": "draw", "seat": 9, "source": "closed", "at": 0},
        ["draw"],
    ],
)
def test_bad_action_dicts_raise_typed_errors(bad: Any) -> None:
    state = apply(new_game(R, [("a", "A"), ("b", "B")], seed=1, at=0), {"type": "start_deal", "at": 0})[0]
    with pytest.raises(RummyError):
        apply(state, bad)


def test_action_wire_format_round_trip() -> None:
    d = {"type": "draw", "seat": 2, "source": "closed", "at": 1_700_000_000_000}
    a = action_from_dict(d)
    assert isinstance(a, Draw) and a.to_dict() == d
    f = {"type": "finish", "seat": 1, "card": "10H", "groups": [["AS", "2S", "3S"]], "at": 5}
    assert action_from_dict(f).to_dict() == f
    assert action_from_dict({"type": "forfeit", "seat": 1, "at": 0}).type == "leave"


def test_illegal_action_leaves_state_unchanged() -> None:
    state = game3([0, 0, 0])
    before = state.to_dict()
    with pytest.raises(IllegalActionError):
        apply(state, {"type": "discard", "seat": 0, "card": "AS", "at": 0})
    assert state.to_dict() == before


def _check_game(state: GameState, events: list[Any]) -> None:
    assert state.phase == "finished"
    overs = [e for e in events if e.type == "game_over"]
    assert len(overs) == 1
    over = overs[0].data
    assert sum(over["payouts"].values()) + over["rake"] == state.fees_paid
    assert all(v >= 0 for v in over["payouts"].values())
    if state.rules.is_points:
        return
    # Scores are conserved: final score = rejoin start (or 0) + every deal's points since.
    expected = [0] * len(state.players)
    for e in events:
        if e.type == "scores":
            for seat, pts in e.data["points"].items():
                expected[int(seat)] += pts
        elif e.type == "rejoined":
            expected[e.data["seat"]] = e.data["score"]
    assert expected == [p.score for p in state.players]
    winners = [p for p in state.players if not p.eliminated]
    if over["split"] is None:
        assert len(winners) == 1 and over["payouts"][winners[0].id] == over["prize_pool"]


@pytest.mark.parametrize("fmt", ["61", "101", "201", "points"])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_full_games_between_bots(fmt: str, n: int) -> None:
    state, events = play_game(make_rules(fmt), n, seed=1000 + n)
    _check_game(state, events)


@pytest.mark.parametrize("seed", range(6))
def test_full_games_random_bots(seed: int) -> None:
    rules = make_rules(["61", "101", "201"][seed % 3], turn_ms=2_000, extra_time_ms=3_000)
    state, events = play_game(rules, 2 + seed % 5, seed=seed, strategy="random")
    _check_game(state, events)


def test_high_fee_games_end_by_auto_split_or_winner() -> None:
    rules = make_rules("101", entry_fee=250_000)
    for seed in range(4):
        state, events = play_game(rules, 4, seed=seed)
        _check_game(state, events)
