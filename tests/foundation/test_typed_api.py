"""The JSON API documents a shape the server declares once: ``core.typed_api.serializer_for``."""

from __future__ import annotations

from typing import Literal, NotRequired

from rest_framework import serializers
from typing_extensions import TypedDict

from core.typed_api import serializer_for
from game_engine.melds import Verdict
from tables.contract import TableSummary


class Part(TypedDict):
    n: int


class Shape(TypedDict):
    """A shape."""

    name: str
    """Its name."""
    count: int | None
    kind: Literal["a", "b"]
    parts: list[Part]
    by_seat: dict[str, int]
    maybe: NotRequired[bool]


def test_each_field_keeps_its_type_nullability_and_note() -> None:
    fields = serializer_for(Shape, "Shape")().fields
    assert isinstance(fields["name"], serializers.CharField) and fields["name"].help_text == "Its name."
    assert isinstance(fields["count"], serializers.IntegerField) and fields["count"].allow_null
    assert not fields["name"].allow_null
    assert isinstance(fields["kind"], serializers.ChoiceField) and list(fields["kind"].choices) == ["a", "b"]
    assert isinstance(fields["parts"], serializers.ListSerializer)
    assert isinstance(fields["by_seat"], serializers.DictField)
    assert fields["name"].required and not fields["maybe"].required


def test_the_lobby_row_and_the_verdict_are_their_declarations() -> None:
    """The lobby row's serializer has exactly ``TableSummary``'s fields; a display string is never null."""
    from tables.serializers import LobbyTableSerializer

    fields = LobbyTableSerializer().fields
    assert set(fields) == set(TableSummary.__annotations__)
    assert not fields["prize_pool_display"].allow_null and fields["game_id"].allow_null
    assert set(serializer_for(Verdict, "GroupsVerdict")().fields) == set(Verdict.__annotations__)
