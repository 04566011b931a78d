"""Table settings and the format presets (docs/rules.md §5 table, §7, §8, §9).

Every choice in docs/rules.md that an operator may switch is a
field here. Money is in integer minor units (paise); time in milliseconds.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Literal

from game_engine.errors import PoolRuleError
from game_engine.shapes import fields_shape

POOL: Final = "pool"
POINTS: Final = "points"


@dataclass(frozen=True, slots=True)
class TableRules:
    """The rules of one table. ``kind`` is "pool" (docs/rules.md §7) or "points" (docs/rules.md §9)."""

    kind: Literal["pool", "points"] = POOL
    pool_limit: int = 101
    first_drop: int = 20
    middle_drop: int = 40
    full_count: int = 80
    wrong_show: int = 80
    rejoin_threshold: int = 79
    decks: int = 2
    min_players: int = 2
    max_players: int = 6
    turn_ms: int = 30_000
    extra_time_ms: int = 60_000
    declare_ms: int = 45_000
    next_deal_ms: int = 10_000
    rejoin_ms: int = 20_000
    split_ms: int = 20_000
    entry_fee: int = 10_000
    rake_bp: int = 1_000
    #: Auto split (docs/rules.md §8) on tables whose entry fee is strictly above this (2000 chips = 200000 paise).
    auto_split_min_fee: int = 200_000
    #: Rejoin offered only when entry_fee < this; None = every table (docs/rules.md §7 [chosen]).
    rejoin_max_fee: int | None = None
    #: Points rummy only (docs/rules.md §9): minor units per point.
    point_value: int = 0

    def __post_init__(self) -> None:
        if self.kind not in (POOL, POINTS):
            raise PoolRuleError(f"unknown table kind {self.kind!r}")
        if self.decks not in (2, 3):
            raise PoolRuleError("a table uses 2 or 3 packs", rule="docs/rules.md §1.1")
        if not 2 <= self.min_players <= self.max_players <= 6:
            raise PoolRuleError("a game needs 2 to 6 players")
        if self.first_drop <= 0 or self.middle_drop <= 0 or self.full_count <= 0 or self.wrong_show < 0:
            raise PoolRuleError("drop and count points must be positive", rule="docs/rules.md §5.7")
        if self.entry_fee < 0 or not 0 <= self.rake_bp <= 10_000 or self.point_value < 0:
            raise PoolRuleError("fees must be non-negative and rake at most 100%")
        for name in ("turn_ms", "extra_time_ms", "declare_ms", "next_deal_ms", "rejoin_ms", "split_ms"):
            if getattr(self, name) < 0:
                raise PoolRuleError(f"{name} must be non-negative", rule="docs/rules.md §6.9")

    @property
    def is_points(self) -> bool:
        return self.kind == POINTS

    def rake_of(self, amount: int) -> int:
        """Platform fee on ``amount``: basis points, rounded down (docs/rules.md §7)."""
        return amount * self.rake_bp // 10_000

    @property
    def rejoin_allowed(self) -> bool:
        """Rejoin on this table at all (docs/rules.md §7 [chosen]: every pool table by default)."""
        if self.is_points:
            return False
        return self.rejoin_max_fee is None or self.entry_fee < self.rejoin_max_fee

    @property
    def auto_split(self) -> bool:
        """Auto split applies when the entry fee is above the threshold (docs/rules.md §8)."""
        return not self.is_points and self.entry_fee > self.auto_split_min_fee

    def replace(self, **changes: Any) -> TableRules:
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> RulesView:
        return {name: getattr(self, name) for name in _FIELD_NAMES}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TableRules:
        if not isinstance(d, dict):
            raise PoolRuleError("table rules must be an object")
        names = {f.name for f in dataclasses.fields(cls)}
        unknown = set(d) - names
        if unknown:
            raise PoolRuleError(f"unknown table settings: {sorted(unknown)}")
        try:
            return cls(**d)
        except TypeError as exc:  # pragma: no cover - defensive
            raise PoolRuleError(str(exc)) from exc


_FIELD_NAMES: Final[tuple[str, ...]] = tuple(f.name for f in dataclasses.fields(TableRules))

if TYPE_CHECKING:  # mypy reads no TypedDict made at run time; the schema and the page's types do
    RulesView = dict[str, Any]
else:
    RulesView = fields_shape(
        TableRules, "RulesView", "A table's rules as a view carries them (``TableRules.to_dict``)."
    )

FORMATS: Final[dict[str, TableRules]] = {
    "61": TableRules(
        pool_limit=61, first_drop=15, middle_drop=30, full_count=60, wrong_show=60, rejoin_threshold=44
    ),
    "101": TableRules(
        pool_limit=101, first_drop=20, middle_drop=40, full_count=80, wrong_show=80, rejoin_threshold=79
    ),
    "201": TableRules(
        pool_limit=201, first_drop=25, middle_drop=50, full_count=80, wrong_show=80, rejoin_threshold=174
    ),
    "points": TableRules(
        kind=POINTS,
        pool_limit=0,
        first_drop=20,
        middle_drop=40,
        full_count=80,
        wrong_show=80,
        rejoin_threshold=0,
        point_value=100,
        entry_fee=80 * 100,
    ),
}


def make_rules(fmt: str, **overrides: Any) -> TableRules:
    """A preset with some settings changed, e.g. ``make_rules("101", entry_fee=2500)``.

    For points rummy the entry fee is the amount held from each player (at least
    full count × point value); it is raised to that automatically when too low.
    """
    if fmt not in FORMATS:
        raise PoolRuleError(f"unknown format {fmt!r}; expected one of {sorted(FORMATS)}")
    rules = FORMATS[fmt].replace(**overrides) if overrides else FORMATS[fmt]
    if rules.is_points and rules.entry_fee < rules.full_count * rules.point_value:
        rules = rules.replace(entry_fee=rules.full_count * rules.point_value)
    return rules
