"""Linked accounts never meet at a table (docs/integrity.md): refused with a clear code, in words
that name nobody; seated again once staff clear the link, and every link and clear audited."""

from __future__ import annotations

import pytest
from django.test import Client

from integrity import links
from integrity.models import AccountLink
from integrity.seating import REFUSAL
from staff import integrity as fairplay
from staff.models import StaffAction
from tables import services
from tables.models import Seat

from .conftest import player

pytestmark = pytest.mark.django_db


def test_a_linked_account_is_refused_a_seat_by_its_code_and_allowed_after_staff_clear_it(table, investigator):
    asha, ravi = player("asha"), player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    link = fairplay.link_accounts(staff=investigator, a=asha, b=ravi, reason="same household, reported")

    client = Client()
    client.force_login(ravi)
    answer = client.post(f"/api/tables/{table.pk}/join/", content_type="application/json")
    assert answer.status_code >= 400
    error = answer.json()
    assert error["code"] == "linked_account_at_table"
    assert "asha" not in error["message"] and error["message"] == REFUSAL
    assert not Seat.objects.filter(user=ravi).exists()

    fairplay.clear_link(staff=investigator, link=link, reason="different people, checked ID")
    services.table_join(table_id=table.pk, user=ravi)
    assert Seat.objects.filter(user=ravi, left_at__isnull=True).exists()
    verbs = list(StaffAction.objects.filter(actor=investigator).values_list("verb", "reason"))
    assert ("link_accounts", "same household, reported") in verbs
    assert ("clear_link", "different people, checked ID") in verbs


def test_an_account_linked_to_nobody_at_the_table_sits(table):
    asha, ravi, meera = player("asha"), player("ravi"), player("meera")
    links.link(asha, meera, source=AccountLink.Source.DEVICE)
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)  # ravi is linked to nobody
    assert Seat.objects.filter(game__table=table, left_at__isnull=True).count() == 2


def test_a_signal_does_not_link_again_a_pair_staff_cleared(table, investigator):
    asha, ravi = player("asha"), player("ravi")
    row, made = links.link(asha, ravi, source=AccountLink.Source.DEVICE)
    assert made
    fairplay.clear_link(staff=investigator, link=row, reason="a family computer")
    _, again = links.link(asha, ravi, source=AccountLink.Source.DEVICE)
    assert not again
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)


def test_a_support_agent_may_not_link_and_the_attempt_is_recorded(support):
    asha, ravi = player("asha"), player("ravi")
    with pytest.raises(fairplay.StaffError):
        fairplay.link_accounts(staff=support, a=asha, b=ravi, reason="hunch")
    assert not AccountLink.objects.exists()
    assert StaffAction.objects.filter(actor=support, verb="refused_link_accounts").exists()
