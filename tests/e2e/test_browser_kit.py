"""The browser the browser tests share: Playwright's own Chromium switches kept, the popups of an
address bar no headless test opens not loaded (``tests/e2e/conftest.py``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import UNUSED_FEATURES, playwright_disabled_features

pytestmark = pytest.mark.e2e


def _features_our_renderers_run_without() -> set[str]:
    """What Chromium turned off, as its browser process hands it to the renderers it starts for this
    process's pages (their ``--disable-features``: Chromium's own reading of its command line)."""
    found: set[str] = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes().decode().replace("\0", " ")
            if "chromium" not in command or "--type=renderer" not in command:
                continue
            pid = int(proc.name)
            while pid > 1 and pid != os.getpid():  # up its parents to this test process, or not
                pid = int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue  # gone meanwhile
        if pid != os.getpid():
            continue
        for arg in command.split():
            if arg.startswith("--disable-features="):
                found.update(arg.split("=", 1)[1].split(","))
    return found


def test_a_context_loads_no_address_bar_popup_and_playwrights_features_stay_off(browser: Any) -> None:
    context = browser.new_context()
    try:
        context.new_page().set_content("<p>a page</p>")
        cdp = browser.new_browser_cdp_session()
        targets = cdp.send("Target.getTargets", {"filter": [{}]})["targetInfos"]
        popups = [t["url"] for t in targets if t["url"].startswith("chrome://omnibox-popup")]
        assert popups == [], f"a context loaded the address bar's popups: {popups}"
        off = _features_our_renderers_run_without()
        theirs = playwright_disabled_features()
        assert len(theirs) > 5, f"Playwright's list read from its driver looks wrong: {theirs}"
        missing = [f for f in [*theirs, *UNUSED_FEATURES] if f not in off]
        assert missing == [], f"features Chromium runs with that should be off: {missing}"
    finally:
        context.close()
