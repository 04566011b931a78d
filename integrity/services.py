"""The integrity use cases: the scan that computes the signals, and recording a review's decision.

``scan`` runs from Celery beat (``integrity.tasks.scan``, every ``INTEGRITY_SCAN_MINUTES``) and
from ``manage.py integrity_scan``; never on a page load. It digests each game finished since the
last run once (``integrity.digest``), runs the signals over the window's digests
(``integrity.detect``) and the sign-in events, replaces the signal pages' rows, raises flags in
the review queue and links the pairs chip dumping finds, and those whose shared address and play
say one person (``integrity.multiaccount``). Each run also keeps the undecided flags
true (``keep_flags_true``): their figures follow the evidence, and one the signal no longer finds
weakens, then lapses. The staff side (``staff.integrity``) records decisions through ``decide``
inside its own audited transaction.
"""

from __future__ import annotations

import heapq
import logging
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from itertools import combinations
from typing import Any

import orjson
from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, TextField
from django.db.models.functions import Cast
from django.utils import timezone

from accounts.models import User
from integrity import detect, links, multiaccount
from integrity.digest import VERSION, digest
from integrity.models import (
    FIRST_GAMES_LISTED,
    LATEST_GAMES_LISTED,
    AccountLink,
    Flag,
    FlagUpdate,
    GameDigest,
    PlayerWarning,
    ScanRun,
    SignalRow,
    SignInEvent,
)
from tables.models import GameEvent, PoolGame, Seat

logger = logging.getLogger(__name__)

#: How many rows each signal page keeps beyond the flagged ones (the strongest first).
ROWS_KEPT = 500
#: How many games of the window one scan digests again when the digest's counts changed
#: (``integrity.digest.VERSION``), the latest first; the rest wait for the next runs, read
#: meanwhile as their old digest counted them.
REDIGEST_PER_RUN = 20_000
#: Address and device rows: at most this many accounts of one address are paired (carrier NAT).
SHARED_MAX_ACCOUNTS = 30


def thresholds() -> detect.Thresholds:
    return detect.Thresholds(**getattr(settings, "INTEGRITY_THRESHOLDS", {}))


def window_days() -> int:
    return int(getattr(settings, "INTEGRITY_WINDOW_DAYS", 90))


def retention_days() -> int:
    return int(getattr(settings, "INTEGRITY_RETENTION_DAYS", 180))


def lapse_hours() -> float:
    return float(getattr(settings, "INTEGRITY_LAPSE_HOURS", 24))


def listed_games(games: Iterable[Any]) -> tuple[list[int], int]:
    """The games a flag lists, in order: its first ones (where the pattern began) and its latest
    (what the pair does now), at most 50 in all; and how many games are behind it."""
    ordered = sorted({int(g) for g in games})
    if len(ordered) <= FIRST_GAMES_LISTED + LATEST_GAMES_LISTED:
        return ordered, len(ordered)
    return ordered[:FIRST_GAMES_LISTED] + ordered[-LATEST_GAMES_LISTED:], len(ordered)


# ---------------------------------------------------------------------------
# digests
# ---------------------------------------------------------------------------
def digest_game(game: PoolGame) -> dict[str, Any] | None:
    """The digest of one finished game, from its event log, seats and final state."""
    seats = {
        s.engine_seat: (s.user_id, s.is_bot)
        for s in Seat.objects.filter(game=game, engine_seat__isnull=False).only(
            "engine_seat", "user_id", "is_bot"
        )
        if s.engine_seat is not None
    }
    state_players = (game.state or {}).get("players") or []
    n = max(len(state_players), max(seats, default=-1) + 1)
    players: list[str | None] = []
    fees: list[int] = []
    for i in range(n):
        user_id, is_bot = seats.get(i, (None, True))
        players.append(None if is_bot or user_id is None else str(user_id))
        fees.append(int(state_players[i].get("fees_paid", 0)) if i < len(state_players) else 0)
    events = (
        {"type": t, **(data or {})}
        for t, data in GameEvent.objects.filter(game=game)
        .order_by("seq")
        .values_list("type", "data")
        .iterator()
    )
    return digest(events, players, fees, game.table.settings.entry_fee)


