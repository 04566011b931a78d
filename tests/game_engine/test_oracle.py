"""The public oracle of hand cases (``fixtures/hands.json``) under docs/rules.md §3-5."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from game_engine.arrange import best_arrangement
from game_engine.cards import parse_card, parse_rank, wild_rank_for_cut
from game_engine.melds import score_arrangement
from game_engine.reference import reference_best_points

#: The repository's own copy of the public hand cases (see fixtures/README.md).
ORACLE = Path(__file__).resolve().parent / "fixtures" / "hands.json"


def _cases() -> list[dict[str, Any]]:
    if not ORACLE.exists():
        return []  # test_oracle_file_is_present_and_not_empty fails
    cases = json.loads(ORACLE.read_text(encoding="utf-8"))
    assert isinstance(cases, list)
    return cases


CASES = _cases()


def _wild(joker: str) -> int:
    rank = parse_rank(joker)
    return wild_rank_for_cut(parse_card("PJ")) if rank == 0 else rank


def test_oracle_file_is_present_and_not_empty() -> None:
    assert ORACLE.exists(), f"the hand cases are missing: {ORACLE}"
    assert len(CASES) >= 10


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_oracle_case(case: dict[str, Any]) -> None:
    cards = [parse_card(c) for c in case["cards"]]
    wild = _wild(case["joker"])
    result = best_arrangement(cards, wild)
    assert (result.valid, result.points, result.score()) == (case["valid"], case["points"], case["score"]), (
        case["note"]
    )
    # the returned groups are a real arrangement of the hand with that verdict
    assert sorted(c for g in result.groups for c in g) == sorted(cards)
    rescored = score_arrangement(result.groups, wild)
    assert (rescored.valid, rescored.points, rescored.score) == (case["valid"], case["points"], case["score"])


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_oracle_case_reference(case: dict[str, Any]) -> None:
    cards = [parse_card(c) for c in case["cards"]]
    assert reference_best_points(cards, _wild(case["joker"])) == case["points"]
