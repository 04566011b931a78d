"""A light feeder (``game_engine.schemes``, method ``feed`` at 30 % of its chances) is found by
the feeding signal once the pair has played enough games together, and not on a few; an honest
pair of the same styles, as often heads-up, is not flagged at all."""

from __future__ import annotations

import random
from typing import Any

import pytest

from game_engine.formats import make_rules
from game_engine.schemes import Role, play
from integrity import detect
from integrity.digest import digest

RULES = make_rules("61", max_players=6, entry_fee=1_000, rake_bp=1000)
OTHERS = [(f"o{i}", Role(style, 0.18)) for i, style in enumerate(("smart", "weak", "cautious", "grabby") * 3)]


def _games(together: int, feeder: Role, seed: int = 7) -> list[tuple[int, dict[str, Any]]]:
    """``together`` heads-up games of ``f`` (``feeder``) and ``g``, each one's record apart, and
    the others among themselves."""
    rng = random.Random(seed)
    out: list[tuple[int, dict[str, Any]]] = []

    def add(seated: list[tuple[str, Role]]) -> None:
        state, events, _ = play(RULES, seated, seed * 100_000 + len(out))
        d = digest(
            [e.to_dict() for e in events], [p for p, _ in seated], [p.fees_paid for p in state.players], 1_000
        )
        assert d is not None
        out.append((len(out), d))

    taker = Role("smart", 0.18)
    for _ in range(together):
        add([("f", feeder), ("g", taker)])
    # the taker's usual rate is what the feeder's excess is measured against: a record apart
    # long enough to know it (a short one widens the odds, as it should)
    for name, role, apart in (("f", Role("smart", 0.18), 10), ("g", taker, 60)):
        for _ in range(apart):
            add([(name, role), rng.choice(OTHERS)])
    for _ in range(10):
        add(rng.sample(OTHERS, 3))
    return out


def _feeding(found: dict[str, list[detect.Finding]]) -> detect.Finding:
    return next(f for f in found[detect.FEEDING] if set(f.users) == {"f", "g"})


@pytest.fixture(scope="module")
def light() -> Role:
    return Role("smart", 0.18, "feed", 0.3, ("g",), ("g",))


def test_a_light_feeder_is_found_given_games_together(light):
    found = _feeding(detect.run_all(_games(80, light)))
    assert found.flagged and found.users == ("f", "g"), found.figures


def test_a_light_feeder_is_not_flagged_on_a_few_games(light):
    assert not _feeding(detect.run_all(_games(6, light))).flagged


def test_an_honest_pair_as_often_heads_up_is_not_flagged():
    found = detect.run_all(_games(80, Role("smart", 0.18)))
    named = {frozenset(f.users) for sig in detect.GROUP_SIGNALS for f in found[sig] if f.flagged}
    assert frozenset({"f", "g"}) not in named, named


def test_what_the_taken_discards_cost_the_feeder_finds_it_before_the_take_rate_does(light):
    """At 30 games together the partner's take rate alone is within honest odds; the discards it
    took cost the feeder's own hand far more often than those others took from it."""
    found = _feeding(detect.run_all(_games(30, light)))
    t = detect.Thresholds()
    assert found.figures["p_take"] > t.feed_alpha, found.figures
    assert found.figures["taken_costly"] > found.figures["taken_known"] * found.figures["giver_usual_costly"]
    assert found.flagged and found.figures["p_value"] <= t.feed_alpha, found.figures
