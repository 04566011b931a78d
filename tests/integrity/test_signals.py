"""Each integrity signal on seeded games between bots (``game_engine.collusion``): the colluding
pair is found, honest players of every style are not (docs/integrity.md)."""

from __future__ import annotations

from typing import Any

import pytest

from game_engine.collusion import Plan, play_table
from game_engine.formats import make_rules
from integrity import detect
from integrity.digest import digest
from integrity.sums import Digests

FEE = 1_000


def _game(seed: int, seats: list[tuple[str, str, str | None]]) -> dict[str, Any]:
    rules = make_rules("61", max_players=6, entry_fee=FEE, rake_bp=1000)
    ids = [pid for pid, _, _ in seats]
    plans = [
        (pid, Plan(style, ids.index(partner) if partner in ids else None)) for pid, style, partner in seats
    ]
    state, events = play_table(rules, plans, seed)
    out = digest([e.to_dict() for e in events], ids, [p.fees_paid for p in state.players], FEE)
    assert out is not None
    return out


@pytest.fixture(scope="module")
def findings() -> dict[str, list[detect.Finding]]:
    """Seeded games: each colluding pair among honest bots, and the honest bots among themselves."""
    games: list[tuple[int, dict[str, Any]]] = []

    def add(seats: list[tuple[str, str, str | None]]) -> None:
        games.append((len(games), _game(1000 + len(games), seats)))

    for _ in range(12):  # chip dumping is done heads-up
        add([("dumper", "dumper", "gainer"), ("gainer", "smart", "dumper")])
    for i in range(10):
        add([("soft1", "soft", "soft2"), ("soft2", "soft", "soft1"), ("h_smart", "smart", None)])
        add([(f"soft{1 + i % 2}", "soft", None), ("h_smart2", "smart", None), ("h_weak", "weak", None)])
        add(
            [
                ("feeder", "feeder", "taker"),
                ("taker", "smart", "feeder"),
                (f"h_{'grabby' if i % 2 else 'cautious'}", "grabby" if i % 2 else "cautious", None),
            ]
        )
    for _ in range(6):  # honest players, also heads-up, who often meet
        add([("h_smart", "smart", None), ("h_cautious", "cautious", None), ("h_grabby", "grabby", None)])
        add([("h_smart", "smart", None), ("h_smart2", "smart", None)])
    return detect.run_all(games)


def _flagged(found: list[detect.Finding]) -> set[frozenset[str]]:
    return {frozenset(f.users) for f in found if f.flagged}


def _honest(pair: frozenset[str]) -> bool:
    return all(p.startswith("h_") for p in pair)


def test_chip_dumping_finds_the_dumper_and_its_gainer(findings):
    flagged = _flagged(findings[detect.CHIP_DUMPING])
    assert frozenset({"dumper", "gainer"}) in flagged
    row = next(f for f in findings[detect.CHIP_DUMPING] if set(f.users) == {"dumper", "gainer"})
    assert row.users == ("dumper", "gainer") and row.figures["net_fees"] >= 4
    assert not [p for p in flagged if _honest(p)]


def test_soft_play_finds_the_pair_that_folds_to_each_other(findings):
    flagged = _flagged(findings[detect.SOFT_PLAY])
    assert frozenset({"soft1", "soft2"}) in flagged
    assert not [p for p in flagged if _honest(p)], "the cautious player drops often with everyone"


def test_feeding_finds_the_feeder_and_its_taker(findings):
    flagged = _flagged(findings[detect.FEEDING])
    assert frozenset({"feeder", "taker"}) in flagged
    row = next(f for f in findings[detect.FEEDING] if f.flagged and set(f.users) == {"feeder", "taker"})
    assert row.users == ("feeder", "taker")
    assert not [p for p in flagged if _honest(p)], "the grabby player takes many discards from everyone"


def test_win_rate_flags_no_honest_player(findings):
    assert not [f.users for f in findings[detect.WIN_RATE] if f.flagged and f.users[0].startswith("h_")]


def test_a_winner_of_many_games_is_flagged_for_its_win_rate():
    sums = Digests(
        (
            i,
            {
                "players": ["ace", f"x{i}", f"y{i}"],
                "fee": FEE,
                "seats": 3,
                "net": {"ace": 1800, f"x{i}": -1000, f"y{i}": -1000},
                "won": {"ace": 1.0, f"x{i}": 0.0, f"y{i}": 0.0},
                "deals": {},
                "drops": {},
                "takes": {},
                "pairs": {},
            },
        )
        for i in range(40)
    )
    rows = {f.users[0]: f for f in detect.win_rate(sums, detect.Thresholds())}
    assert rows["ace"].flagged and not rows["x0"].flagged
