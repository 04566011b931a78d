"""Free chips cannot be farmed into a main account's cash (issue 16, docs/rules.md §8.6).

The attack, as an attacker arrives: sign up throwaway accounts through the sign-up
form (each on its own mailbox, whose mailed link earns it the sign-up bonus), join one table with a main account through the
lobby's Join button, and have every throwaway forfeit over the table socket, so the
main account wins the pool. The main account must get its own stake back and the
throwaways' stakes only as bonus chips: its cash does not grow.
"""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import cache
from django.test import Client, override_settings

from accounts.models import User
from rummy_site.asgi import application
from tables.models import PoolGame, Table
from tests.helpers import session_cookie, sign_up
from tests.sockets import Page
from tests.tables.conftest import make_player, make_table
from wallet.audit import check_ledger
from wallet.selectors import chip_balances

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://localhost")
FEE = 100_00  # paise: 100 chips
RAKE_BP = 1000  # 10 %


def _join_by_form(user: User, table: Table) -> None:
    client = Client()
    client.force_login(user)
    response = client.post(f"/tables/{table.pk}/join/")
    assert response.status_code == 302 and response["Location"] == f"/tables/{table.pk}/", response


async def _forfeit(user: User, table: Table) -> None:
    """The table page's Leave button: a ``leave`` action over the table socket."""
    cookie = (await sync_to_async(session_cookie)(user)).encode()
    socket = Page(application, f"/ws/tables/{table.pk}/", headers=[ORIGIN, (b"cookie", cookie)])
    connected, _ = await socket.connect()
    assert connected
    await socket.send_json_to(
        {"type": "action", "request_id": f"leave-{user.pk}", "action": {"type": "leave"}}
    )
    for _ in range(50):
        message = await socket.receive_json_from(timeout=5)
        if message["type"] == "result" and message["request_id"] == f"leave-{user.pk}":
            assert message["ok"], message
            break
    else:
        raise AssertionError("no answer to the leave action")
    await socket.disconnect()


@override_settings(SIGNUP_BONUS_CHIPS=1000)
async def test_throwaway_accounts_losing_on_purpose_do_not_grow_the_main_accounts_cash() -> None:
    await sync_to_async(cache.clear)()
    main = await sync_to_async(make_player)("main", chips=500)  # cash, e.g. earlier winnings
    throwaways = [await sync_to_async(sign_up)(f"throwaway{i}") for i in range(3)]
    for fresh in throwaways:
        assert await sync_to_async(chip_balances)(user=fresh) == {
            "cash": 0,
            "bonus": 1000_00,
            "total": 1000_00,
        }
    table = await sync_to_async(make_table)("101", seats=4, fee=FEE, rake_bp=RAKE_BP)

    for user in (main, *throwaways):  # the fourth join fills the table: the game starts
        await sync_to_async(_join_by_form)(user, table)
    for fresh in throwaways:
        await _forfeit(fresh, table)

    game = await sync_to_async(PoolGame.objects.get)(table=table)
    assert game.status == PoolGame.Status.FINISHED
    result = game.result
    pool = 4 * FEE - 4 * FEE * RAKE_BP // 10_000
    assert {uid: paid for uid, paid in result["payouts"].items() if paid} == {str(main.pk): pool}
    # the main account's own stake came back as cash; the throwaways' stakes arrived as bonus chips
    assert await sync_to_async(chip_balances)(user=main) == {
        "cash": 500_00,
        "bonus": pool - FEE,
        "total": 500_00 + pool - FEE,
    }
    for fresh in throwaways:
        assert await sync_to_async(chip_balances)(user=fresh) == {"cash": 0, "bonus": 900_00, "total": 900_00}
    assert await sync_to_async(check_ledger)() == []
