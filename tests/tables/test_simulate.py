"""``manage.py simulate``: whole six-player games between bots through the services and the wallet."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tables.models import PoolGame
from wallet.audit import check_ledger

pytestmark = pytest.mark.django_db


@pytest.mark.slow  # twenty whole games: the longest test
def test_simulate_plays_twenty_six_player_101_games_with_a_clean_ledger() -> None:
    out = io.StringIO()
    call_command("simulate", format="101", players=6, games=20, seed=100, stdout=out)
    report = out.getvalue()
    assert "20 games in" in report and "check_ledger: clean" in report, report
    games = PoolGame.objects.filter(table__name__startswith="simulation")
    assert games.count() == 20
    assert all(g.status == PoolGame.Status.FINISHED and g.result for g in games)
    for game in games:  # every prize pool fully paid out: payouts + rake == fees paid
        result = game.result
        assert sum(result["payouts"].values()) + result["rake"] == result["fees_paid"]
        assert len(result["payouts"]) == 6
    assert check_ledger() == []
