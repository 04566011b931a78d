"""Admin pages that stay fast (issue 27): no list makes a query per row. Every list of the admin,
and the player page, makes as many queries with 50 rows as with 5 (the benchmark,
bench/admin_bench.py, times them at a million rows).

Rows of every kind are made in two steps (5, then 45 more); each list is loaded after each step
by a superuser and by an administrator (whose "Credit / debit" links are decided per account),
and its query count compared.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import PlayLimit, SelfExclusion, Suspension, User
from accounts.services import confirm_email
from staff import audit
from staff.models import AdjustmentRequest, StaffNote
from tables.models import Deal, GameEvent, PoolGame, Seat, Table, TableSettings
from tests.staff.conftest import make_staff
from wallet.services import grant, pay_entry, settle_game

pytestmark = pytest.mark.django_db


def grow(start: int, count: int, boss: User) -> None:
    """``count`` more rows of every kind the admin lists (numbered from ``start``)."""
    now = timezone.now()
    settings_row = TableSettings.objects.get_or_create(
        name="counting", defaults={"format": "101", "entry_fee": 1_000, "seats": 2}
    )[0]
    for i in range(start, start + count):
        user = User.objects.create_user(f"p{i}", email=f"p{i}@example.com", display_name=f"P{i}")
        confirm_email(user=user, address=user.email)  # a bonus account and a sign-up bonus
        grant(user=user, amount=5_000, idempotency_key=f"count-grant:{i}")  # a cash account
        if i % 5 == 0:  # some staff in the users list: their role comes from their groups
            user.is_staff = True
            user.save()
            user.groups.add(Group.objects.get(name="Support agent"))
        if i % 2 == 0:
            Suspension.objects.create(user=user, reason="r", starts_at=now, created_by=boss)
        if i % 3 == 0:
            SelfExclusion.objects.create(
                user=user, period="7d", starts_at=now, ends_at=now + timedelta(days=7)
            )
        PlayLimit.objects.create(user=user, kind="spend", value=10_000, effective_at=now, created_at=now)
        table = Table.objects.create(settings=settings_row, name=f"T{i}")
        game = PoolGame.objects.create(
            table=table, status=PoolGame.Status.FINISHED, started_at=now, finished_at=now
        )
        other = User.objects.create_user(f"q{i}")
        grant(user=other, amount=5_000, idempotency_key=f"count-grant-q:{i}")
        for position, seated in enumerate((user, other)):
            Seat.objects.create(game=game, position=position, user=seated, engine_seat=position)
            pay_entry(
                user=seated,
                game_ref=game.escrow_ref,
                amount=1_000,
                idempotency_key=f"count-entry:{i}:{position}",
            )
        settle_game(
            game_ref=game.escrow_ref, payouts={user.pk: 1_800}, rake=200, idempotency_key=f"count-settle:{i}"
        )
        game.result = {"winner": str(user.pk), "payouts": {str(user.pk): 1_800}, "rake": 200}
        game.save()
        for number in (1, 2):
            deal = Deal.objects.create(
                game=game,
                number=number,
                started_at=now,
                finished_at=now,
                result={"winner": "0", "players": {"0": {"status": "declared", "points": 0}}},
            )
            deal.players.add(user, other)
            GameEvent.objects.create(
                game=game, deal_number=number, version=number, seq=number, type="deal_started"
            )
        AdjustmentRequest.objects.create(
            user=user, amount=100, reason="r", idempotency_key=f"count-adj:{i}", requested_by=boss
        )
        StaffNote.objects.create(user=user, author=boss, text=f"note {i}")
        audit.record(staff=boss, action="change_user", target=user, reason="counting")


def _lists() -> list[str]:
    return [
        reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        for model in admin.site._registry
    ]


def _queries(client: Client, url: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    return response.status_code, len(captured)


def _count_all(clients: dict[str, Client], urls: list[str]) -> dict[tuple[str, str], tuple[int, int]]:
    return {(who, url): _queries(client, url) for who, client in clients.items() for url in urls}


@pytest.mark.slow  # every admin list, twice filled
def test_every_admin_list_and_the_player_page_make_as_many_queries_for_50_rows_as_for_5() -> None:
    root = User.objects.create_superuser("root", email="root@example.com", password="x-root-2026")
    boss = make_staff("boss", "Administrator")
    clients = {"superuser": Client(), "administrator": Client()}
    clients["superuser"].force_login(root)
    clients["administrator"].force_login(boss)
    grow(0, 5, boss)
    player = User.objects.get(username="p0")
    urls = [
        *_lists(),
        reverse("admin:accounts_user_player", args=[player.pk]),
        reverse("staff-dashboard"),
        reverse("admin:accounts_user_changelist") + "?q=p1",
        reverse("admin:wallet_ledgertransaction_changelist") + "?q=p0",
        reverse("admin:wallet_account_changelist") + "?q=p",
    ]
    few = _count_all(clients, urls)
    grow(5, 45, boss)
    # the player now has 50 games' worth of history too
    for i in range(5, 50):
        game = PoolGame.objects.get(table__name=f"T{i}")
        Seat.objects.create(game=game, position=2, user=player, engine_seat=2)
        grant(user=player, amount=100, idempotency_key=f"count-more:{i}")
    many = _count_all(clients, urls)
    assert User.objects.count() > 100 and PoolGame.objects.count() == 50
    grew = {key: (few[key], many[key]) for key in few if few[key] != many[key]}
    assert grew == {}, "query count grows with rows ((status, queries) with 5 rows, with 50): " + "\n".join(
        f"{who} {url}: {a} -> {b}" for (who, url), (a, b) in grew.items()
    )
    for key, (status, queries) in many.items():
        assert status in (200, 403), key  # an administrator may not see every list (403)
        assert queries < 20, (key, queries)
    assert many[("administrator", reverse("admin:wallet_account_changelist"))][0] == 200


def test_the_user_list_says_who_may_play_without_a_query_per_row(client: Client) -> None:
    root = User.objects.create_superuser("root", email="root@example.com", password="x-root-2026")
    now = timezone.now()
    asha, ravi, meena = (User.objects.create_user(n) for n in ("asha", "ravi", "meena"))
    Suspension.objects.create(
        user=asha, reason="r", starts_at=now, ends_at=now + timedelta(days=2), created_by=root
    )
    Suspension.objects.create(user=ravi, reason="r", starts_at=now - timedelta(days=9), ends_at=now - timedelta(days=1), created_by=root)  # fmt: skip
    SelfExclusion.objects.create(user=meena, period="7d", starts_at=now, ends_at=now + timedelta(days=7))
    client.force_login(root)
    page = client.get(reverse("admin:accounts_user_changelist")).content.decode()
    rows: dict[str, Any] = {}
    for name in ("asha", "ravi", "meena"):
        start = page.index(f">{name}</a>")
        rows[name] = page[start : page.index("</tr>", start)]
    assert "suspended until" in rows["asha"] and "yes" in rows["ravi"]  # ravi's suspension ended
    assert "has taken a break" in rows["meena"]


def test_an_unfiltered_list_of_a_big_table_is_not_counted_row_by_row(
    require_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core import admin_paging as admin_base

    root = User.objects.create_superuser("root", email="root@example.com", password="x-root-2026")
    game = PoolGame.objects.create(
        table=Table.objects.create(settings=TableSettings.objects.create(name="s", entry_fee=0), name="t")
    )
    for seq in range(30):
        GameEvent.objects.create(game=game, version=seq, seq=seq, type="turn")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tables_gameevent")
    monkeypatch.setattr(admin_base, "ESTIMATE_ABOVE", 10)  # "big" from 10 rows, for the test
    client = Client()
    client.force_login(root)
    url = reverse("admin:tables_gameevent_changelist")
    with CaptureQueriesContext(connection) as captured:
        page = client.get(url).content.decode()
    counts = [
        q["sql"] for q in captured.captured_queries if "COUNT(" in q["sql"] and "tables_gameevent" in q["sql"]
    ]
    assert counts == [] and "reltuples" in " ".join(q["sql"] for q in captured.captured_queries)
    assert re.search(r"about 30\s*</span>\s*game events", page)  # an estimate, said so
    # a filtered list is counted exactly
    with CaptureQueriesContext(connection) as captured:
        client.get(url, {"type": "turn"})
    assert any("COUNT(" in q["sql"] and "tables_gameevent" in q["sql"] for q in captured.captured_queries)
