"""Every page of the site in Chromium, under its Content-Security-Policy: no violation, no console error.

A visitor opens the public pages, a player every page of theirs (the table of a
running game, a deal replay, Swagger UI), staff the admin. Each answer carries the
policy header, and the page logs no CSP violation, no console error, no uncaught
exception; the top bar's every link is on screen and uncovered (the phone is 375×740).
Swagger UI must also draw the API's operations (it is served from the
project's own files, so it works offline and under the policy).
"""

from __future__ import annotations

from typing import Any

import pytest

from game_engine.game import GameState
from tables import services
from tables.models import Deal, PoolGame
from tests.csp import assert_strict_policy
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE
from tests.e2e.pages import assert_nav_fits
from tests.e2e.watch import log_in, watch
from tests.tables.conftest import make_player, make_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.fresh_server]

PASSWORD = "felt-and-cards-2026"


def _open(page: Any, url: str, name: str, shot: str, *, site_bar: bool = True) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, (name, url)
    assert_strict_policy(response.headers["content-security-policy"], host=url.split("/")[2])
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(ARTIFACTS / f"site-{shot}.png"), full_page=True)
    if site_bar:  # the site's own pages: every link of the top bar on screen, uncovered
        assert_nav_fits(page, f"{name} ({shot})")


@pytest.fixture
def site_rows(transactional_db: None) -> dict[str, int]:
    """Made before the browser starts (its event loop would refuse the services' notices)."""
    deal, table_id = _finished_deal()
    running = make_table(seats=3, fee=500)
    staff = make_player("boss")
    staff.is_staff = staff.is_superuser = True
    staff.set_password(PASSWORD)
    staff.save()
    return {"deal": deal.pk, "game": deal.game_id, "table": table_id, "open_table": running.pk}


def _finished_deal() -> tuple[Deal, int]:
    """Asha and Ravi's table: deal 1 over (whoever was on turn dropped), the game running on."""
    table = make_table(seats=2, seed=11, pause_seconds=600)
    asha = make_player("asha")
    asha.set_password(PASSWORD)
    asha.save()
    ravi = make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)
    game = PoolGame.objects.get(table=table)
    on_turn = (asha, ravi)[GameState.from_dict(game.state).deal.turn]
    assert services.game_act(game_id=game.pk, user=on_turn, request_id="d", action={"type": "drop"})["ok"]
    return Deal.objects.get(game=game, number=1), table.pk


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_every_page_runs_clean_under_the_policy(
    site_rows: dict[str, int], live_server_url: str, browser: Any, device: str
) -> None:
    context = browser.new_context(**(DESKTOP if device == "desktop" else PHONE))
    page = context.new_page()
    seen = watch(page)
    base = live_server_url

    for path, name in (
        ("/", "landing"),
        ("/rules/", "rules"),
        ("/accounts/login/", "login"),
        ("/accounts/signup/", "signup"),
    ):
        _open(page, base + path, name, f"{device}-{name}")
        seen.assert_clean(name)

    log_in(page, base, "asha", PASSWORD)
    pages = {
        "lobby": "/",
        "table": f"/tables/{site_rows['table']}/",
        "open table": f"/tables/{site_rows['open_table']}/",
        "wallet": "/wallet/",
        "profile": "/accounts/profile/",
        "history": "/history/",
        "deal replay": f"/history/deals/{site_rows['deal']}/",
        "game page": f"/history/games/{site_rows['game']}/",
        "rules": "/rules/",
    }
    for name, path in pages.items():
        # the table between deals has its result sheet up, over the page (the layout test checks its top bar)
        _open(page, base + path, name, f"{device}-{name.replace(' ', '-')}", site_bar=name != "table")
        seen.assert_clean(name)

    _open(page, base + "/api/docs/", "api docs", f"{device}-api-docs", site_bar=False)
    page.locator(".swagger-ui .opblock-summary").first.wait_for(timeout=15_000)
    assert page.locator(".swagger-ui .opblock-summary").count() >= 10
    seen.assert_clean("api docs")
    context.close()

    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page)
    log_in(page, base, "boss", PASSWORD)
    for path in ("/admin/", "/admin/tables/tablesettings/add/", "/admin/wallet/account/"):
        _open(page, base + path, path, f"{device}-admin-{path.strip('/').replace('/', '-')}", site_bar=False)
        seen.assert_clean(path)
    context.close()
