"""Scripted deals for docs/rules.md §4-6 (each test names its section)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from game_engine.cards import build_packs, parse_card, parse_cards
from game_engine.errors import IllegalActionError, InvalidArrangementError, NotYourTurnError, RummyError
from game_engine.formats import make_rules
from game_engine.game import GameState, apply, new_game
from game_engine.scenario import scripted_game
from game_engine.views import views_for_all

R101 = make_rules("101", turn_ms=1_000, extra_time_ms=5_000, declare_ms=10_000)

WIN0 = [
    "AS",
    "2S",
    "3S",
    "4H",
    "5H",
    "6H",
    "7D",
    "7C",
    "7S",
    "9C",
    "10C",
    "JC",
    "2D",
]  # + QC → valid after finishing 2D
LOSE1 = [
    "2H",
    "3H",
    "4H",
    "9D",
    "10D",
    "JD",
    "8S",
    "8D",
    "8H",
    "KS",
    "QH",
    "3C",
    "6C",
]  # 29 points with its groups
LOSE2 = [
    "KH",
    "KD",
    "QS",
    "JH",
    "9S",
    "9H",
    "4D",
    "4C",
    "2C",
    "3D",
    "6S",
    "6D",
    "10H",
]  # no sequence: 93 → cap 80
GROUPS0 = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "7C", "7S"], ["9C", "10C", "JC", "QC"]]
GROUPS1 = [["2H", "3H", "4H"], ["9D", "10D", "JD"], ["8S", "8D", "8H"], ["KS", "QH", "3C", "6C"]]


def act(state: GameState, **kw: Any) -> tuple[GameState, list[dict[str, Any]]]:
    kw.setdefault("at", state.now)
    new, events = apply(state, kw)
    return new, [e.to_dict() for e in events]


def three(**kw: Any) -> GameState:
    kw.setdefault("open_card", "5C")
    kw.setdefault("cut", "5D")
    kw.setdefault("closed_top", ["QC", "KC", "JS", "10S", "9H"])
    return scripted_game(R101, [WIN0, LOSE1, LOSE2], **kw)


def all_cards(state: GameState) -> Counter[Any]:
    assert state.deal is not None
    return Counter(state.deal.all_cards())


# ---------------------------------------------------------------- §6 dealing
def test_rules_6_deal_13_each_cut_joker_open_card_closed_deck() -> None:
    state = new_game(R101, [("a", "A"), ("b", "B"), ("c", "C")], seed=7, at=0)
    state, ev = act(state, type="start_deal")
    d = state.deal
    assert d is not None
    assert all(len(h) == 13 for h in d.hands.values())
    assert len(d.open_pile) == 1 and len(d.closed) == 106 - 39 - 2
    assert Counter(d.all_cards()) == Counter(build_packs(2))
    started = next(e for e in ev if e["type"] == "deal_started")
    assert started["cut_joker"] == d.cut_joker.code and started["dealer"] == d.order[-1]
    assert state.phase == "playing" and state.deadline is not None and state.deadline.kind == "turn"


def test_rules_2_printed_joker_cut_makes_aces_wild() -> None:
    state = scripted_game(R101, [WIN0, LOSE1], open_card="5C", cut="PJ")
    assert state.deal is not None and state.deal.wild_rank == 1


def test_rules_6_deal_is_deterministic_given_the_seed() -> None:
    a = apply(new_game(R101, [("a", "A"), ("b", "B")], seed=3, at=0), {"type": "start_deal", "at": 0})[0]
    b = apply(new_game(R101, [("a", "A"), ("b", "B")], seed=3, at=0), {"type": "start_deal", "at": 0})[0]
    assert a.to_dict() == b.to_dict()


# ---------------------------------------------------------------- §6 turns
def test_rules_6_draw_then_discard_passes_the_turn() -> None:
    state = three()
    state, ev = act(state, type="draw", seat=0, source="closed")
    assert ev[0] == {"type": "draw", "seat": 0, "source": "closed"}  # the card is not named
    with pytest.raises(IllegalActionError):
        act(state, type="draw", seat=0, source="closed")
    state, ev = act(state, type="discard", seat=0, card="QC")
    assert {"type": "discard", "seat": 0, "card": "QC", "auto": False} in ev
    assert state.deal is not None and state.deal.turn == 1
    state, ev = act(state, type="draw", seat=1, source="open")
    assert ev[0]["card"] == "QC"


def test_rules_6_not_your_turn_and_discard_needs_a_draw() -> None:
    state = three()
    with pytest.raises(NotYourTurnError):
        act(state, type="draw", seat=1, source="closed")
    with pytest.raises(IllegalActionError, match="draw a card"):
        act(state, type="discard", seat=0, card="2D")
    state, _ = act(state, type="draw", seat=0, source="closed")
    with pytest.raises(IllegalActionError, match="not in your hand"):
        act(state, type="discard", seat=0, card="KH")


def test_rules_6_joker_on_open_pile_cannot_be_picked() -> None:
    state = three(open_card="5S")  # wild 5 (cut 5D)
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="discard", seat=0, card="QC")
    state, _ = act(state, type="draw", seat=1, source="closed")
    # give seat 1 a wild 5H to discard (test setup keeps every card in one place)
    d = state.deal
    assert d is not None
    d.hands[1].append(parse_card("5H"))  # hand a wild to seat 1 (test setup)
    d.hands[1].remove(parse_card("KS"))
    d.closed.append(parse_card("KS"))
    state, _ = act(state, type="discard", seat=1, card="5H")
    with pytest.raises(IllegalActionError, match="joker on the open pile") as exc:
        act(state, type="draw", seat=2, source="open")
    assert exc.value.rule == "docs/rules.md §6.5"


def test_rules_6_first_open_joker_may_be_picked_by_first_player_on_first_move() -> None:
    state = three(open_card="PJ")
    with pytest.raises(IllegalActionError):
        act(state, type="draw", seat=1, source="open")  # not their turn either
    ok, ev = act(state, type="draw", seat=0, source="open")
    assert ev[0]["card"] == "PJ"
    # ...but not by the next player if the first player leaves it there.
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="discard", seat=0, card="QC")
    d = state.deal
    assert d is not None
    d.open_pile.pop()  # make the first open card the top again (test setup)
    d.closed.insert(0, parse_card("QC"))
    with pytest.raises(IllegalActionError, match="joker"):
        act(state, type="draw", seat=1, source="open")


def test_rules_6_closed_deck_runs_out_open_pile_reshuffled() -> None:
    state = three()
    d = state.deal
    assert d is not None
    d.open_pile = d.closed[:-1] + d.open_pile
    d.closed = d.closed[-1:]
    before = all_cards(state)
    top = d.open_pile[-1]
    n_open = len(d.open_pile)
    state, ev = act(state, type="draw", seat=0, source="closed")
    assert any(e["type"] == "reshuffle" for e in ev)
    d2 = state.deal
    assert d2 is not None
    assert d2.open_pile == [top] and len(d2.closed) == n_open - 1
    assert all_cards(state) == before


# ---------------------------------------------------------------- §6 drops
def test_rules_6_drop_first_turn_scores_first_drop() -> None:
    state = three()
    state, ev = act(state, type="drop", seat=0)
    assert {"type": "drop", "seat": 0, "points": 20, "reason": "drop"} in ev
    assert state.deal is not None and state.deal.turn == 1


def test_rules_6_drop_later_scores_middle_drop_and_only_before_drawing() -> None:
    state = three()
    for seat, card in ((0, "QC"), (1, "KC"), (2, "JS")):
        state, _ = act(state, type="draw", seat=seat, source="closed")
        state, _ = act(state, type="discard", seat=seat, card=card)
    state, _ = act(state, type="draw", seat=0, source="closed")
    with pytest.raises(IllegalActionError, match="before drawing"):
        act(state, type="drop", seat=0)
    state, _ = act(state, type="discard", seat=0, card="10S")
    state, ev = act(state, type="drop", seat=1)
    assert {"type": "drop", "seat": 1, "points": 40, "reason": "drop"} in ev


def test_rules_6_last_player_standing_wins_with_zero() -> None:
    state = three()
    state, _ = act(state, type="drop", seat=0)
    state, ev = act(state, type="drop", seat=1)
    over = next(e for e in ev if e["type"] == "deal_over")
    assert over["winner"] == 2 and over["players"]["2"]["points"] == 0
    assert [p.score for p in state.players] == [20, 20, 0]
    assert state.phase == "between_deals" and state.deadline is not None
    assert state.deadline.kind == "next_deal"


def test_rules_6_auto_drop_at_next_turn_and_first_turn_of_following_deals() -> None:
    state = three()
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="discard", seat=0, card="QC")
    state, _ = act(state, type="draw", seat=1, source="closed")
    state, ev = act(state, type="auto_drop", seat=2, on=True)
    assert ev == []  # private: no event
    state, _ = act(state, type="discard", seat=1, card="KC")
    # seat 2's first turn: dropped with the first drop
    assert state.deal is not None and state.deal.status[2] == "dropped" and state.deal.points[2] == 20
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="discard", seat=0, card="JS")
    state, _ = act(state, type="auto_drop", seat=1, on=True)  # later turn → middle drop
    assert state.deal is not None and state.deal.status[1] == "dropped" and state.deal.points[1] == 40
    assert state.phase == "between_deals" and state.players[2].auto_drop
    state, ev = act(state, type="timeout", at=state.deadline.at_ms if state.deadline else 0)
    d = state.deal
    assert d is not None and d.deal_no == 2
    assert d.status[1] == "dropped" and d.points[1] == 20 and d.status[2] == "dropped"
    state, _ = act(state, type="im_back", seat=1)
    assert not state.players[1].auto_drop


# ---------------------------------------------------------------- §6 timers
def test_rules_6_timeout_before_deadline_is_an_error() -> None:
    state = three()
    with pytest.raises(IllegalActionError, match="early"):
        act(state, type="timeout", at=999)


def test_rules_6_extra_time_bank_consumed_by_time_used() -> None:
    state = three()
    state, ev = act(state, type="timeout", at=1_000)
    assert ev[0]["type"] == "extra_time"
    assert state.deadline is not None and state.deadline.kind == "extra" and state.deadline.at_ms == 6_000
    state, _ = act(state, type="draw", seat=0, source="closed", at=3_000)
    assert state.deadline is not None and state.deadline.at_ms == 6_000
    state, _ = act(state, type="discard", seat=0, card="QC", at=3_500)
    assert state.deal is not None and state.deal.extra_ms[0] == 2_500
    assert state.deadline is not None and state.deadline.kind == "turn" and state.deadline.seat == 1


def test_rules_6_missed_turn_discards_the_drawn_card_and_passes() -> None:
    state = three()
    state, _ = act(state, type="draw", seat=0, source="closed", at=10)
    state, _ = act(state, type="timeout", at=1_000)
    state, ev = act(state, type="timeout", at=6_000)
    assert {"type": "discard", "seat": 0, "card": "QC", "auto": True} in ev
    assert state.deal is not None and len(state.deal.hands[0]) == 13 and state.deal.turn == 1
    assert state.deal.extra_ms[0] == 0


def test_rules_6_three_missed_turns_drop_with_middle_drop() -> None:
    rules = make_rules("101", turn_ms=1_000, extra_time_ms=0)
    state = scripted_game(rules, [WIN0, LOSE1], open_card="5C", cut="5D")
    t = 0
    ev: list[dict[str, Any]] = []
    for _ in range(5):
        t += 1_000
        state, ev = act(state, type="timeout", at=t)
    assert {"type": "drop", "seat": 0, "points": 40, "reason": "missed_turns"} in ev
    over = next(e for e in ev if e["type"] == "deal_over")
    assert over["winner"] == 1


# ---------------------------------------------------------------- §4 declaration, §5 scoring
def test_rules_4_valid_show_wins_and_rules_5_losers_scored_with_deal_show() -> None:
    state = three()
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, ev = act(state, type="finish", seat=0, card="2D", groups=GROUPS0)
    decl = next(e for e in ev if e["type"] == "declaration")
    assert decl["valid"] is True and decl["points"] == 0
    assert state.phase == "declaring" and state.deadline is not None and state.deadline.kind == "declare"
    state, ev = act(state, type="show", seat=1, groups=GROUPS1)
    assert ev[0]["points"] == 14 and ev[0]["deal_show"] is True  # 29 halved, rounded down
    state, ev = act(state, type="show", seat=2, groups=[LOSE2])
    assert ev[0]["points"] == 40  # capped at 80, halved
    over = next(e for e in ev if e["type"] == "deal_over")
    assert over["winner"] == 0 and over["players"]["0"]["groups"] == GROUPS0
    assert [p.score for p in state.players] == [0, 14, 40]


def test_rules_5_loser_who_had_a_turn_pays_full_count_capped() -> None:
    state = three(order=[1, 2, 0])
    # seat 1 plays first, then 2, then 0 declares: 1 and 2 have had a turn.
    state, _ = act(state, type="draw", seat=1, source="closed")
    state, _ = act(state, type="discard", seat=1, card="QC")
    state, _ = act(state, type="draw", seat=2, source="closed")
    state, _ = act(state, type="discard", seat=2, card="KC")
    d = state.deal
    assert d is not None
    d.closed.append(parse_card("QC"))
    d.open_pile.remove(parse_card("QC"))
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="finish", seat=0, card="2D", groups=GROUPS0)
    state, ev = act(state, type="show", seat=1, groups=GROUPS1)
    assert ev[0]["points"] == 29 and ev[0]["deal_show"] is False
    hand2 = [c.code for c in state.deal.hands[2]] if state.deal else []
    state, ev = act(state, type="show", seat=2, groups=[hand2])
    assert ev[0]["points"] == 80


def test_rules_5_deal_show_minimum_two_and_zero_stays_zero() -> None:
    # seat 1 holds 3 loose points (a 0-point hand but for 3C): half is 1 → minimum 2.
    low = ["JH", "QH", "KH", "9D", "10D", "JD", "8S", "8D", "8H", "KS", "QS", "JS", "3C"]
    zero = [
        "JH",
        "QH",
        "KH",
        "9D",
        "10D",
        "JD",
        "8S",
        "8D",
        "8H",
        "KS",
        "QS",
        "JS",
        "5H",
    ]  # 5 is wild: 0 points
    state = scripted_game(R101, [WIN0, low, zero], open_card="5C", cut="5D", closed_top=["QC"])
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="finish", seat=0, card="2D", groups=GROUPS0)
    g = [["JH", "QH", "KH"], ["9D", "10D", "JD"], ["8S", "8D", "8H"], ["KS", "QS", "JS"]]
    state, ev = act(state, type="show", seat=1, groups=[*g, ["3C"]])
    assert ev[0]["points"] == 2 and ev[0]["deal_show"] is True
    state, ev = act(state, type="show", seat=2, groups=[*g[:3], ["KS", "QS", "JS", "5H"]])
    assert ev[0]["points"] == 0 and ev[0]["deal_show"] is False


def test_rules_5_loser_not_showing_scored_on_last_arrangement_else_default_sorted() -> None:
    state = three()
    state, _ = act(state, type="arrange", seat=1, groups=GROUPS1)
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="finish", seat=0, card="2D", groups=GROUPS0)
    state, ev = act(state, type="timeout", at=10_000)
    shows = {e["seat"]: e for e in ev if e["type"] == "show"}
    assert shows[1]["groups"] == GROUPS1 and shows[1]["points"] == 14
    # seat 2 never arranged: default sorted arrangement (one group per suit)
    assert shows[2]["groups"] == [
        ["6S", "9S", "QS"],
        ["9H", "10H", "JH", "KH"],
        ["3D", "4D", "6D", "KD"],
        ["2C", "4C"],
    ]
    assert shows[2]["points"] == 40
    assert state.phase == "between_deals"


def test_rules_6_arrange_must_be_exactly_the_hand() -> None:
    state = three()
    with pytest.raises(InvalidArrangementError):
        act(state, type="arrange", seat=1, groups=[LOSE1[:-1]])
    with pytest.raises(InvalidArrangementError):
        act(state, type="arrange", seat=1, groups=[LOSE1[:-1] + ["AS"]])
    state, ev = act(state, type="arrange", seat=1, groups=GROUPS1)
    assert ev == [] and state.deal is not None and 1 in state.deal.arrangements


def test_rules_6_arrange_is_private_version_time_and_other_views_unchanged() -> None:
    """An arrangement changes only its own player's view: no event, the same version and
    time (a timer armed at that version still applies), every other seat's view as it was."""
    state = three()
    state, _ = act(state, type="draw", seat=0, source="closed")
    new, ev = act(state, type="arrange", seat=1, groups=GROUPS1, at=state.now + 5_000)
    assert ev == [] and new.version == state.version and new.now == state.now
    assert new.deadline == state.deadline
    before, after = views_for_all(state), views_for_all(new)
    for key in ("0", "2", "spectator"):
        assert after[key] == before[key], key
    assert after["1"]["arrangement"] == GROUPS1 and after["1"]["arranged"] is True
    assert before["1"]["arrangement"] != GROUPS1
    # the next public action counts on from the same version
    moved, _ = act(new, type="discard", seat=0, card="QC")
    assert moved.version == state.version + 1


