"""game_engine/replay.py: every finished deal rebuilt from its stored events and revealed seeds alone."""

from __future__ import annotations

from typing import Any

import pytest

from game_engine.bots import RANDOM, SMART, play_game
from game_engine.cards import build_packs
from game_engine.formats import make_rules


def seeds_of(over: dict[str, Any]) -> dict[str, Any]:
    """The revealed seeds a deal_over event carries."""
    return {k: over[k] for k in ("server_seed", "client_seeds", "commitment")}


@pytest.mark.parametrize(("seed", "n", "strategy"), [(3, 2, SMART), (8, 5, RANDOM), (13, 6, SMART)])
def test_every_deal_replays_from_its_events_and_revealed_seeds(seed: int, n: int, strategy: str) -> None:
    from game_engine.events import to_wire
    from game_engine.replay import ReplayError, replay_deal

    _, events = play_game(make_rules("101"), n, seed, strategy)
    wire = [to_wire(e) for e in events]  # type: ignore[arg-type]
    starts = [i for i, e in enumerate(wire) if e["type"] == "deal_started"]
    assert starts
    for i in starts:
        end = next(j for j in range(i, len(wire)) if wire[j]["type"] == "deal_over")
        part = wire[i : end + 1]
        steps = replay_deal(part, seeds_of(wire[end]))
        assert steps[-1]["event"]["type"] == "deal_over"
        for seat, p in wire[end]["players"].items():  # the result sheet's hands are the replayed hands
            if p["groups"] and p["status"] != "won":
                assert sorted(c for g in p["groups"] for c in g) == sorted(steps[-1]["hands"][seat])
        # A gap in the history or a changed card is caught.
        discards = [k for k, e in enumerate(part) if e["type"] == "discard"]
        if discards:
            k = discards[len(discards) // 2]
            held = steps[k - 1]["hands"][str(part[k]["seat"])]
            alien = next(c.code for c in build_packs(2) if c.code not in held)
            with pytest.raises(ReplayError):
                replay_deal(part[:k] + [part[k] | {"card": alien}] + part[k + 1 :], seeds_of(wire[end]))
        with pytest.raises(ReplayError):
            replay_deal(part[:-1], seeds_of(wire[end]))
        bad = seeds_of(wire[end]) | {"server_seed": "ab" * 32}
        with pytest.raises(ReplayError):
            replay_deal(part, bad)
