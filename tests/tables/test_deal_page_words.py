"""The deal page's result sheet says how each seat's deal ended in words (issue 41): "Dropped
(missed turns)", never the stored codes ``dropped (missed_turns)``."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tables.models import Deal
from tables.templatetags.outcomes import deal_outcome
from tests.tables.conftest import FakeClock
from tests.tables.games import one_finished_deal

pytestmark = pytest.mark.django_db


def test_the_result_sheet_words_a_drop_by_missed_turns(client: Client, clock: FakeClock) -> None:
    deal, users = one_finished_deal()
    dropped = next(seat for seat, p in deal.result["players"].items() if p["status"] == "dropped")
    # the timer's third missed turn drops a seat with this reason (game_engine/deal.py)
    Deal.objects.filter(pk=deal.pk).update(
        result={
            **deal.result,
            "players": {
                **deal.result["players"],
                dropped: {**deal.result["players"][dropped], "reason": "missed_turns"},
            },
        }
    )
    client.force_login(users[0])
    page = client.get(f"/history/deals/{deal.pk}/").content.decode()
    sheet = page[page.index('id="deal-result"') : page.index("</table>", page.index('id="deal-result"'))]
    helps = re.findall(r'<div class="helptext">([^<]*)</div>', sheet)
    assert "Dropped (missed turns)" in helps, helps
    assert "Won" in helps, helps
    assert "missed_turns" not in sheet and "dropped (" not in sheet


def test_outcome_words_for_every_status_and_an_unknown_code() -> None:
    assert deal_outcome({"status": "wrong_show", "reason": None}) == "Wrong show"
    assert deal_outcome({"status": "dropped", "reason": "auto_drop"}) == "Dropped (auto drop)"
    assert deal_outcome({"status": "timed_out", "reason": "no_show"}) == "Timed out (did not show in time)"
    assert deal_outcome({"status": "some_new", "reason": "other_code"}) == "some new (other code)"
