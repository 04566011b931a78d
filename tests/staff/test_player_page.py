"""The player page (issue 27): one player seen whole by support, in rupees, from the ledger's
entries; the staff notes of the case history, append-only and audited."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.utils import IntegrityError
from django.http import QueryDict
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts import limits
from accounts.models import PlayLimit, SelfExclusion, User
from staff import player, services, statement
from staff.models import AuditImmutable, StaffAction, StaffNote
from staff.selectors import integrity_sections
from tables.models import PoolGame
from tests.staff.conftest import make_staff
from tests.tables.games import drop_until_the_first_deal_ends, started_game
from wallet.models import Entry, LedgerTransaction
from wallet.selectors import chip_balances
from wallet.services import grant

pytestmark = pytest.mark.django_db
ClientFor = Callable[[User], Client]


def _page(client: Client, user: User, **params: object) -> str:
    response = client.get(reverse("admin:accounts_user_player", args=[user.pk]), params)
    assert response.status_code == 200
    return response.content.decode()


def test_the_statement_lists_every_movement_of_the_players_chips_with_running_balances(
    administrator: User, client_for: ClientFor
) -> None:
    """A settlement and a grant carry no ``caused_by``: the statement is read from the player's
    entries, so each is there, and the balances after each row add up to today's."""
    game, players = started_game(fee=1_000)
    drop_until_the_first_deal_ends(game)
    client = client_for(administrator)
    client.post(
        reverse("admin:tables_poolgame_cancel", args=[game.pk]), {"reason": "t", "message": "Stopped."}
    )
    asha = players[0]
    mine = LedgerTransaction.objects.filter(entries__account__ref=f"user:{asha.pk}").distinct()
    assert mine.filter(caused_by__isnull=True).exists()  # what a search by caused_by would miss
    rows = player.statement(accounts=player.player_page(user=asha)["accounts"])[1]
    assert len(rows) == mine.count() == 3  # grant, entry fee, share of the cancelled game's pool
    assert [r.what for r in rows] == ["Game settlement", "Entry fee", "Grant"]
    balances = chip_balances(user=asha)
    page = _page(client, asha)
    assert f'id="balance-cash">{_money(balances["cash"])}<' in page
    assert rows[0].cash_balance == _money(balances["cash"])  # the newest row ends at today's balance
    assert rows[-1].cash == "₹100.00" and rows[-1].cash_balance == "₹100.00"  # the grant, first
    game_link = reverse("admin:tables_poolgame_change", args=[game.pk])
    assert page.count(f'href="{game_link}"') >= 2  # the fee and the settlement name their game
    assert "paise" not in page


def _money(paise: int) -> str:
    from core.money import format_money

    return format_money(paise)


def test_the_statement_pages_keep_both_running_balances_right(administrator: User) -> None:
    asha = User.objects.create_user("asha")
    for n in range(30):
        grant(user=asha, amount=100 * (n + 1), idempotency_key=f"g{n}")
    grant(user=asha, amount=500, idempotency_key="bonus", kind="daily_topup")
    accounts = player.player_page(user=asha)["accounts"]
    first = player.statement(accounts=accounts)
    second = player.statement(accounts=accounts, cursor=statement.cursor_from(QueryDict(first[0].older)))
    assert len(first[1]) == 25 and len(second[1]) == 6
    assert second[0].older is None and second[0].newer is not None
    # back again ("newer"): the same rows and both balances, the bonus read at the cursor
    back = player.statement(accounts=accounts, cursor=statement.cursor_from(QueryDict(second[0].newer)))
    assert back[1] == first[1]
    rows = first[1] + second[1]
    cash = [int(float(r.cash_balance.strip("₹").replace(",", "")) * 100) for r in rows]
    # newest first: each row's balance is the one below it plus what this row moved
    moved = [int(float(r.cash.strip("₹").replace(",", "") or 0) * 100) for r in rows]
    for above, below, amount in zip(cash, cash[1:], moved, strict=False):
        assert above - amount == below
    assert cash[-1] == 100 and rows[0].bonus == "₹5.00" and rows[1].bonus_balance == "₹0.00"
    assert all(r.bonus_balance == "₹5.00" for r in rows[:1])


def test_games_deals_suspensions_exclusions_and_limits_are_on_the_page(
    support: User, client_for: ClientFor
) -> None:
    game, players = started_game(fee=1_000)
    drop_until_the_first_deal_ends(game)
    asha = players[0]
    now = timezone.now()
    limits.set_limit(user=asha, kind=PlayLimit.Kind.SPEND, value=50_000)
    limits.set_limit(user=asha, kind=PlayLimit.Kind.SPEND, value=90_000)  # a raise: waits 24 hours
    SelfExclusion.objects.create(
        user=asha, period="1d", starts_at=now - timedelta(days=3), ends_at=now - timedelta(days=2)
    )
    boss = make_staff("boss2", "Administrator")
    services.suspend(
        staff=boss, user=asha, reason="chip dumping suspected", message="Account under review", until=None
    )
    page = _page(client_for(support), asha)
    assert reverse("admin:tables_poolgame_change", args=[game.pk]) in page
    replay = reverse("deal-detail", args=[game.deals.get(number=1).pk])
    assert f'href="{replay}"' in page and "deal 1" in page
    assert "chip dumping suspected" in page and "Account under review" in page  # staff see both
    assert 'id="player-blocked"' in page and "suspended until lifted" in page
    assert "₹500.00" in page and "₹900.00" in page and "waiting (a raise" in page and "in effect" in page
    assert "1 day" in page  # the ended self-exclusion
    # a support agent sees no hand and no money button
    assert "Credit / debit" not in page and "closed-deck" not in page


