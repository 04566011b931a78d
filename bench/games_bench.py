"""Simulate whole pool games between the sensible bots through ``apply``.

python bench/games_bench.py --games 20 --players 6 --format 101
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from game_engine.bots import play_game  # noqa: E402
from game_engine.events import Event  # noqa: E402
from game_engine.formats import FORMATS, make_rules  # noqa: E402
from game_engine.game import GameState  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--format", default="101", choices=sorted(FORMATS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--strategy", default="smart", choices=["smart", "random"])
    args = parser.parse_args()

    rules = make_rules(args.format)
    applies = 0

    def count(_state: GameState, _events: list[Event]) -> None:
        nonlocal applies
        applies += 1

    deals = turns = splits = 0
    start = time.perf_counter()
    for g in range(args.games):
        state, events = play_game(
            rules, args.players, seed=args.seed + g, strategy=args.strategy, on_step=count
        )
        assert state.phase == "finished", f"game {g} did not finish"
        over = next(e for e in events if e.type == "game_over").data
        assert sum(over["payouts"].values()) + over["rake"] == state.fees_paid
        deals += state.deal_no
        turns += sum(1 for e in events if e.type == "turn")
        splits += over["split"] is not None
    elapsed = time.perf_counter() - start
    print(f"format {args.format}, {args.players} players, {args.games} games, strategy {args.strategy}")
    print(f"elapsed         {elapsed:.2f} s")
    print(f"games/second    {args.games / elapsed:.2f}")
    print(f"deals/game      {deals / args.games:.2f}")
    print(f"turns/second    {turns / elapsed:.0f}")
    print(f"applies/second  {applies / elapsed:.0f}  ({applies} applies)")
    print(f"ended by split  {splits}/{args.games}")


if __name__ == "__main__":
    main()