def digest_new_games(*, batch: int = 500) -> int:
    """Digest every finished or cancelled game that has none yet; returns how many."""
    done = 0
    while True:
        games = list(
            PoolGame.objects.filter(status__in=[PoolGame.Status.FINISHED, PoolGame.Status.CANCELLED])
            # an anti-join: NOT IN over a million digests would scan them once per game
            .filter(~Exists(GameDigest.objects.filter(game_id=OuterRef("pk"))))
            .select_related("table__settings")
            .order_by("pk")[:batch]
        )
        if not games:
            return done
        rows = []
        for game in games:
            data = digest_game(game) if game.status == PoolGame.Status.FINISHED else None
            rows.append(GameDigest(game=game, finished_at=game.finished_at or timezone.now(), data=data))
        GameDigest.objects.bulk_create(rows, ignore_conflicts=True)
        done += len(rows)


def redigest_stale_games(*, since: datetime, limit: int = REDIGEST_PER_RUN, batch: int = 500) -> int:
    """Digest again the window's games whose digest an older ``VERSION`` made, the latest first, so
    the signals read what the digest counts now (a new way of conceding, say); returns how many."""
    done = 0
    while done < limit:
        rows = list(
            GameDigest.objects.filter(finished_at__gte=since, data__isnull=False, data__v__lt=VERSION)
            .select_related("game__table__settings")
            .order_by("-finished_at", "-pk")[: min(batch, limit - done)]
        )
        if not rows:
            break
        for row in rows:
            row.data = digest_game(row.game)
        GameDigest.objects.bulk_update(rows, ["data"])
        done += len(rows)
    return done


# ---------------------------------------------------------------------------
# shared addresses and devices
# ---------------------------------------------------------------------------
@dataclass
class SignIns:
    """The sign-in events of the retention period, read once: the accounts of each device, and
    each account's addresses (each distinct sign-in read once, streamed)."""

    devices: dict[str, set[int]]
    addresses: dict[int, frozenset[str]]

    @classmethod
    def read(cls, now: datetime) -> SignIns:
        since = now - timedelta(days=retention_days())
        events = (
            SignInEvent.objects.filter(at__gte=since)
            .order_by()
            .values_list("user_id", "address", "device")
            .distinct()
        )
        devices: dict[str, set[int]] = defaultdict(set)
        seen_at: dict[int, set[str]] = defaultdict(set)
        for user_id, address, device in events.iterator(chunk_size=10_000):
            if device:
                devices[device].add(user_id)
            if address:
                seen_at[user_id].add(address)
        return cls(devices, {user: frozenset(found) for user, found in seen_at.items()})

    @cached_property
    def accounts_by_address(self) -> dict[str, list[int]]:
        """Each address's accounts, built once a scan: the shared-address flag and the
        one-person rules both read it."""
        by_address: dict[str, list[int]] = defaultdict(list)
        for user_id, addresses in self.addresses.items():
            for address in addresses:
                by_address[address].append(user_id)
        return by_address

    def crowded_addresses(self) -> frozenset[str]:
        """Addresses with more than ``SHARED_MAX_ACCOUNTS`` accounts: a carrier's or a campus's
        shared address, which says nothing of who is behind an account."""
        return frozenset(
            a for a, users in self.accounts_by_address.items() if len(users) > SHARED_MAX_ACCOUNTS
        )


