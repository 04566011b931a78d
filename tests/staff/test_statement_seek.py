"""The player statement of a busy player, paged by seek with the running balances the ledger keeps
(issue 39): for every role, no ``OFFSET`` and no sum of newer entries, whatever the depth."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from accounts.models import User
from tests.staff.admin_clients import NUMS, anchor_href, load_with_queries, staff_clients
from wallet.models import Entry
from wallet.services import grant

pytestmark = pytest.mark.django_db


def test_the_statement_of_a_busy_player_pages_by_seek_with_running_balances() -> None:
    asha = User.objects.create_user("asha")
    for n in range(60):
        grant(user=asha, amount=100 * (n + 1), idempotency_key=f"busy:{n}")
    url = reverse("admin:accounts_user_player", args=[asha.pk])
    for role, client in staff_clients().items():
        first, _ = load_with_queries(client, url)
        older = anchor_href(first, "statement-older")
        assert older is not None and "statement=" not in older, role
        second, sql = load_with_queries(client, url + older.split("#")[0])
        oldest, sql2 = load_with_queries(client, url + anchor_href(first, "statement-oldest").split("#")[0])
        for query in sql + sql2:
            if "wallet_entry" in query:
                assert "OFFSET" not in query.upper() and "SUM(" not in query.upper(), (role, query)
        # the oldest page ends with the first grant, ₹1.00, and the cash balance after it
        rows = re.findall(NUMS, oldest)
        assert rows[-1][0] == "₹1.00" and rows[-1][2] == "₹1.00", (role, rows[-1])
        middle = re.findall(NUMS, second)
        # "newer" from the second page is the first page again, balances and all
        back, sql3 = load_with_queries(client, url + anchor_href(second, "statement-newer").split("#")[0])
        assert re.findall(NUMS, back) == re.findall(NUMS, first), role
        assert not any("OFFSET" in q.upper() or "SUM(" in q.upper() for q in sql3 if "wallet_entry" in q)
        balance = sum(100 * (n + 1) for n in range(60 - 25)) / 100
        assert middle[0][2] == f"₹{balance:,.2f}", (role, middle[0])
    assert Entry.objects.filter(account__ref=f"user:{asha.pk}").count() == 60
