"""The fair-play yardstick's report (``integrity.family``): detection by method and intensity, with
Wilson intervals, the chips moved before a group was named, false flags among honest pairs, and
the targets met or missed. Pure Python."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from game_engine.schemes import METHODS
from integrity.family import (
    BANDS,
    PAIR_CLASSES,
    READ_AT,
    TARGET_DETECTION,
    TARGET_FALSE,
    TARGET_GAMES,
    TARGET_INTENSITY,
    GroupResult,
    SeedResult,
)


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of ``k`` successes in ``n`` (95 % for the default ``z``)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * ((p * (1 - p) + z * z / (4 * n)) / n) ** 0.5
    den = 1 + z * z / n
    return max(0.0, (centre - spread) / den), min(1.0, (centre + spread) / den)


def detected(groups: Iterable[GroupResult], at: int) -> tuple[int, int]:
    """(groups flagged by ``at`` games together, groups that played ``at`` games together)."""
    reached = [g for g in groups if g.together >= at]
    return sum(1 for g in reached if g.flagged_at is not None and g.flagged_at <= at), len(reached)


def _band(intensity: float) -> str:
    for lo, hi in BANDS:
        if lo <= round(intensity, 2) <= hi:
            return f"{lo:.0%}-{hi:.0%}"
    return "?"


def _cell(k: int, n: int, interval: bool) -> str:
    if n == 0:
        return "-"
    if not interval:
        return f"{k}/{n}"
    lo, hi = wilson(k, n)
    return f"{k}/{n} {k / n:.0%} [{lo:.0%}-{hi:.0%}]"


def _table(rows: Mapping[str, list[GroupResult]], interval: bool, width: int) -> list[str]:
    lines = ["  " + f"{'':<14}" + "".join(f"{f'@{n} games':>{width}}" for n in READ_AT)]
    for name, groups in rows.items():
        lines.append(
            f"  {name:<14}" + "".join(f"{_cell(*detected(groups, n), interval):>{width}}" for n in READ_AT)
        )
    return lines


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _by_method(groups: Sequence[GroupResult]) -> dict[str, list[GroupResult]]:
    return {m: [g for g in groups if g.method == m] for m in METHODS if any(g.method == m for g in groups)}


def _by_band(groups: Sequence[GroupResult]) -> dict[str, list[GroupResult]]:
    out: dict[str, list[GroupResult]] = {}
    for lo, hi in BANDS:
        out[f"{lo:.0%}-{hi:.0%}"] = [g for g in groups if _band(g.intensity) == f"{lo:.0%}-{hi:.0%}"]
    return out


def _chips(groups: Sequence[GroupResult]) -> str:
    flagged = [g.flow_at_flag or 0.0 for g in groups if g.flagged_at is not None]
    never = [g.flow for g in groups if g.flagged_at is None]
    text = (
        f"median {_quantile(flagged, 0.5):.1f}, 90th percentile {_quantile(flagged, 0.9):.1f} fees "
        f"({len(flagged)} groups flagged)"
        if flagged
        else "no group flagged"
    )
    if never:
        text += (
            f"; never flagged: {len(never)} groups, median {_quantile(never, 0.5):.1f} fees moved by the end"
        )
    return text


def report(results: Sequence[SeedResult]) -> list[str]:
    """The figures over ``results`` (one per seed), as lines to print."""
    lines: list[str] = []
    everything = [g for r in results for g in r.groups]
    for r in results:
        pairs = ", ".join(f"{c} {r.pairs[c][0]}" for c in PAIR_CLASSES)
        lines.append(
            f"seed {r.seed}: {r.games} games, {r.scans} scans, wall {r.seconds:.0f} s "
            f"(scans {r.scan_seconds:.0f} s); {len(r.groups)} groups; pairs that played together: {pairs}"
        )
    lines.append("")
    lines.append(
        "Groups flagged by N games together / groups that reached N, pooled over the seeds [95 % Wilson]:"
    )
    lines.append("by method:")
    lines += _table(_by_method(everything), True, 24)
    lines.append("by intensity band:")
    lines += _table(_by_band(everything), True, 24)
    for r in results:
        lines.append(f"seed {r.seed}, by method and by band:")
        lines += _table({**_by_method(r.groups), **_by_band(r.groups)}, False, 12)
    lines.append("")
    lines.append(f"Chips moved from helpers to gainers before the first flag, pooled: {_chips(everything)}")
    for r in results:
        lines.append(f"  seed {r.seed}: {_chips(r.groups)}")
    lines.append("")
    lines.append("False flags (pairs a flagged finding named / pairs that played together):")
    for r in results:
        cells = []
        for c in PAIR_CLASSES:
            total, flagged = r.pairs[c]
            cells.append(f"{c} {flagged}/{total} = {flagged / total if total else 0:.2%}")
        lines.append(f"  seed {r.seed}: " + "; ".join(cells))
        for c in ("friends", "honest"):
            if r.flagged_pairs.get(c):
                named = ", ".join(
                    f"{'+'.join(p)} ({', '.join(r.flagged_by.get(p, []))})" for p in r.flagged_pairs[c]
                )
                lines.append(f"    {c} flagged: {named}")
        if r.flagged_pairs.get("colluder+other"):
            count: dict[str, int] = {}
            for p in r.flagged_pairs["colluder+other"]:
                for sig in r.flagged_by.get(p, []):
                    count[sig] = count.get(sig, 0) + 1
            lines.append(
                "    colluder+other named by: " + ", ".join(f"{k} {v}" for k, v in sorted(count.items()))
            )
    lines.append("")
    lines.append("Each group: games together at its first flag, by which signals:")
    for r in results:
        cells = [
            f"{g.name} {g.method} {g.intensity:.0%} {g.shape}: "
            + (f"{g.flagged_at} ({', '.join(g.flagged_by)})" if g.flagged_at is not None else "never")
            for g in r.groups
        ]
        lines.append(f"  seed {r.seed}: " + "; ".join(cells))
    missed = [
        (r.seed, g)
        for r in results
        for g in r.groups
        if g.intensity >= TARGET_INTENSITY
        and g.together >= TARGET_GAMES
        and (g.flagged_at is None or g.flagged_at > TARGET_GAMES)
    ]
    if missed:
        lines.append("")
        lines.append(
            f"Groups at >= {TARGET_INTENSITY:.0%} not flagged within {TARGET_GAMES} games, their strongest finding then:"
        )
        for seed, g in missed:
            lines.append(
                f"  seed {seed} {g.name} {g.method} {g.intensity:.0%} {g.shape}: {g.nearest or 'none'}"
            )
    lines.append("")
    lines += targets(results)
    return lines


def targets(results: Sequence[SeedResult]) -> list[str]:
    """One line per target of issue 38: met or not met (pooled over the seeds for detection)."""
    everything = [g for r in results for g in r.groups]
    short = []
    for method, groups in _by_method(everything).items():
        k, n = detected([g for g in groups if g.intensity >= TARGET_INTENSITY], TARGET_GAMES)
        if n and k / n < TARGET_DETECTION:
            short.append(f"{method} {k}/{n}")
    missing = [
        m for m in METHODS if not any(g.method == m and g.intensity >= TARGET_INTENSITY for g in everything)
    ]
    detection_met = not short and not missing
    false_met = all(r.pairs["honest"][1] <= TARGET_FALSE * r.pairs["honest"][0] for r in results)
    friends_met = all(r.pairs["friends"][1] == 0 for r in results)

    def verdict(ok: bool) -> str:
        return "met" if ok else "not met"

    why = "; ".join(x for x in (", ".join(short), "no group: " + ", ".join(missing) if missing else "") if x)
    return [
        f"every method at >= {TARGET_INTENSITY:.0%} intensity flagged within {TARGET_GAMES} games together in "
        f">= {TARGET_DETECTION:.0%} of groups: {verdict(detection_met)}" + (f" ({why})" if why else ""),
        f"false flags <= {TARGET_FALSE:.1%} of honest pairs in every seed: {verdict(false_met)}",
        f"none among friends in every seed: {verdict(friends_met)}",
    ]
