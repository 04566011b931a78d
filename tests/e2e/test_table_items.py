"""Issue 25, "Seen at every size", items 5 to 9: what the table page says, tested in Chromium at the
viewport where each was seen (1280×800 unless told).

Each game is made before the browser starts (its event loop would refuse the services' notices);
a stacked deal (``game_engine.scenario.scripted_game``) puts known cards in the hands. Screenshots:
artifacts/e2e/items-*.png.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from django.db import connections
from django.test import Client

from accounts.models import User
from game_engine.game import GameState
from tables.models import PoolGame, Table
from tests.e2e.conftest import DESKTOP
from tests.e2e.pages import CARD_SPOT, Player, in_thread, play_practice_now
from tests.e2e.stacking import stack_game
from tests.tables.conftest import make_player, make_table
from tests.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]


def seat_game(table: Table, names: Sequence[str]) -> tuple[PoolGame, list[User]]:
    """Players take every seat of ``table`` with the join form; the game starts. Users by seat."""
    users = [make_player(n) for n in names]
    for user in users:
        client = Client()
        client.force_login(user)
        assert client.post(f"/tables/{table.pk}/join/").status_code == 302
    game = table.games.get()
    assert game.status == PoolGame.Status.RUNNING
    state = GameState.from_dict(game.state)
    by_id = {str(u.pk): u for u in users}
    return game, [by_id[p.id] for p in state.players]


def open_table(player: Player, user: User, table_id: int) -> None:
    player.log_in(user)
    player.goto(f"/tables/{table_id}/")
    player.page.wait_for_selector("#groups .card")


# --------------------------------------------------------------------------- item 6
#: Three pure sequences and a four-card run of clubs: drawing 9S makes AS 2S 3S 9S by suit, a
#: valid declaration with 9S in the finish slot; sorted by rank, no declaration at all.
DECLARER = ["AS", "2S", "3S", "4H", "5H", "6H", "7D", "8D", "9D", "10C", "JC", "QC", "KC"]
OTHER = ["2H", "3D", "4C", "5S", "6D", "8H", "9H", "10D", "JH", "QD", "KH", "AC", "3C"]


@pytest.fixture
def declare_game(transactional_db: None) -> tuple[PoolGame, list[User]]:
    table = make_table(fee=0, seats=2, seed=5, turn_seconds=120)
    game, users = seat_game(table, ["asha", "ravi"])
    stack_game(game.pk, [DECLARER, OTHER], open_card="KD", cut="5C", closed_top=["9S"])
    connections.close_all()
    return game, users


def test_the_declare_hint_shows_only_when_the_groups_make_a_valid_declaration(
    live_server_url: str, declare_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    game, (asha_user, _) = declare_game
    asha = Player(browser, live_server_url, "asha", DESKTOP)
    try:
        open_table(asha, asha_user, game.table_id)
        page = asha.page
        page.click("#closed-deck.can")
        wait_until(lambda: len(asha.hand()) == 14, "the drawn card")
        # 14 cards in groups that declare nothing (by rank: no sequence at all): the points, no
        # invitation to a wrong show
        page.click("#btn-sort-rank")
        page.wait_for_selector("#hand-summary >> text=pts")
        page.wait_for_timeout(600)  # the verdict of the settled arrangement
        summary = page.inner_text("#hand-summary")
        assert "finish slot" not in summary, summary
        assert page.locator("#declare-hint").count() == 0

        page.click("#btn-sort-suit")  # AS 2S 3S 9S · 4H 5H 6H · 7D 8D 9D · 10C JC QC KC
        page.wait_for_selector("#declare-hint")
        assert page.inner_text("#declare-hint") == "· put the 9♠ in the finish slot to declare"
        asha.shot("items-declare-hint")
        asha.assert_clean()
    finally:
        asha.close()
        connections.close_all()


# --------------------------------------------------------------------------- item 9
#: No two cards of a suit in a row: no sequence, every card counts (123 points), capped at 80.
HIGH_CARDS = ["KS", "QS", "9S", "KH", "QH", "9H", "KD", "QD", "9D", "KC", "QC", "9C", "7S"]
LOW_CARDS = ["2H", "3D", "4C", "5S", "6D", "8H", "10H", "10D", "JH", "JD", "AC", "3C", "4D"]


@pytest.fixture
def capped_game(transactional_db: None) -> tuple[PoolGame, list[User]]:
    table = make_table(fee=0, seats=2, seed=6, turn_seconds=120)
    game, users = seat_game(table, ["asha", "ravi"])
    stack_game(game.pk, [HIGH_CARDS, LOW_CARDS], open_card="5D", cut="2C", closed_top=["7C"])
    connections.close_all()
    return game, users


def test_the_hands_points_say_they_are_capped_at_the_full_count(
    live_server_url: str, capped_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    game, (asha_user, _) = capped_game
    asha = Player(browser, live_server_url, "asha", DESKTOP)
    try:
        open_table(asha, asha_user, game.table_id)
        asha.page.wait_for_selector("#hand-cap")
        assert asha.page.inner_text("#hand-summary").startswith("Hand 80 pts")
        assert asha.page.inner_text("#hand-cap") == "(123 in these groups, capped at the table's full count)"
        asha.shot("items-hand-capped")
        asha.assert_clean()
    finally:
        asha.close()
        connections.close_all()


@pytest.fixture
def limits_user(transactional_db: None) -> User:
    user = make_player("meera")
    connections.close_all()
    return user


def test_the_profiles_and_deals_buttons_are_the_sites_buttons(
    live_server_url: str, limits_user: User, browser: Any
) -> None:
    meera = Player(browser, live_server_url, "meera", DESKTOP)
    try:
        meera.log_in(limits_user)
        meera.goto("/accounts/profile/")
        for text in ("Save limits", "Start the break"):
            style = meera.page.locator("button", has_text=text).evaluate(
                "b => { const s = getComputedStyle(b); return [s.color, s.borderRadius, s.backgroundColor]; }"
            )
            assert style[:2] == ["rgb(255, 255, 255)", "6px"], (text, style)
        meera.assert_clean()
    finally:
        meera.close()
        connections.close_all()


#: Every fact of every lobby tile shows its whole text inside its tile.
TILE_FACTS = """
() => {
  const out = [];
  for (const tile of document.querySelectorAll('.table-tile')) {
    const box = tile.getBoundingClientRect();
    for (const dd of tile.querySelectorAll('.tile-facts dd, .tile-facts dt')) {
      const r = dd.getBoundingClientRect();
      if (r.width === 0 || r.right > box.right + 0.5 || dd.scrollWidth > dd.clientWidth + 0.5) out.push(tile.dataset.tableId + ': ' + dd.textContent);
    }
  }
  return out;
}
"""


@pytest.fixture
def rich_tables(transactional_db: None) -> User:
    for fee in (1_000_000, 2_500_000, 500_000):  # six seats: prizes of ₹54,000.00 and the like
        make_table("201", fee=fee, seats=6, turn_seconds=30)
    user = make_player("kiran")
    connections.close_all()
    return user


def test_lobby_tiles_at_1920_show_every_fact(live_server_url: str, rich_tables: User, browser: Any) -> None:
    kiran = Player(browser, live_server_url, "kiran", {"viewport": {"width": 1920, "height": 1080}})
    try:
        kiran.log_in(rich_tables)
        kiran.goto("/")
        kiran.page.wait_for_selector(".table-tile .turn-value")
        assert kiran.page.locator(".table-tile").count() >= 3
        assert kiran.page.evaluate(TILE_FACTS) == []
        kiran.shot("items-lobby-1920")
        kiran.assert_clean()
    finally:
        kiran.close()
        connections.close_all()


# --------------------------------------------------------------------------- item 8
def test_practice_from_the_lobby_is_free_and_shuffled_with_the_browsers_seed(
    live_server_url: str, limits_user: User, browser: Any
) -> None:
    meera = Player(browser, live_server_url, "meera", DESKTOP)
    try:
        meera.log_in(limits_user)
        meera.goto("/")
        table_id = play_practice_now(meera.page, "101", 2)
        page = meera.page
        page.wait_for_selector("#groups .card", timeout=20_000)
        assert page.inner_text("#free-pill") == "Free"  # as the lobby's tile says
        assert page.locator("#prize-pool").count() == 0  # no "Prize ₹0.00"
        page.click("#btn-scores")
        page.wait_for_selector("#fair-my-seed-origin")
        assert page.inner_text("#fair-my-seed-origin") == " (from your browser)"
        state = GameState.from_dict(PoolGame.objects.get(table_id=table_id).state)
        mine = next(p for p in state.players if p.id == str(limits_user.pk))
        assert not mine.client_seed_generated and page.inner_text("#fair-my-seed") == mine.client_seed
        meera.shot("items-practice-free")
        meera.assert_clean()
    finally:
        meera.close()
        connections.close_all()


# --------------------------------------------------------------------------- item 5
@pytest.fixture
def elimination_game(transactional_db: None) -> tuple[PoolGame, list[User]]:
    """A 61 pool of three at 50, 10 and 50: a wrong show (60) takes the first out, and no rejoin
    is offered while the highest live score (50) is above 44 (docs/rules.md §7.4)."""
    table = make_table("61", fee=0, seats=3, seed=7, turn_seconds=120, pause_seconds=12)
    game, users = seat_game(table, ["asha", "ravi", "vik"])
    stack_game(
        game.pk,
        [HIGH_CARDS, LOW_CARDS, OTHER],
        open_card="5D",
        cut="2C",
        closed_top=["7C"],
        scores=[50, 10, 50],
    )
    connections.close_all()
    return game, users


def test_an_eliminated_player_is_told_why_and_watches_from_a_seat_marked_out(
    live_server_url: str, elimination_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    game, (asha_user, ravi_user, _) = elimination_game
    asha = Player(browser, live_server_url, "asha", DESKTOP)
    try:
        open_table(asha, asha_user, game.table_id)
        page = asha.page
        page.click("#closed-deck.can")
        wait_until(lambda: len(asha.hand()) == 14, "the drawn card")
        page.click("#groups .card.fresh", position=CARD_SPOT)
        page.click("#btn-finish:not([disabled])")
        page.click("#declare-confirm:not([disabled])")  # "Declare anyway": a wrong show, 60 points

        def ravi_drops() -> None:
            from tables import services

            def ravis_turn() -> PoolGame | None:
                """The game once it is Ravi's turn, Asha out after her wrong show."""
                current = PoolGame.objects.get(pk=game.pk)
                state = GameState.from_dict(current.state)
                if state.deal is not None and state.deal.turn == 1 and state.deal.status.get(0) != "playing":
                    return current
                return None

            current = wait_until(ravis_turn, "ravi's turn", timeout=30, interval=0.2)
            answer = services.game_act(
                game_id=game.pk,
                user=ravi_user,
                request_id=f"d{current.version}",
                action={"type": "drop"},
            )
            assert answer["ok"], answer

        in_thread(ravi_drops)  # vik is left alone and wins the deal
        page.wait_for_selector("#no-rejoin")
        said = page.inner_text("#no-rejoin")
        assert "your score, 110, reached the pool limit of 61" in said, said
        assert "the highest score still in the game, 50, is above 44" in said, said
        row = page.locator("#result-table tr[data-seat='0']")
        assert row.locator(".ppoints").inner_text().strip() == "60"
        assert row.locator(".pnote").inner_text() == "a wrong show costs 60, whatever the groups hold"
        asha.shot("items-no-rejoin")

        # the next deal: her seat stays, marked out; the status line says she watches; no dead buttons
        page.wait_for_selector("#me-out .seat.me.out", timeout=30_000)
        page.wait_for_selector("#status-line >> text=You are out of the game and watching")
        assert page.locator("#actions").count() == 0
        assert page.locator("#actions button[disabled]").count() == 0
        asha.shot("items-out-watching")
        asha.assert_clean()
    finally:
        asha.close()
        connections.close_all()


