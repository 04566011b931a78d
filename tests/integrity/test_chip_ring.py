"""Chip flow as a graph (``integrity.chipflow``): accounts that each lose to one gainer too few
times for the pair signal are found as a ring, chips passed on A -> B -> C are found as a chain,
and a strong honest player whose weaker friends sit with them and lose is not a ring."""

from __future__ import annotations

from typing import Any

import pytest

from integrity import detect
from integrity.sums import Digests

from .test_signals import _game

FEE = 1_000
HONEST = [
    ("h1", "smart"),
    ("h2", "weak"),
    ("h3", "cautious"),
    ("h4", "grabby"),
    ("h5", "smart"),
    ("h6", "weak"),
]
#: fewer games together than chip dumping asks of one pair (``Thresholds.dump_min_games``)
PER_PAIR = 5


@pytest.fixture(scope="module")
def findings() -> dict[str, list[detect.Finding]]:
    games: list[tuple[int, dict[str, Any]]] = []

    def add(seats: list[tuple[str, str, str | None]]) -> None:
        games.append((len(games), _game(5000 + len(games), seats)))

    def honest_table(i: int, k: int) -> list[tuple[str, str, str | None]]:
        return [(HONEST[(i + j) % 6][0], HONEST[(i + j) % 6][1], None) for j in range(k)]

    for _ in range(PER_PAIR):  # a ring: three accounts losing heads-up to one gainer
        for d in ("d1", "d2", "d3"):
            add([(d, "dumper", "G"), ("G", "smart", d)])
    for _ in range(PER_PAIR):  # a chain: a loses to b, b to c
        add([("a", "dumper", "b"), ("b", "smart", "a")])
        add([("b", "dumper", "c"), ("c", "smart", "b")])
    for _ in range(PER_PAIR):  # honest: a strong player and weaker friends who sit with them
        for w in ("w1", "w2", "w3"):
            add([("S", "smart", None), (w, "weak", None)])
    for i in range(4):  # everyone's record apart
        for j, p in enumerate(("d1", "d2", "d3", "a", "b", "c", "G", "S")):
            add([(p, "smart", None), *honest_table(i + j, 2)])
        for w in ("w1", "w2", "w3"):
            add([(w, "weak", None), *honest_table(i, 1)])
    for i in range(10):
        add(honest_table(i, 3))
    return detect.run_all(games)


def _ring(findings: dict[str, list[detect.Finding]], hub: str) -> detect.Finding | None:
    return next((f for f in findings[detect.CHIP_RING] if f.users[0] == hub), None)


def test_a_ring_is_found_as_a_ring_though_no_pair_of_it_is(findings):
    ring = _ring(findings, "G")
    assert ring is not None and ring.flagged
    assert ring.figures["shape"] == "ring" and set(ring.figures["members"]) == {"d1", "d2", "d3"}
    assert ring.figures["net_fees"] >= 3 * PER_PAIR * 0.9
    assert {e["from"] for e in ring.figures["edges"]} == {"d1", "d2", "d3"}
    assert len(ring.games) == 3 * PER_PAIR  # the games behind every edge
    dumped = {frozenset(f.users) for f in findings[detect.CHIP_DUMPING] if f.flagged}
    assert not dumped & {frozenset({d, "G"}) for d in ("d1", "d2", "d3")}, "each pair alone is below the gate"


def test_chips_passed_on_are_found_as_a_chain(findings):
    chain = _ring(findings, "b")
    assert chain is not None and chain.flagged
    assert chain.figures["shape"] == "chain" and chain.figures["members"] == ["a", "b", "c"]
    assert chain.figures["passed_on_fees"] > 0


def test_a_strong_player_with_weaker_friends_is_not_a_ring(findings):
    flagged = [f for f in findings[detect.CHIP_RING] if f.flagged]
    assert all(f.users[0] in ("G", "b") for f in flagged), [f.users for f in flagged]
    honest = _ring(findings, "S")
    assert honest is not None and not honest.flagged  # read as a ring, and cleared


@pytest.mark.django_db
def test_a_flagged_ring_is_queued_under_its_gainer_and_each_member_is_linked(monkeypatch):
    from integrity import services as scan_services
    from integrity.models import AccountLink, Flag, SignalRow

    from .conftest import player

    gainer, m1, m2 = player("hub"), player("mule1"), player("mule2")
    figures = {
        "shape": "ring",
        "members": [str(m1.pk), str(m2.pk)],
        "sources": 2,
        "paid_games": 12,
        "net_fees": 11.0,
        "income_share": 0.9,
        "p_value": 1e-7,
        "edges": [],
    }
    ring = detect.Finding(detect.CHIP_RING, (str(gainer.pk), str(m1.pk), str(m2.pk)), figures, [], True, 7.0)
    monkeypatch.setitem(scan_services.detect.SIGNALS, detect.CHIP_RING, lambda s, t: [ring])
    run = scan_services.scan()
    assert run.flags_raised == 1 and run.links_made == 2
    links = {(link.user_a_id, link.user_b_id, link.source) for link in AccountLink.objects.all()}
    assert links == {(gainer.pk, m1.pk, "chips"), (gainer.pk, m2.pk, "chips")}
    flag = Flag.objects.get()
    assert (flag.signal, flag.user_a, flag.user_b) == ("chip_ring", gainer, None)
    assert "mule1, mule2" in flag.summary and "11.0 entry fees" in flag.summary
    row = SignalRow.objects.get(signal="chip_ring")
    assert row.user_a == gainer and row.figures["member_names"] == ["mule1", "mule2"]
    scan_services.scan()  # kept true under the hub, not raised again
    assert Flag.objects.count() == 1 and Flag.objects.get().open


def _edge(loser: str, gainer: str, paid: int, fees: float) -> Any:
    from integrity.chipflow import Edge
    from integrity.sums import Pair

    pair = Pair()
    pair.paid = pair.n = paid
    return Edge(loser, gainer, pair, 0, fees, fees * FEE)


@pytest.mark.parametrize(("z_beyond", "flagged"), [(2.4, False), (7.0, True)])
def test_a_chain_is_as_strong_as_its_weaker_edge(monkeypatch, z_beyond: float, flagged: bool) -> None:
    """A heavy dumper's gainer who happened to lose a little to an honest player beyond it: the
    first edge overwhelming, the second a chance one (odds about 1e-2) is no chain; both strong is."""
    from integrity import chipflow

    into = {"B": [_edge("A", "B", 40, 30.0)], "C": [_edge("B", "C", 4, 1.2)]}
    z = {("A", "B"): 12.0, ("B", "C"): z_beyond}
    monkeypatch.setattr(chipflow, "edges", lambda s: into)
    monkeypatch.setattr(
        chipflow,
        "judge",
        lambda s, e, model, t, without: chipflow.Excess(0.5, 0.5 + z[(e.loser, e.gainer)], 1.0, 0, 0),
    )
    (found,) = chipflow.chains(Digests([]), detect.Thresholds(), None, 10)  # type: ignore[arg-type]
    users, figures, _, is_flagged, p = found
    assert users == ("B", "A", "C") and is_flagged is flagged, (p, figures)
