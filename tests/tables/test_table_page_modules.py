"""The table page's modules keep to their jobs (static/js/table/, lichess' ui/round is the model):
no view touches the socket or changes the state through anything but the controller it is handed,
nothing that handles a message builds HTML, and every module of static/js is type-checked."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "static" / "js"
TABLE = JS / "table"
HTM = ROOT / "static" / "vendor" / "htm-preact" / "standalone.module.js"

#: What a view may not import: the socket, and everything that sends or changes (it calls its ``t``).
NOT_FOR_VIEWS = {JS / "socket.js"} | {
    TABLE / f"{name}.js" for name in ("dispatch", "moves", "ctrl", "verdicts", "ui", "keys")
}


def _imports(path: Path) -> set[Path]:
    """The modules ``path`` imports at run time (JSDoc ``import("...")`` types are not imports)."""
    text = path.read_text(encoding="utf-8")
    found = re.findall(r'^import\s[^;]*?\bfrom\s+"([^"]+)"|^import\s+"([^"]+)"', text, flags=re.M | re.S)
    return {(path.parent / (a or b)).resolve() for a, b in found}


def test_views_reach_neither_the_socket_nor_the_moves() -> None:
    views = sorted((TABLE / "view").glob("*.js"))
    assert views, "no view modules found"
    wrong = {p.name: sorted(str(m.relative_to(JS)) for m in _imports(p) & NOT_FOR_VIEWS) for p in views}
    assert not any(wrong.values()), (
        f"views importing what sends or changes the state: { {k: v for k, v in wrong.items() if v} }"
    )


def test_what_handles_messages_builds_no_html() -> None:
    logic = sorted(TABLE.glob("*.js"))
    assert {p.stem for p in logic} >= {"state", "dispatch", "moves", "ticker", "notices", "clocks"}
    wrong = {
        p.name: sorted(
            str(m.relative_to(ROOT)) for m in _imports(p) if m == HTM or (TABLE / "view") in m.parents
        )
        for p in logic
    }
    assert not any(wrong.values()), (
        f"table modules outside view/ importing the view library or views: {wrong}"
    )


def test_every_module_of_static_js_is_type_checked() -> None:
    unchecked = [
        str(p.relative_to(JS))
        for p in sorted(JS.rglob("*.js"))
        if not p.read_text().startswith("// @ts-check")
    ]
    assert not unchecked, f"modules without // @ts-check: {unchecked}"
