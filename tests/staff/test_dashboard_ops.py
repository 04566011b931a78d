"""The dashboard for operations (issue 27): overdue timers and stuck games listed with links, "today"
in the operator's time zone, a rake chart with axes and a value per day, and the ledger's last
nightly verdict (the full check never runs on a page load)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from staff import dashboard
from tables.models import GameEvent, PoolGame
from tests.tables.conftest import make_player, make_table
from wallet import tasks
from wallet.models import Entry, LedgerCheck, LedgerTransaction
from wallet.services import house_account, issuance_account, pay_entry, settle_game

pytestmark = pytest.mark.django_db
ClientFor = Callable[[User], Client]


def _game(status: str, **fields: Any) -> PoolGame:
    table = make_table()
    return PoolGame.objects.create(table=table, status=status, **fields)


def test_overdue_timers_and_stuck_games_are_listed_with_links(
    support: User, client_for: ClientFor, settings: Any
) -> None:
    now = timezone.now()
    late = _game("running", deadline_at=now - timedelta(minutes=3), deadline_kind="turn", started_at=now)
    GameEvent.objects.create(game=late, version=1, seq=1, type="turn")
    on_time = _game("running", deadline_at=now + timedelta(seconds=20), deadline_kind="turn", started_at=now)
    GameEvent.objects.create(game=on_time, version=1, seq=1, type="turn")
    no_deadline = _game("running", deadline_at=None, started_at=now)
    GameEvent.objects.create(game=no_deadline, version=1, seq=1, type="turn")
    silent = _game("running", deadline_at=now + timedelta(seconds=20), started_at=now - timedelta(hours=2))
    event = GameEvent.objects.create(game=silent, version=1, seq=1, type="turn")
    GameEvent.objects.filter(pk=event.pk).update(
        created_at=now - timedelta(minutes=settings.STUCK_GAME_MINUTES + 5)
    )
    _game("finished", deadline_at=now - timedelta(hours=1))  # a finished game is neither
    page = client_for(support).get(reverse("staff-dashboard")).content.decode()
    assert 'id="timers-overdue">1<' in page and 'id="games-stuck">2<' in page
    overdue = page[page.index('id="overdue-list"') : page.index("</table>", page.index('id="overdue-list"'))]
    assert reverse("admin:tables_poolgame_change", args=[late.pk]) in overdue and "3 min" in overdue
    assert reverse("admin:tables_poolgame_change", args=[on_time.pk]) not in overdue
    stuck = page[page.index('id="stuck-list"') : page.index("</table>", page.index('id="stuck-list"'))]
    for game in (no_deadline, silent):
        assert reverse("admin:tables_poolgame_change", args=[game.pk]) in stuck
    assert "no deadline set" in stuck and "no event for" in stuck
    assert reverse("admin:tables_poolgame_change", args=[on_time.pk]) not in stuck


def test_today_is_the_operators_day(settings: Any) -> None:
    settings.OPERATOR_TIME_ZONE = "Asia/Kolkata"
    at = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)  # 01:30 on 2 March in India
    assert dashboard.operator_today(at) == datetime(2026, 3, 2, tzinfo=dashboard.operator_zone())
    settings.OPERATOR_TIME_ZONE = "UTC"
    assert dashboard.operator_today(at) == datetime(2026, 3, 1, tzinfo=UTC)


def test_rake_is_counted_on_the_operators_day(settings: Any) -> None:
    """Rake taken at 20:00 UTC on 1 March is 01:30 on 2 March in India: the chart's days follow
    OPERATOR_TIME_ZONE."""
    house, issuance = house_account(), issuance_account()
    at = datetime(2026, 3, 1, 20, 0, tzinfo=UTC)
    tx = LedgerTransaction.objects.create(
        kind="rake", idempotency_key="rake-at-night", fingerprint="x", created_at=at
    )
    Entry.objects.create(transaction=tx, account=house, amount=200, balance_after=200)
    Entry.objects.create(transaction=tx, account=issuance, amount=-200, balance_after=-200)
    now = datetime(2026, 3, 2, 5, 0, tzinfo=UTC)
    settings.OPERATOR_TIME_ZONE = "Asia/Kolkata"
    india = dashboard.rake_by_day(now=now)
    assert india[-1] == (date(2026, 3, 2), 200) and india[-2] == (date(2026, 3, 1), 0)
    settings.OPERATOR_TIME_ZONE = "UTC"
    utc = dashboard.rake_by_day(now=now)
    assert utc[-1] == (date(2026, 3, 2), 0) and utc[-2] == (date(2026, 3, 1), 200)


def test_rake_read_from_the_house_balance_at_each_midnight_matches_the_sum_of_its_entries(
    require_postgres: None, settings: Any
) -> None:
    """The PostgreSQL path (the house's running balance at each midnight, by index) against the
    plain sum of the rake entries of each day, over rake taken at many times of 40 days (written
    in time order, as the ledger is)."""
    settings.OPERATOR_TIME_ZONE = "Asia/Kolkata"
    house, issuance = house_account(), issuance_account()
    now = datetime(2026, 3, 31, 12, 0, tzinfo=UTC)
    balance = 0
    for n in reversed(range(75)):
        at = now - timedelta(hours=13 * n, minutes=7)
        amount = 100 + 7 * n
        balance += amount
        tx = LedgerTransaction.objects.create(
            kind="rake", idempotency_key=f"r{n}", fingerprint="x", created_at=at
        )
        Entry.objects.create(transaction=tx, account=house, amount=amount, balance_after=balance)
        Entry.objects.create(transaction=tx, account=issuance, amount=-amount, balance_after=-balance)
    start = dashboard.operator_today(now) - timedelta(days=29)
    by_balance = dashboard.rake_by_day(now=now)
    summed = dashboard.rake_summed(start=start, days=30)
    assert by_balance == summed
    assert sum(v for _, v in by_balance) > 0 and sum(1 for _, v in by_balance if v) >= 25


def test_the_rake_chart_has_axes_labels_and_a_value_per_day(
    administrator: User, client_for: ClientFor
) -> None:
    players = [make_player(n) for n in ("asha", "ravi")]
    for p in players:
        pay_entry(user=p, game_ref="game:902", amount=10_000, idempotency_key=f"fee:{p.pk}")
    settle_game(
        game_ref="game:902", payouts={players[0].pk: 18_000}, rake=2_000, idempotency_key="settle-902"
    )
    page = client_for(administrator).get(reverse("staff-dashboard")).content.decode()
    chart = page[
        page.index('<svg id="rake-chart"') : page.index("</svg>", page.index('<svg id="rake-chart"'))
    ]
    assert chart.count('class="bar"') == 30 and chart.count('class="axis"') >= 2
    assert len(re.findall(r'class="ylabel"[^>]*>₹', chart)) == 3  # 0, the middle and the top
    assert chart.count('class="tick"') >= 6  # a date every fifth day, and the last
    assert ">₹20<" in chart  # today's bar carries its value
    assert "day (Asia/Kolkata)" in chart and "rake (₹)" in chart
    assert "<script" not in chart and 'id="rake-table"' in page


def test_the_dashboard_shows_the_last_nightly_verdict_and_never_reads_every_entry(
    administrator: User, client_for: ClientFor
) -> None:
    make_player("asha")
    client = client_for(administrator)
    assert tasks.check_ledger_nightly() is True
    check = LedgerCheck.objects.get()
    assert check.ok and check.via == "nightly" and check.problems == []
    with CaptureQueriesContext(connection) as captured:
        page = client.get(reverse("staff-dashboard")).content.decode()
    assert re.search(r'id="ledger-verdict"><b>sound</b>', page) and "nightly" in page
    sql = " ".join(q["sql"] for q in captured.captured_queries)
    assert "OVER (PARTITION BY" not in sql  # check_ledger's running-sum window over every entry
    # a verdict with problems is shown with them
    LedgerCheck.objects.create(ok=False, problems=["account wallet:user:1 drifted"], via="command")
    page = client.get(reverse("staff-dashboard")).content.decode()
    assert "1 problem(s)" in page and "account wallet:user:1 drifted" in page


def test_the_nightly_check_is_on_beats_schedule() -> None:
    from django.conf import settings

    entry = settings.CELERY_BEAT_SCHEDULE["check-ledger"]
    assert entry["task"] == "wallet.tasks.check_ledger_nightly"
    assert settings.CELERY_BEAT_SCHEDULE["sweep-deadlines"]["task"] == "tables.tasks.sweep_deadlines"
