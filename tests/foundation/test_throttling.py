"""Brute force and floods from one address: failed log-ins are throttled, sign-ups only at a bot's rate
(per minute: an address shared by many people never blocks sign-up, issue 37)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from unittest import mock

import pytest
import requests
from django.conf import settings
from django.core.cache import cache
from django.db import connections
from django.test import Client, override_settings

from accounts.models import User
from tests.tables import procs
from wallet.models import LedgerTransaction, TransactionKind

pytestmark = pytest.mark.django_db


def _log_in(client: Client, password: str, address: str) -> int:
    response = client.post(
        "/accounts/login/", {"username": "asha", "password": password}, REMOTE_ADDR=address
    )
    return response.status_code


def test_failed_log_ins_lock_that_name_from_that_address_for_a_while() -> None:
    User.objects.create_user("asha", password="the-right-password-2026")
    attacker = Client()
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _log_in(attacker, "guess", "10.0.0.66") == 200  # the form again, with an error
    assert _log_in(attacker, "guess", "10.0.0.66") == 429  # the last failure allowed
    # the right password no longer works from there...
    assert _log_in(attacker, "the-right-password-2026", "10.0.0.66") == 429
    assert "_auth_user_id" not in attacker.session
    # ...while the player herself, from her own address, still gets in
    player = Client()
    assert _log_in(player, "the-right-password-2026", "10.0.0.7") == 302
    assert player.session["_auth_user_id"] == str(User.objects.get(username="asha").pk)


#: A moment held still, so that a test's sign-ups fall in one minute of the flood guard.
ONE_MINUTE = datetime(2026, 11, 27, 13, 0, 5, tzinfo=UTC)


def _clear_of_a_minute_boundary() -> None:
    """Wait for a new minute if this one is nearly over: a burst must fall in one minute's count."""
    into = time.time() % 60
    if into > 40:
        time.sleep(60 - into + 0.5)  # time passes on purpose: into the next minute's window


@override_settings(SIGNUPS_PER_ADDRESS_PER_MINUTE=2)
@mock.patch("django.utils.timezone.now", lambda: ONE_MINUTE)
def test_sign_ups_from_one_address_are_limited_per_minute() -> None:
    cache.clear()

    def sign_up(name: str, address: str) -> int:
        data = {
            "username": name,
            "display_name": name,
            "email": f"{name}@example.com",
            "confirm_age": "on",
            "accept_terms": "on",
            "password1": "Pw-for-rummy-2026",
            "password2": "Pw-for-rummy-2026",
        }
        return Client().post("/accounts/signup/", data, REMOTE_ADDR=address).status_code

    assert sign_up("farm1", "10.9.9.9") == 302
    assert sign_up("farm2", "10.9.9.9") == 302
    assert sign_up("farm3", "10.9.9.9") == 429
    assert not User.objects.filter(username="farm3").exists()
    assert sign_up("someone", "10.1.2.3") == 302


# ---------------------------------------------------------------------------
# sign-ups at once (issue 23): 20 parallel sign-ups from one address made 20 accounts
# ---------------------------------------------------------------------------
PARALLEL = 20
LIMIT = 3


def _sign_up_form(name: str) -> dict[str, str]:
    return {
        "username": name,
        "display_name": name,
        "email": f"{name}@example.com",
        "confirm_age": "on",
        "accept_terms": "on",
        "password1": "Pw-for-rummy-2026",
        "password2": "Pw-for-rummy-2026",
    }


def _all_at_once(sign_up: Callable[[int], int]) -> list[int]:
    """``sign_up(i)`` in ``PARALLEL`` threads, released together; their status codes."""
    start = threading.Barrier(PARALLEL)

    def one(i: int) -> int:
        try:
            start.wait(timeout=60)
            return sign_up(i)
        finally:
            connections.close_all()  # this thread's database connection, if it opened one

    with ThreadPoolExecutor(max_workers=PARALLEL) as pool:
        return list(pool.map(one, range(PARALLEL)))


