"""The staff game page and dashboard read in rupees and words, with no inline script (issue 14)."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from staff.models import StaffAction
from tests.staff.conftest import make_staff
from tests.tables.games import drop_until_the_first_deal_ends, started_game
from wallet.audit import run_check

pytestmark = pytest.mark.django_db


def _no_inline_script(page: str) -> None:
    for tag in re.findall(r"<script[^>]*>", page):
        assert "src=" in tag or "application/json" in tag, tag
    assert not re.search(r"\son[a-z]+=", page)


def test_game_page_shows_players_deals_and_money_in_rupees_but_no_hand(
    support: User, client_for: Callable[[User], Client]
) -> None:
    game, players = started_game(fee=1_000)
    drop_until_the_first_deal_ends(game)
    game.refresh_from_db()
    agent = client_for(support)
    page = agent.get(reverse("admin:tables_poolgame_change", args=[game.pk])).content.decode()
    assert "fees paid <strong>₹30.00</strong>" in page and "prize pool <strong>₹27.00</strong>" in page
    assert "rake ₹3.00" in page and "paise" not in page
    for p in players:
        assert p.table_name in page
    assert "drops remaining" in page and "Cards in hand:" in page
    # deal 2 is being played: a support agent sees what the players all see (the cut joker and the
    # open card), never a hand or the closed deck, and no way to ask for them
    assert page.count('class="pcard') == 2
    assert "closed-deck" not in page and "live-reason" not in page
    replay = reverse("deal-detail", args=[game.deals.get(number=1).pk])
    assert f'href="{replay}"' in page
    _no_inline_script(page)
    # a support agent sees no cancel button
    assert "cancel-link" not in page


def test_only_game_integrity_sees_live_hands_with_a_reason_and_each_look_is_recorded(
    support: User, client_for: Callable[[User], Client]
) -> None:
    game, _ = started_game(fee=1_000)
    live = reverse("admin:tables_poolgame_live", args=[game.pk])
    # the support agent asks for the hands by the URL: refused, and the attempt is recorded
    assert client_for(support).get(live, {"reason": "curious"}).status_code == 403
    refused = StaffAction.objects.get(verb="refused_view_live_hands")
    assert refused.actor == support and refused.object_pk == str(game.pk)
    analyst = make_staff("analyst", "Game integrity")
    client = client_for(analyst)
    page = client.get(reverse("admin:tables_poolgame_change", args=[game.pk])).content.decode()
    assert 'id="live-reason"' in page and "closed-deck" not in page
    # no reason, no hands
    assert client.get(live).status_code == 302
    assert not StaffAction.objects.filter(verb="view_live_hands").exists()
    page = client.get(live, {"reason": "dispute: ravi says the deck was stacked"}).content.decode()
    assert page.count('class="pcard') >= 3 * 13 + 2 and 'id="closed-deck"' in page
    _no_inline_script(page)
    seen = StaffAction.objects.get(verb="view_live_hands")
    assert seen.actor == analyst and seen.reason == "dispute: ravi says the deck was stacked"
    assert seen.object_pk == str(game.pk) and seen.after["deal"] == 1


def test_dashboard_shows_the_figures_the_rake_chart_and_the_ledger_verdict(
    administrator: User, client_for: Callable[[User], Client]
) -> None:
    game, _ = started_game(fee=1_000)
    drop_until_the_first_deal_ends(game)
    client = client_for(administrator)
    client.post(
        reverse("admin:tables_poolgame_cancel", args=[game.pk]), {"reason": "test", "message": "Stopped."}
    )  # takes ₹3 rake
    assert 'id="dashboard-link"' in client.get(reverse("admin:index")).content.decode()
    # the dashboard shows the last verdict of the full check (nightly, or the command); it never runs it
    page = client.get(reverse("staff-dashboard")).content.decode()
    assert re.search(r'id="ledger-verdict"><b>not yet run</b>', page)
    run_check(via="command")
    page = client.get(reverse("staff-dashboard")).content.decode()
    assert re.search(r'id="ledger-verdict"><b>sound</b>', page)
    assert page.count('class="bar"') == 30
    assert "today ₹3.00" in page and 'id="timers-overdue">0<' in page
    assert "chips in circulation" in page
    _no_inline_script(page)
    assert Client().get(reverse("staff-dashboard")).status_code == 302  # log in first


def test_every_staff_list_opens(administrator: User, client_for: Callable[[User], Client]) -> None:
    game, _ = started_game()
    client = client_for(administrator)
    for name in (
        "admin:staff_staffaction_changelist",
        "admin:staff_adjustmentrequest_changelist",
        "admin:accounts_suspension_changelist",
        "admin:accounts_selfexclusion_changelist",
        "admin:accounts_user_changelist",
        "admin:tables_table_changelist",
        "admin:tables_tablesettings_changelist",
        "admin:tables_poolgame_changelist",
        "admin:wallet_account_changelist",
    ):
        assert client.get(reverse(name)).status_code == 200, name
    events = client.get(reverse("admin:tables_gameevent_changelist") + f"?game__id__exact={game.pk}")
    assert events.status_code == 200
