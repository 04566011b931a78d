"""The OpenAPI schema tells the truth: real answers of every API operation validate against it.

Each operation of the generated schema is called the way a client would (logged in,
through the URL, on real rows), in its success case and its documented refusals, and
openapi-core checks the status, the content type and the body against the schema's
response definition. A new operation without a case here fails the coverage test.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from openapi_core import OpenAPI
from openapi_core.contrib.django import DjangoOpenAPIRequest, DjangoOpenAPIResponse

from accounts.models import BonusMailbox
from game_engine.game import GameState
from tables import services
from tables.models import Deal, PoolGame
from tests.tables.conftest import FakeClock, make_player, make_table

pytestmark = pytest.mark.django_db


def _schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True) or {}


@pytest.fixture(scope="module")
def openapi() -> OpenAPI:
    return OpenAPI.from_dict(_schema())


class Checker:
    """Calls the API and validates each answer against the schema; remembers what it covered."""

    def __init__(self, client: Client, openapi: OpenAPI) -> None:
        self.client = client
        self.openapi = openapi
        self.covered: set[tuple[str, str, int]] = set()

    def call(self, method: str, path: str, template: str, status: int, **kwargs: Any) -> Any:
        response = getattr(self.client, method)(path, **kwargs)
        assert response.status_code == status, (method, path, response.status_code, response.content[:300])
        self.openapi.validate_response(
            DjangoOpenAPIRequest(response.wsgi_request), DjangoOpenAPIResponse(response)
        )
        self.covered.add((method, template, status))
        return response.json() if response.content else None


@pytest.fixture
def check(client: Client, openapi: OpenAPI) -> Iterator[Checker]:
    yield Checker(client, openapi)


def _finished_deal(clock: FakeClock) -> tuple[Deal, list[Any]]:
    table = make_table(seats=2, seed=9)
    users = [make_player("asha"), make_player("ravi")]
    for u in users:
        services.table_join(table_id=table.pk, user=u)
    game = PoolGame.objects.get(table=table)
    on_turn = users[GameState.from_dict(game.state).deal.turn]
    assert services.game_act(game_id=game.pk, user=on_turn, request_id="d", action={"type": "drop"})["ok"]
    return Deal.objects.get(game=game, number=1), users


def test_every_api_answer_matches_the_schema(client: Client, check: Checker, clock: FakeClock) -> None:
    deal, (asha, _ravi) = _finished_deal(clock)
    client.force_login(asha)
    BonusMailbox.objects.create(key="asha@example.com", user=asha)  # daily chips follow it

    # tables
    open_table = make_table(fee=1_000, seats=4)
    rows = check.call("get", "/api/tables/", "/api/tables/", 200)
    assert {r["id"] for r in rows} >= {open_table.pk}
    check.call("get", "/api/tables/?format=101&status=open", "/api/tables/", 200)
    assert [r["id"] for r in check.call("get", f"/api/tables/?ids={open_table.pk}", "/api/tables/", 200)] == [
        open_table.pk
    ]
    check.call("get", "/api/tables/?ids=1,x", "/api/tables/", 400)
    check.call("get", f"/api/tables/{open_table.pk}/", "/api/tables/{table_id}/", 200)
    check.call("get", f"/api/tables/{deal.game.table_id}/", "/api/tables/{table_id}/", 200)
    check.call("get", "/api/tables/987654/", "/api/tables/{table_id}/", 404)
    check.call("post", f"/api/tables/{open_table.pk}/join/", "/api/tables/{table_id}/join/", 201)
    check.call("post", f"/api/tables/{open_table.pk}/join/", "/api/tables/{table_id}/join/", 409)
    check.call("post", "/api/tables/987654/join/", "/api/tables/{table_id}/join/", 404)
    check.call("post", f"/api/tables/{open_table.pk}/leave/", "/api/tables/{table_id}/leave/", 204)
    check.call("post", f"/api/tables/{open_table.pk}/leave/", "/api/tables/{table_id}/leave/", 409)
    check.call("post", "/api/tables/987654/leave/", "/api/tables/{table_id}/leave/", 404)

    # hand history: the list is paginated, and says so
    page = check.call("get", "/api/history/deals/", "/api/history/deals/", 200)
    assert [d["id"] for d in page["results"]] == [deal.pk] and page["count"] == 1
    check.call("get", f"/api/history/deals/{deal.pk}/", "/api/history/deals/{deal_id}/", 200)
    check.call("get", "/api/history/deals/987654/", "/api/history/deals/{deal_id}/", 404)
    running = check.call("get", f"/api/history/games/{deal.game_id}/", "/api/history/games/{game_id}/", 200)
    assert not running["result"]["over"] and running["deals"][0]["finished"]
    services.game_act(game_id=deal.game_id, user=_ravi, request_id="bye", action={"type": "leave"})
    over = check.call("get", f"/api/history/games/{deal.game_id}/", "/api/history/games/{game_id}/", 200)
    assert over["status"] == "finished" and over["result"]["over"] and over["result"]["payouts"]
    check.call("get", "/api/history/games/987654/", "/api/history/games/{game_id}/", 404)

    # the engine's verdict on groups
    verdict = check.call(
        "post",
        "/api/groups/evaluate/",
        "/api/groups/evaluate/",
        200,
        data={"groups": [["AH", "2H", "3H"], ["5D", "5C", "PJ"]], "wild_rank": 7},
        content_type="application/json",
    )
    assert verdict["groups"][0]["kind"] == "pure_sequence"
    check.call(
        "post",
        "/api/groups/evaluate/",
        "/api/groups/evaluate/",
        400,
        data={"groups": [["ZZ"]], "wild_rank": 7},
        content_type="application/json",
    )
    check.call(
        "post",
        "/api/groups/evaluate/",
        "/api/groups/evaluate/",
        400,
        data={"groups": "nope"},
        content_type="application/json",
    )

    # wallet
    check.call("get", "/api/wallet/", "/api/wallet/", 200)
    check.call("get", "/api/wallet/transactions/", "/api/wallet/transactions/", 200)
    check.call("post", "/api/wallet/daily/", "/api/wallet/daily/", 201)
    check.call("post", "/api/wallet/daily/", "/api/wallet/daily/", 409)

    # practice on demand
    made = check.call(
        "post",
        "/api/practice/",
        "/api/practice/",
        201,
        data={"format": "61", "seats": 3},
        content_type="application/json",
    )
    assert made["url"] == f"/tables/{made['table']}/" and made["game"]
    check.call(
        "post",
        "/api/practice/",
        "/api/practice/",
        400,
        data={"format": "61", "seats": 9},
        content_type="application/json",
    )
    # still playing the 61 practice game: another kind must wait until it is finished or left
    check.call(
        "post",
        "/api/practice/",
        "/api/practice/",
        409,
        data={"format": "201", "seats": 2},
        content_type="application/json",
    )

    documented = {
        (method, path, int(status))
        for path, item in _schema()["paths"].items()
        for method, operation in item.items()
        for status in operation["responses"]
    }
    missing = sorted(documented - check.covered)
    assert missing == [], f"documented answers never checked against a real response: {missing}"


def test_the_deal_history_is_documented_as_a_page() -> None:
    answer = _schema()["paths"]["/api/history/deals/"]["get"]["responses"]["200"]
    ref = answer["content"]["application/json"]["schema"]["$ref"]
    page = _schema()["components"]["schemas"][ref.rsplit("/", 1)[-1]]
    assert {"count", "next", "previous", "results"} <= set(page["properties"])
    assert page["properties"]["results"]["type"] == "array"
