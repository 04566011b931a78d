"""The state's one field-driven codec (``game_engine.codec``): states the server stored before it
load unchanged, and what it writes, reads and copies is the state."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from game_engine import codec
from game_engine.actions import ACTION_TYPES, Draw, action_from_dict
from game_engine.bots import play_game
from game_engine.cards import parse_card
from game_engine.deal import DealPhase, DealState, SeatStatus
from game_engine.events import result_for_spectators
from game_engine.formats import make_rules
from game_engine.game import GamePhase, GameState, apply
from game_engine.views import views_for_all

FIXTURE = Path(__file__).parent / "fixtures" / "states_before_codec.json"
SAVED: list[dict[str, Any]] = json.loads(FIXTURE.read_text(encoding="utf-8"))


def test_the_fixture_covers_every_phase() -> None:
    cases = {case["case"] for case in SAVED}
    assert {"dealing", "between_deals", "rejoin_window", "split_offer", "finished"} <= cases
    assert any(c.startswith("playing:turn:drawn:arranged") for c in cases)
    assert any(c.startswith("declaring:showing") for c in cases)


@pytest.mark.parametrize("case", SAVED, ids=lambda case: case["case"])
def test_a_state_saved_before_the_codec_loads_as_it_was(case: dict[str, Any]) -> None:
    """Loaded by today's code, each stored state is written back as the same JSON, and every seat
    sees what the old code showed it: no stored game needs a migration. A spectator too, less the
    last deal's server seed, which goes to the game's seats only (docs/fairness.md)."""
    state = GameState.from_dict(case["state"])
    assert state.to_dict() == case.get("saved_as", case["state"])
    views = views_for_all(state)
    for key, view in case["views"].items():
        if key == "spectator":
            view = {**view, "last_result": result_for_spectators(view["last_result"])}
        assert json.loads(json.dumps(views[key])) == view, key


@pytest.mark.parametrize("case", SAVED, ids=lambda case: case["case"])
def test_a_saved_state_plays_on(case: dict[str, Any]) -> None:
    state = GameState.from_dict(case["state"])
    if state.deadline is None:
        return
    new, _ = apply(state, {"type": "timeout", "at": state.deadline.at_ms})
    assert new.version == state.version + 1
    assert GameState.from_dict(json.loads(json.dumps(new.to_dict()))) == new


def test_seat_maps_come_back_with_integer_keys_and_cards_as_cards() -> None:
    case = next(c for c in SAVED if c["case"] == "split_offer")
    state = GameState.from_dict(case["state"])
    assert state.split_offer is not None and all(isinstance(k, int) for k in state.split_offer["amounts"])
    playing = GameState.from_dict(
        next(c for c in SAVED if c["case"].startswith("playing:turn:drawn"))["state"]
    )
    assert playing.deal is not None and all(isinstance(k, int) for k in playing.deal.hands)
    assert playing.deal.drawn == parse_card(playing.deal.drawn.code)


@pytest.mark.parametrize("case", SAVED, ids=lambda case: case["case"])
def test_phases_and_statuses_come_back_as_their_enums_and_go_out_as_strings(case: dict[str, Any]) -> None:
    """Stored as plain strings, read as members (``GamePhase``, ``DealPhase``, ``SeatStatus``), and
    written back as the same strings, which any JSON encoder takes."""
    state = GameState.from_dict(case["state"])
    assert type(state.phase) is GamePhase
    if state.deal is not None:
        assert type(state.deal.phase) is DealPhase
        assert {type(v) for v in state.deal.status.values()} == {SeatStatus}
    assert orjson.loads(orjson.dumps(state.to_dict())) == json.loads(json.dumps(state.to_dict()))
    copied = codec.copier(GameState)(state)
    assert type(copied.phase) is GamePhase


def test_a_copy_shares_nothing_that_changes() -> None:
    state, _ = play_game(make_rules("101"), 3, seed=4, max_steps=40)
    copy = state.clone()
    assert copy == state
    assert copy.deal is not None and state.deal is not None
    copy.deal.hands[copy.deal.order[0]].pop()
    copy.deal.closed.pop()
    copy.players[0].score += 1
    copy.order.append(9)
    assert copy != state and state.to_dict() == GameState.from_dict(state.to_dict()).to_dict()
    assert len(state.deal.hands[state.deal.order[0]]) != len(copy.deal.hands[copy.deal.order[0]])
    assert state.rules is copy.rules  # frozen: shared


def test_every_field_of_the_state_is_written() -> None:
    """A field added to a state class is saved without anyone writing code for it."""
    state, _ = play_game(make_rules("101"), 2, seed=2, max_steps=30)
    saved = state.to_dict()
    assert set(saved) == {"format"} | {f.name for f in dataclasses.fields(GameState)}
    assert state.deal is not None
    assert set(saved["deal"]) == {f.name for f in dataclasses.fields(DealState)}


def test_a_field_missing_from_an_old_state_gets_its_default() -> None:
    state, _ = play_game(make_rules("61"), 2, seed=1, max_steps=10)
    saved = state.to_dict()
    del saved["next_server_seed"], saved["players"][0]["client_seed_generated"]
    loaded = GameState.from_dict(saved)
    assert loaded.next_server_seed is None and loaded.players[0].client_seed_generated is True


@pytest.mark.parametrize("name", sorted(ACTION_TYPES))
def test_every_action_is_written_and_read_by_its_fields(name: str) -> None:
    cls = ACTION_TYPES[name]
    values = {"at": 5, "seat": 1, "source": "open", "card": "10H", "groups": [["AS", "2S"]], "on": False}
    values["seed"] = "my-seed"
    wire = {"type": name} | {f.name: values[f.name] for f in dataclasses.fields(cls)}
    action = action_from_dict(wire)
    assert isinstance(action, cls)
    assert action.to_dict() == {**wire, "type": cls.type}
    assert codec.decoder(cls)(codec.encoder(cls)(action)) == action


def test_an_action_is_stamped_by_the_server_never_by_its_sender() -> None:
    sent = action_from_dict({"type": "draw", "seat": 3, "source": "closed", "at": 1})
    assert sent.stamp(seat=0, at=99) == Draw(at=99, seat=0, source="closed")
