"""The signal pages state each rule with the values the scan uses (``integrity.rules``)."""

from __future__ import annotations

from integrity.detect import Thresholds
from integrity.rules import rule_texts


def test_each_rule_states_its_own_odds_in_force() -> None:
    t = Thresholds(alpha=2e-6, dump_alpha=3e-3, feed_alpha=7e-5, feed_min_chances=17)
    texts = {k: rule for k, (_, rule) in rule_texts(t, window_days=90, retention_days=180).items()}
    assert "7e-05" in texts["feeding"] and "2e-06" not in texts["feeding"]
    assert "17 chances" in texts["feeding"]
    assert "2e-06" in texts["soft_play"]
    assert "0.003" in texts["chip_dumping"]
