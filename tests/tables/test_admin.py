"""Staff edit table settings in the admin; game history there is read-only."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.models import User
from staff.models import StaffAction
from tables import services
from tables.models import Deal, PoolGame, TableSettings
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff_client(client: Client) -> Client:
    staff = User.objects.create_user("boss", password="x-rummy-2026", is_staff=True, is_superuser=True)
    client.force_login(staff)
    return client


def test_staff_create_table_settings_with_tables(staff_client: Client) -> None:
    response = staff_client.post(
        "/admin/tables/tablesettings/add/",
        {
            "name": "201 Pool · high stakes",
            "format": "201",
            "entry_fee": "5000",  # rupees: the form never asks for paise
            "seats": 6,
            "decks": 2,
            "active": "on",
            "turn_seconds": 30,
            "extra_time_seconds": 60,
            "declare_seconds": 45,
            "pause_seconds": 10,
            "start_countdown_seconds": 20,
            "rejoin_window_seconds": 20,
            "split_offer_seconds": 20,
            "rake_bp": 1000,
            "auto_split_min_fee": "2000",
            "rejoin_max_fee": "",
            "point_value": "1",
            "bot_wait_seconds": 5,
            "tables-TOTAL_FORMS": 1,
            "tables-INITIAL_FORMS": 0,
            "tables-0-name": "High stakes #1",
            "audit_reason": "the weekend high-stakes room",
        },
    )
    assert response.status_code == 302, response.content[:2000]
    settings = TableSettings.objects.get(name="201 Pool · high stakes")
    assert settings.tables.get().name == "High stakes #1"
    rules = settings.rules()
    assert (rules.pool_limit, rules.entry_fee, rules.auto_split) == (201, 500_000, True)
    # both writes are in the staff audit trail, with the reason, in rupees
    made = StaffAction.objects.get(verb="add_tablesettings")
    assert made.reason == "the weekend high-stakes room" and made.after["entry_fee"] == "₹5000.00"
    assert StaffAction.objects.get(verb="add_table").object_repr == "High stakes #1"


def test_invalid_settings_are_refused_by_the_form(staff_client: Client) -> None:
    response = staff_client.post(
        "/admin/tables/tablesettings/add/",
        {
            "name": "bad",
            "format": "101",
            "entry_fee": "1",
            "seats": 9,
            "decks": 5,
            "turn_seconds": 30,
            "extra_time_seconds": 60,
            "declare_seconds": 45,
            "pause_seconds": 10,
            "start_countdown_seconds": 20,
            "rejoin_window_seconds": 20,
            "split_offer_seconds": 20,
            "rake_bp": 1000,
            "auto_split_min_fee": 0,
            "point_value": 0,
            "bot_wait_seconds": 5,
            "tables-TOTAL_FORMS": 0,
            "tables-INITIAL_FORMS": 0,
        },
    )
    assert response.status_code == 200
    assert not TableSettings.objects.filter(name="bad").exists()


def test_games_and_deals_are_read_only_history(staff_client: Client) -> None:
    table = make_table(seats=2, seed=3)
    for name in ("asha", "ravi"):
        services.table_join(table_id=table.pk, user=make_player(name))
    game = PoolGame.objects.get(table=table)
    deal = Deal.objects.get(game=game)
    assert staff_client.get(f"/admin/tables/poolgame/{game.pk}/change/").status_code == 200
    page = staff_client.get(f"/admin/tables/deal/{deal.pk}/change/")
    assert page.status_code == 200 and b"deal_started" in page.content
    assert staff_client.post(f"/admin/tables/poolgame/{game.pk}/delete/", {"post": "yes"}).status_code == 403
    assert staff_client.get("/admin/tables/gameevent/add/").status_code == 403
    assert PoolGame.objects.filter(pk=game.pk).exists()
