"""Team play (``integrity.detect.team_play``): two who play as a team against the rest of the
table, so that one of them beats the others far more often when the partner sits in, are flagged;
a strong player who beats everyone, with or without a friend, is not.

The games are digests built by hand (who won each game at which table), read by the signal as the
scan reads real digests: the signal's arithmetic, apart from any bot's play."""

from __future__ import annotations

import random
from typing import Any

from integrity import detect

FEE = 1_000


def _digest(players: list[str], winner: str) -> dict[str, Any]:
    k = len(players)
    pot = FEE * k * 9 // 10
    return {
        "v": 2,
        "players": players,
        "fee": FEE,
        "seats": k,
        "net": {p: (pot - FEE if p == winner else -FEE) for p in players},
        "won": {p: (1.0 if p == winner else 0.0) for p in players},
        "deals": {p: 3 for p in players},
        "drops": {p: 0 for p in players},
        "conceded": {p: {} for p in players},
        "chances": {p: 3 for p in players},
        "takes": {p: [1, 6] for p in players},
        "pairs": {},
    }


def _games(
    seed: int, team_games: int, win_with_partner: float, apart: int = 120
) -> list[tuple[int, dict[str, Any]]]:
    """Forty honest players at tables of four, a strong honest ``star`` with a friend, and a team
    (``t1`` with ``t2``) whose ``t1`` wins ``win_with_partner`` of their games together."""
    rng = random.Random(seed)
    honest = [f"h{i:02d}" for i in range(40)]
    games: list[tuple[int, dict[str, Any]]] = []

    def table(*fixed: str) -> list[str]:
        seated = list(fixed)
        while len(seated) < 4:
            p = rng.choice(honest)
            if p not in seated:
                seated.append(p)
        return seated

    def add(players: list[str], winner: str) -> None:
        games.append((len(games), _digest(players, winner)))

    for _ in range(600):  # honest tables: each seat wins one game in four
        seated = table()
        add(seated, rng.choice(seated))
    for _ in range(team_games):
        seated = table("t1", "t2")
        add(seated, "t1" if rng.random() < win_with_partner else rng.choice([p for p in seated if p != "t1"]))
    for p in ("t1", "t2"):  # each one's record apart: an ordinary player
        for _ in range(apart):
            seated = table(p)
            add(seated, rng.choice(seated))
    for _ in range(60):  # a strong honest player who wins half the time, with a friend or not
        seated = table("star", "pal") if rng.random() < 0.5 else table("star")
        add(seated, "star" if rng.random() < 0.5 else rng.choice([p for p in seated if p != "star"]))
    return games


def _flagged(found: dict[str, list[detect.Finding]]) -> set[frozenset[str]]:
    return {frozenset(f.users) for f in found[detect.TEAM_PLAY] if f.flagged}


def test_a_team_that_wins_against_the_table_together_is_flagged():
    found = detect.run_all(_games(1, team_games=100, win_with_partner=0.6))
    assert frozenset({"t1", "t2"}) in _flagged(found)
    row = next(f for f in found[detect.TEAM_PLAY] if set(f.users) == {"t1", "t2"})
    assert row.users[0] == "t1" and row.figures["won_by_each"][0] > 2 * row.figures["expected_each"][0]


def test_the_same_team_is_not_flagged_on_a_few_games():
    few = detect.run_all(_games(1, team_games=10, win_with_partner=0.6))
    assert frozenset({"t1", "t2"}) not in _flagged(few)


def test_a_strong_player_seen_little_apart_is_not_taken_for_a_team():
    """Skill and teamwork look alike without a record apart: a player who wins half the time and
    plays nearly always with one friend is judged as anyone might be, and not flagged."""
    found = detect.run_all(_games(3, team_games=150, win_with_partner=0.5, apart=4))
    assert frozenset({"t1", "t2"}) not in _flagged(found)


def test_honest_players_and_a_strong_one_with_a_friend_are_not_flagged():
    for seed in range(3):
        flagged = _flagged(detect.run_all(_games(10 + seed, team_games=100, win_with_partner=0.6)))
        assert flagged <= {frozenset({"t1", "t2"})}, flagged