# --------------------------------------------------------------------------- item 7
@pytest.fixture
def finished_game(transactional_db: None) -> tuple[PoolGame, User]:
    """Ravi leaves and Asha wins: the game is over when Vik opens the table by its address."""
    from tables import services

    table = make_table(fee=0, seats=2, seed=8, turn_seconds=120)
    game, users = seat_game(table, ["asha", "ravi"])
    answer = services.game_act(game_id=game.pk, user=users[1], request_id="bye", action={"type": "leave"})
    assert answer["ok"], answer
    game.refresh_from_db()
    assert game.status == PoolGame.Status.FINISHED
    vik = make_player("vik")
    connections.close_all()
    return game, vik


def test_a_finished_table_opened_by_its_address_offers_its_next_game(
    live_server_url: str, finished_game: tuple[PoolGame, User], browser: Any
) -> None:
    game, vik_user = finished_game
    vik = Player(browser, live_server_url, "vik", DESKTOP)
    try:
        vik.log_in(vik_user)
        vik.goto(f"/tables/{game.table_id}/")
        page = vik.page
        page.wait_for_selector("#final-result")  # the last game's final sheet, and a way into the next
        assert page.inner_text("#btn-play-again").startswith("Join the next game")
        vik.shot("items-finished-table")
        page.click("#btn-play-again")

        def seated() -> bool:
            newer = PoolGame.objects.filter(table_id=game.table_id).exclude(pk=game.pk).first()
            return bool(newer and newer.seats.filter(user=vik_user).exists())

        wait_until(lambda: in_thread(seated), "vik's seat in the table's next game")
        assert page.url.endswith(f"/tables/{game.table_id}/")
        vik.assert_clean()
    finally:
        vik.close()
        connections.close_all()