def shared_rows(
    played: Mapping[tuple[int, int], Sequence[Any]], now: datetime, signins: SignIns | None = None
) -> list[dict[str, Any]]:
    """Pairs of accounts that signed in from one device (a link), or from one address of at most
    ``SHARED_MAX_ACCOUNTS`` accounts and played together (a weak sign alone: a household or a
    hostel; a mobile network's address, shared by thousands, is no sign at all).
    ``played``: (low id, high id) -> the games of each pair that played together."""
    signins = signins or SignIns.read(now)
    devices, addresses = signins.devices, signins.addresses
    crowded = signins.crowded_addresses()
    nowhere: frozenset[str] = frozenset()
    rows: dict[tuple[int, int], dict[str, Any]] = {}
    for users in devices.values():
        if 1 < len(users) <= SHARED_MAX_ACCOUNTS:
            for a, b in combinations(sorted(users), 2):
                row = rows.setdefault(
                    (a, b), {"devices": 0, "addresses": [], "games": played.get((a, b), [])}
                )
                row["devices"] += 1
    for (a, b), games in played.items():
        common = (addresses.get(a, nowhere) & addresses.get(b, nowhere)) - crowded
        if common:
            row = rows.setdefault((a, b), {"devices": 0, "addresses": [], "games": games})
            row["addresses"] = sorted(common)[:5]
    out = []
    t = thresholds()
    for (a, b), row in rows.items():
        games = row["games"]
        by_device = row["devices"] > 0
        flagged = by_device or (bool(row["addresses"]) and len(games) >= t.min_games)
        out.append(
            {
                "users": (a, b),
                "figures": {
                    "shared_devices": row["devices"],
                    "shared_addresses": row["addresses"],
                    "games_together": len(games),
                },
                "games": games[: detect.GAMES_LISTED],
                "flagged": flagged,
                "score": (10.0 if by_device else 0.0) + len(games),
            }
        )
    return out


# ---------------------------------------------------------------------------
# one person behind several accounts
# ---------------------------------------------------------------------------
def multi_account_rules() -> multiaccount.Rules:
    return multiaccount.Rules(**getattr(settings, "INTEGRITY_MULTI_ACCOUNT_RULES", {}))


def _key(a: int, b: int) -> tuple[str, str]:
    x, y = str(a), str(b)
    return (x, y) if x < y else (y, x)


def shared_addresses(signins: SignIns, played: Iterable[tuple[int, ...]]) -> dict[tuple[str, str], list[str]]:
    """The addresses each pair shares, for the pairs the multi-account rules judge: every pair of
    an address with at most ``SHARED_MAX_ACCOUNTS`` accounts (they may never have met at a table),
    and every pair that played together, however crowded its address (a carrier's)."""
    out: dict[tuple[str, str], list[str]] = defaultdict(list)
    for address, users in signins.accounts_by_address.items():
        if 1 < len(users) <= SHARED_MAX_ACCOUNTS:
            for a, b in combinations(sorted(users), 2):
                out[_key(a, b)].append(address)
    nowhere: frozenset[str] = frozenset()
    for a, b in played:
        common = signins.addresses.get(a, nowhere) & signins.addresses.get(b, nowhere)
        if common:
            out[_key(a, b)] = sorted(common)
    return out


def multi_account_findings(
    games: list[multiaccount.Game], signins: SignIns, played: Mapping[tuple[int, int], Sequence[Any]]
) -> list[multiaccount.Finding]:
    """The multi-account rules over the window's games (with when each was played, ``_Window``)
    and the addresses the accounts signed in from."""
    rules = multi_account_rules()
    least = min(rules.sit_min_games, rules.chips_min_games)
    together = [_key(*pair) for pair, gids in played.items() if len(gids) >= least]
    return multiaccount.find(games, shared_addresses(signins, played), rules, together)


# ---------------------------------------------------------------------------
# the scan
# ---------------------------------------------------------------------------
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


def _summary(signal: str, f: dict[str, Any]) -> str:
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
    flag.summary = (prefix + _summary(flag.signal, e.figures))[:300]
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


def _raise_flag(signal: str, e: Evidence, now: datetime) -> bool:
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
    summary = _summary(signal, figures)[:300]
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
    summary = _summary(signal, figures)[:300]
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


