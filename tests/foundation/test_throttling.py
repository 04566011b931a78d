"""Brute force and farming from one address: failed log-ins and sign-ups are throttled."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client, override_settings

from accounts.models import User

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


@override_settings(SIGNUPS_PER_ADDRESS_PER_DAY=2)
def test_sign_ups_from_one_address_are_limited_per_day() -> None:
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
