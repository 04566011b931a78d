"""``protocol.parse_frame`` judges nesting and text on the parsed message, as it did on the text.

It used to scan every character of every frame for brackets outside strings and walk every
string of the parsed message; now it walks the parsed containers, and the strings only when
the text holds an escape. The old checks, kept here as the reference, must accept and refuse
exactly the same frames (the reference's depth of the text is ``protocol._depth``, unchanged, which
the new check reads only for text the parser refuses).
"""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tables import protocol
from tables.errors import ProtocolError


def reference(text: str) -> dict[str, Any] | None:
    """The frame check as it was (the message, or None for a refusal)."""
    if len(text) > protocol.MAX_FRAME_CHARS:
        return None
    # the text's bracket depth as it was read before every frame (now only for refused text)
    if protocol._depth(text) > protocol.MAX_DEPTH or not protocol.clean_text(text):
        return None
    try:
        content = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(content, dict):
        return None
    try:
        protocol._check_strings(content)
    except ProtocolError:
        return None
    return content


def current(text: str) -> dict[str, Any] | None:
    try:
        return protocol.parse_frame(text, None)
    except ProtocolError:
        return None


# text with what a hostile client puts in: brackets, quotes, backslashes, controls, surrogates
TRICKY = st.text(alphabet=st.sampled_from(list('ab[]{}"\\:,\x00\x08\x0c\x1f\x7f\n\t') + ["\ud800", "é"]))
LEAVES = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), TRICKY)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TRICKY, inner, max_size=3)),
    max_leaves=12,
)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    message=st.dictionaries(TRICKY, VALUES, min_size=1, max_size=3),
    ascii_only=st.booleans(),
    cut=st.integers(0, 400),
    wrap=st.integers(0, 6),
)
def test_the_same_frames_are_accepted_as_before(
    message: dict[str, Any], ascii_only: bool, cut: int, wrap: int
) -> None:
    text = json.dumps(message, ensure_ascii=ascii_only)
    in_lists = '{"a":' + "[" * wrap + text + "]" * wrap + "}"  # nested near the limit, either side of it
    in_objects = '{"a":' * wrap + text + "}" * wrap
    for frame in (text, text[:cut], "[" + text + "]", in_lists, in_objects):
        assert current(frame) == reference(frame), frame


@pytest.mark.parametrize(
    ("frame", "why"),
    [
        ('{"a":' * 7 + "1" + "}" * 7, "nest at most 6"),
        ('{"type": "action", "action": {"groups": [[[[["AH"]]]]]}}', "nest at most 6"),
        ("[" * 2000 + "]" * 2000, "nest at most 6"),  # past what the parser goes into
        ('{"a": "]]]]]]]]", "b": [[[[[[1]]]]]]}', "nest at most 6"),  # brackets in a string count not
        ('{"type": "ping\\u0000"}', "control characters"),
        ('{"type\\b": "ping"}', "control characters"),
        ('{"type": "\\ud800"}', "must be JSON"),
        ('{"type": "ping"', "must be JSON"),
    ],
)
def test_refusals_say_why(frame: str, why: str) -> None:
    with pytest.raises(ProtocolError, match=why):
        protocol.parse_frame(frame, None)


def test_a_message_six_deep_with_brackets_in_its_strings_is_accepted() -> None:
    frame = '{"request_id": "[[[[{{{{", "a": [[[[{"b": "]]]]"}]]]]}'
    assert protocol.parse_frame(frame, None)["a"] == [[[[{"b": "]]]]"}]]]]
