"""Every page sends the Content-Security-Policy, and no page carries script the policy would block.

The policy forbids inline script and foreign origins (issue 16): a missed escape of a
player's text must not become running script. The one inline script the site writes (the table's
early socket) carries the page's nonce, fresh for each answer. The header is checked on every page
a visitor, a player and staff open; each page's HTML is checked for inline
``<script>`` code and ``on*=`` attributes, which the policy would refuse (so they
would be broken features, not just style).
"""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.test import Client

from tables import services
from tables.models import Deal, PoolGame
from tests.csp import assert_strict_policy
from tests.tables.conftest import make_player, make_table

pytestmark = pytest.mark.django_db


class InlineScriptFinder(HTMLParser):
    """Collects inline script code and event-handler attributes in a page."""

    def __init__(self, nonce: str | None) -> None:
        super().__init__()
        self.nonce = nonce
        self.allowed = 0  # inline scripts the page's nonce allows
        self.problems: list[str] = []
        self._in_inline_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        named = dict(attrs)
        for name, _value in attrs:
            if name.lower().startswith("on"):
                self.problems.append(f"<{tag} {name}=...>")
            if name.lower() in ("href", "src", "action") and (_value or "").strip().lower().startswith(
                "javascript:"
            ):
                self.problems.append(f"<{tag} {name}=javascript:...>")
        if tag == "script":
            kind = (named.get("type") or "").lower()
            self._in_inline_script = "src" not in named and kind not in ("application/json",)
            if self._in_inline_script and self.nonce and named.get("nonce") == self.nonce:
                self._in_inline_script = False
                self.allowed += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_inline_script = False

    def handle_data(self, data: str) -> None:
        if self._in_inline_script and data.strip():
            self.problems.append(f"inline script: {data.strip()[:60]!r}")


def inline_script_in(html: str, nonce: str | None = None) -> list[str]:
    """What the policy would refuse in ``html``: inline script (but what carries the page's
    ``nonce``), event-handler attributes, ``javascript:`` URLs."""
    finder = InlineScriptFinder(nonce)
    finder.feed(html)
    return finder.problems if nonce is None or finder.allowed else [*finder.problems, "an unused nonce"]


def site_pages(client: Client) -> dict[str, str]:
    """Every page of the site, with the rows each needs, seen by a logged-in player and by staff."""
    table = make_table(seats=2, seed=3)
    asha, ravi = make_player("asha"), make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)
    game = PoolGame.objects.get(table=table)
    from game_engine.game import GameState

    on_turn = (asha, ravi)[GameState.from_dict(game.state).deal.turn]
    assert services.game_act(game_id=game.pk, user=on_turn, request_id="d", action={"type": "drop"})["ok"]
    deal = Deal.objects.get(game=game, number=1)
    return {
        "lobby": "/",
        "table": f"/tables/{table.pk}/",
        "wallet": "/wallet/",
        "profile": "/accounts/profile/",
        "history": "/history/",
        "deal replay": f"/history/deals/{deal.pk}/",
        "rules": "/rules/",
        "api docs": "/api/docs/",
        "api docs script": "/api/docs/?script=",
        "api schema": "/api/schema/",
    }


def test_every_page_sends_the_policy_and_has_no_inline_script(client: Client) -> None:
    pages = site_pages(client)
    from accounts.models import User

    client.force_login(User.objects.get(username="asha"))
    nonces = {}
    for name, url in pages.items():
        response = client.get(url)
        assert response.status_code == 200, (name, url, response.status_code)
        nonces[name] = assert_strict_policy(response["Content-Security-Policy"])
        if response["Content-Type"].startswith("text/html"):
            assert inline_script_in(response.content.decode(), nonces[name]) == [], name
    # the table alone carries one script inline, its early socket, with a nonce of its own
    assert [name for name, nonce in nonces.items() if nonce] == ["table"], nonces
    again = assert_strict_policy(client.get(pages["table"])["Content-Security-Policy"])
    assert again and again != nonces["table"]


def test_visitor_pages_and_admin_send_the_policy(client: Client) -> None:
    for url in ("/", "/rules/", "/accounts/login/", "/accounts/signup/", "/admin/login/"):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_strict_policy(response["Content-Security-Policy"])
        assert inline_script_in(response.content.decode()) == [], url
    staff = make_player("boss")
    staff.is_staff = staff.is_superuser = True
    staff.save()
    client.force_login(staff)
    for url in (
        "/admin/",
        "/admin/tables/tablesettings/",
        "/admin/tables/tablesettings/add/",
        "/admin/wallet/account/",
        "/admin/accounts/user/",
    ):
        response = client.get(url)
        assert response.status_code == 200, url
        assert_strict_policy(response["Content-Security-Policy"])
        assert inline_script_in(response.content.decode()) == [], url


def test_an_error_page_sends_the_policy_too(client: Client) -> None:
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert_strict_policy(response["Content-Security-Policy"])


def test_the_policy_names_the_requesting_host_for_websockets(client: Client) -> None:
    response = client.get("/accounts/login/", HTTP_HOST="localhost:8123")
    assert_strict_policy(response["Content-Security-Policy"], host="localhost:8123")