def test_the_page_is_linked_from_the_list_and_the_change_page_and_found_by_name_email_or_id(
    support: User, client_for: ClientFor
) -> None:
    asha = User.objects.create_user("asha", email="asha.k@example.com", display_name="Queen of Hearts")
    User.objects.create_user("ravi", email="ravi@example.com")
    client = client_for(support)
    url = reverse("admin:accounts_user_player", args=[asha.pk])
    changelist = reverse("admin:accounts_user_changelist")
    for term in ("Queen of", "asha.k@", str(asha.pk)):
        page = client.get(changelist, {"q": term}).content.decode()
        assert f'href="{url}"' in page, term
        assert "ravi@example.com" not in page, term
    assert (
        f'href="{url}"' in client.get(reverse("admin:accounts_user_change", args=[asha.pk])).content.decode()
    )


def test_addresses_devices_and_links_are_on_the_page_for_game_integrity_only(
    support: User, client_for: ClientFor
) -> None:
    """integrity.selectors.player_sections on the player page: personal data (addresses,
    devices), so for the Game integrity role alone (docs/integrity.md)."""
    from integrity.models import SignInEvent

    asha = User.objects.create_user("asha")
    SignInEvent.objects.create(
        user=asha,
        kind=SignInEvent.Kind.LOGIN,
        at=timezone.now(),
        address="203.0.113.9",
        device="d" * 64,
        user_agent="Firefox",
    )
    analyst = make_staff("analyst", "Game integrity")
    assert integrity_sections(asha, viewer=support) == []
    sections = integrity_sections(asha, viewer=analyst)
    assert sections and "203.0.113.9" in str(sections)
    assert "203.0.113.9" not in _page(client_for(support), asha)
    page = _page(client_for(analyst), asha)
    assert 'id="integrity-' in page and "203.0.113.9" in page


def test_a_note_is_added_with_its_author_and_time_and_recorded_never_changed(
    support: User, client_for: ClientFor
) -> None:
    asha = User.objects.create_user("asha")
    client = client_for(support)
    note_url = reverse("admin:accounts_user_note", args=[asha.pk])
    response = client.post(note_url, {"text": "Called about missing chips: it was the rake. <b>ok</b>"})
    assert response.status_code == 302
    note = StaffNote.objects.get()
    assert note.user == asha and note.author == support and note.created_at is not None
    entry = StaffAction.objects.get(verb="add_note")
    assert (
        entry.actor == support and entry.object_pk == str(asha.pk) and "missing chips" in entry.after["note"]
    )
    page = _page(client, asha)
    assert "it was the rake. &lt;b&gt;ok&lt;/b&gt;" in page and "helper:" in page
    # an empty note is refused and changes nothing
    assert client.post(note_url, {"text": "   "}).status_code == 400
    assert StaffNote.objects.count() == 1
    # append-only, in Python and in the database
    with pytest.raises(AuditImmutable):
        note.save()
    with pytest.raises(AuditImmutable):
        StaffNote.objects.filter(pk=note.pk).update(text="nothing happened")
    with pytest.raises(AuditImmutable):
        note.delete()
    if connection.vendor == "postgresql":
        with (
            pytest.raises(IntegrityError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute("UPDATE staff_staffnote SET text = 'x' WHERE id = %s", [note.pk])


def test_nobody_writes_the_case_history_of_an_equal_or_higher_role(
    support: User, administrator: User, client_for: ClientFor
) -> None:
    client = client_for(support)
    assert 'id="note-form"' not in _page(client, administrator)
    response = client.post(reverse("admin:accounts_user_note", args=[administrator.pk]), {"text": "lazy"})
    assert response.status_code == 403
    assert not StaffNote.objects.exists()
    assert StaffAction.objects.filter(verb="refused_add_note", actor=support).exists()
    # a staff member without a role sees no player page
    nobody = User.objects.create_user("nobody", is_staff=True)
    asha = User.objects.create_user("asha")
    assert client_for(nobody).get(reverse("admin:accounts_user_player", args=[asha.pk])).status_code == 403


def test_the_player_page_of_a_player_with_no_account_yet() -> None:
    lone = User.objects.create_user("lone")
    page = player.player_page(user=lone)
    assert page["cash"] == "₹0.00" and page["statement"] == [] and page["games"] == []
    assert not Entry.objects.exists() and not PoolGame.objects.exists()
