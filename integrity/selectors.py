"""Reads of the integrity pages: the signal pages, a flag's games and deals, a player's sections.

Every figure here was computed by the last scan (``integrity.services.scan``); nothing is
recomputed on a page load.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from accounts.models import User
from core.money import format_money
from integrity import config, links, signins
from integrity.models import Flag, ScanRun, SignalRow, SignInEvent
from integrity.rules import rule_texts
from integrity.shapes import (
    FlagGame,
    FlagGameGroup,
    GameLink,
    PlayerSection,
    PlayerSectionRow,
    SignalPageRow,
    SignalSummary,
    UserLink,
)
from tables.models import Deal

#: Log-ins a player's section lists.
RECENT_LOGINS = 10
SIGNALS = [s for s, _ in SignalRow.Signal.choices]


def rules() -> dict[str, tuple[str, str]]:
    return rule_texts(
        config.thresholds(),
        window_days=config.window_days(),
        retention_days=config.retention_days(),
        m=signins.multi_account_rules(),
    )


def last_scan() -> ScanRun | None:
    return ScanRun.objects.filter(finished_at__isnull=False).first()


def signal_index() -> list[SignalSummary]:
    """Each signal: its title, rule, how many rows and flagged rows the last scan left."""
    texts = rules()
    counts: dict[str, list[int]] = {s: [0, 0] for s in SIGNALS}
    for signal, flagged in SignalRow.objects.values_list("signal", "flagged").iterator():
        counts[signal][0] += 1
        counts[signal][1] += int(flagged)
    open_flags = dict.fromkeys(SIGNALS, 0)
    for signal in (
        Flag.objects.filter(decision="").exclude(state=Flag.State.LAPSED).values_list("signal", flat=True)
    ):
        open_flags[signal] += 1
    return [
        {
            "signal": s,
            "title": texts[s][0],
            "rule": texts[s][1],
            "rows": counts[s][0],
            "flagged": counts[s][1],
            "open_flags": open_flags[s],
            "url": reverse("admin:integrity_signal", args=[s]),
        }
        for s in SIGNALS
    ]


def _user_link(user: User | None) -> UserLink | None:
    if user is None:
        return None
    return {"name": user.username, "url": reverse("admin:accounts_user_change", args=[user.pk])}


def _games(ids: list[int]) -> list[GameLink]:
    return [{"id": g, "url": reverse("admin:tables_poolgame_change", args=[g])} for g in ids]


def readable(figures: dict[str, Any]) -> dict[str, Any]:
    """Figures as staff read them: chips in rupees, not paise. A plain dict: each signal names its
    own figures (``integrity.models.SignalRow.figures``), and the pages list whatever is there."""
    out = dict(figures)
    if isinstance(out.get("net_chips"), int | float):
        out["net_chips"] = format_money(int(out["net_chips"]))
    return out


def signal_rows(signal: str, *, limit: int = 200) -> list[SignalPageRow]:
    """The rows of one signal page, strongest first, each with its players and games."""
    rows = SignalRow.objects.filter(signal=signal).select_related("user_a", "user_b")[:limit]
    return [
        {
            "a": _user_link(r.user_a),
            "b": _user_link(r.user_b),
            "figures": readable(r.figures),
            "games": _games(r.games[:12]),
            "more_games": max(0, len(r.games) - 12),
            "flagged": r.flagged,
            "score": r.score,
        }
        for r in rows
    ]


def flag_deals(flag: Flag) -> list[FlagGame]:
    """The games behind a flag, each with its finished deals (to replay face up, recorded)."""
    deals: dict[int, list[Deal]] = {}
    for deal in Deal.objects.filter(game_id__in=flag.games, finished_at__isnull=False).order_by(
        "game_id", "number"
    ):
        deals.setdefault(deal.game_id, []).append(deal)
    return [
        {
            "id": g,
            "url": reverse("admin:tables_poolgame_change", args=[g]),
            "deals": [
                {"number": d.number, "url": reverse("admin:integrity_flag_replay", args=[flag.pk, d.pk])}
                for d in deals.get(g, [])
            ],
        }
        for g in flag.games
    ]


def flag_game_groups(flag: Flag) -> list[FlagGameGroup]:
    """The listed games of a flag, labelled: the first games together (where the pattern began)
    and the latest ones (what the pair does now), or all of them when few."""
    games = flag_deals(flag)
    total = max(flag.games_total, len(games))
    first = flag.listed_first
    if first >= len(games):
        return [{"label": f"All {total} games behind it", "id": "games-all", "games": games}]
    return [
        {"label": f"The first {first} games", "id": "games-first", "games": games[:first]},
        {
            "label": f"The latest {len(games) - first} of {total} games",
            "id": "games-latest",
            "games": games[first:],
        },
    ]


def _event_words(e: SignInEvent) -> str:
    device = f"device {e.device[:8]}" if e.device else "no device cookie"
    agent = f" · {e.user_agent[:60]}" if e.user_agent else ""
    return f"{timezone.localtime(e.at):%Y-%m-%d %H:%M} from {e.address or 'no address'} · {device}{agent}"


def _recent_logins(user: User) -> Any:
    return (
        SignInEvent.objects.filter(user=user, kind=SignInEvent.Kind.LOGIN)
        .order_by("-at")
        .values("pk")[:RECENT_LOGINS]
    )


def player_sections(user: User) -> list[PlayerSection]:
    """The integrity sections of the staff player page: sign-up and recent log-in addresses and
    devices, and linked accounts (``integrity.shapes.PlayerSection``).

    Addresses and devices are personal data: show these sections to holders of
    ``integrity.view_signals`` (the Game integrity role) only.
    """
    # the sign-up and the recent log-ins in one query (the player page stays under 20 queries)
    events = list(
        SignInEvent.objects.filter(user=user)
        .filter(Q(kind=SignInEvent.Kind.SIGNUP) | Q(pk__in=_recent_logins(user)))
        .order_by("-at")
    )
    signup = next((e for e in reversed(events) if e.kind == SignInEvent.Kind.SIGNUP), None)
    logins = [e for e in events if e.kind == SignInEvent.Kind.LOGIN]
    signal_page = reverse("admin:integrity_signal", args=["shared"])
    seen: list[PlayerSectionRow] = [
        {
            "label": "Sign-up",
            "value": _event_words(signup)
            if signup
            else "not recorded (before capture began, or made by staff)",
            "link": None,
        }
    ]
    seen += [{"label": "Log-in", "value": _event_words(e), "link": None} for e in logins]
    if not logins:
        seen.append({"label": "Log-in", "value": "none recorded", "link": None})
    devices = {e.device for e in [*logins, *([signup] if signup else [])] if e.device}
    if devices:
        others = (
            SignInEvent.objects.filter(device__in=devices)
            .exclude(user=user)
            .values_list("user_id", flat=True)
            .distinct()
            .count()
        )
        seen.append({"label": "Other accounts on these devices", "value": str(others), "link": signal_page})
    linked: list[PlayerSectionRow] = []
    for row in links.links_of(user.pk):
        other = row.user_b if row.user_a_id == user.pk else row.user_a
        if row.active:
            value = f"kept apart: {row.get_source_display().lower()}, since {row.created_at:%Y-%m-%d}"
            if row.created_by is not None:
                value += f" (by {row.created_by.username}: {row.reason})"
        else:
            value = (
                f"cleared {row.cleared_at:%Y-%m-%d} by {row.cleared_by.username if row.cleared_by else '?'}: "
                f"{row.clear_reason}"
            )
        linked.append(
            {
                "label": other.username,
                "value": value,
                "link": reverse("admin:integrity_accountlink_change", args=[row.pk]),
            }
        )
    flags = (
        Flag.objects.filter(Q(user_a=user) | Q(user_b=user), decision="")
        .exclude(state=Flag.State.LAPSED)
        .count()
    )
    linked.append(
        {
            "label": "Open integrity flags",
            "value": str(flags),
            "link": reverse("admin:integrity_flag_changelist") + f"?q={user.username}",
        }
    )
    return [
        {"title": "Sign-up and recent log-ins: addresses and devices", "rows": seen},
        {
            "title": "Linked accounts",
            "rows": linked if len(linked) > 1 else [{"label": "None", "value": "", "link": None}, *linked],
        },
    ]
