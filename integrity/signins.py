"""Sign-ins shared between accounts, and one person behind several accounts: addresses and devices
several accounts signed in from, and the pairs the one-person rules find (``integrity.multiaccount``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from itertools import combinations
from typing import Any

from django.conf import settings

from integrity import detect, multiaccount
from integrity.config import retention_days, thresholds
from integrity.models import (
    SignInEvent,
)

#: Address and device rows: at most this many accounts of one address are paired (carrier NAT).
SHARED_MAX_ACCOUNTS = 30


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
