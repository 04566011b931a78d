"""Each signal's rule in words, with the thresholds in force (the signal pages state them)."""

from __future__ import annotations

from integrity.chipflow import NAMED_P, NAMED_Z
from integrity.detect import STRENGTH_PRIOR_WINS, Thresholds
from integrity.discard_cost import COSTLY_POINTS
from integrity.multiaccount import Rules

#: How soft play and feeding weigh a count (``integrity.rates``), for the rule texts.
JUDGED = (
    "The odds are a beta-binomial tail: the player's usual rate is read from their record apart, "
    "as uncertain as that record is short (a player with little record apart is judged by how much "
    "players differ, measured at each scan), and a game's chances are weighed as the spread of "
    "per-game counts shows they are worth (they are not independent). No fixed excess is asked: "
    "a small steady excess is found once there are enough games, and a few games of a fluke are not."
)


def _floor(excess: float) -> str:
    return f", and the rate together is at least {excess:.0%} above the usual" if excess > 0 else ""


def rule_texts(
    t: Thresholds, *, window_days: int, retention_days: int, m: Rules | None = None
) -> dict[str, tuple[str, str]]:
    """``{signal: (title, rule)}``, read from the thresholds the scan uses."""
    m = m or Rules()
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
            f"{t.dump_alpha:g}, or the loser conceded with the gainer in the deal (every way, judged as "
            f"soft play judges it) in at least {t.soft_min_deals} chances with odds of at most "
            f"{t.dump_alpha:g}{_floor(t.soft_min_excess)}. "
            f"A flagged pair is also linked, so it cannot meet again until staff clear it.",
        ),
        "soft_play": (
            "Soft play (conceding against a partner)",
            f"For each pair: how often each conceded while the other was in the deal or the game, every "
            f"way of losing on purpose counted (a drop, a wrong show, the clock: missed turns or a show "
            f"not made in time, leaving, a refused split), out of their chances to (deals, split offers), "
            f"against that player's own rate in their other games. {JUDGED} Flagged when they played at "
            f"least {t.min_games} games and {t.soft_min_deals} chances together and the odds are at most "
            f"{t.alpha:g}{_floor(t.soft_min_excess)}.",
        ),
        "feeding": (
            "Feeding (the partner takes the very card discarded)",
            f"For each pair: how often a player took from the open pile the very card the other had just "
            f"discarded, against how often that player takes anyone else's discard; and, of the discards "
            f"taken, how many cost the thrower's own hand (left it at least {COSTLY_POINTS} point"
            f"{'s' if COSTLY_POINTS != 1 else ''} worse than their best discard, read from the deal's "
            f"replay once its seed is revealed), against how many of the thrower's discards that others "
            f"took did. {JUDGED} The two tests' odds are combined (Fisher's method). Flagged when they "
            f"played at least {t.min_games} games together with at least {t.feed_min_chances} chances, "
            f"the partner took at least at their usual rate, and the odds are at most "
            f"{t.feed_alpha:g}{_floor(t.feed_min_excess)}.",
        ),
        "team_play": (
            "Team play (winning together against the rest of the table)",
            f"For each pair, in the paid games they shared at tables of three or more: the wins of each "
            f"and of the two, against what the seats give (1 in n) times each one's strength in their "
            f"games without the other (wins over what the seats gave them, read with "
            f"{STRENGTH_PRIOR_WINS:g} wins' worth of an ordinary record, so a player seen little apart is "
            f"judged as anyone might be: skill and teamwork look alike without a record apart). The odds "
            f"are a negative binomial tail (the strength is only known as well as that record), the "
            f"strongest of the three readings counted three times. Flagged when they played at least "
            f"{t.team_min_games} such games and the odds are at most {t.alpha:g}. Partners who share "
            f"hands and squeeze the others (neither discarding what a third player needs) win this way, "
            f"the chips coming from the others rather than from each other.",
        ),
        "chip_ring": (
            "Chip rings and chains (chips flowing to one account from several)",
            f"Chip flow read as a graph over every player. A ring: the accounts that lost chips to one "
            f"gainer and played at least a quarter of their games with it (who sits with whom, not who "
            f"lost, picks them); the gainer's strength is read from its games without any of them, and "
            f"each one's excess (finishing behind the gainer, conceding with it in the deal) is summed "
            f"over the ring, so evidence too weak in each pair adds up; a flagged ring names only the "
            f"members whose own excess is at least {NAMED_Z:g} deviations and at odds of at most "
            f"{NAMED_P:g} shared among the ring's accounts. A chain: an account that gains from one and "
            f"loses to another, both edges unusual (the chain's odds are its weaker edge's). Flagged "
            f"when the ring or chain played at least {t.dump_min_games} paid games, at least "
            f"{t.dump_min_fees:g} entry fees moved, and the odds are at most {t.ring_alpha:g}; its named "
            f"members are linked to the gainer (or to their neighbours in a chain), so they cannot meet "
            f"again until staff clear it.",
        ),
        "win_rate": (
            "Unusually high win rates",
            f"For each player: games won (a split among k counts 1/k each) against what their seats give "
            f"(1 in n at an n-player table). Flagged after at least {t.win_min_games} games when they won "
            f"at least {t.win_min_ratio:g} times that and the odds are at most {t.alpha:g}. Skill wins "
            f"too: review the games before anything else.",
        ),
        "one_person": (
            "Looks like one person (several accounts)",
            f"For each pair of accounts that shares a sign-in address, or sat together at least "
            f"{min(m.sit_min_games, m.chips_min_games)} times in the last {window_days} days, three "
            f"measures of one person's play. Sit together: at least {m.sit_min_games} games together, "
            f"at least {m.sit_min_share:.0%} of the rarer one's games, with odds of at most "
            f"{m.sit_alpha:g} that seats taken at random would put them together that often. Chips one "
            f"way: at least {m.chips_min_games} paid games together with chips between them, at least "
            f"{m.chips_min_fees:g} entry fees net, the gainer's way in at least {m.chips_min_share:.0%} "
            f"of them, the gainer finishing ahead with odds of at most {m.chips_alpha:g} for players of "
            f"their results apart. Never at the same time: each has at least {m.apart_min_games} games "
            f"without the other, and of all the times a game of one came within "
            f"{m.close_minutes:g} minutes of a game of the other, none overlapped (by more than "
            f"{m.overlap_grace_seconds:g} s), with odds of at most {m.apart_alpha:g} for two people "
            f"playing when they do. A shared address with any one of them: flagged and linked (kept "
            f"apart at tables). No shared address: flagged for review only, when they sit together "
            f"and either move chips one way or never play at the same time. An address alone never "
            f"links or flags here.",
        ),
        "linked_game": (
            "Linked while playing in one game",
            "Not a scan's signal: two accounts were linked (a shared device at a log-in, one e-mail "
            "address, chip dumping, a shared address with the play of one person, or staff) while both "
            "played in one running game. The game was not cancelled, since the others at the table did "
            "nothing wrong; the flag names it. Replay it and decide: cleared, warned, suspended, or chips "
            "reversed.",
        ),
    }