def _farmed() -> tuple[int, int]:
    """Accounts made by the farm, and how many of them got the sign-up bonus (none: it waits for a
    confirmed mailbox)."""
    farm = User.objects.filter(username__startswith="farm")
    bonus = LedgerTransaction.objects.filter(kind=TransactionKind.SIGNUP_BONUS, caused_by__in=farm).count()
    return farm.count(), bonus


@pytest.mark.django_db(transaction=True)
def test_parallel_sign_ups_from_one_address_on_a_real_server_make_exactly_the_allowed_accounts(
    require_postgres: None, require_redis: str
) -> None:
    """A Daphne with REDIS_URL (the count in Redis), 20 real HTTP sign-ups with their CSRF tokens at once."""
    with procs.private_redis(require_redis) as redis_url:
        daphne, port = procs.start_daphne(redis_url, SIGNUPS_PER_ADDRESS_PER_MINUTE=str(LIMIT))
        site = f"http://127.0.0.1:{port}"
        forms: list[tuple[requests.Session, str]] = []
        try:
            for _ in range(PARALLEL):  # each browser has the form (and its CSRF cookie) open first
                browser = requests.Session()
                assert browser.get(f"{site}/accounts/signup/", timeout=10).status_code == 200
                forms.append((browser, browser.cookies["csrftoken"]))

            def sign_up(i: int) -> int:
                browser, token = forms[i]
                response = browser.post(
                    f"{site}/accounts/signup/",
                    data={**_sign_up_form(f"farm{i}"), "csrfmiddlewaretoken": token},
                    headers={"Origin": site, "Referer": f"{site}/accounts/signup/"},
                    allow_redirects=False,
                    timeout=30,
                )
                return response.status_code

            _clear_of_a_minute_boundary()
            codes = _all_at_once(sign_up)
        except BaseException:
            print(daphne.tail())
            raise
        finally:
            daphne.stop()
            for browser, _ in forms:
                browser.close()
    assert sorted(codes) == [302] * LIMIT + [429] * (PARALLEL - LIMIT), codes
    assert _farmed() == (LIMIT, 0)


@pytest.mark.django_db(transaction=True)
def test_parallel_sign_ups_from_one_address_with_the_local_memory_cache(require_postgres: None) -> None:
    """Without REDIS_URL the count is in the process's memory: threads of one process at once."""
    locmem = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "signups"}}
    with (
        override_settings(CACHES=locmem, SIGNUPS_PER_ADDRESS_PER_MINUTE=LIMIT),
        mock.patch("django.utils.timezone.now", lambda: ONE_MINUTE),
    ):
        cache.clear()

        def sign_up(i: int) -> int:
            response = Client().post("/accounts/signup/", _sign_up_form(f"farm{i}"), REMOTE_ADDR="10.7.7.7")
            return response.status_code

        codes = _all_at_once(sign_up)
        assert sorted(codes) == [302] * LIMIT + [429] * (PARALLEL - LIMIT), codes
        assert _farmed() == (LIMIT, 0)
        cache.clear()


@override_settings(SIGNUPS_PER_ADDRESS_PER_MINUTE=2)
@mock.patch("django.utils.timezone.now", lambda: ONE_MINUTE)
def test_a_refused_sign_up_form_gives_its_slot_back() -> None:
    """The slot is taken before the account is made; a form with an error makes none and frees it."""
    cache.clear()

    def sign_up(name: str, **change: str) -> int:
        data = {**_sign_up_form(name), **change}
        return Client().post("/accounts/signup/", data, REMOTE_ADDR="10.4.4.4").status_code

    for _ in range(3):
        assert sign_up("farm-x", password2="not-the-same-2026") == 200  # the form again, with its error
    assert sign_up("farm1") == 302
    assert sign_up("farm2") == 302
    assert sign_up("farm3") == 429
    assert User.objects.filter(username__startswith="farm").count() == 2
