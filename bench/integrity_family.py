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
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from integrity.family import report, run  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--format", default="61", choices=["61", "101", "201"])
    parser.add_argument("--scan-every", type=int, default=25)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    results = []
    for seed in args.seeds:
        started = time.perf_counter()

        def progress(n: int, total: int, started: float = started, seed: int = seed) -> None:
            print(f"  seed {seed}: {n}/{total} games, {time.perf_counter() - started:.0f} s", file=sys.stderr)

        results.append(
            run(seed, fmt=args.format, scan_every=args.scan_every, workers=args.workers, progress=progress)
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
