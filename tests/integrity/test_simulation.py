"""``manage.py simulate --collusion`` is seeded: the same arguments print the same figures."""

from __future__ import annotations

import io

from django.core.management import call_command


def _run(seed: int) -> list[str]:
    out = io.StringIO()
    call_command(
        "simulate",
        collusion=True,
        games=10,
        format="61",
        seed=seed,
        workers=1,
        pairs=1,
        honest=4,
        stdout=out,
        stderr=io.StringIO(),
    )
    return [line for line in out.getvalue().splitlines() if " games/s" not in line]


def test_the_collusion_simulation_prints_each_signals_rates_and_repeats_itself():
    first = _run(3)
    assert any(line.startswith("chip_dumping: detection rate") for line in first)
    assert any(line.startswith("soft_play: detection rate") for line in first)
    assert any(line.startswith("feeding: detection rate") and "false-flag rate" in line for line in first)
    assert any(line.startswith("win_rate:") for line in first)
    assert _run(3) == first
