"""The verifiable shuffle (docs/fairness.md): the stated algorithm, the worked example,
commit-then-reveal over whole bot games, and tampering caught."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from game_engine import fairness
from game_engine.bots import play_game
from game_engine.events import DealOver, DealStarted, Event
from game_engine.formats import make_rules
from game_engine.game import GameState, apply, new_game
from game_engine.views import views_for_all

ROOT = Path(__file__).resolve().parents[2]
SEED = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"


def _example() -> dict[str, Any]:
    text = (ROOT / "docs" / "fairness.md").read_text(encoding="utf-8")
    m = re.search(r"<!-- example:begin -->\n```json\n(.*?)```\n<!-- example:end -->", text, flags=re.S)
    assert m is not None, "docs/fairness.md lost its worked example"
    return dict(json.loads(m.group(1)))


def test_the_worked_example_in_the_docs_is_what_the_code_computes() -> None:
    ex = _example()
    assert fairness.commitment(ex["server_seed"]) == ex["commitment"]
    msg = ("deal|" + "|".join(ex["client_seeds"]) + f"|{ex['deal_no']}|0").encode()
    block = hmac.new(bytes.fromhex(ex["server_seed"]), msg, hashlib.sha256).hexdigest()
    assert block == ex["first_block"]
    order = fairness.deck_order(ex["server_seed"], ex["client_seeds"], ex["deal_no"], ex["decks"])
    assert order[:10] == ex["first_ten"]
    assert sorted(order) == sorted(c.code for c in fairness.build_packs(2))


def _reference_order(server_seed: str, seeds: list[str], deal_no: int) -> list[str]:
    """docs/fairness.md reimplemented from the text alone (not through fairness.Stream)."""
    words: list[int] = []
    counter = 0
    deck = [r + s for s in "SHDC" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]] + ["PJ"]
    deck = deck * 2

    def below(n: int) -> int:
        nonlocal counter
        while True:
            if not words:
                msg = f"deal|{'|'.join(seeds)}|{deal_no}|{counter}".encode()
                block = hmac.new(bytes.fromhex(server_seed), msg, hashlib.sha256).digest()
                words.extend(int.from_bytes(block[k : k + 4], "big") for k in range(0, 32, 4))
                counter += 1
            w = words.pop(0)
            if w < 2**32 - 2**32 % n:
                return w % n

    for i in range(len(deck) - 1, 0, -1):
        j = below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


@pytest.mark.parametrize("deal_no", [1, 2, 7])
def test_the_text_of_the_algorithm_gives_the_same_order(deal_no: int) -> None:
    seeds = ["x", "Y_2", "z-3", "0"]
    assert fairness.deck_order(SEED, seeds, deal_no) == _reference_order(SEED, seeds, deal_no)


def test_rejection_sampling_skips_words_at_or_above_the_limit() -> None:
    s = fairness.Stream(SEED, ["a"], 1)
    words = iter([2**32 - 1, 2**32 - 4, 7])  # 2**32 % 6 == 4: the limit is 2**32 - 4
    s._words = words  # a stream whose first two words fall in the biased tail for n=6
    assert s.below(6) == 7 % 6


def test_every_seed_and_the_deal_number_change_the_order() -> None:
    base = fairness.deck_order(SEED, ["a", "b"], 1)
    assert fairness.deck_order(SEED.replace("00", "01", 1), ["a", "b"], 1) != base
    assert fairness.deck_order(SEED, ["a", "c"], 1) != base
    assert fairness.deck_order(SEED, ["b", "a"], 1) != base
    assert fairness.deck_order(SEED, ["a", "b"], 2) != base


def _record(**over: Any) -> dict[str, Any]:
    rec: dict[str, Any] = {"server_seed": SEED, "client_seeds": ["a", "b"], "deal_no": 3}
    rec["order"] = fairness.deck_order(SEED, ["a", "b"], 3)
    rec["commitment"] = fairness.commitment(SEED)
    rec.update(over)
    return rec


def test_verify_accepts_the_true_order_and_flags_every_tampering() -> None:
    assert fairness.verify(_record())[0]
    swapped = list(_record()["order"])
    swapped[0], swapped[1] = swapped[1], swapped[0]
    if swapped[0] == swapped[1]:  # pragma: no cover - two copies of one card
        swapped[0], swapped[2] = swapped[2], swapped[0]
    assert not fairness.verify(_record(order=swapped))[0]
    other = "f" + SEED[1:]
    assert not fairness.verify(_record(server_seed=other))[0]  # fails the commitment
    assert not fairness.verify(_record(server_seed=other, commitment=fairness.commitment(other)))[0]
    assert not fairness.verify(_record(client_seeds=["a", "B"]))[0]
    assert not fairness.verify(_record(deal_no=4))[0]
    assert not fairness.verify(_record(order=_record()["order"][:-1]))[0]
    assert not fairness.verify({"server_seed": "nope"})[0]


def test_cli_verify_exit_codes(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.json", tmp_path / "bad.json"
    good.write_text(json.dumps(_record()))
    rec = _record()
    rec["order"] = list(reversed(rec["order"]))
    bad.write_text(json.dumps(rec))
    run = [sys.executable, "-m", "game_engine", "verify"]
    ok = subprocess.run([*run, str(good)], capture_output=True, text=True, cwd=ROOT, check=False)
    assert ok.returncode == 0 and ok.stdout.startswith("ok"), ok.stdout + ok.stderr
    no = subprocess.run([*run, str(bad)], capture_output=True, text=True, cwd=ROOT, check=False)
    assert no.returncode == 1 and no.stdout.startswith("mismatch"), no.stdout + no.stderr


def _check_game(n: int, seed: int, fmt: str = "101") -> int:
    """Play a whole bot game; check every deal against its revealed seeds. Returns the deals seen."""
    dealt: dict[int, tuple[list[str], str, list[str]]] = {}
    revealed: dict[int, DealOver] = {}
    secrets_live: dict[int, str] = {}

    def on_step(state: GameState, evs: list[Event]) -> None:
        for e in evs:
            if isinstance(e, DealStarted):
                d = state.deal
                assert d is not None and d.deal_no == e.deal_no
                deck = fairness.dealt_deck(d.hands, d.order, d.cut_joker, d.open_pile[0], d.closed)
                dealt[e.deal_no] = (deck, e.commitment, e.client_seeds)
                secrets_live[e.deal_no] = d.server_seed
            if isinstance(e, DealOver):
                revealed[e.deal_no] = e
                secrets_live.pop(e.deal_no, None)
        # Before its deal is over, a deal's seed is in no view and no event.
        wire = json.dumps(
            [views_for_all(state), [ev.to_dict() for ev in evs if not isinstance(ev, DealOver)]]
        )
        for secret in secrets_live.values():
            assert secret not in wire

    rules = make_rules(fmt)
    state, events = play_game(rules, n, seed, on_step=on_step)
    assert dealt and set(dealt) == set(revealed)
    for no, (deck, commit, seeds) in dealt.items():
        over = revealed[no]
        assert fairness.commitment(over.server_seed) == commit == over.commitment
        assert over.client_seeds == seeds
        assert fairness.deck_order(over.server_seed, over.client_seeds, no, rules.decks) == deck
    return len(dealt)


@pytest.mark.parametrize(("n", "seed"), [(2, 11), (3, 12), (6, 13)])
def test_every_deal_of_whole_bot_games_follows_from_its_revealed_seeds(n: int, seed: int) -> None:
    assert _check_game(n, seed) >= 1


def test_injected_client_seeds_are_used_and_marked_not_generated() -> None:
    rules = make_rules("101")
    state = new_game(rules, [("a", "A"), ("b", "B")], 5, at=0, client_seeds=["mine", None])
    assert [p.client_seed_generated for p in state.players] == [False, True]
    state.next_server_seed = SEED
    new, evs = apply(state, {"type": "start_deal", "at": 0})
    started = next(e for e in evs if isinstance(e, DealStarted))
    assert started.client_seeds[0] == "mine" and started.commitment == fairness.commitment(SEED)
    d = new.deal
    assert d is not None
    deck = fairness.dealt_deck(d.hands, d.order, d.cut_joker, d.open_pile[0], d.closed)
    assert deck == fairness.deck_order(SEED, started.client_seeds, 1)
    fair = views_for_all(new)["0"]["fairness"]
    assert fair["commitment"] == fairness.commitment(SEED) and SEED not in json.dumps(views_for_all(new))
    assert fair["client_seeds"][0] == {"seat": 0, "seed": "mine", "generated": False}
    assert fair["client_seeds"][1]["generated"] is True


def test_a_client_seed_action_sets_the_seed_for_the_next_deal_and_bad_seeds_are_refused() -> None:
    from game_engine.errors import IllegalActionError

    state = new_game(make_rules("101"), [("a", "A"), ("b", "B")], 5, at=0)
    new, _ = apply(state, {"type": "client_seed", "seat": 1, "seed": "chosen-1", "at": 0})
    assert new.players[1].client_seed == "chosen-1" and not new.players[1].client_seed_generated
    for bad in ["", "a|b", "x" * 65, 7, None]:
        with pytest.raises(IllegalActionError):
            apply(state, {"type": "client_seed", "seat": 1, "seed": bad, "at": 0})


def test_the_benchmarks_own_chi_square_p_values_match_known_quantiles() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("shuffle_bench", ROOT / "bench" / "shuffle_bench.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    q = bench._gammainc_q
    # Upper 5% points of chi-square (tables): df 1 -> 3.841, df 100 -> 124.342; df 2 is exp(-x/2).
    assert q(0.5, 3.841 / 2) == pytest.approx(0.05, abs=1e-4)
    assert q(50, 124.342 / 2) == pytest.approx(0.05, abs=1e-4)
    assert q(1, 3.0) == pytest.approx(math.exp(-3.0), rel=1e-9)
    assert q(2756, 5512 / 2) == pytest.approx(0.5, abs=0.01)