def _rows(
    signal: str,
    findings: Iterable[tuple[tuple[int, ...], dict[str, Any], list[int], float, bool]],
    now: datetime,
) -> list[SignalRow]:
    ordered = sorted(findings, key=lambda f: (not f[4], -f[3]))
    kept = [f for f in ordered if f[4]] + [f for f in ordered if not f[4]][:ROWS_KEPT]
    out = []
    for users, figures, games, score, flagged in kept:
        figures = dict(figures)
        if "p_value" in figures:
            figures["p_value"] = float(f"{figures['p_value']:.3g}")
        out.append(
            SignalRow(
                signal=signal,
                user_a_id=users[0],
                user_b_id=users[1] if len(users) > 1 else None,
                figures=figures,
                games=games,
                score=score,
                flagged=flagged,
                computed_at=now,
            )
        )
    return out


def _kept_users(signal: str, f: detect.Finding) -> tuple[int, ...]:
    """Who a finding is kept under: a ring or chain under its hub alone (its members change as
    the evidence does; the figures name them), every other finding under its players."""
    if signal == detect.CHIP_RING:
        return (int(f.users[0]),)
    return tuple(int(u) for u in f.users)


def _chip_links(signal: str, f: detect.Finding) -> list[tuple[int, int]]:
    """The pairs a chip finding keeps apart: the pair; each ring member and its gainer; a chain's
    neighbours."""
    ids = [int(u) for u in f.users]
    if signal == detect.CHIP_DUMPING:
        return [(ids[0], ids[1])]
    if f.figures.get("shape") == "chain":
        a, b, c = (int(u) for u in f.figures["members"])
        return [(a, b), (b, c)]
    return [(ids[0], m) for m in ids[1:]]


def _named_rings(findings: list[detect.Finding]) -> list[detect.Finding]:
    """Rings and chains with their members' names beside their ids (one query), for the pages."""
    ids = {int(u) for f in findings for u in f.figures.get("members", [])}
    names = dict(User.objects.filter(pk__in=ids).values_list("pk", "username"))
    for f in findings:
        f.figures["member_names"] = [names.get(int(u), str(u)) for u in f.figures.get("members", [])]
    return findings


def window_digests(
    since: datetime, *, chunk: int = 2_000
) -> Iterator[tuple[int, dict[str, Any], float, float]]:
    """The window's digests (game id, digest, when the game began and ended as timestamps), oldest
    game first, streamed from a server-side cursor ``chunk`` at a time: the scan sums them as they
    come and never holds the window."""
    rows = (
        GameDigest.objects.filter(finished_at__gte=since, data__isnull=False)
        .order_by("game_id")
        .annotate(text=Cast("data", TextField()))
        .values_list("game_id", "text", "game__started_at", "finished_at")
    )
    for game_id, text, start, end in rows.iterator(chunk_size=chunk):
        start = start or end
        yield game_id, orjson.loads(text), start.timestamp(), max(end, start).timestamp()


class _Window(Iterator[tuple[int, dict[str, Any]]]):
    """The window's digests as ``detect.Digests`` reads them (game id, digest), adding up the time
    spent getting each (the database and decoding), and keeping of each game only what the
    one-person rules read (``multiaccount.Game``): the digest itself is dropped once summed."""

    def __init__(self, items: Iterator[tuple[int, dict[str, Any], float, float]]) -> None:
        self.items, self.seconds = items, 0.0
        self.games: list[multiaccount.Game] = []

    def __iter__(self) -> _Window:
        return self

    def __next__(self) -> tuple[int, dict[str, Any]]:
        started = time.perf_counter()
        try:
            gid, data, start, end = next(self.items)
        finally:
            self.seconds += time.perf_counter() - started
        if data.get("players"):
            self.games.append(
                multiaccount.Game(
                    ref=int(gid),
                    start=start,
                    end=end,
                    people=tuple(data["players"]),
                    fee=int(data.get("fee") or 0),
                    net=data.get("net") or {},
                )
            )
        return gid, data


