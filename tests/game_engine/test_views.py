"""view_for: own hand + public table only; shown groups revealed after a show (docs/rules.md §5)."""

from __future__ import annotations

import json
from typing import Any

from game_engine.events import DealOver, events_for_spectators, to_wire
from game_engine.formats import make_rules
from game_engine.game import GameState, apply
from game_engine.scenario import scripted_game
from game_engine.views import view_for, views_for_all

R = make_rules("101", turn_ms=1_000, extra_time_ms=5_000, declare_ms=10_000)
H = [
    ["AS", "2S", "3S", "4H", "5H", "6H", "7D", "7C", "7S", "9C", "10C", "JC", "2D"],
    ["2H", "3H", "4H", "9D", "10D", "JD", "8S", "8D", "8H", "KS", "QH", "3C", "6C"],
    ["KH", "KD", "QS", "JH", "9S", "9H", "4D", "4C", "2C", "3D", "6S", "6D", "10H"],
]
G0 = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7D", "7C", "7S"], ["9C", "10C", "JC", "QC"]]


def act(state: GameState, **kw: Any) -> GameState:
    kw.setdefault("at", state.now)
    return apply(state, kw)[0]


def game() -> GameState:
    return scripted_game(R, H, open_card="5C", cut="5D", closed_top=["QC", "KC"])


def test_view_has_own_hand_and_public_table_only() -> None:
    state = game()
    v = view_for(state, 1)
    json.dumps(v)
    assert v["hand"] == H[1] and v["seat"] == 1
    assert v["arrangement"] is not None and not v["arranged"]
    assert v["closed_count"] == 106 - 39 - 2 and "closed" not in v
    assert (
        v["open_top"] == "5C" and v["open_pile"] == ["5C"] and v["cut_joker"] == "5D" and v["wild_rank"] == 5
    )
    assert v["turn"] == 0 and v["dealer"] == 2 and v["phase"] == "playing"
    assert v["deadline"] == {"at_ms": 1_000, "kind": "turn", "seat": 0}
    assert [p["card_count"] for p in v["players"]] == [13, 13, 13]
    text = json.dumps(v)
    for other in (H[0], H[2]):
        assert json.dumps(other) not in text
    assert v["legal"] == ["arrange", "auto_drop", "leave"]
    assert view_for(state, 0)["legal"][:2] == ["draw", "drop"]


def test_spectator_sees_no_hand() -> None:
    v = view_for(game(), None)
    assert v["hand"] is None and v["legal"] == [] and v["drawn_card"] is None
    text = json.dumps(v)
    assert all(json.dumps(h) not in text for h in H)


def test_drawn_card_visible_only_to_drawer() -> None:
    state = act(game(), type="draw", seat=0, source="closed")
    assert view_for(state, 0)["drawn_card"] == "QC" and "QC" in view_for(state, 0)["hand"]
    assert view_for(state, 1)["drawn_card"] is None
    assert "QC" not in json.dumps(view_for(state, 1))
    assert view_for(state, 1)["players"][0]["card_count"] == 14


def test_rules_5_shown_groups_revealed_in_result() -> None:
    state = act(game(), type="draw", seat=0, source="closed")
    state = act(state, type="finish", seat=0, card="2D", groups=G0)
    v = view_for(state, 2)
    assert v["phase"] == "declaring" and v["shown"]["0"] == G0 and "show" in v["legal"]
    assert v["deadline"]["kind"] == "declare"
    state = act(state, type="show", seat=1, groups=[H[1]])
    state = act(state, type="show", seat=2, groups=[H[2]])
    v = view_for(state, None)
    res = v["last_result"]
    assert res["winner"] == 0 and res["players"]["1"]["groups"] == [H[1]]
    assert v["phase"] == "between_deals" and v["hand"] is None


def test_a_finished_deals_server_seed_is_in_the_seats_views_only() -> None:
    """The seed opens every hand of the deal (docs/fairness.md): its players verify the shuffle
    with it; a spectator sees the result sheet as the table showed it, with the commitment."""
    state = act(game(), type="draw", seat=0, source="closed")
    state = act(state, type="finish", seat=0, card="2D", groups=G0)
    state = act(state, type="show", seat=1, groups=[H[1]])
    state, events = apply(state, {"type": "show", "seat": 2, "groups": [H[2]], "at": state.now})
    seed = state.last_result["server_seed"] if state.last_result else None
    assert seed and len(seed) == 64
    spectator = view_for(state, None)
    assert seed not in json.dumps(spectator)
    assert "server_seed" not in spectator["last_result"]
    assert spectator["last_result"]["commitment"] == state.last_result["commitment"]
    assert spectator["last_result"]["players"]["1"]["groups"] == [H[1]]  # shown: public
    for seat in range(3):
        assert view_for(state, seat)["last_result"]["server_seed"] == seed
    sent = views_for_all(state)
    assert seed not in json.dumps(sent["spectator"])
    assert all(sent[str(seat)] == view_for(state, seat) for seat in range(3))
    # the deal_over event: the seats' copy carries the seed, the spectators' does not
    wire = [to_wire(e) for e in events]
    over = next(e for e in wire if e["type"] == DealOver.type)
    assert over["server_seed"] == seed
    watched = events_for_spectators(wire)
    assert seed not in json.dumps(watched) and len(watched) == len(wire)
    assert next(e for e in watched if e["type"] == DealOver.type)["commitment"] == over["commitment"]
    assert over["server_seed"] == seed  # the seats' copy is left as it was


def test_split_and_rejoin_offers_in_view() -> None:
    state = scripted_game(R, H, open_card="5C", cut="5D", scores=[95, 50, 40])
    state = act(state, type="drop", seat=0)
    state = act(state, type="drop", seat=1)
    v = view_for(state, 0)
    assert v["rejoin_offer"] == {"seats": [0], "score": 71, "fee": R.entry_fee}
    assert "rejoin" in v["legal"] and v["deadline"]["kind"] == "rejoin"
    state = act(state, type="leave", seat=0)
    v = view_for(state, 1)
    assert v["split_offer"] == {"amounts": {"1": 3_500, "2": 23_500}, "accepted": []}
    assert "split_accept" in v["legal"] and v["deadline"]["kind"] == "split"
    assert [p["drops_remaining"] for p in v["players"]] == [0, 1, 3]


def test_view_states_what_a_drop_costs_now() -> None:
    """The page states the drop (and auto drop) cost from the view; it computes no rule (docs/rules.md §6.7)."""
    state = game()
    assert [view_for(state, s)["drop_points"] for s in range(3)] == [R.first_drop] * 3
    assert view_for(state, None)["drop_points"] is None
    state = act(state, type="draw", seat=0, source="closed")
    state = act(state, type="discard", seat=0, card="QC")
    assert view_for(state, 0)["drop_points"] == R.middle_drop  # seat 0 has played a turn
    assert view_for(state, 1)["drop_points"] == R.first_drop
    state = act(state, type="drop", seat=1)
    assert view_for(state, 1)["drop_points"] is None  # out of the deal: nothing to drop
    assert state.deal is not None and state.deal.points[1] == R.first_drop
