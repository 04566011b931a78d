"""One contract for errors: every ``{code, rule, message}`` is built by ``tables.errors.error_payload``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from game_engine.errors import IllegalActionError, InvalidCardError
from tables.errors import NotSeated, error_payload
from wallet.errors import InsufficientFunds

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (
            IllegalActionError("a joker on the open pile cannot be picked up", rule="docs/rules.md §6.5"),
            {
                "code": "illegal_action",
                "rule": "docs/rules.md §6.5",
                "message": "a joker on the open pile cannot be picked up",
            },
        ),
        (
            InvalidCardError("not a card: 'ZZ'"),
            {"code": "invalid_card", "rule": "docs/rules.md §1", "message": "not a card: 'ZZ'"},
        ),
        (
            NotSeated("you have no seat at this table"),
            {"code": "not_seated", "rule": "", "message": "you have no seat at this table"},
        ),
        (
            InsufficientFunds(account_ref="wallet:1", balance=5, required=10),
            {
                "code": "insufficient_funds",
                "rule": "",
                "message": "insufficient funds in wallet:1: balance 5 paise, needs 10 paise",
            },
        ),
    ],
)
def test_error_payload_from_every_kind_of_refusal(error: Exception, expected: dict[str, str]) -> None:
    assert error_payload(error) == expected


def test_error_payload_from_a_code_and_words() -> None:
    assert error_payload("bad_message", "a message must be a JSON object") == {
        "code": "bad_message",
        "rule": "",
        "message": "a message must be a JSON object",
    }


def test_no_other_module_builds_an_error_payload() -> None:
    """Services, APIs and consumers call error_payload; none writes the dict itself."""
    builders = []
    for path in sorted((ROOT / "tables").rglob("*.py")) + sorted((ROOT / "wallet").glob("*.py")):
        if path.name == "errors.py":
            continue
        text = path.read_text(encoding="utf-8")
        # the OpenAPI schema of the payload (``rest_framework.serializers.CharField()``) is not a payload
        if re.search(r"""["']code["']\s*:(?!\s*serializers)""", text):
            builders.append(path.name)
    assert builders == [], f"error payloads built outside tables/errors.py: {builders}"
