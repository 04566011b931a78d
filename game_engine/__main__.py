"""Command line: ``python -m game_engine score ...``.

``score --joker 7 10H JH QH ...`` prints one JSON line
``{"valid": bool, "points": int, "score": int, "groups": [["10H", "JH", "QH"], ...]}``
for the best arrangement of the 13 cards (loose cards in the last group).
``--joker`` is the rank of the cut card (A, 2..10, T, J, Q, K) or ``PJ`` when a
printed joker was cut (Aces are then wild). ``--cap`` caps ``score`` (default 80).

``score --jsonl`` reads one JSON object per line from stdin,
``{"cards": [...13 cards...], "joker": "7"}``, and writes one result line each; a bad
line gets ``{"error": "..."}`` and the run goes on (exit status 0).

Exit status: 0 on success, 1 when the single hand given on the command line is bad
(an ``{"error": ...}`` line is printed), 2 on a usage error.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from game_engine.arrange import best_arrangement
from game_engine.cards import parse_card, parse_rank, wild_rank_for_cut
from game_engine.errors import RummyError
from game_engine.melds import HAND_SIZE

DEFAULT_CAP = 80


def wild_rank_from_text(text: str) -> int:
    """``7`` → 7, ``PJ`` → 1 (a printed joker cut makes Aces wild, docs/rules.md §2)."""
    rank = parse_rank(text)
    return wild_rank_for_cut(parse_card("PJ")) if rank == 0 else rank


def score_hand(cards: Sequence[str], joker: str, cap: int = DEFAULT_CAP) -> dict[str, Any]:
    """Score 13 cards in notation; raises RummyError/ValueError on bad input."""
    hand = [parse_card(c) for c in cards]
    if len(hand) != HAND_SIZE:
        raise ValueError(f"a hand has {HAND_SIZE} cards, got {len(hand)}")
    arrangement = best_arrangement(hand, wild_rank_from_text(joker))
    return {
        "valid": arrangement.valid,
        "points": arrangement.points,
        "score": arrangement.score(cap),
        "groups": [[c.code for c in g] for g in arrangement.groups],
    }


def _line_result(line: str, cap: int) -> dict[str, Any]:
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        return {"error": f"malformed JSON: {exc}"}
    if not isinstance(obj, dict):
        return {"error": "each line must be a JSON object with 'cards' and 'joker'"}
    cards = obj.get("cards")
    joker = obj.get("joker")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        return {"error": "'cards' must be a list of card strings"}
    if joker is None:
        return {"error": "missing 'joker'"}
    if not isinstance(joker, str | int) or isinstance(joker, bool):
        return {"error": '\'joker\' must be a rank such as "7" or "PJ"'}
    try:
        return score_hand(cards, str(joker), cap)
    except (RummyError, ValueError) as exc:
        return {"error": str(exc)}


def _run_jsonl(stdin: TextIO, stdout: TextIO, cap: int) -> int:
    for line in stdin:
        if not line.strip():
            continue
        stdout.write(json.dumps(_line_result(line, cap)) + "\n")
    stdout.flush()
    return 0


def _cmd_score(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    if args.jsonl:
        if args.cards or args.joker is not None:
            parser.error("--jsonl reads hands from stdin: give no cards and no --joker")
        return _run_jsonl(sys.stdin, sys.stdout, args.cap)
    if args.joker is None:
        parser.error("--joker is required (a rank such as 7, or PJ)")
    try:
        result = score_hand(args.cards, args.joker, args.cap)
    except (RummyError, ValueError) as exc:
        print(json.dumps({"error": str(exc)}))
        return 1
    print(json.dumps(result))
    return 0


def _cmd_verify(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    """Recompute a deal's deck order from its seeds (docs/fairness.md): exit 0 ok, 1 mismatch."""
    from game_engine.fairness import verify

    try:
        with open(args.file, encoding="utf-8") as fh:
            record = json.load(fh)
    except (OSError, json.JSONDecodeError) as exc:
        print(f"error: cannot read {args.file}: {exc}", file=sys.stderr)
        return 2
    if not isinstance(record, dict):
        print("error: the file must hold one JSON object", file=sys.stderr)
        return 2
    ok, why = verify(record)
    print(("ok: " if ok else "mismatch: ") + why.removeprefix("ok: "))
    return 0 if ok else 1


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m game_engine", description="Pool rummy engine tools.")
    sub = parser.add_subparsers(dest="command", required=True)
    score = sub.add_parser("score", help="best arrangement and points of a 13-card hand (docs/rules.md §3-5)")
    score.add_argument("--joker", help="rank of the cut joker: A, 2..10, T, J, Q, K, or PJ (Aces wild)")
    score.add_argument("--cap", type=int, default=DEFAULT_CAP, help="full-count cap (default 80)")
    score.add_argument("--jsonl", action="store_true", help="read {cards, joker} objects from stdin")
    score.add_argument("cards", nargs="*", help="13 cards, e.g. 10H JH QH AS ...")
    score.set_defaults(handler=_cmd_score, subparser=score)
    verify = sub.add_parser(
        "verify",
        help="check a deal's claimed deck order against its seeds (docs/fairness.md); exit 0 ok, 1 mismatch",
    )
    verify.add_argument("file", help="JSON: {server_seed, client_seeds, deal_no, decks?, commitment?, order}")
    verify.set_defaults(handler=_cmd_verify, subparser=verify)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = args.handler
    code = handler(args, args.subparser)
    assert isinstance(code, int)
    return code


if __name__ == "__main__":
    sys.exit(main())
