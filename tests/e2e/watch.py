"""What a page did that it should not: console errors, uncaught exceptions, CSP violations, dialogs.

``watch(page)`` hooks a Playwright page before it navigates; ``Watch.assert_clean()``
fails the test with everything seen. A ``dialog`` (``alert`` and friends) is always a
failure here: no page of the site opens one, so one that opens is a script that ran.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: Reported by the page itself (CDP runs this before any of the page's scripts, CSP or not).
_VIOLATION_LISTENER = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (e) {
  window.__cspViolations.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") +
    " at " + (e.sourceFile || "") + ":" + (e.lineNumber || 0));
});
"""


@dataclass
class Watch:
    page: Any
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def collect_violations(self) -> None:
        try:
            found = self.page.evaluate("window.__cspViolations || []")
        except Exception:  # the page is navigating; its violations were console errors too
            return
        for v in found:
            if v not in self.violations:
                self.violations.append(v)

    def problems(self) -> list[str]:
        self.collect_violations()
        return (
            [f"console error: {m}" for m in self.console_errors]
            + [f"page error: {m}" for m in self.page_errors]
            + [f"dialog opened: {m}" for m in self.dialogs]
            + [f"CSP violation: {m}" for m in self.violations]
        )

    def assert_clean(self, where: str = "") -> None:
        problems = self.problems()
        assert problems == [], f"{where}: " + "\n".join(problems)


def watch(page: Any) -> Watch:
    seen = Watch(page)
    page.add_init_script(_VIOLATION_LISTENER)
    page.on("console", lambda m: seen.console_errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.page_errors.append(str(e)))

    def on_dialog(dialog: Any) -> None:
        seen.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return seen


def log_in(page: Any, base_url: str, username: str, password: str) -> None:
    """Log in through the login page, as a person does."""
    page.goto(f"{base_url}/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("#login-form button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
