"""Sign-up that a shared address never blocks; the free chips wait for a confirmed mailbox (issue 37).

Players arrive as they do: the sign-up form from one address (``REMOTE_ADDR``), the mail in
``django.core.mail.outbox`` and its link followed, the wallet page read. The limits are the
production defaults (``rummy_site.settings``), not the test settings' high ones.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from io import StringIO
from unittest import mock

import pytest
from django.core import mail
from django.core.cache import cache
from django.core.management import call_command
from django.db import connections
from django.test import Client, override_settings
from django.utils import timezone

import rummy_site.settings as production
from accounts.models import User
from tests.helpers import confirmation_link, follow_confirmation_link
from wallet.models import LedgerTransaction, TransactionKind
from wallet.selectors import chip_balances

pytestmark = pytest.mark.django_db
CARRIER = "100.64.12.34"  # one carrier-grade NAT address, shared by thousands of customers
EVENING = datetime(2026, 11, 27, 13, 0, tzinfo=UTC)  # 18:30 in India
BONUS = 1000


def _form(name: str, email: str | None = None) -> dict[str, str]:
    return {
        "username": name,
        "display_name": name,
        "email": email or f"{name}@example.com",
        "confirm_age": "on",
        "accept_terms": "on",
        "password1": "Pw-for-rummy-2026",
        "password2": "Pw-for-rummy-2026",
    }


@contextmanager
def production_limits() -> Iterator[None]:
    """The sign-up limits per address as the site ships them, and the bonus at 1,000 chips."""
    limits = {
        name: getattr(production, name) for name in dir(production) if name.startswith("SIGNUPS_PER_ADDRESS")
    }
    with override_settings(**limits, SIGNUP_BONUS_CHIPS=BONUS):
        cache.clear()
        yield
        cache.clear()


class Clock:
    """``timezone.now`` held at a moment the test moves on."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now


def _sign_up(client: Client, name: str, email: str | None = None, address: str = CARRIER) -> int:
    return client.post("/accounts/signup/", _form(name, email), REMOTE_ADDR=address).status_code


def test_fifty_sign_ups_from_one_carrier_address_in_an_evening_all_succeed() -> None:
    clock = Clock(EVENING)
    with production_limits(), mock.patch("django.utils.timezone.now", clock):
        for i in range(50):  # a busy evening: one new player every two minutes behind one address
            assert _sign_up(Client(), f"player{i}") == 302, f"sign-up {i + 1} was refused"
            clock.now += timedelta(minutes=2)
    assert User.objects.filter(username__startswith="player").count() == 50


def test_a_burst_at_a_bots_rate_is_refused_with_a_clear_message_and_makes_nothing() -> None:
    limit = production.SIGNUPS_PER_ADDRESS_PER_MINUTE
    clock = Clock(EVENING)
    with production_limits(), mock.patch("django.utils.timezone.now", clock):
        for i in range(limit):
            assert _sign_up(Client(), f"bot{i}") == 302
        refused = Client().post("/accounts/signup/", _form("bot-extra"), REMOTE_ADDR=CARRIER)
        assert refused.status_code == 429
        assert "Wait a minute and try again" in refused.content.decode()
        assert not User.objects.filter(username="bot-extra").exists()
        # another address is not held up
        assert _sign_up(Client(), "elsewhere", address="198.51.100.9") == 302
        clock.now += timedelta(minutes=1)  # a minute later the same address signs up again
        assert _sign_up(Client(), "bot-extra") == 302


def test_the_bonus_waits_for_the_mailed_link_and_the_wallet_shows_it_then() -> None:
    with production_limits():
        player = Client()
        signed_up = player.post("/accounts/signup/", _form("asha"), REMOTE_ADDR=CARRIER, follow=True)
        lobby = signed_up.content.decode()
        assert "We sent a link to asha@example.com" in lobby and "1,000 free sign-up chips" in lobby
        assert 'id="confirm-banner"' in lobby and 'id="confirm-send-again"' in lobby
        asha = User.objects.get(username="asha")
        assert chip_balances(user=asha)["total"] == 0  # nothing yet
        assert 'id="confirm-banner"' in player.get("/wallet/").content.decode()
        (message,) = mail.outbox
        assert message.to == ["asha@example.com"] and "/accounts/confirm/" in message.body

        page = follow_confirmation_link(player, "asha@example.com")
        assert "1000 sign-up chips are in your wallet" in page
        wallet = player.get("/wallet/").content.decode()
        assert 'data-testid="wallet-bonus">₹1000.00' in wallet, wallet
        assert 'id="confirm-banner"' not in wallet
        assert chip_balances(user=asha) == {"cash": 0, "bonus": BONUS * 100, "total": BONUS * 100}


