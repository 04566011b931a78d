"""Property tests: conservation, no leaks, round trips, purity (docs/rules.md §1, §6, §8)."""

from __future__ import annotations

import contextlib
import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game_engine.actions import UNSTAMPED, Timeout
from game_engine.bots import choose_action
from game_engine.cards import build_packs
from game_engine.errors import RummyError
from game_engine.formats import make_rules
from game_engine.game import GameState, apply, new_game
from game_engine.views import view_for, views_for_all


def _lists(obj: Any) -> list[list[Any]]:
    out: list[list[Any]] = []
    if isinstance(obj, list):
        out.append(obj)
        for x in obj:
            out.extend(_lists(x))
    elif isinstance(obj, dict):
        for x in obj.values():
            out.extend(_lists(x))
    return out


def _check_invariants(state: GameState) -> None:
    d = state.deal
    if d is not None:
        # Every card of the packs is in exactly one place.
        assert Counter(d.all_cards()) == Counter(build_packs(state.rules.decks))
        in_deal = state.phase in ("playing", "declaring")
        closed = [c.code for c in d.closed]
        for seat in [None, *range(len(state.players))]:
            view = view_for(state, seat)
            json.dumps(view)
            lists = [x for x in _lists(view) if all(isinstance(c, str) for c in x)]
            for other in d.hands:
                if other == seat or other in d.shown or not in_deal:
                    continue
                hand = Counter(c.code for c in d.hands[other])
                assert all(Counter(x) != hand for x in lists if len(x) == len(d.hands[other])), "hand leak"
            if len(closed) > 1:
                assert all(x != closed for x in lists), "closed deck leak"
            if in_deal:
                assert view["closed_count"] == len(d.closed)
    # Every view at once (what the server broadcasts) equals each seat's own view, key order too.
    one_by_one = {str(seat): view_for(state, seat) for seat in range(len(state.players))}
    one_by_one["spectator"] = view_for(state, None)
    together = views_for_all(state)
    assert together == one_by_one
    assert [list(v) for v in together.values()] == [list(v) for v in one_by_one.values()]
    # Serialization round trip.
    data = state.to_dict()
    assert GameState.from_dict(json.loads(json.dumps(data))).to_dict() == data


GARBAGE = [
    {"type": "draw", "source": "open"},
    {"type": "draw", "source": "closed"},
    {"type": "discard", "card": "AS"},
    {"type": "drop"},
    {"type": "show", "groups": [["AS"]]},
    {"type": "rejoin"},
    {"type": "split_accept"},
    {"type": "timeout"},
    {"type": "start_deal"},
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    n=st.integers(2, 6),
    fmt=st.sampled_from(["61", "101", "201", "points"]),
    steps=st.integers(20, 400),
)
def test_random_play_keeps_every_invariant(seed: int, n: int, fmt: str, steps: int) -> None:
    rules = make_rules(fmt, turn_ms=1_000, extra_time_ms=2_000)
    rng = random.Random(seed)
    state = new_game(rules, [(f"p{i}", f"P{i}") for i in range(n)], seed, at=0)
    now = 0
    for _ in range(steps):
        if state.phase == "finished":
            break
        before = state.to_dict()
        # An illegal (or at least arbitrary) action: either it applies or it leaves the state unchanged.
        junk = dict(rng.choice(GARBAGE))
        junk.update(seat=rng.randrange(n), at=now)
        with contextlib.suppress(RummyError):
            apply(state, junk)
        assert state.to_dict() == before
        seats = list(range(n))
        rng.shuffle(seats)
        action = None
        for seat in seats:
            action = choose_action(view_for(state, seat), rules, rng, "random")
            if action is not None:
                break
        dl = state.deadline
        if action is None:
            assert dl is not None
            now = max(now, dl.at_ms)
            action = Timeout(at=UNSTAMPED)
        else:
            now += rng.choice([0, 100, 500])
            if dl is not None and now > dl.at_ms:
                now = dl.at_ms
        action = action.stamp(at=now)
        try:
            new, events = apply(state, action)
        except RummyError:
            assert state.to_dict() == before  # e.g. a random wrong groups shape: state untouched
            continue
        assert state.to_dict() == before  # apply never mutates its input
        # the version counts what other seats can see: a private action (an arrangement) keeps it
        private = action.type == "arrange"
        assert new.version == state.version + (0 if private else 1)
        if private:
            assert events == [] and new.now == state.now
        for e in events:
            json.dumps(e.to_dict())
            if e.type == "draw" and e.data["source"] == "closed":
                assert "card" not in e.data
        state = new
        _check_invariants(state)
