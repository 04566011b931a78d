"""Fair play in a real browser (issue 27): a Game integrity user reads the signal pages, opens a
flag in the review queue, replays one of its deals face up (recorded), records a decision, links
two accounts; the linked player is then refused a seat in words that name nobody. Screenshots in
artifacts/e2e/integrity-*.png."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.db import connections
from django.test import Client
from django.utils import timezone

from accounts.models import User
from integrity import services as integrity_services
from integrity.models import Flag
from staff.models import StaffAction
from tables import clock as table_clock
from tables import services
from tables.clock import OffsetClock
from tables.game import drivers, notify
from tables.models import PoolGame, Table
from tests.e2e.conftest import ARTIFACTS, DESKTOP
from tests.e2e.watch import log_in, watch
from tests.tables.conftest import make_player, make_table

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True), pytest.mark.fresh_server]


@pytest.fixture
def review_case(transactional_db: None, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """Two finished games between asha and ravi, scanned, and a flag on them; a waiting table
    where asha sits. Made before the browser starts."""
    asha, ravi = make_player("asha"), make_player("ravi")
    ravi.set_password("ravi-Pass-2026")
    ravi.save()
    table = make_table("61", fee=1_000, seats=2)
    fake = OffsetClock()
    monkeypatch.setattr(table_clock, "now", fake.now)
    games = []
    with notify.suppressed():
        for _ in range(2):
            services.table_join(table_id=table.pk, user=asha)
            seat = services.table_join(table_id=table.pk, user=ravi)  # two seats: the game starts
            games.append(drivers.play_out(game_id=seat.game_id, clock=fake).pk)
    monkeypatch.undo()
    integrity_services.scan()
    now = timezone.now()
    flag = Flag.objects.create(
        signal="chip_dumping",
        user_a=ravi,
        user_b=asha,
        summary="7 entry fees moved one way over 2 games (staged for this test)",
        figures={"net_fees": 7.0, "paid_games": 2, "net_chips": 700},
        games=games,
        score=4.0,
        raised_at=now,
        updated_at=now,
    )
    waiting = make_table("101", fee=1_000, seats=3)
    client = Client()
    client.force_login(asha)
    assert client.post(f"/tables/{waiting.pk}/join/").status_code == 302
    sleuth = User.objects.create_user("sleuth", password="sleuth-Pass-2026", is_staff=True)
    sleuth.groups.add(Group.objects.get(name="Game integrity"))
    return {"flag": flag, "games": games, "waiting": waiting}


def test_signal_pages_review_queue_decision_and_a_refused_seat(
    live_server_url: str, review_case: dict[str, Any], browser: Any
) -> None:
    flag: Flag = review_case["flag"]
    waiting: Table = review_case["waiting"]
    context = browser.new_context(**DESKTOP)
    page = context.new_page()
    seen = watch(page)
    try:
        page.goto(f"{live_server_url}/admin/login/")
        page.fill("#id_username", "sleuth")
        page.fill("#id_password", "sleuth-Pass-2026")
        page.click("input[type=submit]")
        page.goto(f"{live_server_url}/admin/integrity/signalrow/")
        page.wait_for_selector("#signal-index")
        assert "Chip dumping" in page.text_content("#signal-index")
        assert "Last scan" in page.text_content("#last-scan")
        page.screenshot(path=str(ARTIFACTS / "integrity-signals.png"), full_page=True)

        page.click("#signal-index a:has-text('Chip dumping')")
        page.wait_for_selector("#signal-rows")
        assert "entry fees moved one way" in page.text_content("#signal-rule")
        assert "ravi" in page.text_content("#signal-rows") and "asha" in page.text_content("#signal-rows")
        page.screenshot(path=str(ARTIFACTS / "integrity-chip-dumping.png"), full_page=True)

        page.goto(f"{live_server_url}/admin/integrity/flag/")
        page.wait_for_selector("#result_list")
        page.screenshot(path=str(ARTIFACTS / "integrity-review-queue.png"), full_page=True)
        page.click(f"#result_list a[href$='/flag/{flag.pk}/change/']")
        page.wait_for_selector("#flag-games")
        assert page.locator(".replay-link").count() >= 2
        assert "net_chips: ₹7.00" in page.text_content("#flag")  # in rupees, as staff read money
        page.screenshot(path=str(ARTIFACTS / "integrity-flag.png"), full_page=True)

        page.click(".replay-link >> nth=0")
        page.wait_for_url(lambda url: "/replay/" in url)  # shown face up here, once recorded
        page.wait_for_load_state("networkidle")
        page.locator("#replay-marks .mark-over").click()
        assert page.locator("#face-up-note").count() == 1 and page.locator("#replay-hands").count() == 1
        page.screenshot(path=str(ARTIFACTS / "integrity-replay.png"), full_page=True)
        page.go_back()
        page.wait_for_selector("#decision")
        page.check("input[name=decision][value=cleared]")
        page.fill("#id_reason", "replayed both games: ordinary play, no dumping")
        page.check("#id_clear_link")
        page.click("#decide-submit")
        page.wait_for_selector("#flag-decision")
        assert "Cleared" in page.text_content("#flag-decision")
        page.screenshot(path=str(ARTIFACTS / "integrity-decided.png"), full_page=True)

        page.goto(f"{live_server_url}/admin/integrity/accountlink/")
        page.click("#link-accounts")
        page.fill("#id_first", "asha")
        page.fill("#id_second", "ravi")
        page.fill("#id_reason", "same person, support ticket 41")
        page.click("#link-submit")
        page.wait_for_selector("#result_list")
        assert "Linked by staff" in page.text_content("#result_list")
        page.screenshot(path=str(ARTIFACTS / "integrity-links.png"), full_page=True)
        seen.assert_clean("integrity pages")

        player = browser.new_context(**DESKTOP).new_page()
        player_seen = watch(player)
        log_in(player, live_server_url, "ravi", "ravi-Pass-2026")
        player.goto(f"{live_server_url}/")
        # the lobby's first list replaces the server's tiles: a click as it does can be lost
        # (pages.join_from_lobby; a loaded run waited 30 s for a join never posted)
        player.wait_for_selector("#lobby-tables[data-live]")
        player.click(f".table-tile[data-table-id='{waiting.pk}'] .join-btn")
        player.wait_for_selector("text=fair-play rules keep some accounts apart")
        assert "asha" not in player.text_content("main").lower()
        player.screenshot(path=str(ARTIFACTS / "integrity-seat-refused.png"), full_page=True)
        player.context.close()
        player_seen.assert_clean("the refused seat")
    finally:
        context.close()
    try:
        verbs = set(StaffAction.objects.filter(actor__username="sleuth").values_list("verb", flat=True))
        assert {"view_replay", "decide_flag", "link_accounts"} <= verbs
        assert not PoolGame.objects.filter(table=waiting, seats__user__username="ravi").exists()
    finally:
        connections.close_all()
