"""The family of colluders (``game_engine.schemes``) really cheats, and the yardstick
(``integrity.family``) counts what the scans show. No figure of the signals is asserted here:
the signals are judged by ``bench/integrity_family.py``."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from game_engine.cards import build_packs, parse_card, parse_cards
from game_engine.collusion import HONEST_STYLES, _near
from game_engine.formats import make_rules
from game_engine.schemes import METHODS, Role, play, poor_hand
from integrity import detect
from integrity.digest import digest
from integrity.family import GAMES_TOGETHER, Group, Population, Tracker, draw_population, schedule
from integrity.family_report import detected, report, wilson

RULES = make_rules("61", max_players=6, entry_fee=1_000, rake_bp=1000)


def _events(seated: list[tuple[str, Role]], seed: int) -> tuple[Any, list[dict[str, Any]], Any]:
    state, events, table = play(RULES, seated, seed)
    return state, [e.to_dict() for e in events], table


def _helper(method: str, p: float, style: str = "smart", gainer: str = "g") -> Role:
    return Role(style, 0.0, method, p, (gainer,), (gainer,))


def _deals_with(events: list[dict[str, Any]], seat: int, other: int) -> list[list[dict[str, Any]]]:
    """The events of each deal in which both ``seat`` and ``other`` were dealt in."""
    out, current = [], None
    for e in events:
        if e["type"] == "deal_started":
            current = [] if seat in e["order"] and other in e["order"] else None
            if current is not None:
                out.append(current)
        if current is not None:
            current.append(e)
    return out


@pytest.mark.parametrize("method", METHODS)
def test_a_colluder_who_never_cheats_plays_exactly_its_honest_style(method):
    """Its coins are its own: tossed at every chance, never winning, they change nothing."""
    style = HONEST_STYLES[METHODS.index(method) % len(HONEST_STYLES)]
    cheat = [
        ("a", Role(style, 0.15, method, 1e-12, ("b",), ("b",))),
        ("b", Role("smart", 0.1)),
        ("c", Role("weak")),
    ]
    honest = [("a", Role(style, 0.15)), ("b", Role("smart", 0.1)), ("c", Role("weak"))]
    chances = 0
    for seed in (12, 14, 11):  # until the method has had chances to cheat
        _, with_coins, table = _events(cheat, seed)
        _, without, _ = _events(honest, seed)
        assert not table.cheats
        assert with_coins == without
        chances += len(table.chances)
        if chances:
            break
    assert chances


def test_a_wrong_show_dumper_shows_wrong_only_while_its_gainer_is_in_the_deal_at_its_intensity():
    wrong = {0.3: 0, 1.0: 0}
    chances = {0.3: 0, 1.0: 0}
    for p in wrong:
        for seed in range(4):
            seated = [("d", _helper("dump_show", p)), ("g", Role("smart")), ("x", Role("smart"))]
            _, events, table = _events(seated, seed)
            for deal in _deals_with(events, 0, 1):
                gainer_out = False
                for e in deal:
                    if e["type"] == "drop" and e["seat"] == 1:
                        gainer_out = True
                    if e["type"] == "declaration" and e["seat"] == 0 and not e["valid"]:
                        assert e["reason"] == "invalid"
                        assert not gainer_out, "a wrong show after the gainer had dropped"
                        wrong[p] += 1
            chances[p] += sum(1 for s, m, _ in table.chances if s == 0 and m == "dump_show")
            cheated = sum(1 for s, m, _ in table.cheats if s == 0 and m == "dump_show")
            assert cheated <= sum(1 for s, m, _ in table.chances if s == 0 and m == "dump_show")
        # without the gainer at the table it never shows wrong
        _, alone, _ = _events([("d", _helper("dump_show", p)), ("x", Role("smart")), ("y", Role("weak"))], 5)
        assert not any(e["type"] == "declaration" and e["seat"] == 0 and not e["valid"] for e in alone)
    assert wrong[1.0] / chances[1.0] > 0.6
    assert 0.05 < wrong[0.3] / chances[0.3] < 0.5


def test_a_timeout_folder_lets_the_clock_run_out_and_a_leaver_leaves_while_the_gainer_plays():
    missed = 0
    for seed in range(2):
        seated = [("d", _helper("dump_timeout", 1.0)), ("g", Role("smart"))]
        _, events, _ = _events(seated, seed)
        missed += sum(1 for e in events if e["type"] == "turn_missed" and e["seat"] == 0)
        assert not any(e["type"] == "drop" and e["seat"] == 0 and e["reason"] == "drop" for e in events)
    assert missed >= 3
    _, alone, _ = _events([("d", _helper("dump_timeout", 1.0)), ("x", Role("smart"))], 0)
    assert not any(e["type"] == "turn_missed" for e in alone)
    seated = [("d", _helper("dump_leave", 1.0)), ("g", Role("smart")), ("x", Role("smart"))]
    _, events, _ = _events(seated, 2)
    assert [e["seat"] for e in events if e["type"] == "player_left"] == [0]


def test_a_bad_player_never_drops_nor_declares_while_its_gainer_is_in_and_loses_on_points():
    lost = 0
    for seed in range(3):
        seated = [("d", _helper("dump_play", 1.0)), ("g", Role("smart"))]
        _, events, _ = _events(seated, seed)
        for deal in _deals_with(events, 0, 1):
            assert not any(e["type"] == "drop" and e["seat"] == 0 and e["reason"] == "drop" for e in deal)
            assert not any(e["type"] == "declaration" and e["seat"] == 0 for e in deal)
            over = [e for e in deal if e["type"] == "scores"]
            lost += sum(1 for e in over if e["points"]["0"] >= 40)
    assert lost >= 3


def _feed_rate(role: Role, seeds: range) -> float:
    took = chances = 0
    for seed in seeds:
        seated = [("d", role), ("g", Role("smart"))]
        state, events, _ = _events(seated, seed)
        d = digest(events, ["d", "g"], [p.fees_paid for p in state.players], 1_000)
        assert d is not None
        feeds = d["pairs"]["d|g"]["feeds"]
        took, chances = took + feeds[0], chances + feeds[1]
    return took / chances


def test_a_feeders_partner_takes_its_discards_more_often_than_from_the_same_player_honest():
    assert _feed_rate(_helper("feed", 1.0), range(3)) > _feed_rate(Role("smart"), range(3)) + 0.05


def test_a_squeezer_never_discards_what_a_third_player_has_shown_it_collects():
    near = total = 0
    for seed in range(3):
        seated = [
            ("d", Role("smart", 0.0, "squeeze", 1.0, ("g",), ("g",))),
            ("g", Role("smart")),
            ("x", Role("grabby")),
        ]
        _, events, table = _events(seated, seed)
        collected: list[Any] = []
        for e in events:
            if e["type"] == "deal_started":
                collected = []
            elif e["type"] == "draw" and e["seat"] == 2 and e["source"] == "open":
                collected.append(e["card"])
            elif e["type"] == "discard" and e["seat"] == 0 and not e["auto"] and collected:
                total += 1
                near += _near(parse_card(e["card"]), parse_cards(collected))
        assert any(m == "squeeze" for _, m, _ in table.cheats)
    assert total >= 10 and near / total < 0.15


def test_a_ring_of_dumpers_moves_its_chips_to_the_one_gainer():
    net: Counter[str] = Counter()
    for seed in range(3):
        ring = ("r0", "r1", "r2")
        seated = [(r, Role("smart", 0.0, "dump_drop", 1.0, ("g",), ("g", *ring))) for r in ring]
        seated.append(("g", Role("smart")))
        state, events, _ = _events(seated, seed)
        d = digest(events, [p for p, _ in seated], [p.fees_paid for p in state.players], 1_000)
        assert d is not None
        net.update(d["net"])
    assert net["g"] > 0 and all(net[r] < 0 for r in ("r0", "r1", "r2"))


def test_honest_players_first_drop_about_their_own_share_of_hands():
    rng = random.Random(4)
    hands = []
    for _ in range(400):
        deck = build_packs(2)
        rng.shuffle(deck)
        hands.append((deck[:13], rng.randint(1, 13)))
    for rate in (0.1, 0.25):
        share = sum(poor_hand(h, w, rate) for h, w in hands) / len(hands)
        assert abs(share - rate) < 0.06
    assert not any(poor_hand(h, w, 0.0) for h, w in hands)


def test_the_schedule_brings_every_group_to_its_games_together_at_tables_of_two_to_six():
    pop = draw_population(3, groups=3, honest=8, friends=2, strong=1, newcomers=2)
    tables = schedule(pop, 3)
    assert all(2 <= len(t) <= 6 and len(set(t)) == len(t) for t in tables)
    for g in pop.groups:
        together = sum(1 for t in tables if len(set(t) & set(g.members)) >= 2)
        assert together >= GAMES_TOGETHER
    assert {g.method for g in pop.groups} <= set(METHODS)
    assert all(0.10 <= g.intensity <= 1.0 for g in pop.groups)
    friends = [t for t in tables if "f000a" in t and "f000b" in t]
    assert friends and any(len(t) == 2 for t in friends)


def _digest(players: list[str], net: dict[str, int]) -> dict[str, Any]:
    return {"players": players, "net": net, "fee": 1_000}


def _finding(signal: str, users: tuple[str, ...], flagged: bool = True) -> detect.Finding:
    return detect.Finding(signal=signal, users=users, figures={}, games=[], flagged=flagged)


def test_the_tracker_counts_detection_chips_and_false_flags_on_a_hand_made_case():
    ring = Group("c00", "dump_drop", 0.5, "2", ("a", "b", "g"), (("a", "g"), ("b", "g")))
    pop = Population(
        groups=[ring], group_of={p: ring for p in ring.members}, friend_of={"f1": "f2", "f2": "f1"}
    )
    for p in ("a", "b", "g", "h1", "h2", "f1", "f2"):
        pop.kind[p] = "colluder" if p in ring.members else "honest"
    t = Tracker(pop)
    t.add_game(_digest(["a", "g"], {"a": -1_000, "g": 900}))  # one fee from a to g
    t.add_game(_digest(["a", "b", "g", "h1"], {"a": -1_000, "b": -1_000, "g": 900, "h1": 900}))
    t.add_game(_digest(["f1", "f2", "h1"], {"f1": 1_800, "f2": -1_000, "h1": -1_000}))
    t.scan({detect.WIN_RATE: [_finding(detect.WIN_RATE, ("g",))], "x": [_finding("x", ("a", "h1"), False)]})
    t.add_game(_digest(["b", "g", "h2"], {"b": -1_000, "g": 1_800, "h2": -1_000}))
    t.scan({"ring": [_finding("ring", ("a", "b", "g"))], "feeding": [_finding("feeding", ("f1", "f2"))]})
    t.add_game(_digest(["a", "g"], {"a": -1_000, "g": 900}))
    t.scan({"ring": [_finding("ring", ("a", "b", "g"))], "soft_play": [_finding("soft_play", ("h1", "h2"))]})
    r = t.result(1)
    [g] = r.groups
    assert g.together == 4 and g.flagged_at == 3 and g.flagged_by == ["ring"]
    assert g.flow_at_flag == pytest.approx(1.0 + 0.5 + 0.5 + 1.0)
    assert g.flow == pytest.approx(4.0)
    assert r.pairs["friends"] == [1, 1]
    assert r.pairs["honest"] == [2, 0]  # h1-f1, h1-f2 played; h1-h2 never sat together
    assert r.pairs["colluder+other"][1] == 0
    assert (
        detected(r.groups, 3) == (1, 1)
        and detected(r.groups, 2) == (0, 1)
        and detected(r.groups, 10) == (0, 0)
    )
    lines = report([r])
    assert any("none among friends in every seed: not met" in line for line in lines)
    assert any("c00 dump_drop 50% 2: 3 (ring)" in line for line in lines)


def test_wilson_interval():
    lo, hi = wilson(8, 10)
    assert 0.49 < lo < 0.5 and 0.94 < hi < 0.95
    assert wilson(0, 0) == (0.0, 1.0)
