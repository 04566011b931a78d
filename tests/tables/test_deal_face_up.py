"""Finished deals face up follow the role table (issue 37, docs/staff.md): every URL that shows a
finished deal, opened by each role as it would open it (a logged-in browser, CSRF checked on the
reason form). Its players replay it face up (docs/rules.md §10.3); staff who did not play in it see
it as the table saw it; every hand needs the Game integrity role (or a superuser) and a reason, and
each look is one audit row. The deal is of a game still running (its second deal is being played).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import User
from integrity.models import Flag
from staff.models import StaffAction
from tables.models import Deal, GameEvent
from tests.staff.conftest import make_staff
from tests.tables.conftest import FakeClock, make_player
from tests.tables.games import one_finished_deal

pytestmark = pytest.mark.django_db

#: A card code standing alone (not inside a word or a hex seed): "10H", "QS", "PJ".
CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9AJQK])[SHDC](?![A-Za-z0-9])|(?<![A-Za-z0-9])PJ(?![A-Za-z0-9])")
VERB = "view_deal_face_up"


def _strings(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [s for v in data.values() for s in _strings(v)]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return [data] if isinstance(data, str) else []


def _hidden_cards(deal: Deal) -> set[str]:
    """Cards some player held that the table never saw: in a hand, never discarded, drawn from
    the open pile, shown or turned up."""
    events = [e.as_message() for e in GameEvent.objects.filter(game=deal.game, deal_number=deal.number)]
    public = {s for e in events for s in _strings(e) if CARD.fullmatch(s)}
    result = deal.result or {}
    public |= {c for p in result["players"].values() for g in p.get("groups") or [] for c in g}
    public |= {result.get("cut_joker"), result.get("finish_card")}
    held = _arranged(deal) | set(deal.dealt_order[:26])  # the hands at the end and as dealt
    hidden = held - public
    assert len(hidden) > 10
    return hidden


def _arranged(deal: Deal) -> set[str]:
    return {c for gs in (deal.result or {}).get("arrangements", {}).values() for g in gs for c in g}


def _cards_in(body: str) -> set[str]:
    return set(CARD.findall(body))


def _face_up_rows(deal: Deal) -> list[StaffAction]:
    return list(StaffAction.objects.filter(verb=VERB))


def _staff(role: str) -> User:
    if role == "superuser":
        return User.objects.create_superuser("root", password="x-staff-2026")
    if role == "staff without a role":
        return User.objects.create_user("norole", password="x-staff-2026", is_staff=True)
    return make_staff(role.replace(" ", "").lower(), role)


def _client(user: User | None) -> Client:
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    return client


def _urls(deal: Deal) -> dict[str, str]:
    """Every URL that shows a finished deal (tables/urls.py, tables/api_urls.py, the admin)."""
    over = GameEvent.objects.get(game=deal.game, deal_number=deal.number, type="deal_over")
    return {
        "replay page": f"/history/deals/{deal.pk}/",
        "replay API": f"/api/history/deals/{deal.pk}/",
        "game page": f"/history/games/{deal.game_id}/",
        "game API": f"/api/history/games/{deal.game_id}/",
        "deal admin": f"/admin/tables/deal/{deal.pk}/change/",
        "deal_over event admin": f"/admin/tables/gameevent/{over.pk}/change/",
        "staff game page": f"/admin/tables/poolgame/{deal.game_id}/change/",
    }


def _assert_table_view(client: Client, deal: Deal, who: str) -> None:
    hidden = _hidden_cards(deal)
    for what, url in _urls(deal).items():
        answer = client.get(url)
        if who == "staff without a role" and url.startswith("/admin/"):
            assert answer.status_code == 403  # no view permission of its own
            continue
        assert answer.status_code == 200, f"{who}: {what} {answer.status_code}"
        body = answer.content.decode()
        assert not hidden & _cards_in(body), f"{who} sees a hand in the {what}"
        assert deal.server_seed not in body, f"{who} gets the server seed (every hand) in the {what}"
    api = client.get(f"/api/history/deals/{deal.pk}/").json()
    assert api["face_up"] is False and api["replay"] is None
    # what the table saw is there: the public moves and the result sheet
    kinds = [e["type"] for e in api["events"]]
    assert {"deal_started", "draw", "discard", "drop", "deal_over"} <= set(kinds)
    assert api["result"]["players"] and "arrangements" not in api["result"]


@pytest.mark.parametrize(
    "role", ["Support agent", "Administrator", "staff without a role", "Game integrity", "superuser"]
)
def test_staff_see_a_finished_deal_as_the_table_saw_it_everywhere(role: str, clock: FakeClock) -> None:
    deal, _ = one_finished_deal()
    _assert_table_view(_client(_staff(role)), deal, role)
    assert not _face_up_rows(deal)


@pytest.mark.parametrize("role", ["Game integrity", "superuser"])
def test_every_hand_needs_the_role_and_a_reason_and_each_look_is_one_audit_row(
    role: str, clock: FakeClock
) -> None:
    deal, _ = one_finished_deal()
    hidden = _hidden_cards(deal)
    client = _client(_staff(role))
    page = client.get(f"/history/deals/{deal.pk}/").content.decode()
    url = f"/admin/tables/deal/{deal.pk}/face-up/"
    assert f'href="{url}"' in page  # the table's view links to the face-up page

    form = client.get(url)
    assert form.status_code == 200 and not hidden & _cards_in(form.content.decode())
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.content.decode())
    assert token is not None
    assert client.post(url, {"reason": "a dispute"}).status_code == 403  # no CSRF token: refused
    for blank in ("", "   "):
        answer = client.post(url, {"reason": blank, "csrfmiddlewaretoken": token.group(1)})
        assert answer.status_code == 200 and "required" in answer.content.decode()
        assert not hidden & _cards_in(answer.content.decode())
    assert not _face_up_rows(deal)

    for n, reason in enumerate(["ticket 481: ravi says the deck was stacked", "second look"], start=1):
        answer = client.post(url, {"reason": reason, "csrfmiddlewaretoken": token.group(1)})
        body = answer.content.decode()
        assert answer.status_code == 200
        assert hidden <= _cards_in(body) and deal.server_seed in body  # every hand, and the seeds
        assert reason in body
        rows = _face_up_rows(deal)
        assert len(rows) == n
        row = StaffAction.objects.filter(verb=VERB).order_by("-id").first()
        assert row is not None and row.reason == reason
        assert row.after == {"deal": deal.number, "deal_id": deal.pk}
        assert row.actor.username == ("root" if role == "superuser" else "gameintegrity")


@pytest.mark.parametrize("role", ["Support agent", "Administrator", "staff without a role"])
def test_a_role_without_the_hands_is_refused_the_face_up_page_even_with_a_reason(
    role: str, clock: FakeClock
) -> None:
    deal, _ = one_finished_deal()
    hidden = _hidden_cards(deal)
    user = _staff(role)
    client = _client(user)
    page = client.get(f"/history/deals/{deal.pk}/").content.decode()
    url = f"/admin/tables/deal/{deal.pk}/face-up/"
    assert url not in page
    form = client.get(url)
    assert form.status_code == 403
    token = client.cookies["csrftoken"].value if "csrftoken" in client.cookies else ""
    if not token:
        client.get("/admin/")  # an admin page sets the CSRF cookie
        token = client.cookies["csrftoken"].value
    answer = client.post(url, {"reason": "just curious", "csrfmiddlewaretoken": token})
    assert answer.status_code == 403 and not hidden & _cards_in(answer.content.decode())
    assert not _face_up_rows(deal)
    assert StaffAction.objects.filter(actor=user, verb=f"refused_{VERB}").count() == 2  # each try recorded


def test_the_players_of_the_game_replay_it_face_up_and_nobody_else_sees_it(clock: FakeClock) -> None:
    deal, users = one_finished_deal()
    hidden = _hidden_cards(deal)
    for player in users:  # docs/rules.md §10.3: the deal_over gave them the seed of every hand
        client = _client(player)
        body = client.get(f"/history/deals/{deal.pk}/").content.decode()
        assert hidden <= _cards_in(body) and deal.server_seed in body
        api = client.get(f"/api/history/deals/{deal.pk}/").json()
        assert api["face_up"] is True and api["replay"]
        assert hidden <= _cards_in(json.dumps(api))
        assert client.get(f"/admin/tables/deal/{deal.pk}/face-up/").status_code == 302  # to the admin login
    outsider = _client(make_player("elsewhere"))
    assert outsider.get(f"/history/deals/{deal.pk}/").status_code == 404
    assert outsider.get(f"/api/history/deals/{deal.pk}/").status_code == 404
    anonymous = _client(None)
    assert anonymous.get(f"/history/deals/{deal.pk}/").status_code == 302
    assert anonymous.get(f"/api/history/deals/{deal.pk}/").status_code in (401, 403)
    assert anonymous.get(f"/admin/tables/deal/{deal.pk}/face-up/").status_code == 302
    assert not _face_up_rows(deal)


def test_the_review_queue_opens_a_flags_deal_face_up_once_recorded(clock: FakeClock) -> None:
    """The flag is the reason (docs/integrity.md): one view_replay row, then every hand."""
    deal, users = one_finished_deal()
    hidden = _hidden_cards(deal)
    now = timezone.now()
    flag = Flag.objects.create(
        signal="soft_play",
        user_a=users[0],
        user_b=users[1],
        summary="test",
        figures={},
        games=[deal.game_id],
        raised_at=now,
        updated_at=now,
    )
    url = f"/admin/integrity/flag/{flag.pk}/replay/{deal.pk}/"
    investigator = _staff("Game integrity")
    body = _client(investigator).get(url).content.decode()
    assert hidden <= _cards_in(body) and deal.server_seed in body
    rows = list(StaffAction.objects.filter(verb="view_replay"))
    assert len(rows) == 1 and rows[0].actor == investigator and f"flag {flag.pk}" in rows[0].reason
    assert rows[0].after["deal"] == deal.number

    support = _client(_staff("Support agent"))
    answer = support.get(url)
    assert not hidden & _cards_in(answer.content.decode())
    assert StaffAction.objects.filter(verb="view_replay").count() == 1
