"""Every way of losing on purpose counts (issue 38): a dumper who loses by wrong shows and a
folder who lets the clock run out are found like one who drops, and honest players who time
out or show wrong by accident, with everyone, are not.

The games are played through the real services (seating, ``tables.game.play.game_act``, the clock's
``timers.game_timeout``) between accounts; each account decides from its own view as a bot
would, the cheat's way of losing when its partner is in the deal. The scan digests them from
the event log and runs the signals, as in production.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import transaction

from accounts.models import User
from game_engine import deal as dl
from game_engine.actions import UNSTAMPED, Action, Draw, Finish, Rejoin
from game_engine.bots import choose_action
from game_engine.game import GameState
from game_engine.views import legal_actions, view_for
from integrity import services as scan_services
from integrity.digest import VERSION
from integrity.models import Flag, GameDigest, SignalRow
from tables import clock as table_clock
from tables import services
from tables.clock import OffsetClock
from tables.game import notify, play, timers
from tables.models import PoolGame, Seat, Table, TableSettings

from .conftest import player

#: How a seat plays: (state, own seat, partner's seat or None, rng) -> an action, or None to let
#: the clock run.
#: some forty whole games through the services, played once for the module
pytestmark = [pytest.mark.django_db, pytest.mark.slow]

Policy = Callable[[GameState, int, int | None, random.Random], Action | None]
_PASSIVE = frozenset({"arrange", "auto_drop", "im_back", "leave"})
GAMES_TOGETHER = 14


def _honest(state: GameState, seat: int, partner: int | None, rng: random.Random) -> Action | None:
    if _PASSIVE.issuperset(legal_actions(state, seat)):
        return None
    return choose_action(view_for(state, seat), state.rules, rng)


def _sloppy(state: GameState, seat: int, partner: int | None, rng: random.Random) -> Action | None:
    """An honest player with a poor connection and a careless hand, with everyone: one turn in
    six runs out, and now and then a finish is shown wrong."""
    legal = legal_actions(state, seat)
    if "draw" in legal and rng.random() < 1 / 6:
        return None
    if "finish" in legal and rng.random() < 0.08:
        return _wrong_finish(state, seat)
    return _honest(state, seat, partner, rng)


def _partner_in_deal(state: GameState, partner: int | None) -> bool:
    d = state.deal
    return partner is not None and d is not None and d.status.get(partner) == dl.PLAYING


def _wrong_finish(state: GameState, seat: int) -> Action:
    """A finish shown in groups of one card: an invalid show, the wrong-show penalty."""
    assert state.deal is not None
    hand = list(state.deal.hands[seat])
    return Finish(at=UNSTAMPED, seat=seat, card=hand[0], groups=tuple((c,) for c in hand[1:]))


def _wrong_shower(state: GameState, seat: int, partner: int | None, rng: random.Random) -> Action | None:
    """Loses on purpose to the partner by wrong shows: draws and declares a hand it does not
    hold whenever the partner is in the deal, and pays to rejoin to lose again."""
    legal = legal_actions(state, seat)
    if _partner_in_deal(state, partner):
        if "draw" in legal:
            return Draw(at=UNSTAMPED, seat=seat, source="closed")
        if "finish" in legal:
            return _wrong_finish(state, seat)
    if "rejoin" in legal and state.players[seat].rejoins < 2:
        return Rejoin(at=UNSTAMPED, seat=seat)
    return _honest(state, seat, partner, rng)


def _clock_folder(state: GameState, seat: int, partner: int | None, rng: random.Random) -> Action | None:
    """Loses on purpose to the partner by the clock: never moves while the partner is in the
    deal, so its turns are missed and it is dropped for them."""
    if _partner_in_deal(state, partner) and "draw" in legal_actions(state, seat):
        return None
    return _honest(state, seat, partner, rng)


def _play(table: Table, seated: list[tuple[User, Policy]], clock: OffsetClock, rng: random.Random) -> int:
    """One whole game at ``table`` between ``seated``, each moving by its policy; the game id."""
    seat = None
    for user, _ in seated:
        seat = services.table_join(table_id=table.pk, user=user)
    assert seat is not None
    game_id = seat.game_id
    services.game_timeout(game_id=game_id, version=seat.game.version + 1)  # the start countdown
    clock.advance(60)
    services.game_timeout(game_id=game_id, version=PoolGame.objects.get(pk=game_id).version)
    engine = dict(Seat.objects.filter(game_id=game_id).values_list("user_id", "engine_seat"))
    plans = [(user, engine[user.pk], policy) for user, policy in seated]
    for _ in range(20_000):
        game = PoolGame.objects.get(pk=game_id)
        if game.status != PoolGame.Status.RUNNING:
            return game_id
        state = GameState.from_dict(game.state)
        for user, mine, policy in plans:
            partner = next((s for u, s, _ in plans if u != user), None) if len(plans) == 2 else None
            action = policy(state, mine, partner, rng)
            if action is not None:
                answer = play.game_act(
                    game_id=game_id, user=user, request_id=f"t:{game_id}:{game.version}", action=action
                )
                assert answer["ok"], answer
                break
        else:
            assert game.deadline_at is not None
            wait = (game.deadline_at - clock.now()).total_seconds()
            if wait > 0:
                clock.advance(wait + 0.001)
            timers.game_timeout(game_id=game_id, version=game.version)
    raise AssertionError(f"game {game_id} did not finish")


@pytest.fixture(scope="module")
def scanned(django_db_setup: None, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """The games, played once for the module (rolled back after it), and one scan over them."""
    with django_db_blocker.unblock(), transaction.atomic(), pytest.MonkeyPatch.context() as mp:
        clock = OffsetClock()
        mp.setattr(table_clock, "now", clock.now)
        kind = TableSettings.objects.create(name="Heads-up 61", format="61", entry_fee=1_000, seats=2)
        table = Table.objects.create(settings=kind, name="Conceding table")
        names = ("shower", "gainer", "folder", "waiter", "careless", "friend", "other")
        users = {name: player(name, chips=1_000_000) for name in names}
        rng = random.Random(38)
        # the games' seeds and the deals' server seeds from the same stream: the module's games are
        # the same at every run (drawn by the secrets module, they differed, and so did what the
        # scan found)
        mp.setattr(secrets, "token_hex", lambda n=32: rng.randbytes(n).hex())
        mp.setattr(secrets, "randbits", rng.getrandbits)
        pairs: list[tuple[str, Policy, str, Policy]] = [
            ("shower", _wrong_shower, "gainer", _honest),
            ("folder", _clock_folder, "waiter", _honest),
            ("careless", _sloppy, "friend", _sloppy),  # honest, with the same number of games
        ]
        apart = {"shower": _honest, "folder": _honest, "careless": _sloppy, "friend": _sloppy}
        with notify.suppressed():
            for a, pa, b, pb in pairs:
                for i in range(GAMES_TOGETHER):
                    order = [(users[a], pa), (users[b], pb)]
                    _play(table, order if i % 2 else order[::-1], clock, rng)
            for name, policy in apart.items():  # each one's record apart from the partner
                for _ in range(3):
                    _play(table, [(users[name], policy), (users["other"], _honest)], clock, rng)
            run = scan_services.scan()
        ids = {u.pk: name for name, u in users.items()}
        rows = {
            (r.signal, ids[r.user_a_id], ids[r.user_b_id]): r for r in SignalRow.objects.exclude(user_b=None)
        }
        flags = {(f.signal, ids[f.user_a_id], ids[f.user_b_id]) for f in Flag.objects.exclude(user_b=None)}
        digests = [g.data for g in GameDigest.objects.all()]
        yield {"run": run, "rows": rows, "flags": flags, "digests": digests}
        transaction.set_rollback(True)


def _flagged(scanned: dict[str, Any], signal: str, a: str, b: str) -> bool:
    return (signal, a, b) in scanned["flags"] or (signal, b, a) in scanned["flags"]


def _row(scanned: dict[str, Any], signal: str, a: str, b: str) -> SignalRow:
    return scanned["rows"].get((signal, a, b)) or scanned["rows"][(signal, b, a)]


def test_the_digest_counts_wrong_shows_and_timeouts(scanned):
    assert all(d["v"] == VERSION for d in scanned["digests"])
    row = _row(scanned, "soft_play", "shower", "gainer")
    assert row.figures["ways_together"].get("wrong_show", 0) >= 20
    row = _row(scanned, "soft_play", "folder", "waiter")
    assert row.figures["ways_together"].get("timeout", 0) >= 10


def test_a_wrong_show_dumper_is_flagged_for_chip_dumping_and_soft_play(scanned):
    assert _flagged(scanned, "chip_dumping", "shower", "gainer")
    assert _flagged(scanned, "soft_play", "shower", "gainer"), _row(
        scanned, "soft_play", "shower", "gainer"
    ).figures


def test_a_timeout_folder_is_flagged_for_soft_play_and_chip_dumping(scanned):
    assert _flagged(scanned, "soft_play", "folder", "waiter")
    assert _flagged(scanned, "chip_dumping", "folder", "waiter")


def test_honest_players_who_time_out_and_show_wrong_with_everyone_are_not_flagged(scanned):
    ways = _row(scanned, "soft_play", "careless", "friend").figures
    assert ways["conceded_together"] > 0  # they did concede, by accident
    for signal in ("chip_dumping", "soft_play"):  # the signals that read conceding
        assert not _flagged(scanned, signal, "careless", "friend")


def test_a_scan_digests_again_the_games_an_older_digest_counted(monkeypatch):
    """A new digest VERSION (a way of conceding added) is read from every game of the window at
    the next scan, not only from games finished after it."""
    clock = OffsetClock()
    monkeypatch.setattr(table_clock, "now", clock.now)
    kind = TableSettings.objects.create(
        name="Heads-up 61, old digests", format="61", entry_fee=1_000, seats=2
    )
    table = Table.objects.create(settings=kind, name="Old digests")
    asha, ravi = player("asha"), player("ravi")
    with notify.suppressed():
        game_id = _play(table, [(asha, _clock_folder), (ravi, _honest)], clock, random.Random(1))
        assert scan_services.scan().games_digested == 1
        row = GameDigest.objects.get(game_id=game_id)
        fresh = row.data
        old = {k: v for k, v in fresh.items() if k not in ("conceded", "chances")}
        old["v"] = 1
        old["pairs"] = {
            k: {"deals": v["deals"], "drops": v["drops"], "feeds": v["feeds"]}
            for k, v in fresh["pairs"].items()
        }
        GameDigest.objects.filter(pk=row.pk).update(data=old)
        assert scan_services.scan().games_digested == 1
    assert GameDigest.objects.get(game_id=game_id).data == fresh
    assert fresh["conceded"][str(asha.pk)]["timeout"] >= 1
    assert scan_services.scan().games_digested == 0  # once
