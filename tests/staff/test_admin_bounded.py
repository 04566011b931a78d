"""Admin pages bounded by construction (issue 39; docs/staff.md, "Big lists"): past the first
page, a big list and the player statement read by seek, never by ``OFFSET``, for every role; no
"Show counts"; a filtered count capped; and a query past the admin's deadline answers with a page
saying so (HTTP 503), not a hung page or a server error. The timings are bench/admin_crawl.py's.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import Group
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from tables.models import GameEvent
from tests.staff.admin_clients import anchor_href, game_with_events, load_with_queries, staff_clients

pytestmark = pytest.mark.django_db


def _ids(page: str, app: str, model: str) -> list[int]:
    return [int(pk) for pk in re.findall(rf'href="/admin/{app}/{model}/(\d+)/change/', page)]


def test_every_roles_deep_pages_of_a_big_list_are_read_by_seek_not_offset() -> None:
    game_with_events(250)
    Group.objects.get(name="Support agent")  # the roles exist (ensure_groups)
    url = reverse("admin:tables_gameevent_changelist")
    for role, client in staff_clients().items():
        first, _ = load_with_queries(client, url)
        shown = _ids(first, "tables", "gameevent")
        assert len(shown) == 100 and shown == sorted(shown, reverse=True), role
        assert "_facets" not in first, role  # no "Show counts" on a big list
        older = anchor_href(first, "older")
        assert older is not None, role
        second, sql = load_with_queries(client, url + older)
        page = _ids(second, "tables", "gameevent")
        assert page == sorted(page, reverse=True) and page[0] < shown[-1] and len(page) == 100, role
        assert page[0] == max(
            e for e in GameEvent.objects.filter(pk__lt=shown[-1]).values_list("pk", flat=True)
        )
        third, sql3 = load_with_queries(client, url + anchor_href(second, "older"))
        oldest, sql4 = load_with_queries(client, url + anchor_href(first, "oldest"))
        every = list(GameEvent.objects.order_by("-pk").values_list("pk", flat=True))
        assert _ids(third, "tables", "gameevent") == every[200:], role  # the last 50
        assert _ids(oldest, "tables", "gameevent") == every[150:], role  # the last full page
        assert anchor_href(oldest, "older") is None and anchor_href(third, "older") is None, role
        newer, sql5 = load_with_queries(client, url + anchor_href(oldest, "newer"))
        assert _ids(newer, "tables", "gameevent") == every[50:150], role
        for query in sql + sql3 + sql4 + sql5:
            if "tables_gameevent" in query:
                assert "OFFSET" not in query.upper(), (role, query)


def test_a_sorted_and_filtered_big_list_seeks_in_its_own_order() -> None:
    clients = staff_clients()
    start = timezone.now() - timedelta(days=300)
    User.objects.bulk_create(
        User(username=f"p{i:03d}", is_active=i % 3 != 0, date_joined=start + timedelta(hours=(i * 37) % 300))
        for i in range(300)
    )
    url = reverse("admin:accounts_user_changelist")
    query = "?is_active__exact=1&o=-6"  # active players, the newest first (date joined is column 6)
    first, _ = load_with_queries(clients["Support agent"], url + query)
    older = anchor_href(first, "older")
    assert older is not None and "is_active__exact=1" in older and "o=-6" in older
    second, sql = load_with_queries(clients["Support agent"], url + older)
    shown = _ids(first, "accounts", "user") + _ids(second, "accounts", "user")
    wanted = list(
        User.objects.filter(is_active=True).order_by("-date_joined", "-pk").values_list("pk", flat=True)
    )
    assert shown == wanted[:200] and len(shown) == 200
    assert not any("OFFSET" in q.upper() for q in sql if "accounts_user" in q)
    # a sort the list does not offer (no index reads it in order) is not applied, even typed in
    page, sql = load_with_queries(clients["Support agent"], url + "?o=3")  # e-mail
    assert not any('ORDER BY "accounts_user"."email"' in q for q in sql)


def test_a_filtered_count_stops_at_the_cap_and_says_about(
    require_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from core import admin_paging

    game_with_events(60)
    monkeypatch.setattr(admin_paging, "COUNT_CAP", 10)
    client = staff_clients()["superuser"]
    page, sql = load_with_queries(client, reverse("admin:tables_gameevent_changelist") + "?type=drew")
    counts = [q for q in sql if "COUNT(" in q.upper() and "tables_gameevent" in q]
    # capped, and in the list's own order: the plan of its page (a scan in table order could read
    # every row before the first match)
    assert counts and all("LIMIT 11" in q and "ORDER BY" in q for q in counts)
    assert re.search(r"about \d+\s*</span>\s*game events", page)


def test_the_trail_and_notes_searches_read_their_own_columns_without_joining_accounts() -> None:
    from staff import audit
    from staff.models import StaffNote

    clients = staff_clients()
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
        page, sql = load_with_queries(client, f"{url}?q={term}")
        assert shown in page and (hidden is None or hidden not in page), (url, term)
        where = [q.split(" WHERE ", 1)[1] for q in sql if "LIKE" in q.upper()]
        assert where and not any("accounts_user" in w or " T" in w for w in where), where


def test_big_lists_offer_only_the_sorts_an_index_serves() -> None:
    """A sort by a column no index reads in order would read and sort the whole table."""
    from wallet.services import grant

    game_with_events(3)
    client = staff_clients()["superuser"]
    grant(user=User.objects.get(username="administrator"), amount=100, idempotency_key="sorts")  # a row
    sorts = {
        "tables_gameevent": set(),
        "wallet_ledgertransaction": {"id", "created_at", "kind", "idempotency_key"},  # not memo, by
        "accounts_user": {"username", "date_joined"},
    }
    for name, wanted in sorts.items():
        page, _ = load_with_queries(client, reverse(f"admin:{name}_changelist"))
        offered = set(re.findall(r'class="sortable column-(\w+)', page))
        assert offered == wanted, (name, offered)
    # a descending sort breaks ties by ascending id: one (kind, -id) index serves it read backwards
    _, sql = load_with_queries(client, reverse("admin:wallet_ledgertransaction_changelist") + "?o=-3")
    # (the page's ids are read first, the id selected as the first column: ``1`` in ORDER BY)
    assert any(re.search(r'"kind" DESC, ("wallet_ledgertransaction"\."id"|1) ASC', q) for q in sql)


def test_the_suspensions_list_reads_who_lifted_each_after_the_page() -> None:
    """Joined to the page's query, the "lifted by" column, empty on nearly every row, made
    PostgreSQL hash every account before it sorted and cut the page (bench/admin_crawl.py): it is
    read after the page, by the ids shown."""
    from accounts.models import Suspension

    clients = staff_clients()
    boss = User.objects.get(username="administrator")
    now = timezone.now()
    for n in range(3):
        shown = Suspension.objects.create(
            user=User.objects.create_user(f"p{n}"), reason="r", starts_at=now, created_by=boss
        )
    Suspension.objects.filter(pk=shown.pk).update(lifted_at=now, lifted_by=User.objects.get(username="root"))
    page, sql = load_with_queries(clients["Support agent"], reverse("admin:accounts_suspension_changelist"))
    listed = [q for q in sql if 'FROM "accounts_suspension"' in q and "ORDER BY" in q]
    assert listed and not any('"accounts_suspension"."lifted_by_id" =' in q for q in listed), listed
    lifted = re.findall(r'class="field-lifted_by[^"]*">([^<]*)<', page)
    assert len(lifted) == 3 and lifted.count("root") == 1, lifted


def test_a_page_filtered_to_an_old_kind_reads_its_ids_from_the_kinds_index() -> None:
    """Newest first, filtered to a kind whose rows are all old: in one query PostgreSQL may walk the
    primary key and skip every newer row; the page's ids come from the ``(kind, -id)`` index alone."""
    from wallet.models import LedgerTransaction
    from wallet.services import grant

    boss = staff_clients()["superuser"]
    user = User.objects.get(username="administrator")
    for n in range(3):
        grant(user=user, amount=100, idempotency_key=f"old-{n}")
    url = reverse("admin:wallet_ledgertransaction_changelist") + "?kind__exact=grant"
    page, sql = load_with_queries(boss, url)
    ids_query = next(q for q in sql if re.match(r'SELECT "wallet_ledgertransaction"\."id" AS "pk" FROM', q))
    assert "\"kind\" = 'grant'" in ids_query
    rows_query = next(q for q in sql if '"wallet_ledgertransaction"."memo"' in q and " IN (" in q)
    assert "ORDER BY" not in rows_query  # read by primary key; the order is the ids'
    shown = [int(pk) for pk in re.findall(r'href="/admin/wallet/ledgertransaction/(\d+)/change/', page)]
    grants = LedgerTransaction.objects.filter(kind="grant").order_by("-id")
    assert shown == list(grants.values_list("pk", flat=True))
