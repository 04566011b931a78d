"""The scan over real games (event log to digest to signal rows and flags), and the review
queue: every decision a Game integrity user records is audited, and carried out."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Suspension
from integrity import services as scan_services
from integrity.models import AccountLink, Flag, GameDigest, PlayerWarning, SignalRow
from staff import integrity as fairplay
from staff.models import StaffAction
from tables import clock as table_clock
from tables import services
from tables.clock import OffsetClock
from tables.game import drivers, notify
from tables.models import Deal, GameEvent
from wallet.selectors import chip_balances

from .conftest import player

pytestmark = pytest.mark.django_db


def _flag(signal: str, a: Any, b: Any = None, **figures: Any) -> Flag:
    now = timezone.now()
    return Flag.objects.create(
        signal=signal,
        user_a=a,
        user_b=b,
        summary="test",
        figures=figures,
        games=[],
        raised_at=now,
        updated_at=now,
    )


def test_the_scan_digests_real_games_and_lists_the_pair(table, monkeypatch):
    asha, ravi = player("asha"), player("ravi")
    fake = OffsetClock()
    monkeypatch.setattr(table_clock, "now", fake.now)
    with notify.suppressed():
        for _ in range(2):
            services.table_join(table_id=table.pk, user=asha)
            seat = services.table_join(table_id=table.pk, user=ravi)
            services.game_timeout(game_id=seat.game_id, version=seat.game.version + 1)  # the start countdown
            fake.advance(60)
            services.game_timeout(
                game_id=seat.game_id, version=type(seat.game).objects.get(pk=seat.game_id).version
            )
            drivers.play_out(game_id=seat.game_id, clock=fake)
    run = scan_services.scan()
    assert run.games_digested == 2 and run.games_in_window == 2
    data = GameDigest.objects.first().data
    assert set(data["players"]) == {str(asha.pk), str(ravi.pk)}
    assert sum(data["net"].values()) < 0  # the rake
    # the log keeps each deal's revealed seed: the digest rebuilds the hands from it to weigh
    # the discards taken (integrity.discard_cost)
    overs = GameEvent.objects.filter(type="deal_over")
    assert overs.exists() and all(e.data.get("server_seed") for e in overs)
    assert all("given" in d.data for d in GameDigest.objects.all())
    row = SignalRow.objects.get(signal="chip_dumping")
    assert {row.user_a_id, row.user_b_id} == {asha.pk, ravi.pk} and len(row.games) == 2
    assert scan_services.scan().games_digested == 0  # each game is digested once


def test_a_flagged_chip_dumping_pair_is_linked_and_queued(monkeypatch):
    loser, gainer = player("loser"), player("gainer")
    finding = scan_services.detect.Finding(
        "chip_dumping",
        (str(loser.pk), str(gainer.pk)),
        {
            "net_fees": 9.0,
            "paid_games": 10,
            "gainer_ahead": 10,
            "loser_ahead": 0,
            "expected_share": 0.5,
            "p_value": 1e-4,
            "net_chips": 9000,
        },
        [],
        True,
        4.0,
    )
    monkeypatch.setitem(scan_services.detect.SIGNALS, "chip_dumping", lambda s, t: [finding])
    run = scan_services.scan()
    assert run.flags_raised == 1 and run.links_made == 1
    assert AccountLink.objects.get().source == "chips"
    flag = Flag.objects.get()
    assert (flag.user_a, flag.user_b, flag.open) == (loser, gainer, True)
    scan_services.scan()
    assert Flag.objects.count() == 1  # still the one open flag


def _audited(staff: Any, verb: str) -> StaffAction:
    return StaffAction.objects.get(actor=staff, verb=verb)


def test_cleared_clears_the_link_and_is_audited(investigator):
    a, b = player("a1"), player("b1")
    flag = _flag("shared", a, b, shared_devices=1)
    scan_services.links.link(a, b, source=AccountLink.Source.DEVICE)
    fairplay.decide_flag(
        staff=investigator, flag=flag, d=fairplay.Decision("cleared", "siblings, one laptop", clear_link=True)
    )
    flag.refresh_from_db()
    assert flag.decision == "cleared" and flag.decided_by == investigator
    assert not AccountLink.objects.get().active
    entry = _audited(investigator, "decide_flag")
    assert entry.reason == "siblings, one laptop" and entry.after["link_cleared"] is True


def test_warned_leaves_a_message_for_the_next_login_and_is_audited(investigator):
    a = player("a1")
    flag = _flag("win_rate", a)
    fairplay.decide_flag(
        staff=investigator, flag=flag, d=fairplay.Decision("warned", "lucky streak?", warning="Be fair.")
    )
    assert PlayerWarning.objects.get(user=a).message == "Be fair."
    assert _audited(investigator, "decide_flag").after["warning"] == "Be fair."


def test_suspended_suspends_through_the_staff_service_and_both_are_audited(investigator):
    a, b = player("a1"), player("b1")
    flag = _flag("feeding", a, b)
    fairplay.decide_flag(
        staff=investigator,
        flag=flag,
        d=fairplay.Decision("suspended", "fed 40 cards", suspend=(a, b), suspend_message="Under review."),
    )
    assert Suspension.objects.filter(user__in=[a, b]).count() == 2
    assert StaffAction.objects.filter(actor=investigator, verb="suspend_player").count() == 2
    assert _audited(investigator, "decide_flag").after["suspended"] == ["a1", "b1"]


def test_chips_reversed_moves_them_back_for_whoever_may_adjust(investigator, administrator):
    from django.contrib.auth.models import Group

    administrator.groups.add(Group.objects.get(name="Game integrity"))
    loser, gainer = player("loser", chips=1_000), player("gainer", chips=50_000)
    flag = _flag("chip_dumping", loser, gainer, net_chips=20_000)
    d = fairplay.Decision("reversed", "dumped 20 rupees", reverse_from=gainer, reverse_to=loser, amount=2_000)
    with pytest.raises(fairplay.StaffError):  # the integrity role moves no chips
        fairplay.decide_flag(staff=investigator, flag=flag, d=d)
    assert StaffAction.objects.filter(actor=investigator, verb="refused_adjust_wallet").exists()
    assert Flag.objects.get().open  # nothing was kept of the refused decision
    fairplay.decide_flag(staff=administrator, flag=flag, d=d)
    assert chip_balances(user=gainer)["cash"] == 48_000 and chip_balances(user=loser)["cash"] == 3_000
    assert StaffAction.objects.filter(actor=administrator, verb="adjust_wallet").count() == 2
    assert _audited(administrator, "decide_flag").after["reversed"]


def test_a_decided_flag_cannot_be_decided_again(investigator):
    flag = _flag("win_rate", player("a1"))
    fairplay.decide_flag(staff=investigator, flag=flag, d=fairplay.Decision("cleared", "skill"))
    with pytest.raises(fairplay.StaffError):
        fairplay.decide_flag(
            staff=investigator, flag=flag, d=fairplay.Decision("warned", "again", warning="x")
        )


def test_replaying_a_flags_deal_is_recorded_and_a_support_agent_may_not_decide(investigator, support, table):
    a, b = player("a1"), player("b1")
    services.table_join(table_id=table.pk, user=a)
    seat = services.table_join(table_id=table.pk, user=b)
    deal = Deal.objects.create(
        game=seat.game, number=1, started_at=timezone.now(), finished_at=timezone.now()
    )
    flag = _flag("soft_play", a, b)
    flag.games = [seat.game_id]
    flag.save()
    client = Client()
    client.force_login(investigator)
    answer = client.get(f"/admin/integrity/flag/{flag.pk}/replay/{deal.pk}/")
    # face up here, once recorded (the replay page shows staff only what the table saw)
    assert answer.status_code == 200 and 'id="face-up-note"' in answer.content.decode()
    entry = _audited(investigator, "view_replay")
    assert f"flag {flag.pk}" in entry.reason and entry.after["deal"] == 1
    assert entry.reason in answer.content.decode()

    helper = Client()
    helper.force_login(support)
    answer = helper.post(
        f"/admin/integrity/flag/{flag.pk}/decide/", {"decision": "cleared", "reason": "mine"}
    )
    assert answer.status_code == 403
    assert Flag.objects.get().open


def test_the_decision_form_records_a_decision(investigator):
    a, b = player("a1"), player("b1")
    flag = _flag("shared", a, b, shared_devices=1)
    client = Client()
    client.force_login(investigator)
    page = client.get(f"/admin/integrity/flag/{flag.pk}/change/")
    assert page.status_code == 200 and b"Record the decision" in page.content
    answer = client.post(
        f"/admin/integrity/flag/{flag.pk}/decide/", {"decision": "cleared", "reason": "a shared library PC"}
    )
    assert answer.status_code == 302
    assert Flag.objects.get().decision == "cleared"
    assert _audited(investigator, "decide_flag").reason == "a shared library PC"
