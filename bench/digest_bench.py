"""CPU time to digest one finished game, with and without weighing the discards taken.

    .venv/bin/python bench/digest_bench.py [--games 40] [--format 61]

The scan digests each game once, when it finishes (``integrity.digest_store.digest_new_games``).
Weighing what each taken discard cost its thrower (``integrity.discard_cost``) replays every deal
and runs a best-arrangement search per card of the thrower's hand. This plays ``--games`` seeded
games between bots (2 to 6 seats) and prints the median and 90th percentile CPU milliseconds of
``digest`` per game on the log as stored (seeds revealed) and on a spectator's log (no seed: the
cost is not weighed), and the taken discards weighed per game.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from game_engine.bots import SMART, play_game  # noqa: E402
from game_engine.events import events_for_spectators, to_wire  # noqa: E402
from game_engine.formats import make_rules  # noqa: E402
from integrity.digest import digest  # noqa: E402


def _timed(events: list[dict[str, Any]], ids: list[str]) -> tuple[float, dict[str, Any]]:
    """CPU milliseconds of one digest, and the digest."""
    start = time.process_time()
    d = digest(events, ids, [0] * len(ids), 0)
    ms = (time.process_time() - start) * 1000
    assert d is not None
    return ms, d


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--format", default="61", choices=["61", "101", "201"])
    args = parser.parse_args()
    weighed, plain, taken = [], [], []
    for seed in range(args.games):
        seats = 2 + seed % 5
        _, events = play_game(make_rules(args.format, max_players=6), seats, seed, SMART)
        wire = [to_wire(e) for e in events]  # type: ignore[arg-type]
        spectators = events_for_spectators(wire)
        ids = [f"p{i}" for i in range(seats)]
        ms, d = _timed(wire, ids)
        weighed.append(ms)
        plain.append(_timed(spectators, ids)[0])
        taken.append(sum(g[1] for g in d["given"].values()))

    def row(name: str, ms: list[float]) -> str:
        p90 = statistics.quantiles(ms, n=10)[-1]
        return f"{name:<28} median {statistics.median(ms):7.1f} ms   p90 {p90:7.1f} ms"

    print(f"{args.games} games of {args.format} pool, 2-6 seats, smart bots")
    print(row("digest, discards weighed", weighed))
    print(row("digest, no seed (not)", plain))
    print(f"taken discards weighed a game: median {statistics.median(taken):.0f}, max {max(taken)}")


if __name__ == "__main__":
    main()
