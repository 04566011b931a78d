"""DRF serializers made from the ``TypedDict``s that declare what the server sends.

A row the lobby lists or a verdict on groups travels both over a socket and through the JSON API.
Its shape is declared once, as a ``TypedDict`` (the socket's schema and the page's types come from
it, ``tables.wiredocs``); ``serializer_for`` makes the serializer drf-spectacular documents the API's
answer with, from pydantic's JSON Schema of that ``TypedDict``: its fields, their types and
nullability, and the docstring under each field as its help text.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from rest_framework import serializers
from typing_extensions import get_type_hints, is_typeddict

_PLAIN: dict[str, type[serializers.Field[Any, Any, Any, Any]]] = {
    "integer": serializers.IntegerField,
    "string": serializers.CharField,
    "boolean": serializers.BooleanField,
}


def read_field_docs(shape: Any) -> None:
    """Have pydantic read the string under each field of ``shape`` and of the ``TypedDict``s it holds
    as that field's description."""
    if not is_typeddict(shape) or "__pydantic_config__" in vars(shape):
        return
    shape.__pydantic_config__ = {"use_attribute_docstrings": True}
    for hint in get_type_hints(shape).values():
        for part in (hint, *getattr(hint, "__args__", ())):
            read_field_docs(part)


def serializer_for(shape: Any, name: str) -> type[serializers.Serializer]:  # type: ignore[type-arg]  # DRF's stubs make Serializer generic; what it serializes is a plain dict
    """A serializer of the ``TypedDict`` ``shape`` called ``name`` (its OpenAPI component)."""
    read_field_docs(shape)
    schema = TypeAdapter(shape).json_schema(ref_template="{model}")
    return _serializer(schema, schema.get("$defs", {}), name)


def _serializer(schema: dict[str, Any], defs: dict[str, Any], name: str) -> type[serializers.Serializer]:  # type: ignore[type-arg]  # as above
    required = set(schema.get("required", ()))
    fields = {key: _field(prop, defs, key in required) for key, prop in schema["properties"].items()}
    return type(
        f"{name}Serializer", (serializers.Serializer,), {**fields, "__doc__": schema.get("description")}
    )


def _field(
    prop: dict[str, Any], defs: dict[str, Any], required: bool
) -> serializers.Field[Any, Any, Any, Any]:
    options: dict[str, Any] = {"required": required}
    if prop.get("description"):
        options["help_text"] = prop["description"]
    if "anyOf" in prop:
        kept = [alt for alt in prop["anyOf"] if alt != {"type": "null"}]
        if len(kept) != 1:
            raise TypeError(f"a field of one type or null, not {prop}")
        options["allow_null"] = len(kept) < len(prop["anyOf"])
        prop = kept[0]
    if "$ref" in prop:
        return _serializer(defs[prop["$ref"]], defs, prop["$ref"])(**options)
    if "enum" in prop or "const" in prop:
        return serializers.ChoiceField(choices=prop.get("enum") or [prop["const"]], **options)
    kind = prop.get("type")
    if kind == "array":
        item = prop["items"]
        if "$ref" in item:
            return _serializer(defs[item["$ref"]], defs, item["$ref"])(many=True, **options)
        return serializers.ListField(child=_field(item, defs, True), **options)
    if kind == "object":
        values = prop.get("additionalProperties", True)
        if values is True:  # ``dict[str, Any]``: values of any kind
            return serializers.DictField(**options)
        return serializers.DictField(child=_field(values, defs, True), **options)
    if kind in _PLAIN:
        return _PLAIN[kind](**options)
    raise TypeError(f"no serializer field for {prop}")
