"""The site's Content-Security-Policy as the tests read it: strict, for the pages and the browser tests."""

from __future__ import annotations

import re


def directives(header: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            parsed[words[0]] = words[1:]
    return parsed


#: A page's nonce as django-csp writes it: 16 random bytes in base64.
NONCE = re.compile(r"'nonce-([A-Za-z0-9+/]{22}==)'")


def assert_strict_policy(header: str, host: str = "testserver") -> str | None:
    """Asserts the policy is the site's strict one, and returns the page's nonce if it has one (the
    one inline script it may carry)."""
    policy = directives(header)
    assert policy["default-src"] == ["'self'"]
    scripts = policy["script-src"]
    nonce = NONCE.fullmatch(scripts[-1]) if len(scripts) == 2 else None
    assert scripts[:1] == ["'self'"] and (len(scripts) == 1 or nonce), (
        "no inline script but the nonce's, no eval, no foreign script",
        scripts,
    )
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert sorted(policy["connect-src"]) == sorted(["'self'", f"ws://{host}", f"wss://{host}"])
    own = {"'self'", "'none'", "'unsafe-inline'", "data:", "blob:", f"ws://{host}", f"wss://{host}"}
    for name, sources in policy.items():
        assert set(sources) - {f"'nonce-{nonce.group(1)}'" if nonce else ""} <= own, (
            f"{name} allows a foreign origin: {sorted(set(sources) - own)}"
        )
    assert "'unsafe-eval'" not in header
    return nonce.group(1) if nonce else None