def test_send_again_mails_a_new_link_that_works() -> None:
    with production_limits():
        player = Client(enforce_csrf_checks=True)
        player.get("/accounts/signup/")
        token = player.cookies["csrftoken"].value
        data = {**_form("ravi"), "csrfmiddlewaretoken": token}
        assert player.post("/accounts/signup/", data, REMOTE_ADDR=CARRIER).status_code == 302
        mail.outbox.clear()
        cache.delete(f"confirm-mail:{User.objects.get(username='ravi').pk}")  # a minute went by
        lobby = player.get("/").content.decode()  # the banner's form, with the new session's token
        found = re.search(r'id="confirm-banner".*?name="csrfmiddlewaretoken" value="([^"]+)"', lobby, re.S)
        assert found, lobby
        token = found[1]
        again = player.post("/accounts/confirm/again/", {"csrfmiddlewaretoken": token, "next": "/wallet/"})
        assert again.status_code == 302 and again["Location"] == "/wallet/"
        assert len(mail.outbox) == 1
        follow_confirmation_link(player, "ravi@example.com")
        assert chip_balances(user=User.objects.get(username="ravi"))["bonus"] == BONUS * 100
        # a third press right away, the address confirmed: no mail
        player.post("/accounts/confirm/again/", {"csrfmiddlewaretoken": token})
        assert len(mail.outbox) == 1


@pytest.mark.parametrize(
    "first, second",
    [("asha.rao@gmail.com", "AshaRao+2@GMail.com"), ("meena@example.in", "Meena+rummy@example.in")],
)
def test_a_second_account_on_the_same_mailbox_confirms_but_gets_no_bonus(first: str, second: str) -> None:
    with production_limits():
        one, two = Client(), Client()
        assert _sign_up(one, "first", first) == 302
        assert "sign-up chips are in your wallet" in follow_confirmation_link(one, first)
        assert _sign_up(two, "second", second) == 302
        page = follow_confirmation_link(two, second)
        assert "no sign-up chips" in page and "this mailbox had its sign-up bonus" in page
        assert chip_balances(user=User.objects.get(username="second"))["total"] == 0
        assert User.objects.get(username="second").email_confirmed
        assert 'id="confirm-banner"' not in two.get("/").content.decode()
    assert LedgerTransaction.objects.filter(kind=TransactionKind.SIGNUP_BONUS).count() == 1


@override_settings(DAILY_TOPUP_CHIPS=500)
def test_daily_free_chips_follow_the_mailbox_not_the_account() -> None:
    """A farm of accounts behind one mailbox gets the daily chips once, like the sign-up bonus; an
    unconfirmed account gets none (page and API), and is told why."""

    def claim(client: Client) -> str:
        return client.post("/wallet/daily/", follow=True).content.decode()

    with production_limits():
        one, two = Client(), Client()
        assert _sign_up(one, "first", "asha.rao@gmail.com") == 302
        assert "Daily chips start once you confirm" in one.get("/wallet/").content.decode()
        assert "need a confirmed e-mail address" in claim(one)
        answer = one.post("/api/wallet/daily/")
        assert answer.status_code == 409 and answer.json()["code"] == "daily_chips_need_mailbox"
        assert not LedgerTransaction.objects.filter(kind=TransactionKind.DAILY_TOPUP).exists()
        follow_confirmation_link(one, "asha.rao@gmail.com")
        assert "500.00 of free bonus chips added" in claim(one)
        assert _sign_up(two, "second", "AshaRao+2@GMail.com") == 302
        follow_confirmation_link(two, "AshaRao+2@GMail.com")
        assert "need a confirmed e-mail address" in claim(two)
    assert LedgerTransaction.objects.filter(kind=TransactionKind.DAILY_TOPUP).count() == 1
    assert chip_balances(user=User.objects.get(username="second"))["total"] == 0


