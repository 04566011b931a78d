"""The dashboard's rake chart as SVG geometry: bars, axis ticks and labels, from (day, paise) rows."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from core.money import format_money
from staff.shapes import ChartBar, ChartGridline, RakeChart


def _nice_top(value: int) -> int:
    """A round number of paise at or above ``value`` for the chart's top (1, 2 or 5 × a power of ten rupees)."""
    if value <= 0:
        return 100
    step = 100
    while True:
        for m in (1, 2, 5):
            if m * step >= value:
                return m * step
        step *= 10


def _short(paise: int) -> str:
    """A bar's value in few characters: ₹940, ₹1.2k, ₹35k, ₹1.5L (lakh), ₹2.3Cr."""
    symbol = settings.CURRENCY_SYMBOL
    rupees = paise / 100
    for size, unit in ((10_000_000, "Cr"), (100_000, "L"), (1_000, "k")):
        if rupees >= size:
            shown = rupees / size
            return f"{symbol}{shown:.1f}{unit}" if shown < 10 else f"{symbol}{shown:.0f}{unit}"
    return f"{symbol}{rupees:.0f}" if rupees == int(rupees) else f"{symbol}{rupees:.2f}"


def rake_chart(series: list[tuple[Any, int]], *, width: int = 760, height: int = 260) -> RakeChart:
    """An SVG bar chart drawn by the template (no script): a y axis in rupees with three gridlines,
    an x axis of days labelled every fifth day, each bar with its value above it and a tooltip."""
    left, right, top_pad, bottom = 64, 10, 24, 44
    plot_w, plot_h = width - left - right, height - top_pad - bottom
    top = _nice_top(max((v for _, v in series), default=0))
    step = plot_w / max(len(series), 1)
    baseline = top_pad + plot_h
    bars: list[ChartBar] = []
    for i, (day, value) in enumerate(series):
        h = round(plot_h * value / top, 1)
        x = round(left + i * step + 1, 1)
        bars.append(
            {
                "x": x,
                "y": round(baseline - h, 1),
                "w": round(step - 2, 1),
                "h": h,
                "label": f"{day:%a %d %b}: {format_money(value)}",
                "day": f"{day:%a %d %b}",
                "money": format_money(value),
                "value": _short(value) if value else "",
                "vx": round(left + i * step + step / 2, 1),
                "vy": round(baseline - h - 4, 1),
                "tick": f"{day:%d %b}" if i % 5 == 0 or i == len(series) - 1 else "",
                "tx": round(left + i * step + step / 2, 1),
            }
        )
    grid: list[ChartGridline] = [
        {"y": round(baseline - plot_h * f, 1), "label": format_money(round(top * f))} for f in (0, 0.5, 1)
    ]
    return {
        "width": width,
        "height": height,
        "left": left,
        "right": width - right,
        "top": top_pad,
        "baseline": baseline,
        "bars": bars,
        "grid": grid,
        "tick_y": baseline + 16,
        "axis_title_y": height - 6,
        "mid_x": left + plot_w / 2,
        "max": format_money(max((v for _, v in series), default=0)),
        "total": format_money(sum(v for _, v in series)),
        "zone": settings.OPERATOR_TIME_ZONE,
    }
