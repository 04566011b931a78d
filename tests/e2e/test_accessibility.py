"""axe-core finds no WCAG 2.2 A/AA violation on any page a player sees, at desktop and phone sizes.

axe-core comes from npm (package.json pins it; ``scripts/test`` runs ``npm ci`` when
node_modules is missing or older than the lock) and runs inside Debian's Chromium on
the landing, sign-up, lobby, table (mid-deal, and between deals with the result sheet
up), wallet, history, game, replay and rules pages, the lobby and wallet of a player whose
address waits for confirmation (its banner), the confirmation link's page and the page that
objects to a staff change of an address, at 1366×768 and 375×740. The
context bypasses the Content-Security-Policy only so that the test may inject axe's
script; the policy itself is tested in test_site_pages.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from accounts import emailchange
from accounts.models import User
from accounts.services import confirmation_token
from tables import services
from tables.models import Deal, PoolGame
from tests.e2e.conftest import ARTIFACTS, ROOT
from tests.e2e.pages import VIEWPORTS
from tests.e2e.test_table_layout import _stack
from tests.e2e.test_table_play import ASHA_HAND, RAVI_HAND
from tests.helpers import session_cookie
from tests.tables.conftest import make_player, make_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]
DEVICES: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1366, "height": 768}},
    "phone": VIEWPORTS["375x740"],
}

#: axe's verdict, shortened to what a report needs: each rule, and its first nodes with why they fail.
RUN_AXE = """
async (tags) => {
  const result = await axe.run(document, {runOnly: {type: 'tag', values: tags}});
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, count: v.nodes.length,
    nodes: v.nodes.slice(0, 4).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\\s+/g, ' ')),
  }));
}
"""


@pytest.fixture
def a11y_rows(transactional_db: None) -> dict[str, Any]:
    """Made before the browser starts: a deal over (its game between deals), and a deal running."""
    table = make_table(seats=2, seed=11, pause_seconds=600, declare_seconds=600)
    asha, ravi = make_player("asha"), make_player("ravi")
    services.table_join(table_id=table.pk, user=asha)
    services.table_join(table_id=table.pk, user=ravi)
    # a stacked deal: Asha draws, declares with pure sequences and a set, Ravi shows (a result
    # sheet with every kind of group label, and a replay with moves on both sides of its cursor)
    _stack(table, [ASHA_HAND, RAVI_HAND])
    game = PoolGame.objects.get(table=table)

    def act(user: Any, rid: str, action: dict[str, Any]) -> None:
        answer = services.game_act(game_id=game.pk, user=user, request_id=rid, action=action)
        assert answer["ok"], answer

    act(asha, "d", {"type": "draw", "source": "closed"})  # QC
    groups = [["AS", "2S", "3S"], ["4H", "5H", "6H"], ["7S", "7D", "7C"], ["9C", "10C", "JC", "QC"]]
    act(asha, "f", {"type": "finish", "card": "KD", "groups": groups})
    act(ravi, "s", {"type": "show", "groups": [RAVI_HAND[0:4], RAVI_HAND[4:8], RAVI_HAND[8:]]})
    deal = Deal.objects.get(game=game, number=1)

    running = make_table(seats=2, seed=5, turn_seconds=600, extra_time_seconds=60)
    meera, tara = make_player("meera"), make_player("tara")
    services.table_join(table_id=running.pk, user=meera)
    services.table_join(table_id=running.pk, user=tara)

    # a new player whose address is not confirmed yet (the banner on the lobby and the wallet, then
    # the page of the mailed link), and a player whose address staff changed (the objection page)
    nina = make_player("nina", chips=0)
    nina.email = "nina@example.com"
    nina.save(update_fields=["email"])
    omar = make_player("omar", chips=0)
    omar.email = "omar@elsewhere.example"
    omar.save(update_fields=["email"])
    staff = User.objects.create_user("helpdesk", password="x-staff-2026", is_staff=True)
    change = emailchange.hold(user=omar, old_email="omar@example.com", new_email=omar.email, changed_by=staff)
    return {
        "deal": deal.pk,
        "game": game.pk,
        "table": table.pk,
        "running": running.pk,
        "confirm": f"/accounts/confirm/{confirmation_token(nina)}/",
        "object": f"/accounts/email/keep/{emailchange.objection_token(change)}/",
    }


def _violations(page: Any, url: str, shot: str) -> list[str]:
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(600)  # the table's first render and its deal animation
    page.screenshot(path=str(ARTIFACTS / f"a11y-{shot}.png"), full_page=True)
    page.add_script_tag(path=str(AXE))
    found = page.evaluate(RUN_AXE, TAGS)
    return [f"{v['id']} ({v['impact']}, {v['count']} nodes): " + " | ".join(v["nodes"]) for v in found]


@pytest.mark.parametrize("device", list(DEVICES))
def test_no_wcag22_aa_violation_on_any_page(
    a11y_rows: dict[str, Any], live_server_url: str, browser: Any, device: str
) -> None:
    assert AXE.exists(), f"{AXE} is missing: npm ci (scripts/test runs it)"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    base = live_server_url
    found: dict[str, list[str]] = {}

    visitor = browser.new_context(**DEVICES[device], bypass_csp=True)
    page = visitor.new_page()
    for path, name in (("/", "landing"), ("/accounts/signup/", "signup")):
        found[name] = _violations(page, base + path, f"{device}-{name}")
    visitor.close()

    for username, pages in (
        (
            "asha",
            {
                "lobby": "/",
                "result sheet": f"/tables/{a11y_rows['table']}/",
                "wallet": "/wallet/",
                "history": "/history/",
                "game": f"/history/games/{a11y_rows['game']}/",
                "replay": f"/history/deals/{a11y_rows['deal']}/",
                "rules": "/rules/",
            },
        ),
        ("meera", {"table mid-deal": f"/tables/{a11y_rows['running']}/"}),
        (
            "nina",  # in this order: the link confirms the address, and the banner goes
            {
                "lobby, address unconfirmed": "/",
                "wallet, address unconfirmed": "/wallet/",
                "address confirmed": a11y_rows["confirm"],
            },
        ),
        ("omar", {"e-mail change objection": a11y_rows["object"]}),
    ):
        context = browser.new_context(**DEVICES[device], bypass_csp=True)
        name, value = session_cookie(User.objects.get(username=username)).split("=", 1)
        context.add_cookies([{"name": name, "value": value, "url": base}])
        page = context.new_page()
        for where, path in pages.items():
            found[where] = _violations(page, base + path, f"{device}-{where.replace(' ', '-')}")
            if where == "replay":  # axe passes small targets with room around them: the issue asks 24×24
                sizes = page.eval_on_selector_all(
                    "#replay-marks .mark", "ms => ms.map(m => [m.offsetWidth, m.offsetHeight])"
                )
                assert sizes and all(w >= 24 and h >= 24 for w, h in sizes), f"replay markers {sizes}"
        context.close()

    bad = {where: v for where, v in found.items() if v}
    if bad:
        pytest.fail(f"{device}: " + "\n".join(f"{where}:\n  " + "\n  ".join(v) for where, v in bad.items()))
