"""One contract for events: the typed catalogue, the protocol document, and a
``verify_action`` check (after Zulip's) over whole bot games."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from game_engine import events as ev
from game_engine.bots import play_game
from game_engine.events import CATALOGUE, Event, protocol_table, to_wire
from game_engine.formats import make_rules
from game_engine.game import GameState, new_game
from game_engine.views import view_for, views_for_all
from tests.knowledge import SeatKnowledge

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------- the catalogue
def test_catalogue_is_one_frozen_typed_dataclass_per_event_type() -> None:
    assert len(CATALOGUE) == len({cls.type for cls in CATALOGUE.values()})
    for name, cls in CATALOGUE.items():
        assert cls.type == name and cls.doc, name
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
        for f in dataclasses.fields(cls):
            assert f.type not in ("Any", ""), f"{name}.{f.name} has no type"


def test_protocol_event_section_is_the_catalogue() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = re.search(r"<!-- events:begin[^>]*-->\n(.*?)<!-- events:end -->", text, flags=re.S)
    assert section is not None, "docs/protocol.md has lost its events:begin/events:end markers"
    assert section.group(1) == protocol_table(), (
        "docs/protocol.md's event table differs from game_engine/events.py; paste this:\n" + protocol_table()
    )


def test_turn_missed_carries_misses_the_field_the_browser_reads() -> None:
    assert ev.fields_of(ev.TurnMissed) == ["seat", "misses"]
    assert to_wire(ev.TurnMissed(seat=1, misses=2)) == {"type": "turn_missed", "seat": 1, "misses": 2}
    assert to_wire(ev.Draw(seat=0, source="closed")) == {"type": "draw", "seat": 0, "source": "closed"}


def _js_event_fields() -> dict[str, set[str]]:
    """Fields the browser's scripts read from an event ``e`` in ``case "<type>":`` branches."""
    read: dict[str, set[str]] = {}
    for path in sorted((ROOT / "static" / "js").rglob("*.js")):
        text = path.read_text(encoding="utf-8")
        for block in re.finditer(r'case "(\w+)":(.*?)(?=case "\w+":|default:|\n\s*\}\n)', text, flags=re.S):
            if block.group(1) in CATALOGUE:
                read.setdefault(block.group(1), set()).update(re.findall(r"\be\.(\w+)", block.group(2)))
        for line in text.splitlines():
            for kind in re.findall(r'\be\.type === "(\w+)"', line):
                if kind in CATALOGUE:
                    read.setdefault(kind, set()).update(re.findall(r"\be\.(\w+)", line))
    return read


def test_the_browser_reads_only_catalogued_fields() -> None:
    read = _js_event_fields()
    assert read, "no event handling found in static/js"
    unknown = {
        kind: sorted(fields - set(ev.fields_of(CATALOGUE[kind])) - {"type"})
        for kind, fields in read.items()
        if fields - set(ev.fields_of(CATALOGUE[kind])) - {"type"}
    }
    assert not unknown, f"static/js reads event fields the catalogue does not have: {unknown}"


# ---------------------------------------------------------------------- verify_action
def _cards_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_cards_in(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_cards_in(v) for v in value)) if value else set()
    return set()


def _public_cards(before: GameState, after: GameState, e: dict[str, Any]) -> set[str]:
    """Cards anyone may see when ``e`` is sent: the piles, the cut joker, the toss and what is shown."""
    public: set[str] = set()
    for s in (before, after):
        d = s.deal
        public |= {c.code for c in s.toss.values()}
        if d is not None:
            public |= {c.code for c in d.open_pile} | {d.cut_joker.code}
            public |= {c.code for groups in d.shown.values() for g in groups for c in g}
        if s.last_result is not None:
            public |= _cards_in(s.last_result)
    return public


def _strings_that_are_cards(value: Any) -> set[str]:
    from game_engine.cards import parse_card
    from game_engine.errors import InvalidCardError

    found = set()
    for text in _cards_in(value):
        try:
            found.add(parse_card(text).code)
        except InvalidCardError:
            continue
    return found


GAMES = [
    ("101", 4, 11, "smart"),
    ("201", 3, 12, "smart"),
    ("61", 6, 13, "smart"),
    ("101", 3, 14, "random"),
    ("101", 5, 15, "random"),
    ("61", 2, 16, "random"),
]


@pytest.mark.parametrize(("fmt", "n", "seed", "strategy"), GAMES)
def test_verify_action_over_whole_bot_games(fmt: str, n: int, seed: int, strategy: str) -> None:
    """For every update each seat receives: the previous knowledge + the update's events
    give what a fresh snapshot gives that seat now, and no event holds a card that seat
    may not know (one hidden card per closed draw comes through the drawer's own view)."""
    rules = make_rules(fmt, entry_fee=10_000, rejoin_ms=5_000)
    first = new_game(rules, [(f"p{i}", f"Player {i}") for i in range(n)], seed, at=1_700_000_000_000)
    know = [SeatKnowledge(s, view_for(first, s)) for s in range(n)]
    previous = [first]
    steps = [0]

    def on_step(state: GameState, events: list[Event]) -> None:
        before = previous[0]
        wire = [to_wire(e) for e in events]
        for e, raw in zip(wire, events, strict=True):
            assert isinstance(raw, CATALOGUE[raw.type]) and set(e) <= {"type", *ev.fields_of(type(raw))}
            hidden = _strings_that_are_cards(e) - _public_cards(before, state, e)
            if e["type"] == "draw" and e["source"] == "open":
                hidden -= {e["card"]}  # it was the top of the open pile
            assert not hidden, f"{e['type']} reveals {hidden}"
        sent = views_for_all(state)  # what the server puts in each seat's update
        assert sent["spectator"]["hand"] is None and sent["spectator"]["drawn_card"] is None
        for k in know:
            update_view = sent[str(k.seat)]
            fresh = view_for(state, k.seat)  # a fresh snapshot for that seat
            assert update_view == fresh
            d = state.deal
            if fresh["hand"] is not None:  # its own cards, never another seat's
                assert d is not None and Counter(fresh["hand"]) == Counter(c.code for c in d.hands[k.seat])
            k.apply(wire, update_view)
            k.compare(fresh)
        previous[0] = state
        steps[0] += 1

    final, _ = play_game(rules, n, seed, strategy, on_step=on_step)
    assert final.phase == "finished" and steps[0] > 10
