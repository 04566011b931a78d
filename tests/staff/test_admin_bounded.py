"""Admin pages bounded by construction (issue 39; docs/staff.md, "Big lists"): past the first
page, a big list and the player statement read by seek, never by ``OFFSET``, for every role; no
"Show counts"; a filtered count capped; and a query past the admin's deadline answers with a page
saying so (HTTP 503), not a hung page or a server error. The timings are bench/admin_crawl.py's.
"""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tables.models import GameEvent, PoolGame, Table, TableSettings
from tests.staff.conftest import make_staff

pytestmark = pytest.mark.django_db

NUMS = r'<td class="num">([^<]*)</td><td class="num">([^<]*)</td>\s*<td class="num">([^<]*)</td>'
ROLES = ("superuser", "Support agent", "Game integrity", "Administrator")


def _clients() -> dict[str, Client]:
    out = {}
    for role in ROLES:
        if role == "superuser":
            user = User.objects.create_superuser("root", email="root@example.com", password="x-root-2026")
        else:
            user = make_staff(role.lower().replace(" ", "-"), role)
        client = Client()
        client.force_login(user)
        out[role] = client
    return out


def _events(n: int) -> PoolGame:
    game = PoolGame.objects.create(
        table=Table.objects.create(settings=TableSettings.objects.create(name="s", entry_fee=0), name="t")
    )
    GameEvent.objects.bulk_create(
        GameEvent(game=game, version=i, seq=i, type="drew" if i % 2 else "discarded") for i in range(n)
    )
    return game


def _link(page: str, anchor: str) -> str | None:
    found = re.search(rf'<a href="([^"]*)"[^>]*id="{anchor}"', page)
    return unescape(found.group(1)) if found else None


def _ids(page: str, app: str, model: str) -> list[int]:
    return [int(pk) for pk in re.findall(rf'href="/admin/{app}/{model}/(\d+)/change/', page)]


def _load(client: Client, url: str) -> tuple[str, list[str]]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode(), [q["sql"] for q in captured.captured_queries]


def test_every_roles_deep_pages_of_a_big_list_are_read_by_seek_not_offset() -> None:
    _events(250)
    Group.objects.get(name="Support agent")  # the roles exist (ensure_groups)
    url = reverse("admin:tables_gameevent_changelist")
    for role, client in _clients().items():
        first, _ = _load(client, url)
        shown = _ids(first, "tables", "gameevent")
        assert len(shown) == 100 and shown == sorted(shown, reverse=True), role
        assert "_facets" not in first, role  # no "Show counts" on a big list
        older = _link(first, "older")
        assert older is not None, role
        second, sql = _load(client, url + older)
        page = _ids(second, "tables", "gameevent")
        assert page == sorted(page, reverse=True) and page[0] < shown[-1] and len(page) == 100, role
        assert page[0] == max(
            e for e in GameEvent.objects.filter(pk__lt=shown[-1]).values_list("pk", flat=True)
        )
        third, sql3 = _load(client, url + _link(second, "older"))
        oldest, sql4 = _load(client, url + _link(first, "oldest"))
        every = list(GameEvent.objects.order_by("-pk").values_list("pk", flat=True))
        assert _ids(third, "tables", "gameevent") == every[200:], role  # the last 50
        assert _ids(oldest, "tables", "gameevent") == every[150:], role  # the last full page
        assert _link(oldest, "older") is None and _link(third, "older") is None, role
        newer, sql5 = _load(client, url + _link(oldest, "newer"))
        assert _ids(newer, "tables", "gameevent") == every[50:150], role
        for query in sql + sql3 + sql4 + sql5:
            if "tables_gameevent" in query:
                assert "OFFSET" not in query.upper(), (role, query)


def test_a_sorted_and_filtered_big_list_seeks_in_its_own_order() -> None:
    clients = _clients()
    start = timezone.now() - timedelta(days=300)
    User.objects.bulk_create(
        User(username=f"p{i:03d}", is_active=i % 3 != 0, date_joined=start + timedelta(hours=(i * 37) % 300))
        for i in range(300)
    )
    url = reverse("admin:accounts_user_changelist")
    query = "?is_active__exact=1&o=-6"  # active players, the newest first (date joined is column 6)
    first, _ = _load(clients["Support agent"], url + query)
    older = _link(first, "older")
    assert older is not None and "is_active__exact=1" in older and "o=-6" in older
    second, sql = _load(clients["Support agent"], url + older)
    shown = _ids(first, "accounts", "user") + _ids(second, "accounts", "user")
    wanted = list(
        User.objects.filter(is_active=True).order_by("-date_joined", "-pk").values_list("pk", flat=True)
    )
    assert shown == wanted[:200] and len(shown) == 200
    assert not any("OFFSET" in q.upper() for q in sql if "accounts_user" in q)
    # a sort the list does not offer (no index reads it in order) is not applied, even typed in
    page, sql = _load(clients["Support agent"], url + "?o=3")  # e-mail
    assert not any('ORDER BY "accounts_user"."email"' in q for q in sql)


