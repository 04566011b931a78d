"""``python -m game_engine score`` (single hand and --jsonl)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

V01 = ["AH", "2H", "3H", "7S", "8S", "9S", "10S", "JS", "5D", "5C", "PJ", "QH", "QS"]
P03 = ["2H", "3H", "4H", "KS", "KD", "KC", "9C", "9D", "9S", "5D", "7C", "JH", "QS"]


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "game_engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def one_line(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    result = json.loads(lines[0])
    assert isinstance(result, dict)
    return result


def test_cli_score_valid_hand() -> None:
    proc = run("score", "--joker", "Q", *V01)
    assert proc.returncode == 0, proc.stderr
    result = one_line(proc)
    assert result["valid"] is True
    assert (result["points"], result["score"]) == (0, 0)
    assert sorted(c for grp in result["groups"] for c in grp) == sorted(V01)
    assert ["AH", "2H", "3H"] in result["groups"]


def test_cli_score_capped_and_cap_option() -> None:
    result = one_line(run("score", "--joker", "6", *P03))
    assert (result["valid"], result["points"], result["score"]) == (False, 89, 80)
    result = one_line(run("score", "--joker", "6", "--cap", "60", *P03))
    assert (result["points"], result["score"]) == (89, 60)


def test_cli_printed_joker_cut_makes_aces_wild() -> None:
    cards = ["AS", "AD", "2C", "3C", "4C", "7H", "8H", "10H", "JD", "QD", "KD", "5S", "5H"]
    assert one_line(run("score", "--joker", "PJ", *cards))["valid"] is True
    # with 9 wild instead, the two Aces are plain 10-point cards
    assert one_line(run("score", "--joker", "9", *cards))["valid"] is False


def test_cli_accepts_t_and_lowercase() -> None:
    cards = [c.lower().replace("10", "T") for c in V01]
    assert one_line(run("score", "--joker", "q", *cards))["valid"] is True


def test_cli_bad_card_is_an_error_line() -> None:
    proc = run("score", "--joker", "Q", *V01[:-1], "XX")
    assert proc.returncode == 1
    assert "error" in one_line(proc)


def test_cli_wrong_count_is_an_error_line() -> None:
    proc = run("score", "--joker", "Q", *V01[:-1])
    assert proc.returncode == 1
    assert "13" in one_line(proc)["error"]


def test_cli_usage_errors() -> None:
    assert run("score", *V01).returncode == 2  # no --joker
    assert run().returncode == 2  # no subcommand
    assert run("frobnicate").returncode == 2


def test_cli_jsonl_with_bad_lines_continues() -> None:
    lines = [
        json.dumps({"cards": V01, "joker": "Q"}),
        "{not json",
        json.dumps({"cards": V01[:5], "joker": "Q"}),
        json.dumps({"cards": [*V01[:-1], "1S"], "joker": "Q"}),
        json.dumps({"cards": V01}),
        json.dumps({"cards": V01, "joker": "Z"}),
        "",
        json.dumps({"cards": P03, "joker": "6"}),
        json.dumps([1, 2]),
    ]
    proc = run("score", "--jsonl", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr
    out = [json.loads(x) for x in proc.stdout.strip().splitlines()]
    assert len(out) == 8  # the blank line is skipped
    assert out[0]["valid"] is True and out[0]["points"] == 0
    for bad in out[1:6]:
        assert set(bad) == {"error"}, bad
    assert "joker" in out[4]["error"]
    assert (out[6]["points"], out[6]["score"]) == (89, 80)
    assert set(out[7]) == {"error"}


def test_cli_jsonl_respects_cap() -> None:
    proc = run("score", "--jsonl", "--cap", "60", stdin=json.dumps({"cards": P03, "joker": "6"}) + "\n")
    assert one_line(proc)["score"] == 60