def test_changing_the_address_and_confirming_again_earns_no_second_bonus() -> None:
    with production_limits():
        player = Client()
        assert _sign_up(player, "asha") == 302
        follow_confirmation_link(player, "asha@example.com")
        changed = player.post("/accounts/profile/", {"display_name": "Asha", "email": "asha.new@example.org"})
        assert changed.status_code == 302
        profile = player.get("/accounts/profile/").content.decode()
        assert 'id="profile-confirm-send"' in profile  # the new address is not confirmed yet
        cache.clear()  # a minute went by since the last mail
        player.post("/accounts/confirm/again/", {"next": "/accounts/profile/"})
        page = follow_confirmation_link(player, "asha.new@example.org")
        assert "asha.new@example.org</strong> is confirmed" in page
        assert "has had its sign-up chips already" in page
        # the old link, for an address the account no longer uses, confirms nothing
        assert player.get(confirmation_link("asha@example.com")).status_code == 400
    asha = User.objects.get(username="asha")
    assert chip_balances(user=asha)["bonus"] == BONUS * 100
    assert LedgerTransaction.objects.filter(kind=TransactionKind.SIGNUP_BONUS).count() == 1


def test_a_double_click_on_the_link_grants_once() -> None:
    with production_limits():
        player = Client()
        assert _sign_up(player, "ravi") == 302
        assert "sign-up chips are in your wallet" in follow_confirmation_link(player, "ravi@example.com")
        again = follow_confirmation_link(player, "ravi@example.com")
        assert "has had its sign-up chips already" in again
    assert chip_balances(user=User.objects.get(username="ravi"))["bonus"] == BONUS * 100
    assert LedgerTransaction.objects.filter(kind=TransactionKind.SIGNUP_BONUS).count() == 1


@pytest.mark.django_db(transaction=True)
def test_clicks_at_once_from_two_accounts_on_one_mailbox_grant_one_bonus(require_postgres: None) -> None:
    """Each account's link clicked three times, all six requests released together."""
    with production_limits():
        players = {"dev": ("dev.k@gmail.com", Client()), "dev2": ("devk+2@gmail.com", Client())}
        for name, (email, client) in players.items():
            assert _sign_up(client, name, email) == 302
        clicks = [(client, confirmation_link(email)) for email, client in players.values()] * 3
        start = threading.Barrier(len(clicks))

        def click(i: int) -> int:
            client, link = clicks[i]
            try:
                start.wait(timeout=30)
                return client.get(link).status_code
            finally:
                connections.close_all()

        with ThreadPoolExecutor(max_workers=len(clicks)) as pool:
            codes = list(pool.map(click, range(len(clicks))))
    assert codes == [200] * len(clicks)
    assert LedgerTransaction.objects.filter(kind=TransactionKind.SIGNUP_BONUS).count() == 1
    totals = sorted(chip_balances(user=User.objects.get(username=n))["bonus"] for n in players)
    assert totals == [0, BONUS * 100]


def test_a_forged_or_expired_link_confirms_nothing() -> None:
    with production_limits():
        player = Client()
        assert _sign_up(player, "asha") == 302
        link = confirmation_link("asha@example.com")
        forged = player.get(link.replace("/confirm/", "/confirm/x"))
        assert forged.status_code == 400 and "not valid" in forged.content.decode()
        later = timezone.now() + timedelta(days=production.EMAIL_CONFIRM_DAYS, minutes=1)
        with mock.patch("django.core.signing.time.time", return_value=later.timestamp()):
            expired = player.get(link)
        assert expired.status_code == 400 and "expired" in expired.content.decode()
    asha = User.objects.get(username="asha")
    assert not asha.email_confirmed and chip_balances(user=asha)["total"] == 0


@override_settings(SIGNUP_BONUS_CHIPS=BONUS)
def test_the_demo_players_of_scripts_run_have_confirmed_addresses_and_their_chips() -> None:
    call_command("seed_demo", stdout=StringIO())
    for name, password in (("asha", "rummy-asha-2026"), ("ravi", "rummy-ravi-2026")):
        player = Client()
        assert player.post("/accounts/login/", {"username": name, "password": password}).status_code == 302
        lobby = player.get("/").content.decode()
        assert 'id="confirm-banner"' not in lobby
        user = User.objects.get(username=name)
        assert user.email_confirmed
        assert chip_balances(user=user)["bonus"] == BONUS * 100