def test_rules_6_arrangement_follows_draws_and_discards() -> None:
    state = three()
    state, _ = act(state, type="arrange", seat=0, groups=GROUPS0[:3] + [["9C", "10C", "JC", "2D"]])
    state, _ = act(state, type="draw", seat=0, source="closed")
    assert state.deal is not None and state.deal.arrangements[0][-1] == parse_cards(["QC"])
    state, _ = act(state, type="discard", seat=0, card="2D")
    assert state.deal is not None
    assert Counter(c for g in state.deal.arrangements[0] for c in g) == Counter(state.deal.hands[0])


def test_rules_4_wrong_show_penalty_play_continues_with_more_than_two() -> None:
    state = three()
    state, _ = act(state, type="draw", seat=0, source="closed")
    bad = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "7C", "7S"], ["9C", "10C", "JC", "2D"]]
    state, ev = act(state, type="finish", seat=0, card="QC", groups=bad)
    decl = next(e for e in ev if e["type"] == "declaration")
    assert decl["valid"] is False and decl["points"] == 80
    d = state.deal
    assert (
        d is not None and d.status[0] == "wrong_show" and d.turn == 1 and d.open_pile[-1] == parse_card("QC")
    )
    assert state.phase == "playing"


def test_rules_4_wrong_show_with_two_players_the_other_wins() -> None:
    state = scripted_game(R101, [WIN0, LOSE1], open_card="5C", cut="5D", closed_top=["QC"])
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, ev = act(state, type="finish", seat=0, card="QC", groups=[WIN0])
    over = next(e for e in ev if e["type"] == "deal_over")
    assert over["winner"] == 1
    assert [p.score for p in state.players] == [80, 0]


