"""The integrity sections of the staff player page (``integrity.selectors.player_sections``)."""

from __future__ import annotations

import pytest
from django.test import Client

from integrity import links
from integrity.models import AccountLink
from integrity.selectors import player_sections

from .conftest import player

pytestmark = pytest.mark.django_db


def test_sections_list_signup_logins_and_linked_accounts(investigator):
    asha, ravi = player("asha"), player("ravi")
    client = Client()
    client.post(
        "/accounts/login/", {"username": "asha", "password": "x-player-2026"}, REMOTE_ADDR="192.0.2.9"
    )
    links.link(asha, ravi, source=AccountLink.Source.DEVICE, evidence="one laptop")
    seen, linked = player_sections(asha)
    assert seen["title"].startswith("Sign-up and recent log-ins")
    assert seen["rows"][0]["label"] == "Sign-up" and "not recorded" in seen["rows"][0]["value"]
    assert any(r["label"] == "Log-in" and "192.0.2.9" in r["value"] for r in seen["rows"])
    assert linked["title"] == "Linked accounts"
    row = next(r for r in linked["rows"] if r["label"] == "ravi")
    assert "kept apart: shared device" in row["value"] and row["link"].startswith(
        "/admin/integrity/accountlink/"
    )
    assert all({"label", "value", "link"} <= set(r) for s in (seen, linked) for r in s["rows"])