def test_a_filtered_count_stops_at_the_cap_and_says_about(
    require_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from accounts import admin_paging

    _events(60)
    monkeypatch.setattr(admin_paging, "COUNT_CAP", 10)
    client = _clients()["superuser"]
    page, sql = _load(client, reverse("admin:tables_gameevent_changelist") + "?type=drew")
    counts = [q for q in sql if "COUNT(" in q.upper() and "tables_gameevent" in q]
    # capped, and in the list's own order: the plan of its page (a scan in table order could read
    # every row before the first match)
    assert counts and all("LIMIT 11" in q and "ORDER BY" in q for q in counts)
    assert re.search(r"about \d+\s*</span>\s*game events", page)


def test_the_trail_and_notes_searches_read_their_own_columns_without_joining_accounts() -> None:
    from staff import audit
    from staff.models import StaffNote

    clients = _clients()
    boss = User.objects.get(username="administrator")
    asha, ravi = User.objects.create_user("asha"), User.objects.create_user("ravi")
    audit.record(staff=boss, action="change_user", target=asha, reason="chip dumping review")
    audit.record(staff=boss, action="change_user", target=ravi, reason="address typo")
    StaffNote.objects.create(user=asha, author=boss, text="Called about a missing refund")
    StaffNote.objects.create(user=ravi, author=boss, text="Asked for a break")
    client = clients["superuser"]
    trail = reverse("admin:staff_staffaction_changelist")
    notes = reverse("admin:staff_staffnote_changelist")
    for url, term, shown, hidden in (
        (trail, "dumping", "chip dumping review", "address typo"),
        (trail, "administrator", "chip dumping review", None),  # the actor's exact user name
        (notes, "REFUND", "missing refund", "Asked for a break"),
        (notes, "ravi", "Asked for a break", "missing refund"),  # the player's exact user name
    ):
        page, sql = _load(client, f"{url}?q={term}")
        assert shown in page and (hidden is None or hidden not in page), (url, term)
        where = [q.split(" WHERE ", 1)[1] for q in sql if "LIKE" in q.upper()]
        assert where and not any("accounts_user" in w or " T" in w for w in where), where


def test_big_lists_offer_only_the_sorts_an_index_serves() -> None:
    """A sort by a column no index reads in order would read and sort the whole table."""
    from wallet.services import grant

    _events(3)
    client = _clients()["superuser"]
    grant(user=User.objects.get(username="administrator"), amount=100, idempotency_key="sorts")  # a row
    sorts = {
        "tables_gameevent": set(),
        "wallet_ledgertransaction": {"id", "created_at", "kind", "idempotency_key"},  # not memo, by
        "accounts_user": {"username", "date_joined"},
    }
    for name, wanted in sorts.items():
        page, _ = _load(client, reverse(f"admin:{name}_changelist"))
        offered = set(re.findall(r'class="sortable column-(\w+)', page))
        assert offered == wanted, (name, offered)
    # a descending sort breaks ties by ascending id: one (kind, -id) index serves it read backwards
    _, sql = _load(client, reverse("admin:wallet_ledgertransaction_changelist") + "?o=-3")
    assert any('"kind" DESC, "wallet_ledgertransaction"."id" ASC' in q for q in sql)


def test_the_suspensions_list_reads_who_lifted_each_after_the_page() -> None:
    """Joined to the page's query, the "lifted by" column, empty on nearly every row, made
    PostgreSQL hash every account before it sorted and cut the page (bench/admin_crawl.py): it is
    read after the page, by the ids shown."""
    from accounts.models import Suspension

    clients = _clients()
    boss = User.objects.get(username="administrator")
    now = timezone.now()
    for n in range(3):
        shown = Suspension.objects.create(
            user=User.objects.create_user(f"p{n}"), reason="r", starts_at=now, created_by=boss
        )
    Suspension.objects.filter(pk=shown.pk).update(lifted_at=now, lifted_by=User.objects.get(username="root"))
    page, sql = _load(clients["Support agent"], reverse("admin:accounts_suspension_changelist"))
    listed = [q for q in sql if 'FROM "accounts_suspension"' in q and "ORDER BY" in q]
    assert listed and not any('"accounts_suspension"."lifted_by_id" =' in q for q in listed), listed
    lifted = re.findall(r'class="field-lifted_by[^"]*">([^<]*)<', page)
    assert len(lifted) == 3 and lifted.count("root") == 1, lifted