def test_rules_4_finish_then_show_within_declaration_time() -> None:
    state = three()
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, ev = act(state, type="finish", seat=0, card="2D")
    assert state.phase == "declaring" and state.deadline is not None
    assert state.deadline.kind == "declare" and state.deadline.seat == 0
    assert ev == [{"type": "finish", "seat": 0, "deadline": 10_000}]  # the finish card stays hidden
    with pytest.raises(NotYourTurnError):
        act(state, type="show", seat=1, groups=GROUPS1)
    state, ev = act(state, type="show", seat=0, groups=GROUPS0)
    assert next(e for e in ev if e["type"] == "declaration")["valid"] is True


def test_rules_4_5_declaration_timeout_is_a_wrong_show_even_when_arranged_valid() -> None:
    state = three()
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="finish", seat=0, card="2D")
    state, _ = act(state, type="arrange", seat=0, groups=GROUPS0)
    state, ev = act(state, type="timeout", at=10_000)
    declaration = next(e for e in ev if e["type"] == "declaration")
    assert declaration["valid"] is False and declaration["reason"] == "no_show"


def test_rules_4_show_must_hold_exactly_the_13_cards() -> None:
    state = three()
    state, _ = act(state, type="draw", seat=0, source="closed")
    with pytest.raises(InvalidArrangementError):
        act(state, type="finish", seat=0, card="2D", groups=GROUPS0[:3])
    with pytest.raises(RummyError):
        act(state, type="finish", seat=0, card="2D", groups=[*GROUPS0[:3], ["9C", "10C", "JC", "2D"]])


