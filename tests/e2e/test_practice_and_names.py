"""A newcomer signs up and plays practice from the lobby; a hostile display name runs no script anywhere.

Both arrive the way people do: the sign-up page, then the lobby's "Play practice
now" control (61, 101 or 201 pool, 2 to 6 seats), which deals their own table with
bots at once. The hostile player's display name is HTML that would run script if
any page built it into markup; every page it reaches (lobby, profile, table,
history, deal replay) must show it as text, open no dialog, and carry the CSP.
"""

from __future__ import annotations

from typing import Any

import pytest

from accounts.models import User
from tables import services
from tables.models import Deal, PoolGame, Table
from tests.csp import assert_strict_policy
from tests.e2e.conftest import ARTIFACTS, DESKTOP, PHONE
from tests.e2e.pages import in_thread, play_practice_now, sign_up
from tests.e2e.watch import Watch, watch
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

#: Fits the 24 characters of a display name; as markup it would run alert(1).
HOSTILE = "<svg onload=alert(1)>"
TIMEOUT = 20_000


def assert_no_markup_from_names(page: Any, seen: Watch, where: str) -> None:
    """No element carries an event-handler attribute: the name never became markup (CSP or not)."""
    handlers = page.evaluate(
        """() => Array.from(document.querySelectorAll('*')).filter(
              el => Array.from(el.attributes).some(a => a.name.toLowerCase().startsWith('on'))).length"""
    )
    assert handlers == 0, f"{where}: {handlers} element(s) with on* attributes"
    seen.assert_clean(where)


def check_page(page: Any, seen: Watch, url: str, where: str) -> None:
    response = page.goto(url)
    assert response is not None and response.status == 200, where
    assert_strict_policy(response.headers["content-security-policy"], host=url.split("/")[2])
    page.wait_for_load_state("networkidle")
    assert_no_markup_from_names(page, seen, where)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_play_practice_now_from_the_lobby(live_server_url: str, browser: Any, device: str) -> None:
    context = browser.new_context(**(DESKTOP if device == "desktop" else PHONE))
    page = context.new_page()
    seen = watch(page)
    sign_up(page, live_server_url, f"newcomer{device}", "Newcomer")
    table_id = play_practice_now(page, "61", 3)
    # the bots are seated and the game dealt: the page shows them without a reload
    page.get_by_text("(bot)").nth(1).wait_for(timeout=TIMEOUT)
    page.screenshot(path=str(ARTIFACTS / f"practice-now-{device}.png"))

    def rows() -> tuple[Any, ...]:
        table = Table.objects.select_related("settings", "owner").get(pk=table_id)
        game = PoolGame.objects.get(table=table)
        return (
            table.owner.username,
            table.settings.format,
            table.settings.seats,
            game.status,
            sorted(s.is_bot for s in game.seats.all()),
        )

    assert in_thread(rows) == (f"newcomer{device}", "61", 3, "running", [False, True, True])
    # back in the lobby the player's own table is there to go back to; nobody else's would be
    page.goto(f"{live_server_url}/")
    page.locator(f'[data-table-id="{table_id}"]').get_by_text("Back to your game").wait_for(timeout=TIMEOUT)
    seen.assert_clean("practice from the lobby")
    context.close()


def test_a_hostile_display_name_runs_no_script(live_server_url: str, browser: Any) -> None:
    base = live_server_url
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page)
    sign_up(page, base, "mallory", HOSTILE)
    assert in_thread(lambda: User.objects.get(username="mallory").display_name) == HOSTILE

    check_page(page, seen, f"{base}/", "lobby")
    assert HOSTILE in page.inner_text("header")  # the top bar names the player, as text
    check_page(page, seen, f"{base}/accounts/profile/", "profile")

    page.goto(f"{base}/")
    table_id = play_practice_now(page, "61", 2)
    page.get_by_text("(bot)").first.wait_for(timeout=TIMEOUT)
    assert_no_markup_from_names(page, seen, "table")

    def drop_out() -> int:
        """Mallory drops at her turn (waiting for it while the bot plays), so deal 1 goes to history.

        The bot may end deal 1 first: it drops a hopeless hand at its first turn.
        """
        from game_engine.game import GameState

        mallory = User.objects.get(username="mallory")
        trail: list[Any] = []
        seat: list[int] = []

        def deal_one_over() -> int | None:
            """Deal 1's id once it is over; Mallory drops when it is her turn."""
            game = PoolGame.objects.get(table_id=table_id)
            first = Deal.objects.filter(game=game, number=1, finished_at__isnull=False).first()
            if first is not None:
                return first.pk
            state = GameState.from_dict(game.state)
            me = next(i for i, p in enumerate(state.players) if p.id == str(mallory.pk))
            seat[:] = [me]
            trail.append((game.version, state.deal and (state.deal.turn, state.deal.phase)))
            if state.deal is not None and state.deal.turn == me:
                answer = services.game_act(
                    game_id=game.pk, user=mallory, request_id=f"drop-{game.version}", action={"type": "drop"}
                )
                if answer["ok"]:
                    return Deal.objects.get(game=game, number=1).pk
                trail.append(answer)
            return None

        return wait_until(
            deal_one_over,
            "deal 1 to end, by Mallory's drop or the bot's",
            timeout=60,  # a loaded CI machine once took over 30 s
            interval=0.2,
            detail=lambda: (
                f"mallory (seat {seat[-1] if seat else None}), the game's last turns: {trail[-12:]}"
            ),
        )

    deal_id = in_thread(drop_out)
    check_page(page, seen, f"{base}/history/", "history")
    assert "Practice 61 Pool" in page.inner_text("#deal-history")

    check_page(page, seen, f"{base}/history/deals/{deal_id}/", "deal replay")
    assert HOSTILE in page.inner_text("#deal-result")
    # step through every move: each description names players, always as text
    items = page.locator("#deal-events li")
    said = []
    for k in range(items.count()):
        items.nth(k).click()
        said.append(page.inner_text("#replay-now"))
        assert_no_markup_from_names(page, seen, f"replay step {k}")
    assert any(HOSTILE in line for line in said), said
    # the timeline's markers and jump-to-turn re-render the names: still text
    page.locator("#replay-marks .mark").first.click()
    page.fill("#replay-turn-no", "1")
    page.click("#replay-jump button[type=submit]")
    assert_no_markup_from_names(page, seen, "replay timeline and jump")
    page.click("#game-link")
    page.wait_for_selector("#game-deals")
    assert HOSTILE in page.inner_text("#game-deals thead")
    assert_no_markup_from_names(page, seen, "game page")
    page.screenshot(path=str(ARTIFACTS / "hostile-name-replay.png"), full_page=True)
    context.close()
