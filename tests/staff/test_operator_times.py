"""Times on staff pages are in the operator's time zone (``OPERATOR_TIME_ZONE``) and say so
(issue 39): the dashboard's last ledger check, and every admin list's times and heading, while
the players' pages keep UTC."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from staff import timezones
from wallet.models import LedgerCheck

pytestmark = pytest.mark.django_db
ClientFor = Callable[[User], Client]

#: 21:40 UTC is 03:10 the next morning in India (UTC+05:30) and 17:40 in New York (EDT, UTC-04:00).
AT = datetime(2026, 7, 3, 21, 40, tzinfo=UTC)


@pytest.mark.parametrize(
    ("zone", "shown", "label"),
    [
        ("Asia/Kolkata", "04 Jul 2026 03:10", "IST (Asia/Kolkata, UTC+05:30)"),
        ("America/New_York", "03 Jul 2026 17:40", "EDT (America/New_York, UTC-04:00)"),
    ],
)
def test_the_dashboards_last_ledger_check_is_in_the_operators_zone_and_names_it(
    administrator: User, client_for: ClientFor, settings: Any, zone: str, shown: str, label: str
) -> None:
    settings.OPERATOR_TIME_ZONE = zone
    LedgerCheck.objects.create(ok=True, via="nightly", started_at=AT)
    page = client_for(administrator).get(reverse("staff-dashboard")).content.decode()
    checked = re.search(r'id="ledger-checked-at">(.*?)</small>', page, re.S)
    assert checked, page
    assert checked.group(1).startswith(f"{shown} {label}"), checked.group(1)
    assert "03 Jul 2026 21:40" not in page  # not UTC


def test_admin_list_times_are_in_the_operators_zone_and_the_list_names_it(
    administrator: User, client_for: ClientFor, settings: Any
) -> None:
    settings.OPERATOR_TIME_ZONE = "Asia/Kolkata"
    User.objects.filter(pk=administrator.pk).update(date_joined=AT)
    page = client_for(administrator).get(reverse("admin:accounts_user_changelist")).content.decode()
    heading = re.search(r'id="list-time-zone">(.*?)</p>', page, re.S)
    assert heading and "IST (Asia/Kolkata, UTC+05:30)" in heading.group(1), page[:2000]
    trail = client_for(administrator).get(reverse("admin:staff_staffaction_changelist")).content.decode()
    assert 'id="list-time-zone"' in trail


def test_an_admin_list_cell_shows_the_time_in_the_operators_zone(
    administrator: User, client_for: ClientFor, settings: Any
) -> None:
    """The users list shows when each joined: 21:40 UTC reads 3:10 a.m. the next day in India."""
    settings.OPERATOR_TIME_ZONE = "Asia/Kolkata"
    User.objects.filter(pk=administrator.pk).update(date_joined=AT)
    page = client_for(administrator).get(reverse("admin:accounts_user_changelist")).content.decode()
    assert re.search(r"July 4, 2026, 3:10\sa\.m\.", page), re.findall(r"2026, [^<]*", page)
    assert not re.search(r"July 3, 2026, 9:40\sp\.m\.", page)


def test_players_pages_keep_utc(client: Client) -> None:
    from django.utils import timezone

    client.get("/")
    assert timezone.get_current_timezone_name() == "UTC"
    assert timezones.time_zone_label(type("R", (), {"path": "/lobby/"})()) == {}