def test_final_arrangements_are_the_last_grouping_the_show_or_the_default() -> None:
    """The replay's "grouped as they last arranged them" (issue 13): kept through draws and discards."""
    state = three()
    state, _ = act(state, type="arrange", seat=1, groups=GROUPS1)
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="discard", seat=0, card="QC")
    state, _ = act(state, type="draw", seat=1, source="closed")
    state, _ = act(state, type="discard", seat=1, card="KC")
    mine = [["KH", "KD"], ["QS", "JH", "9S", "9H"], ["4D", "4C", "2C", "3D"], ["6S", "6D", "10H"]]
    state, _ = act(state, type="arrange", seat=2, groups=mine)
    state, _ = act(state, type="drop", seat=2)
    assert state.deal is not None
    final = state.deal.final_arrangements()
    assert final["1"] == GROUPS1 and final["2"] == mine
    assert final["0"] == [[c.code for c in g] for g in state.deal.arrangement_of(0)]  # never arranged

    state = three()
    state, _ = act(state, type="arrange", seat=1, groups=GROUPS1)
    state, _ = act(state, type="draw", seat=0, source="closed")
    state, _ = act(state, type="finish", seat=0, card="2D", groups=GROUPS0)
    state, _ = act(state, type="timeout", at=10_000)
    assert state.deal is not None
    final = state.deal.final_arrangements()
    assert final["0"] == GROUPS0 and final["1"] == GROUPS1  # the show, without the finish card
