"""The fair-play signals measured on colluders drawn from a family nobody tuned them to.

    .venv/bin/python bench/integrity_family.py --seeds 1 2 3

Each seed draws its own population (``integrity.family``: colluding groups with a random method,
intensity, ring size or chain; honest players who drop, friends, strong players, newcomers),
plays its games through the engine in two worker processes and scans every ``--scan-every``
finished games as an operator's scan runs (``integrity.detect.run_all`` over all games so far).
Printed: detection by method and intensity band at 10, 20, 50 and 100 games together (pooled
with 95 % Wilson intervals, and per seed), chips moved before the first flag, false flags among
honest pairs, friends and colluder-with-outsider pairs, and issue 38's targets, met or not.
No Django: the signals and the digests are pure Python.
"""

from __future__ import annotations

import argparse
import pickle
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from integrity import detect  # noqa: E402
from integrity.family import run  # noqa: E402
from integrity.family_report import report  # noqa: E402

Game = tuple[int, dict[str, Any] | None]


class Cached:
    """A seed's games as played, read from ``path`` if there, else played and written there."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __call__(self, count: int, games: Iterator[Game]) -> Iterator[Game]:
        if self.path.exists():
            with self.path.open("rb") as f:
                kept: list[Game] = pickle.load(f)
            if len(kept) == count:
                yield from kept
                return
        kept = []
        for game in games:
            kept.append(game)
            yield game
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("wb") as f:
            pickle.dump(kept, f)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--format", default="61", choices=["61", "101", "201"])
    parser.add_argument("--scan-every", type=int, default=25)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--cache",
        type=Path,
        help="keep each seed's digests here and read them back on the next run: the same play, "
        "scanned by the signals as they are now (delete it when the engine or the schemes change)",
    )
    parser.add_argument(
        "--threshold",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a flag rule other than its default (integrity.detect.Thresholds), e.g. feed_alpha=1e-4",
    )
    args = parser.parse_args()
    defaults = detect.Thresholds()
    thresholds = detect.Thresholds(
        **{
            k: int(v) if isinstance(getattr(defaults, k), int) else float(v)
            for k, v in (x.split("=", 1) for x in args.threshold)
        }
    )
    results = []
    for seed in args.seeds:
        started = time.perf_counter()

        def progress(n: int, total: int, started: float = started, seed: int = seed) -> None:
            print(f"  seed {seed}: {n}/{total} games, {time.perf_counter() - started:.0f} s", file=sys.stderr)

        cached = None if args.cache is None else Cached(args.cache / f"seed{seed}-{args.format}.pickle")
        results.append(
            run(
                seed,
                fmt=args.format,
                scan_every=args.scan_every,
                workers=args.workers,
                progress=progress,
                played=cached,
                thresholds=thresholds,
            )
        )
        print(f"seed {seed} done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    print(
        f"integrity family yardstick: seeds {' '.join(map(str, args.seeds))}, {args.format} pool, "
        f"a scan every {args.scan_every} finished games"
    )
    for line in report(results):
        print(line)


if __name__ == "__main__":
    main()