class _Played(Mapping[tuple[int, int], Sequence[Any]]):
    """The pairs that played together in the window, as ``shared_rows`` and the one-person rules
    read them: (low id, high id) -> their games (``detect.PairGames``), read from the sums without
    copying them."""

    def __init__(self, sums: detect.Digests) -> None:
        self.sums = sums

    def __getitem__(self, users: tuple[int, ...]) -> Sequence[Any]:
        a, b = sorted(str(u) for u in users)
        pair = self.sums.pairs.get(f"{a}|{b}")
        if pair is None:
            raise KeyError(users)
        return pair.games

    def __iter__(self) -> Iterator[tuple[int, int]]:
        for key in self.sums.pairs:
            a, b = key.split("|")
            x, y = int(a), int(b)
            yield (x, y) if x < y else (y, x)

    def __len__(self) -> int:
        return len(self.sums.pairs)

    def items(self) -> Iterator[tuple[tuple[int, int], Sequence[Any]]]:  # type: ignore[override]  # the pairs are made as they are read, not held as a view
        for key, pair in self.sums.pairs.items():
            a, b = key.split("|")
            x, y = int(a), int(b)
            yield ((x, y) if x < y else (y, x)), pair.games


class _Keeper:
    """Of one signal's findings, batch by batch, what the scan uses: the flagged ones, the
    ``ROWS_KEPT`` strongest others its page lists (two games at least), and any kept under a pair
    (or player, or ring's hub: ``_kept_users``) with an undecided flag; in the order the signal
    found them. The others are dropped as they come: the window holds millions of pairs."""

    def __init__(self, signal: str, undecided: set[tuple[str, frozenset[int]]]) -> None:
        self.signal = signal
        self.watch = {users for s, users in undecided if s == signal}
        self.kept: list[tuple[int, detect.Finding]] = []
        self.top: list[tuple[int, detect.Finding]] = []
        self.floor = -math.inf  # the weakest score in a full ``top``
        self.seen = 0

    def add(self, batch: Iterable[detect.Finding]) -> None:
        watch, top = self.watch, self.top
        for f in batch:
            self.seen += 1
            if f.flagged or (watch and frozenset(_kept_users(self.signal, f)) in watch):
                self.kept.append((self.seen, f))
            elif f.score > self.floor and len(f.games) >= 2:  # a pattern needs two games at least
                top.append((self.seen, f))
        if len(top) > ROWS_KEPT:
            self.top = heapq.nsmallest(ROWS_KEPT, top, key=lambda x: (-x[1].score, x[0]))
            self.floor = self.top[-1][1].score

    def found(self) -> list[detect.Finding]:
        """The findings kept, in the order the signal found them."""
        return [f for _, f in sorted(dict([*self.top, *self.kept]).items())]


class Phases:
    """The wall time of each phase of a scan: logged at its end (the scan has an hourly slot to
    fit), and passed to ``on_phase`` as each ends (``bench/integrity_scan_bench.py``)."""

    def __init__(self, on_phase: Callable[[str, float], None] | None = None) -> None:
        self.on_phase = on_phase
        self.took: dict[str, float] = {}
        self._mark = time.perf_counter()

    def done(self, name: str, *, part: tuple[str, float] | None = None) -> None:
        """The phase ``name`` ends now (it began where the previous one ended); ``part``: a phase
        done inside it, interleaved (its name and seconds), told first and taken out of it."""
        mark = time.perf_counter()
        seconds, self._mark = mark - self._mark, mark
        laps = [part] if part is not None else []
        laps.append((name, seconds - (part[1] if part is not None else 0.0)))
        for phase, took in laps:
            self.took[phase] = self.took.get(phase, 0.0) + took
            if self.on_phase is not None:
                self.on_phase(phase, took)

    def __str__(self) -> str:
        return ", ".join(f"{name} {seconds:.1f} s" for name, seconds in self.took.items())


