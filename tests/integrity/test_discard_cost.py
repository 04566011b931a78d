"""What a taken discard cost its thrower (``integrity.discard_cost``), read from the deal's replay
once its seed is revealed, and counted by the digest."""

from __future__ import annotations

from typing import Any

import pytest

from game_engine.bots import SMART, play_game
from game_engine.cards import parse_cards
from game_engine.events import events_for_spectators, to_wire
from game_engine.formats import make_rules
from integrity.digest import digest
from integrity.discard_cost import discard_cost, discard_costs

# wild rank 2; a pure run of hearts, a set of kings, a run of clubs, and three loose cards
HAND = parse_cards(["4H", "5H", "6H", "KS", "KD", "KC", "7C", "8C", "9C", "3D", "9S", "QD", "JS", "AS"])


def test_the_best_discard_costs_nothing_and_breaking_a_meld_costs_its_points() -> None:
    costs = {c.code: discard_cost(HAND, c, 2) for c in HAND}
    assert min(costs.values()) == 0
    assert costs["QD"] == costs["JS"] == costs["AS"] == 0  # a loose ten-pointer: the careful throw
    assert costs["3D"] == 10 - 3 and costs["9S"] == 10 - 9  # a lower loose card thrown, a ten kept
    assert costs["KS"] == 3 * 10  # the set broken: its other kings count
    # a run broken: with one sequence left, only that pure run goes free (docs/rules.md §5)
    assert costs["5H"] == sum(c.points for c in HAND) - 5 - (7 + 8 + 9) - 32


@pytest.fixture(scope="module")
def game() -> tuple[list[dict[str, Any]], list[str]]:
    _, events = play_game(make_rules("61"), 3, 11, SMART)
    return [to_wire(e) for e in events], ["a", "b", "c"]  # type: ignore[arg-type]


def _taken(d: dict[str, Any]) -> int:
    return sum(p["feeds"][0] + p["feeds"][2] for p in d["pairs"].values())


def test_every_discard_another_took_is_weighed(game) -> None:
    wire, players = game
    d = digest(wire, players, [0, 0, 0], 0)
    assert d is not None
    known = sum(g[1] for g in d["given"].values())
    assert known == _taken(d) > 0
    assert sum(p["costly"][1] + p["costly"][3] for p in d["pairs"].values()) == known


def test_without_the_revealed_seed_no_discard_is_weighed(game) -> None:
    """A spectator's log (no server seed) opens no hand: the takes are counted, their cost is not."""
    wire, players = game
    d = digest(events_for_spectators(wire), players, [0, 0, 0], 0)
    assert d is not None and _taken(d) > 0
    assert all(g == [0, 0] for g in d["given"].values())


def test_a_deal_with_a_gap_in_its_log_is_not_weighed(game) -> None:
    """A closed draw lost from the first deal's log: that deal's hands cannot be rebuilt, so none
    of its discards is weighed; the next deal's still are."""
    wire, _ = game
    first_over = next(i for i, e in enumerate(wire) if e["type"] == "deal_over")
    lost = next(i for i, e in enumerate(wire) if e["type"] == "draw" and e["source"] == "closed")
    cut = wire[:lost] + wire[lost + 1 :]
    discards = [i for i, e in enumerate(cut) if e["type"] == "discard"]
    whole = discard_costs(wire, [i for i, e in enumerate(wire) if e["type"] == "discard"])
    assert any(i < first_over for i in whole) and any(i > first_over for i in whole)
    costs = discard_costs(cut, discards)
    assert costs and all(i >= first_over for i in costs)
