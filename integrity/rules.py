"""Each signal's rule in words, with the thresholds in force (the signal pages state them)."""

from __future__ import annotations

from integrity.detect import Thresholds


def rule_texts(t: Thresholds, *, window_days: int, retention_days: int) -> dict[str, tuple[str, str]]:
    """``{signal: (title, rule)}``, read from the thresholds the scan uses."""
    return {
        "shared": (
            "Shared address or device",
            f"Pairs of accounts that signed up or logged in from the same device (the site's own cookie): "
            f"they are linked at once and kept apart at tables, and flagged for review. Pairs that share "
            f"an address are flagged only when they also played at least {t.min_games} games together: one "
            f"address alone is weak evidence (a mobile network puts thousands of people behind one). "
            f"Sign-in events are kept {retention_days} days.",
        ),
        "chip_dumping": (
            "Chip dumping (who loses chips to whom)",
            f"For each pair that played together in the last {window_days} days: the chips that moved "
            f"between them (each loser's loss in a game shared among its winners by what they won) and how "
            f"often each finished ahead of the other. Flagged when they played at least {t.dump_min_games} "
            f"paid games together, at least {t.dump_min_fees:g} entry fees moved one way, and either the "
            f"loser finished behind the gainer so often that players of their strength (their results "
            f"against everyone else, apart from each other) would do it with odds of at most "
            f"{t.dump_alpha:g}, or the loser conceded with the gainer in the deal (every way, as soft play "
            f"counts it) in at least {t.soft_min_deals} chances, at a rate at least "
            f"{t.soft_min_excess:.0%} above their own rate apart, with odds of at most {t.dump_alpha:g}. "
            f"A flagged pair is also linked, so it cannot meet again until staff clear it.",
        ),
        "soft_play": (
            "Soft play (conceding against a partner)",
            f"For each pair: how often each conceded while the other was in the deal or the game, every "
            f"way of losing on purpose counted (a drop, a wrong show, the clock: missed turns or a show "
            f"not made in time, leaving, a refused split), out of their chances to (deals, split offers), "
            f"against that player's rate in their other games (pulled toward the population's rate when "
            f"they have few). Flagged when they played at least {t.min_games} games and "
            f"{t.soft_min_deals} chances together, the rate together is at least "
            f"{t.soft_min_excess:.0%} higher, and the odds of that many at the usual rate are at most "
            f"{t.alpha:g}.",
        ),
        "feeding": (
            "Feeding (the partner takes the very card discarded)",
            f"For each pair: how often a player took from the open pile the very card the other had just "
            f"discarded, against how often that player takes anyone else's discard (pulled toward the "
            f"population's rate). Flagged when they played at least {t.min_games} games together with at "
            f"least {t.feed_min_chances} chances, the rate is at least {t.feed_min_excess:.0%} higher, and "
            f"the odds are at most {t.alpha:g}.",
        ),
        "win_rate": (
            "Unusually high win rates",
            f"For each player: games won (a split among k counts 1/k each) against what their seats give "
            f"(1 in n at an n-player table). Flagged after at least {t.win_min_games} games when they won "
            f"at least {t.win_min_ratio:g} times that and the odds are at most {t.alpha:g}. Skill wins "
            f"too: review the games before anything else.",
        ),
        "linked_game": (
            "Linked while playing in one game",
            "Not a scan's signal: two accounts were linked (a shared device at a log-in, one e-mail "
            "address, chip dumping or staff) while both played in one running game. The game was not "
            "cancelled, since the others at the table did nothing wrong; the flag names it. Replay it "
            "and decide: cleared, warned, suspended, or chips reversed.",
        ),
    }
