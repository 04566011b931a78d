"""The review queue's flags as the scan raises and keeps them: each finding's evidence and summary in
words, a flag raised once, kept true while undecided (its figures follow the evidence, a lapse
when the signal no longer finds it), and the flag of linked accounts met in one game."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Q
from django.utils import timezone

from integrity import detect, links
from integrity.config import lapse_hours, listed_games, window_days
from integrity.models import (
    AccountLink,
    Flag,
    FlagUpdate,
    SignalRow,
)

#: How a summary names each way of conceding (``integrity.digest.WAYS``).
WAY_WORDS = {
    "drop": "drops",
    "wrong_show": "wrong shows",
    "timeout": "timeouts",
    "left": "leaving",
    "split_refused": "refused splits",
}


def _ways(ways: dict[str, int] | None) -> str:
    if not ways:
        return ""
    return " (" + ", ".join(f"{WAY_WORDS.get(w, w)} {n}" for w, n in ways.items()) + ")"


def summary_of(signal: str, f: dict[str, Any]) -> str:
    if signal == detect.CHIP_DUMPING:
        return (
            f"{f['net_fees']} entry fees moved one way over {f['paid_games']} games; the gainer finished "
            f"ahead {f['gainer_ahead']} times, the loser {f['loser_ahead']} (expected share {f['expected_share']}); "
            f"the loser conceded {f.get('loser_conceded', 0)} of {f.get('loser_chances', 0)} chances "
            f"together{_ways(f.get('loser_ways'))}"
        )
    if signal == detect.SOFT_PLAY:
        return (
            f"conceded {f['conceded_together']} of {f['chances_together']} deals and offers together "
            f"({f['rate_together']:.0%}){_ways(f.get('ways_together'))} against {f['usual_rate']:.0%} usually"
        )
    if signal == detect.FEEDING:
        return (
            f"the partner took {f['taken']} of {f['chances']} discards from the open pile "
            f"({f['rate']:.0%}) against {f['taker_usual_rate']:.0%} of others' discards"
        )
    if signal == detect.TEAM_PLAY:
        won, expected = f.get("won_by_each", [0, 0]), f.get("expected_each", [0, 0])
        return (
            f"won {won[0]} and {won[1]} of {f['games_of_three_or_more']} games together at tables of three "
            f"or more, where their strengths apart give {expected[0]} and {expected[1]}"
        )
    if signal == detect.CHIP_RING:
        names = ", ".join(f.get("member_names") or f.get("members") or [])
        if f.get("shape") == "chain":
            return (
                f"chips passed on along a chain ({names}): {f['net_fees']} entry fees over "
                f"{f['paid_games']} games, {f.get('passed_on_fees', 0)} passed on"
            )
        return (
            f"{f.get('sources', 0)} accounts ({names}) lost {f['net_fees']} entry fees to this player over "
            f"{f['paid_games']} games, {f.get('income_share', 0):.0%} of what it won from anyone"
        )
    if signal == detect.WIN_RATE:
        return f"won {f['won']} of {f['games']} games where the seats give {f['expected']} ({f['ratio']}×)"
    if signal == SignalRow.Signal.ONE_PERSON:
        return _one_person_summary(f)
    if signal == SignalRow.Signal.LINKED_GAME:
        return f"linked ({f['source']}) while both played in running game {f['game']}; the game went on"
    parts = []
    if f.get("shared_devices"):
        parts.append("signed in from the same device")
    if f.get("shared_addresses"):
        parts.append(f"share {len(f['shared_addresses'])} address(es)")
    return " and ".join(parts) + f"; {f.get('games_together', 0)} games together"


def _one_person_summary(f: dict[str, Any]) -> str:
    parts = []
    if f.get("shared_addresses"):
        parts.append(f"share {len(f['shared_addresses'])} address(es)")
    if f.get("sit_together"):
        parts.append(f"sat together in {f['games_together']} of the rarer one's {f['rarer_games']} games")
    if f.get("chips_one_way"):
        parts.append(
            f"chips moved one way in {f['games_chips_one_way']} of {f['paid_games_with_chips']} paid games "
            f"({f['net_fees']} entry fees)"
        )
    if f.get("never_same_time"):
        apart = f.get("games_apart") or [0, 0]
        parts.append(
            f"never played at the same time ({apart[0]} and {apart[1]} games apart, "
            f"{f['close_games']} close in time, no overlap)"
        )
    if len(parts) == (1 if f.get("shared_addresses") else 0):
        parts.append(f"{f.get('games_together', 0)} games together, no play of one person now")
    return "; ".join(parts) + ("; linked" if f.get("linked") else "")


def _clean(figures: dict[str, Any]) -> dict[str, Any]:
    clean = dict(figures)
    if "p_value" in clean:
        clean["p_value"] = float(f"{clean['p_value']:.3g}")
    return clean


#: The fields the scan writes on a flag (never the decision's: a review may be recorded meanwhile).
_KEPT_FIELDS = [
    "figures",
    "games",
    "games_total",
    "score",
    "summary",
    "updated_at",
    "state",
    "weakened_at",
    "lapsed_at",
    "lapse_reason",
]


def _record(flag: Flag, kind: str, now: datetime, note: str = "") -> None:
    FlagUpdate.objects.create(
        flag=flag,
        at=now,
        kind=kind,
        summary=flag.summary,
        figures=flag.figures,
        score=flag.score,
        games_total=flag.games_total,
        note=note[:300],
    )


@dataclass
class Evidence:
    """What the scan found now for a flag's pair (or player): the current figures and whether the
    signal flags it. ``figures`` None: the signal found nothing for them at all."""

    users: tuple[int, ...]
    figures: dict[str, Any] | None
    games: Sequence[Any]
    score: float
    flagged: bool


def _set_figures(flag: Flag, e: Evidence, now: datetime) -> bool:
    """Write the current figures on the flag; returns whether the games behind it changed."""
    if e.figures is None:
        flag.updated_at = now
        return False
    figures = _clean(e.figures)
    prefix = ""
    if flag.user_b_id is not None and e.users and e.users[0] != flag.user_a_id:
        figures["read_the_other_way"] = True
        prefix = "read the other way round now: "
    games, total = listed_games(e.games)
    changed = total != flag.games_total
    flag.figures, flag.score = figures, e.score
    flag.summary = (prefix + summary_of(flag.signal, e.figures))[:300]
    flag.games, flag.games_total, flag.updated_at = games, total, now
    return changed


def _gone_reason(signal: str) -> str:
    if signal == SignalRow.Signal.SHARED:
        return "no shared device, and no shared address with games together, in what the scan reads"
    if signal == SignalRow.Signal.ONE_PERSON:
        return "neither a shared address nor games together in what the scan reads"
    return f"no game of theirs in the last {window_days()} days the signals read"


def _lapse_note(flag: Flag) -> str:
    """What the lapse does not undo: a link the signal made stays until staff clear it."""
    made_by = {detect.CHIP_DUMPING: "chip-dumping", SignalRow.Signal.ONE_PERSON: "one-person"}
    if flag.signal not in made_by or flag.user_b_id is None:
        return ""
    link = links.find(flag.user_a_id, flag.user_b_id)
    if link is None or not link.active:
        return ""
    return f"the {made_by[flag.signal]} link made with it stays: only staff clear links (Linked accounts). "


def keep_flag_true(flag: Flag, e: Evidence, now: datetime) -> None:
    """Recompute one undecided flag with the scan's current evidence: its figures follow; if the
    signal no longer flags it, it weakens, and lapses once that has lasted ``lapse_hours``; if the
    signal flags it again, it is open again. Each change is recorded (``FlagUpdate``)."""
    grew = _set_figures(flag, e, now)
    if e.flagged:
        if flag.state == Flag.State.WEAKENED:
            flag.state, flag.weakened_at = Flag.State.OPEN, None
            _record(flag, FlagUpdate.Kind.STRENGTHENED, now, "the signal flags them again")
        elif grew:
            _record(flag, FlagUpdate.Kind.UPDATED, now)
    else:
        why = (
            f"the signal no longer flags them ({flag.summary})"
            if e.figures is not None
            else _gone_reason(flag.signal)
        )
        if flag.state == Flag.State.OPEN:
            flag.state, flag.weakened_at = Flag.State.WEAKENED, now
            _record(flag, FlagUpdate.Kind.WEAKENED, now, why)
        elif flag.weakened_at is not None and now - flag.weakened_at >= timedelta(hours=lapse_hours()):
            flag.state, flag.lapsed_at = Flag.State.LAPSED, now
            since = timezone.localtime(flag.weakened_at)
            flag.lapse_reason = (f"not flagged since {since:%Y-%m-%d %H:%M}: " + _lapse_note(flag) + why)[
                :300
            ]
            _record(flag, FlagUpdate.Kind.LAPSED, now, flag.lapse_reason)
        elif grew:
            _record(flag, FlagUpdate.Kind.UPDATED, now)
    flag.save(update_fields=_KEPT_FIELDS)


def raise_flag(signal: str, e: Evidence, now: datetime) -> bool:
    """Open a flag for this flagged finding, or reopen its lapsed one; returns whether a flag
    went (back) into the queue. An open flag of the pair is kept by ``keep_flag_true`` instead."""
    users = e.users
    a, b = users[0], users[1] if len(users) > 1 else None
    same = Q(signal=signal, user_a_id=a, user_b_id=b)
    if b is not None:
        same |= Q(signal=signal, user_a_id=b, user_b_id=a)
    existing = Flag.objects.select_for_update().filter(same).order_by("-raised_at").first()
    if existing is not None and existing.state == Flag.State.LAPSED and not existing.decision:
        # the same flag comes back, its history (raised with, lapsed, reopened) on one page
        lapsed_at = timezone.localtime(existing.lapsed_at or now)
        existing.state, existing.weakened_at = Flag.State.OPEN, None
        existing.lapsed_at, existing.lapse_reason = None, ""
        _set_figures(existing, e, now)
        existing.save(update_fields=_KEPT_FIELDS)
        _record(existing, FlagUpdate.Kind.REOPENED, now, f"lapsed {lapsed_at:%Y-%m-%d %H:%M}; flagged again")
        return True
    if existing is not None and not existing.decision:
        keep_flag_true(existing, e, now)
        return False
    games, total = listed_games(e.games)
    if existing is not None and total < 2 * max(existing.games_at_decision, 1):
        return False
    figures = _clean(e.figures or {})
    summary = summary_of(signal, figures)[:300]
    flag = Flag.objects.create(
        signal=signal,
        user_a_id=a,
        user_b_id=b,
        summary=summary,
        figures=figures,
        games=games,
        games_total=total,
        score=e.score,
        first_summary=summary,
        first_figures=figures,
        first_score=e.score,
        raised_at=now,
        updated_at=now,
    )
    _record(flag, FlagUpdate.Kind.RAISED, now)
    return True


def flag_linked_in_game(link: AccountLink, game_id: int) -> bool:
    """Two accounts were linked while both play in a running game: the game is not cancelled (the
    others at the table did nothing wrong); a flag naming it goes to the review queue, where the
    Game integrity role replays it and decides. Returns whether a new flag was raised."""
    now = timezone.now()
    signal, (a, b) = SignalRow.Signal.LINKED_GAME, (link.user_a_id, link.user_b_id)
    latest = Flag.objects.filter(signal=signal, user_a_id=a, user_b_id=b).order_by("-raised_at").first()
    if latest is not None and game_id in latest.games:
        return False  # flagged (and maybe decided) already
    if latest is not None and latest.open:
        latest.games, latest.updated_at = [*latest.games, game_id], now
        latest.games_total = len(latest.games)
        latest.save(update_fields=["games", "games_total", "updated_at"])
        return False
    figures = {"game": game_id, "source": link.get_source_display().lower(), "evidence": link.evidence}
    summary = summary_of(signal, figures)[:300]
    Flag.objects.create(
        signal=signal,
        user_a_id=a,
        user_b_id=b,
        summary=summary,
        figures=figures,
        games=[game_id],
        games_total=1,
        score=10.0,
        first_summary=summary,
        first_figures=figures,
        first_score=10.0,
        raised_at=now,
        updated_at=now,
    )
    return True