def scan(*, now: datetime | None = None, on_phase: Callable[[str, float], None] | None = None) -> ScanRun:
    """Digest new games, run every signal, refresh the signal pages, raise flags (or reopen lapsed
    ones: both count as raised), keep the undecided flags true, link dumpers and the accounts of
    one person. ``on_phase`` is told each phase's name and wall time as it ends."""
    now = now or timezone.now()
    phases = Phases(on_phase)
    run = ScanRun.objects.create(started_at=now)
    run.games_digested = digest_new_games()
    phases.done("digest new games")
    run.games_digested += redigest_stale_games(since=now - timedelta(days=window_days()))
    phases.done("digest stale games again")
    window = _Window(window_digests(now - timedelta(days=window_days())))
    sums = detect.Digests(window)
    run.games_in_window = sums.count
    phases.done("build sums", part=("load digests", window.seconds))
    t = thresholds()
    # the findings a scan stores or judges: flagged ones, the strongest others, and any of a pair
    # (or player) with an undecided flag (only these are kept of the millions of pairs)
    undecided = {
        (signal, frozenset(filter(None, (a, b))))
        for signal, a, b in Flag.objects.filter(
            decision="",
            state__in=[Flag.State.OPEN, Flag.State.WEAKENED],
            signal__in=[*detect.SIGNALS, SignalRow.Signal.SHARED],
        ).values_list("signal", "user_a_id", "user_b_id")
    }
    signins = SignIns.read(now)
    played = _Played(sums)
    found: dict[str, list[detect.Finding]] = {}
    for name in detect.SIGNALS:
        keep = _Keeper(name, undecided)
        for batch in detect.findings(sums, name, t):
            keep.add(batch)
        found[name] = keep.found()
        phases.done(f"signal {name}")
    keep = _Keeper(SignalRow.Signal.SHARED, undecided)
    keep.add(
        detect.Finding(
            SignalRow.Signal.SHARED,
            tuple(str(u) for u in r["users"]),
            r["figures"],
            r["games"],
            r["flagged"],
            r["score"],
        )
        for r in shared_rows(played, now, signins)
    )
    shared = keep.found()
    phases.done("shared addresses and devices")
    multi = multi_account_findings(window.games, signins, played)
    window.games = []
    phases.done("one person")
    rows: list[SignalRow] = []
    flags = 0
    made_links = 0

    def pair_games(users: tuple[int, ...]) -> Sequence[Any]:
        if len(users) == 1:
            return sums.games.get(str(users[0]), [])
        return played.get((users[0], users[1]), [])

    with transaction.atomic():
        # the undecided flags this run keeps true, locked: a decision recorded meanwhile waits
        kept = {
            (f.signal, frozenset(filter(None, (f.user_a_id, f.user_b_id)))): f
            for f in Flag.objects.select_for_update().filter(
                decision="",
                state__in=[Flag.State.OPEN, Flag.State.WEAKENED],
                signal__in=[*detect.SIGNALS, SignalRow.Signal.SHARED, SignalRow.Signal.ONE_PERSON],
            )
        }
        seen: set[int] = set()

        def judge(
            signal: str,
            users: tuple[int, ...],
            figures: dict[str, Any],
            score: float,
            flagged: bool,
            games: list[Any] | None = None,
        ) -> int:
            flag = kept.get((signal, frozenset(users)))
            if flag is None and not flagged:
                return 0
            e = Evidence(users, figures, pair_games(users) if games is None else games, score, flagged)
            if flag is not None and flag.pk not in seen:
                seen.add(flag.pk)
                keep_flag_true(flag, e, now)
                return 0
            return int(_raise_flag(signal, e, now)) if flagged else 0

        for signal, findings in found.items():
            if signal == detect.CHIP_RING:
                findings = _named_rings(findings)
            items = [
                (_kept_users(signal, f), f.figures, [int(g) for g in f.games], f.score, f.flagged)
                for f in findings
                if f.flagged or len(f.games) >= 2
            ]
            rows += _rows(signal, items, now)
            for f in findings:
                users = _kept_users(signal, f)
                games = [int(g) for g in f.games] if signal == detect.CHIP_RING else None
                flags += judge(signal, users, f.figures, f.score, f.flagged, games)
                if f.flagged and signal in (detect.CHIP_DUMPING, detect.CHIP_RING):
                    for a, b in _chip_links(signal, f):
                        _, changed = links.link(
                            a, b, source=AccountLink.Source.CHIPS, evidence=_summary(signal, f.figures)[:300]
                        )
                        made_links += changed
        items = [
            (
                _kept_users(SignalRow.Signal.SHARED, f),
                f.figures,
                [int(g) for g in f.games],
                f.score,
                f.flagged,
            )
            for f in shared
        ]
        rows += _rows(SignalRow.Signal.SHARED, items, now)
        for users, figures, _gids, score, flagged in items:
            flags += judge(SignalRow.Signal.SHARED, tuple(users), figures, score, flagged)
        rows += _rows(
            SignalRow.Signal.ONE_PERSON,
            [
                (tuple(map(int, m.users)), m.figures, listed_games(m.games)[0], m.score, m.flagged)
                for m in multi
            ],
            now,
        )
        for m in multi:
            pair = (int(m.users[0]), int(m.users[1]))
            flags += judge(SignalRow.Signal.ONE_PERSON, pair, m.figures, m.score, m.flagged, m.games)
            if m.link:
                _, changed = links.link(
                    *pair,
                    source=AccountLink.Source.ADDRESS,
                    evidence=_summary(SignalRow.Signal.ONE_PERSON, m.figures)[:300],
                )
                made_links += changed
        phases.done("rows, flags and links")
        for flag in kept.values():
            if flag.pk not in seen:  # nothing found for them at all now
                users = tuple(filter(None, (flag.user_a_id, flag.user_b_id)))
                keep_flag_true(flag, Evidence(users, None, [], flag.score, False), now)
        SignalRow.objects.all().delete()
        SignalRow.objects.bulk_create(rows, batch_size=1000)
        SignInEvent.objects.filter(at__lt=now - timedelta(days=retention_days())).delete()
        run.flags_raised, run.links_made = flags, made_links
        run.finished_at = timezone.now()
        run.save()
    phases.done("store rows, keep flags true")
    logger.info(
        "integrity scan: %d games digested, %d in the window, %d flags raised, %d links made (%s)",
        run.games_digested,
        run.games_in_window,
        flags,
        made_links,
        phases,
    )
    return run