@pytest.fixture
def finished_practice(transactional_db: None) -> tuple[PoolGame, User, User]:
    """Asha's own practice table, her game over (she left it, her bot won); and Vik, another player."""
    from tables import services
    from tables.game import seating

    asha = make_player("asha")
    table = seating.practice_table_start(user=asha, fmt="61", seats=2)
    game = table.games.get()
    answer = services.game_act(game_id=game.pk, user=asha, request_id="bye", action={"type": "leave"})
    assert answer["ok"], answer
    game.refresh_from_db()
    assert game.status == PoolGame.Status.FINISHED
    vik = make_player("vik")
    connections.close_all()
    return game, asha, vik


def test_a_finished_practice_table_opened_by_its_address_offers_its_owner_the_next_game(
    live_server_url: str, finished_practice: tuple[PoolGame, User, User], browser: Any
) -> None:
    """Item 7 on a private table: its owner gets a way into the next game there, free as the lobby
    says (the server says who may join: ``you.may_join``); another player who opens it gets none."""
    game, asha_user, vik_user = finished_practice
    vik = Player(browser, live_server_url, "vik", DESKTOP)
    asha = Player(browser, live_server_url, "asha", DESKTOP)
    try:
        vik.log_in(vik_user)
        vik.goto(f"/tables/{game.table_id}/")
        vik.page.wait_for_selector("#final-result")
        assert vik.page.locator("#btn-play-again").count() == 0  # another player's private table
        assert vik.page.locator("#btn-lobby").count() == 1

        asha.log_in(asha_user)
        asha.goto(f"/tables/{game.table_id}/")
        page = asha.page
        page.wait_for_selector("#final-result")
        assert page.inner_text("#btn-play-again") == "Play again · free"  # as the lobby says: no ₹0.00
        asha.shot("items-finished-practice-table")
        page.click("#btn-play-again")

        def seated() -> bool:
            newer = PoolGame.objects.filter(table_id=game.table_id).exclude(pk=game.pk).first()
            return bool(newer and newer.seats.filter(user=asha_user, left_at__isnull=True).exists())

        wait_until(lambda: in_thread(seated), "asha's seat in her table's next game")
        assert page.url.endswith(f"/tables/{game.table_id}/")
        asha.assert_clean()
        vik.assert_clean()
    finally:
        asha.close()
        vik.close()
        connections.close_all()


