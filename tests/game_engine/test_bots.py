"""Bots act only from their view and play sensibly."""

from __future__ import annotations

import random

from game_engine.actions import UNSTAMPED, Discard, Draw, Drop, Finish, Show, SplitAccept
from game_engine.bots import choose_action, play_game
from game_engine.formats import make_rules
from game_engine.game import apply
from game_engine.scenario import scripted_game
from game_engine.views import view_for

R = make_rules("101")
WIN0 = ["AS", "2S", "3S", "4H", "5H", "6H", "7D", "7C", "7S", "9C", "10C", "JC", "2D"]
MID = ["2H", "3H", "4H", "9D", "10D", "JD", "8S", "8D", "8H", "KS", "QH", "3C", "6C"]
JUNK = ["KH", "KD", "QS", "JH", "9S", "9H", "4D", "4C", "2C", "3D", "6S", "6D", "10H"]


def test_bot_declares_a_valid_hand() -> None:
    state = scripted_game(R, [WIN0, MID], open_card="QC", cut="5D")
    v = view_for(state, 0)
    a = choose_action(v, R, random.Random(1))
    assert a == Draw(at=UNSTAMPED, seat=0, source="open")  # QC completes the hand
    state, _ = apply(state, a.stamp(at=0))
    a = choose_action(view_for(state, 0), R, random.Random(1))
    assert isinstance(a, Finish) and a.card.code == "2D"
    state, events = apply(state, a.stamp(at=0))
    assert any(e.type == "declaration" and e.data["valid"] for e in events)
    # the loser shows its best arrangement
    a = choose_action(view_for(state, 1), R, random.Random(1))
    assert isinstance(a, Show)
    state, events = apply(state, a.stamp(at=0))
    shown = next(e for e in events if e.type == "show")
    assert shown.data["points"] == 14  # 2H3H4H, 9D10DJD, 8S8D8H; KS QH 3C 6C = 29 → deal show 14


def test_bot_discards_the_card_that_helps_least_and_skips_useless_open_card() -> None:
    state = scripted_game(R, [MID, WIN0], open_card="KD", cut="5D", closed_top=["2C"])
    a = choose_action(view_for(state, 0), R, random.Random(1))
    assert a == Draw(at=UNSTAMPED, seat=0, source="closed")
    state, _ = apply(state, a.stamp(at=0))
    a = choose_action(view_for(state, 0), R, random.Random(1))
    assert isinstance(a, Discard) and a.card.code in ("KS", "QH")


def test_bot_drops_a_hopeless_hand_on_its_first_turn() -> None:
    hopeless = ["KH", "9H", "6H", "QS", "8S", "4S", "KD", "8D", "3D", "JC", "7C", "3C", "KC"]
    state = scripted_game(R, [hopeless, MID], open_card="8C", cut="5D")
    a = choose_action(view_for(state, 0), R, random.Random(1))
    assert a == Drop(at=UNSTAMPED, seat=0)


def test_bots_play_only_from_their_view_and_finish_games() -> None:
    for n in (2, 4, 6):
        state, events = play_game(R, n, seed=n)
        assert state.phase == "finished"
        assert any(e.type == "declaration" for e in events)


def test_bot_accepts_split() -> None:
    state = scripted_game(R, [WIN0, MID, JUNK], open_card="5C", cut="5D", scores=[95, 50, 40])
    for seat in (0, 1):
        state, _ = apply(state, {"type": "drop", "seat": seat, "at": 0})
    state, _ = apply(state, {"type": "leave", "seat": 0, "at": 0})
    assert choose_action(view_for(state, 1), R, random.Random(1)) == SplitAccept(at=UNSTAMPED, seat=1)
    assert choose_action(view_for(state, 0), R, random.Random(1)) is None  # left the table
