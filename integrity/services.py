"""The integrity use cases: the scan that computes the signals, and recording a review's decision.

``scan`` runs from Celery beat (``integrity.tasks.scan``, every ``INTEGRITY_SCAN_MINUTES``) and
from ``manage.py integrity_scan``; never on a page load. It digests each game finished since the
last run once (``integrity.digest_store``), runs the signals over the window's digests
(``integrity.detect``) and the sign-in events (``integrity.signins``), replaces the signal pages'
rows, raises flags in the review queue and links the pairs chip dumping finds, and those whose
shared address and play say one person (``integrity.multiaccount``). Each run also keeps the
undecided flags true (``integrity.flagging``): their figures follow the evidence, and one the
signal no longer finds weakens, then lapses. Its settings are read by ``integrity.config``; a
review's decision is ``integrity.review``.
"""

from __future__ import annotations

import heapq
import logging
import math
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

import orjson
from django.db import transaction
from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils import timezone

from accounts.models import User
from integrity import detect, links, multiaccount
from integrity.config import listed_games, retention_days, thresholds, window_days
from integrity.digest_store import digest_new_games, redigest_stale_games
from integrity.flagging import Evidence, keep_flag_true, raise_flag, summary_of
from integrity.models import (
    AccountLink,
    Flag,
    GameDigest,
    ScanRun,
    SignalRow,
    SignInEvent,
)
from integrity.signins import SignIns, multi_account_findings, shared_rows
from integrity.sums import Digests

logger = logging.getLogger(__name__)

#: How many rows each signal page keeps beyond the flagged ones (the strongest first).
ROWS_KEPT = 500


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
    """The window's digests as ``Digests`` reads them (game id, digest), adding up the time
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
    read them: (low id, high id) -> their games (``PairGames``), read from the sums without
    copying them."""

    def __init__(self, sums: Digests) -> None:
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
    sums = Digests(window)
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
            return int(raise_flag(signal, e, now)) if flagged else 0

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
                            a,
                            b,
                            source=AccountLink.Source.CHIPS,
                            evidence=summary_of(signal, f.figures)[:300],
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
                    evidence=summary_of(SignalRow.Signal.ONE_PERSON, m.figures)[:300],
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