@pytest.fixture
def extra_time_game(transactional_db: None) -> tuple[PoolGame, list[User]]:
    """Turns of 12 s and a minute of extra time: Asha's turn runs into her extra time under her page."""
    table = make_table(fee=0, seats=2, seed=9, turn_seconds=12, extra_time_seconds=60)
    game, users = seat_game(table, ["asha", "ravi"])
    stack_game(game.pk, [HIGH_CARDS, LOW_CARDS], open_card="5D", cut="2C", closed_top=["7C"])
    connections.close_all()
    return game, users


def test_the_extra_time_bar_fills_while_extra_time_counts_down(
    live_server_url: str, extra_time_game: tuple[PoolGame, list[User]], browser: Any
) -> None:
    game, (asha_user, _) = extra_time_game
    asha = Player(browser, live_server_url, "asha", DESKTOP)
    try:
        open_table(asha, asha_user, game.table_id)
        page = asha.page
        page.wait_for_selector(".seat.me .timer:not(.extra)")  # her turn's clock first, then the extra time
        bar = page.locator(".seat.me .timer.extra .timer-bar i")
        bar.wait_for(timeout=20_000)
        page.wait_for_timeout(600)
        text = page.inner_text(".seat.me .timer.extra .timer-text")
        width = bar.evaluate(
            "i => i.getBoundingClientRect().width / i.parentElement.getBoundingClientRect().width"
        )
        assert text.startswith("extra 0:5") or text == "extra 1:00", text
        assert width > 0.8, (text, width)
        asha.shot("items-extra-time")
        asha.assert_clean()
    finally:
        asha.close()
        connections.close_all()