# ---------------------------------------------------------------------------
# a review's decision (the staff side wraps it: authority, audit, suspension, chips)
# ---------------------------------------------------------------------------
class DecisionError(Exception):
    """A decision that cannot be recorded, in words for the form."""


def decide(*, flag: Flag, staff: Any, decision: str, reason: str, warning: str = "") -> Flag:
    """Record a review's decision on an open flag (in the caller's transaction); a warning's
    message is shown to the warned player(s) once, at their next log-in."""
    reason = (reason or "").strip()
    if decision not in Flag.Decision.values:
        raise DecisionError(f"unknown decision {decision!r}")
    if not reason:
        raise DecisionError("a decision needs a reason")
    row = Flag.objects.select_for_update().get(pk=flag.pk)
    if row.decision:
        raise DecisionError("this flag was already decided")
    if row.state == Flag.State.LAPSED:
        raise DecisionError(
            "this flag lapsed: the signal no longer finds the pair (it reopens if it does again)"
        )
    now = timezone.now()
    row.decision, row.decided_at, row.decided_by = decision, now, staff
    row.decision_reason = reason[:300]
    row.games_at_decision = row.games_total or len(row.games)
    row.save(update_fields=["decision", "decided_at", "decided_by", "decision_reason", "games_at_decision"])
    if decision == Flag.Decision.WARNED:
        message = (warning or "").strip()
        if not message:
            raise DecisionError("a warning needs the message the player is shown")
        for user_id in filter(None, (row.user_a_id, row.user_b_id)):
            PlayerWarning.objects.create(user_id=user_id, flag=row, message=message[:300], created_at=now)
    flag.refresh_from_db()
    return row
