"""Staff actions through the admin, as staff use them (issue 14): cancel, close, suspend, adjust,
the audit trail and the roles."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client, override_settings
from django.urls import reverse
from django.utils import timezone

from accounts import play
from accounts.models import User
from staff.audit import record
from staff.models import AdjustmentRequest, AuditImmutable, StaffAction
from tables import services
from tables.models import GameEvent, PoolGame, Table
from tests.helpers import sign_up
from tests.staff.conftest import make_staff
from tests.tables.conftest import make_player, make_table
from tests.tables.games import drop_until_the_first_deal_ends, game_state, join_by_form, started_game
from wallet.audit import check_ledger
from wallet.models import Account, AccountKind
from wallet.selectors import chip_balances, escrow_balance, wallet_balance
from wallet.services import wallet_account_for

pytestmark = pytest.mark.django_db
ClientFor = Callable[[User], Client]


def test_cancel_before_the_first_deal_ends_refunds_every_fee(
    administrator: User, client_for: ClientFor
) -> None:
    game, players = started_game()
    assert [wallet_balance(user=p) for p in players] == [90_00] * 3
    client = client_for(administrator)
    page = client.get(reverse("admin:tables_poolgame_cancel", args=[game.pk])).content.decode()
    assert "refunded in full" in page and "drops remaining" in page  # the rule is stated
    response = client.post(
        reverse("admin:tables_poolgame_cancel", args=[game.pk]),
        {"reason": "server fault", "message": "A server fault stopped this game."},
    )
    assert response.status_code == 302
    game.refresh_from_db()
    assert game.status == PoolGame.Status.CANCELLED and game.result["settlement"] == "refund"
    assert [wallet_balance(user=p) for p in players] == [100_00] * 3
    assert escrow_balance(game_ref=game.escrow_ref) == 0
    assert check_ledger() == []
    assert GameEvent.objects.filter(game=game, type="game_cancelled").count() == 1
    entry = StaffAction.objects.get(verb="cancel_game")
    assert entry.staff == administrator and entry.reason == "server fault"
    assert entry.before["status"] == "running" and entry.after["settlement"] == "refund"
    # the timers of the cancelled game do nothing; a new game can gather at the table
    assert services.game_timeout(game_id=game.pk, version=game.version) is False
    join_by_form(players[0], game.table)
    assert game.table.games.filter(status=PoolGame.Status.WAITING).exists()


@override_settings(SIGNUP_BONUS_CHIPS=1000)
def test_cancel_before_the_first_deal_ends_refunds_bonus_chips_as_bonus_and_records_them(
    administrator: User, client_for: ClientFor
) -> None:
    """Fresh accounts pay with bonus chips (docs/rules.md §8.6): the refund and the result sheet count them."""
    cache.clear()
    table = make_table(fee=1_000, seats=3, seed=7)
    players = [sign_up(name) for name in ("asha", "ravi", "meena")]
    for p in players:
        join_by_form(p, table)
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    assert [chip_balances(user=p)["bonus"] for p in players] == [990_00] * 3
    client_for(administrator).post(
        reverse("admin:tables_poolgame_cancel", args=[game.pk]),
        {"reason": "server fault", "message": "A server fault stopped this game."},
    )
    game.refresh_from_db()
    assert game.status == PoolGame.Status.CANCELLED and game.result["settlement"] == "refund"
    assert game.result["payouts"] == {str(p.pk): 1_000 for p in players}
    event = GameEvent.objects.get(game=game, type="game_cancelled")
    assert event.data["payouts"] == game.result["payouts"]
    assert [chip_balances(user=p) for p in players] == [{"cash": 0, "bonus": 1000_00, "total": 1000_00}] * 3
    assert escrow_balance(game_ref=game.escrow_ref) == 0
    assert check_ledger() == []


def test_cancel_after_the_first_deal_shares_the_pool_by_drops_remaining(
    administrator: User, client_for: ClientFor
) -> None:
    game, players = started_game(fee=1_000)
    state = drop_until_the_first_deal_ends(game)
    scores = {p.id: p.score for p in state.players}
    # two first drops of 20 (docs/rules.md §6.7) and a winner at 0
    assert sorted(scores.values()) == [0, 20, 20]
    before = {p.pk: wallet_balance(user=p) for p in players}
    client_for(administrator).post(
        reverse("admin:tables_poolgame_cancel", args=[game.pk]),
        {"reason": "dispute at the table", "message": "Staff stopped this game."},
    )
    game.refresh_from_db()
    assert game.status == PoolGame.Status.CANCELLED and game.result["settlement"] == "split"
    # fees 3 × ₹10 = ₹30, rake 10% = ₹3, pool ₹27. Drops remaining at 101: score 0 → 5,
    # score 20 → 4 (docs/rules.md §7): levelled to 4, the winner is owed 1 × ₹10,
    # the other ₹17 shared equally (₹5.66⅔ each): 1566.67 / 566.67 / 566.67 → largest remainder.
    paid = {int(uid): amount for uid, amount in game.result["payouts"].items()}
    winner = next(int(uid) for uid, score in scores.items() if score == 0)
    assert paid[winner] == 1567 and sorted(paid.values()) == [566, 567, 1567]
    assert sum(paid.values()) + game.result["rake"] == 3000 and game.result["rake"] == 300
    for p in players:
        assert wallet_balance(user=p) - before[p.pk] == paid[p.pk]
    house = Account.objects.get(kind=AccountKind.HOUSE)
    assert house.balance == 300
    assert escrow_balance(game_ref=game.escrow_ref) == 0
    assert check_ledger() == []


def test_closing_a_table_stops_new_games_and_the_running_one_plays_on(
    administrator: User, client_for: ClientFor
) -> None:
    game, players = started_game()
    waiting_table = make_table(fee=500, seats=3)
    early = make_player("early")
    join_by_form(early, waiting_table)
    client = client_for(administrator)
    chosen = {"action": "close_tables", "_selected_action": [game.table_id, waiting_table.pk]}
    asked = client.post(reverse("admin:tables_table_changelist"), chosen)  # the action asks why first
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    assert Table.objects.get(pk=game.table_id).is_open
    response = client.post(
        reverse("admin:tables_table_changelist"), {**chosen, "apply": "1", "reason": "maintenance tonight"}
    )
    assert response.status_code == 302
    assert not Table.objects.get(pk=game.table_id).is_open
    # the running game goes on
    assert drop_until_the_first_deal_ends(game).last_result is not None
    game.refresh_from_db()
    assert game.status == PoolGame.Status.RUNNING
    # the waiting game was cancelled and its fee refunded; nobody can join either table
    assert waiting_table.games.get().status == PoolGame.Status.CANCELLED
    assert wallet_balance(user=early) == 100_00
    newcomer = make_player("newcomer")
    c = Client()
    c.force_login(newcomer)
    response = c.post(f"/tables/{waiting_table.pk}/join/", follow=True)
    assert "this table is closed" in response.content.decode()
    api = c.post(f"/api/tables/{waiting_table.pk}/join/")
    assert api.status_code == 409 and api.json()["code"] == "table_closed"
    assert waiting_table.pk not in [t["id"] for t in c.get("/api/tables/").json()]
    closed = StaffAction.objects.filter(verb="close_table")
    assert closed.count() == 2 and {e.reason for e in closed} == {"maintenance tonight"}
    # reopen
    client.post(
        reverse("admin:tables_table_changelist"),
        {"action": "reopen_tables", "_selected_action": [waiting_table.pk], "apply": "1", "reason": "done"},
    )
    assert c.post(f"/api/tables/{waiting_table.pk}/join/").status_code == 201
    assert check_ledger() == []


def test_tables_are_created_in_bulk_from_settings(administrator: User, client_for: ClientFor) -> None:
    table = make_table(fee=500)
    response = client_for(administrator).post(
        reverse("admin:tables_tablesettings_changelist"),
        {
            "action": "create_tables",
            "_selected_action": [table.settings_id],
            "apply": "1",
            "count": "3",
            "prefix": "Evening",
            "reason": "evening rush",
        },
    )
    assert response.status_code == 302
    names = sorted(
        Table.objects.filter(settings=table.settings).exclude(pk=table.pk).values_list("name", flat=True)
    )
    assert names == ["Evening #1", "Evening #2", "Evening #3"]
    made = StaffAction.objects.get(verb="create_tables")
    assert "Evening #1" in made.after["tables"] and made.reason == "evening rush"


def test_a_suspended_player_cannot_join_is_dropped_at_the_table_and_sees_why(
    support: User, client_for: ClientFor, django_capture_on_commit_callbacks: Callable[..., Any]
) -> None:
    game, players = started_game()
    state = game_state(game)
    on_turn = User.objects.get(pk=int(state.players[state.deal.turn].id))
    until = timezone.now() + timedelta(days=3)
    with django_capture_on_commit_callbacks(execute=True):  # the drop runs after the commit
        response = client_for(support).post(
            reverse("admin:accounts_user_changelist"),
            {
                "action": "suspend_players",
                "_selected_action": [on_turn.pk],
                "apply": "1",
                "reason": "abusive chat, reported by ravi and meena",
                "message": "abusive chat",
                "until": until.strftime("%Y-%m-%d %H:%M:%S"),
            },
        )
    assert response.status_code == 302, response.content.decode()[:500]
    # auto-dropped from this turn (their turn, before drawing), and they cannot undo it
    state = game_state(game)
    seat = next(i for i, p in enumerate(state.players) if p.id == str(on_turn.pk))
    assert state.players[seat].auto_drop
    assert GameEvent.objects.filter(
        game=game, type="drop", data__seat=seat, data__reason="auto_drop"
    ).exists()
    answer = services.game_act(game_id=game.pk, user=on_turn, request_id="back", action={"type": "im_back"})
    assert not answer["ok"] and answer["error"]["code"] == "play_blocked"
    # cannot join, with the reason
    other = make_table(fee=500)
    c = Client()
    c.force_login(on_turn)
    page = c.post(f"/tables/{other.pk}/join/", follow=True).content.decode()
    assert "Your account is suspended until" in page and "abusive chat" in page
    assert "reported by" not in page  # the internal note stays with staff
    # sees why on logging in
    login = Client().post(
        "/accounts/login/", {"username": on_turn.username, "password": "x-rummy-2026"}, follow=True
    )
    assert "abusive chat" in login.content.decode() and "reported by" not in login.content.decode()
    entry = StaffAction.objects.get(verb="suspend_player")
    assert entry.staff == support and entry.after["suspended"] and not entry.before["suspended"]
    assert (
        entry.reason == "abusive chat, reported by ravi and meena"
        and entry.after["message"] == "abusive chat"
    )
    # lifting is an action too
    client_for(support).post(
        reverse("admin:accounts_user_changelist"),
        {
            "action": "lift_suspensions",
            "_selected_action": [on_turn.pk],
            "apply": "1",
            "reason": "appeal upheld",
        },
    )
    assert play.block_reason(on_turn) is None
    assert c.post(f"/api/tables/{other.pk}/join/").status_code == 201
    assert StaffAction.objects.filter(verb="lift_suspension").count() == 1


def test_adjustment_keeps_the_form_on_overdraft_and_needs_a_second_approval_above_the_setting(
    administrator: User, client_for: ClientFor, settings: object
) -> None:
    settings.ADJUSTMENT_APPROVAL_ABOVE_RUPEES = 500  # type: ignore[attr-defined]
    asha = make_player("asha", chips=100)
    wallet = wallet_account_for(user_id=asha.pk)
    url = reverse("admin:wallet_account_adjust", args=[wallet.pk])
    client = client_for(administrator)
    key = client.get(url).context["form"].initial["idempotency_key"]
    response = client.post(url, {"amount": "-150", "reason": "chargeback", "idempotency_key": key})
    page = response.content.decode()
    assert (
        response.status_code == 200
        and "A debit of ₹150.00 is more than asha&#x27;s balance of ₹100.00" in page
    )
    assert 'value="-150"' in page and 'value="chargeback"' in page
    # a small credit applies at once, with its audit entry
    client.post(url, {"amount": "25", "reason": "goodwill", "idempotency_key": key})
    assert wallet_balance(user=asha) == 125_00
    entry = StaffAction.objects.get(verb="adjust_wallet")
    assert entry.before["balance"] == "₹100.00" and entry.after["balance"] == "₹125.00"
    assert entry.reason == "goodwill" and entry.after["amount"] == "₹25.00"
    # above ₹500 it waits for another administrator
    key2 = client.get(url).context["form"].initial["idempotency_key"]
    client.post(url, {"amount": "600", "reason": "tournament prize", "idempotency_key": key2})
    assert wallet_balance(user=asha) == 125_00
    request = AdjustmentRequest.objects.get()
    changelist = reverse("admin:staff_adjustmentrequest_changelist")
    client.post(changelist, {"action": "approve", "_selected_action": [request.pk]})
    assert wallet_balance(user=asha) == 125_00  # not by the one who asked
    second = make_staff("second", "Administrator")
    client_for(second).post(changelist, {"action": "approve", "_selected_action": [request.pk]})
    assert wallet_balance(user=asha) == 725_00
    request.refresh_from_db()
    assert request.status == "approved" and request.decided_by == second
    assert check_ledger() == []


def test_staff_take_back_bonus_chips_and_leave_the_cash_alone(
    administrator: User, client_for: ClientFor, settings: object
) -> None:
    """A farmed sign-up bonus is debited where it is (docs/rules.md §8.6): before, staff could
    only debit cash chips, which a farming account does not have."""
    settings.ADJUSTMENT_APPROVAL_ABOVE_RUPEES = 500  # type: ignore[attr-defined]
    settings.ADJUSTMENT_APPROVAL_WINDOW_HOURS = 0  # type: ignore[attr-defined]  # each adjustment on its own
    farmer = sign_up("farmer1")  # 1,000 bonus chips, no cash
    client = client_for(administrator)
    # staff look the player up by name, as they would: their bonus account is the row there is
    listing = client.get(reverse("admin:wallet_account_changelist"), {"q": "farmer1"}).content.decode()
    bonus = Account.objects.get(kind=AccountKind.BONUS, ref=f"user:{farmer.pk}")
    url = reverse("admin:wallet_account_adjust", args=[bonus.pk])
    assert url in listing and "1 account" in listing
    form = client.get(url)
    page = form.content.decode()
    assert 'id="cash-balance">₹0.00<' in page and 'id="bonus-balance">₹1000.00<' in page
    key = form.context["form"].initial["idempotency_key"]

    def post(amount: str, key: str, chips: str = "bonus", to: str = url) -> str:
        data = {"amount": amount, "reason": "farming", "idempotency_key": key, "chips": chips}
        return client.post(to, data).content.decode()

    assert "is more than farmer1&#x27;s balance of ₹0.00" in post("-1000", key, chips="cash")
    assert "is more than farmer1&#x27;s bonus chips of ₹1000.00" in post("-1200", key)
    assert chip_balances(user=farmer) == {"cash": 0, "bonus": 1_000_00, "total": 1_000_00}
    # ₹400 now; the other ₹600 is above the threshold and waits for a second administrator
    post("-400", key)
    assert chip_balances(user=farmer) == {"cash": 0, "bonus": 600_00, "total": 600_00}
    entry = StaffAction.objects.get(verb="adjust_wallet")
    assert entry.before == {"balance": "₹1000.00"} and entry.after == {
        "balance": "₹600.00",
        "amount": "-₹400.00",
        "transaction": entry.after["transaction"],
        "chips": "bonus",
        "message": "Adjustment by our support team",
    }
    # the form opened from the bonus account has bonus chips chosen
    second_form = client.get(url)
    assert second_form.context["form"]["chips"].value() == "bonus"
    post("-600", second_form.context["form"].initial["idempotency_key"])
    request = AdjustmentRequest.objects.get()
    assert request.bonus and chip_balances(user=farmer)["bonus"] == 600_00
    second = make_staff("second", "Administrator")
    client_for(second).post(
        reverse("admin:staff_adjustmentrequest_changelist"),
        {"action": "approve", "_selected_action": [request.pk]},
    )
    assert chip_balances(user=farmer) == {"cash": 0, "bonus": 0, "total": 0}
    # from the cash account's row the form moves cash chips, as before; the house has no form
    cash_url = reverse("admin:wallet_account_adjust", args=[wallet_account_for(user_id=farmer.pk).pk])
    cash_form = client.get(cash_url).context["form"]
    assert cash_form["chips"].value() == "cash"
    client.post(
        cash_url,
        {"amount": "5", "reason": "apology", "idempotency_key": cash_form.initial["idempotency_key"]},
    )
    assert chip_balances(user=farmer) == {"cash": 5_00, "bonus": 0, "total": 5_00}
    house = Account.objects.get(kind=AccountKind.ISSUANCE)
    assert client.get(reverse("admin:wallet_account_adjust", args=[house.pk])).status_code == 404
    assert check_ledger() == []


def test_a_support_agent_without_the_wallet_permission_cannot_adjust(
    support: User, administrator: User, client_for: ClientFor
) -> None:
    asha = make_player("zoya")
    wallet = wallet_account_for(user_id=asha.pk)
    url = reverse("admin:wallet_account_adjust", args=[wallet.pk])
    agent = client_for(support)
    assert agent.get(url).status_code == 403
    assert agent.post(url, {"amount": "5", "reason": "x", "idempotency_key": "adjust:1"}).status_code == 403
    assert wallet_balance(user=asha) == 100_00
    game, _ = started_game()
    assert agent.get(reverse("admin:tables_poolgame_cancel", args=[game.pk])).status_code == 403
    assert agent.get(reverse("admin:tables_poolgame_change", args=[game.pk])).status_code == 200
    assert agent.get(reverse("staff-dashboard")).status_code == 200
    assert client_for(administrator).get(url).status_code == 200


def test_audit_entries_cannot_be_edited_or_deleted(administrator: User, client_for: ClientFor) -> None:
    superuser = User.objects.create_superuser("root", password="x-root-2026")
    entry = record(staff=administrator, action="test", target=administrator, reason="why")
    entry.reason = "changed"
    with pytest.raises(AuditImmutable):
        entry.save()
    with pytest.raises(AuditImmutable):
        entry.delete()
    with pytest.raises(AuditImmutable):
        StaffAction.objects.filter(pk=entry.pk).update(reason="changed")
    with pytest.raises(AuditImmutable):
        StaffAction.objects.all().delete()
    root = client_for(superuser)
    change = reverse("admin:staff_staffaction_change", args=[entry.pk])
    assert root.get(change).status_code == 200  # visible
    root.post(change, {"reason": "changed"})
    assert (
        root.post(reverse("admin:staff_staffaction_delete", args=[entry.pk]), {"post": "yes"}).status_code
        == 403
    )
    entry.refresh_from_db()
    assert entry.reason == "why"


def test_postgresql_itself_refuses_changing_the_audit_trail(
    administrator: User, require_postgres: None
) -> None:
    from django.db import DatabaseError, connection, transaction

    record(staff=administrator, action="test", target=administrator, reason="why")
    for sql in ("UPDATE staff_staffaction SET reason = 'changed'", "DELETE FROM staff_staffaction"):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(sql)
    assert StaffAction.objects.get().reason == "why"
