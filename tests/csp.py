"""The site's Content-Security-Policy as the tests read it: strict, for the pages and the browser tests."""

from __future__ import annotations


def directives(header: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in header.split(";"):
        words = part.split()
        if words:
            parsed[words[0]] = words[1:]
    return parsed


def assert_strict_policy(header: str, host: str = "testserver") -> None:
    policy = directives(header)
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"], "no inline script, no eval, no foreign script"
    assert policy["object-src"] == ["'none'"]
    assert policy["base-uri"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert sorted(policy["connect-src"]) == sorted(["'self'", f"ws://{host}", f"wss://{host}"])
    own = {"'self'", "'none'", "'unsafe-inline'", "data:", "blob:", f"ws://{host}", f"wss://{host}"}
    for name, sources in policy.items():
        assert set(sources) <= own, f"{name} allows a foreign origin: {sorted(set(sources) - own)}"
    assert "'unsafe-eval'" not in header
