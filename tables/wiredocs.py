"""What is made from the wire's declarations: docs/protocol.md's generated tables, the JSON Schema
the page's types come from, and the OpenAPI's error answers.

The messages are declared in ``tables.contract`` (what the server sends) and ``tables.protocol``
(what a client sends), the events in ``game_engine.events``, the errors in ``tables.errors``;
``manage.py wire_contract`` writes the files below from them, and ``tests/tables/test_contract.py``
fails when a file differs from what they make.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

from pydantic import TypeAdapter
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from core.typed_api import read_field_docs
from game_engine import events as ev
from game_engine import melds, views
from tables import contract, errors, protocol
from tables.contract import LOBBY_MESSAGES, MESSAGES, TABLE_MESSAGES, ErrorBody

#: Where ``json_schema()`` is kept for the page (generated; a test keeps it current).
SCHEMA_PATH = "static/js/contract.schema.json"


# ---------------------------------------------------------------------- docs/protocol.md
def _type_text(f: dataclasses.Field[Any]) -> str:
    """A field's annotation in words (``ev.type_words``), this module's ``Literal`` names spelled out."""
    return ev.type_words(str(f.type), vars(contract))


def messages_table() -> str:
    """docs/protocol.md's table of server -> client messages (a test keeps them equal)."""
    lines = ["| message | socket | fields | when |", "|---|---|---|---|"]
    for message in MESSAGES:
        where = ", ".join(
            name for name, group in (("table", TABLE_MESSAGES), ("lobby", LOBBY_MESSAGES)) if message in group
        )
        parts = []
        for f in dataclasses.fields(message):
            absent = " (absent when null)" if f.metadata.get("omit_none") else ""
            parts.append(f"`{f.name}`: {_type_text(f)}{absent}")
        name = f"`{message.type}` (`kind`: `{message.kind}`)" if message.kind else f"`{message.type}`"
        lines.append(f"| {name} | {where} | {', '.join(parts) or 'none'} | {message.doc} |")
    return "\n".join(lines) + "\n"


def errors_table() -> str:
    """docs/protocol.md's table of error codes, from ``tables.errors.CATALOGUE``."""
    lines = ["| code | HTTP | raised by | when |", "|---|---|---|---|"]
    for entry in errors.CATALOGUE:
        raised = ", ".join(f"`{cls.__name__}`" for cls in entry.raised_by) or "the socket itself"
        lines.append(f"| `{entry.code}` | {entry.status} | {raised} | {entry.doc} |")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- JSON Schema for the page
class _Schema(GenerateJsonSchema):
    """pydantic's JSON Schema of the dataclasses, plus what it cannot see: the ``type`` (and
    ``kind``) each class names in a ``ClassVar``, and fields left out while None (not null)."""

    def dataclass_schema(self, schema: core_schema.DataclassSchema) -> JsonSchemaValue:
        out = super().dataclass_schema(schema)
        cls = schema["cls"]
        props = out.setdefault("properties", {})
        for f in dataclasses.fields(cls):
            prop = props.get(f.name, {})
            prop.pop("title", None)
            prop.pop("default", None)
            if f.metadata.get("omit_none") and "anyOf" in prop:
                kept = [alt for alt in prop.pop("anyOf") if alt != {"type": "null"}]
                prop.update(kept[0] if len(kept) == 1 else {"anyOf": kept})
        named = {"type": {"const": cls.type}}
        if getattr(cls, "kind", None):
            named["kind"] = {"const": cls.kind}
        if issubclass(cls, ev.Event):  # after a gap (``rebuilt``) each event carries its version
            props["version"] = {"type": "integer"}
        out["properties"] = {**named, **props}
        out["required"] = [*named] + [
            f.name for f in dataclasses.fields(cls) if not f.metadata.get("omit_none")
        ]
        out["additionalProperties"] = False
        if cls.doc:
            out["description"] = cls.doc.replace("`", "")
        out.pop("title", None)
        return out

    def model_schema(self, schema: core_schema.ModelSchema) -> JsonSchemaValue:
        """A client message (``tables.protocol``): closed for the page, which sends nothing else."""
        out = super().model_schema(schema)
        for prop in out.get("properties", {}).values():
            prop.pop("title", None)
            prop.pop("default", None)
            prop.pop("discriminator", None)
        out["additionalProperties"] = False
        out.pop("title", None)
        return out

    def typed_dict_schema(self, schema: core_schema.TypedDictSchema) -> JsonSchemaValue:
        out = super().typed_dict_schema(schema)
        for prop in out.get("properties", {}).values():
            prop.pop("title", None)
        if schema.get("cls") is ErrorBody:
            out["properties"]["code"]["enum"] = [entry.code for entry in errors.CATALOGUE]
        # what a part of a message holds, and nothing else: the page's types are closed as well
        out["additionalProperties"] = False
        out.pop("title", None)
        return out


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the socket messages: what the server sends (``ServerMessage``, with the
    events and the errors) and what a client sends (``ClientMessage``, ``tables.protocol``)."""
    for module in (contract, ev, views, melds):
        for value in vars(module).values():
            read_field_docs(value)

    defs: dict[str, Any] = {}
    for name, messages, doc in (
        ("ServerMessage", MESSAGES, "What the server sends on the table and lobby sockets."),
        ("ClientMessage", protocol.CLIENT_MESSAGES, "What a client sends on the table socket."),
    ):
        union = Union[messages]  # type: ignore[valid-type]  # noqa: UP007
        made = TypeAdapter(union).json_schema(schema_generator=_Schema, ref_template="#/$defs/{model}")
        clash = {key for key, value in made["$defs"].items() if defs.get(key, value) != value}
        if clash:
            raise ValueError(f"two wire shapes are called {sorted(clash)}")
        defs.update(made["$defs"])
        defs[name] = {"description": doc, "oneOf": made["anyOf"]}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "contract.schema.json",
        "title": "Wire",
        "description": (
            "The messages of the table and lobby sockets (docs/protocol.md), by who sends them. "
            "Generated from tables/contract.py and tables/protocol.py by `manage.py wire_contract`; "
            "do not edit. Error codes: docs/protocol.md, Errors."
        ),
        "type": "object",
        "properties": {
            "server": {"$ref": "#/$defs/ServerMessage"},
            "client": {"$ref": "#/$defs/ClientMessage"},
        },
        "additionalProperties": False,
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(json_schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


# ---------------------------------------------------------------------- the JSON API's errors
def document_api_errors(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular's postprocessing hook: every error answer of every operation is an ``Error``.

    Views name their refusals' statuses (``OpenApiResponse(description=...)``); the body is the
    one shape ``api_exception_handler`` gives every API error, declared here once for every app.
    """
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["Error"] = _error_component()
    for item in result.get("paths", {}).values():
        for operation in item.values():
            for status, answer in operation.get("responses", {}).items():
                if str(status)[0] in "45":
                    answer["content"] = {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                    }
    return result


def _error_component() -> dict[str, Any]:
    """``ErrorBody``'s JSON Schema, its ``code`` one of the catalogue's."""
    return TypeAdapter(ErrorBody).json_schema(schema_generator=_Schema)


# ---------------------------------------------------------------------- the generated files
#: docs/protocol.md's generated sections, between ``<!-- name:begin ... -->`` and ``<!-- name:end -->``.
PROTOCOL_PATH = "docs/protocol.md"
SECTIONS: dict[str, tuple[str, Callable[[], str]]] = {
    "events": ("game_engine/events.py", ev.protocol_table),
    "messages": ("tables/contract.py", messages_table),
    "errors": ("tables/errors.py", errors_table),
}


def with_sections(text: str) -> str:
    """docs/protocol.md's ``text`` with each generated section made anew (``SECTIONS``)."""
    for name, (source, make) in SECTIONS.items():
        pattern = re.compile(rf"<!-- {name}:begin[^>]*-->\n.*?<!-- {name}:end -->", flags=re.S)
        block = f"<!-- {name}:begin (generated from {source}) -->\n{make()}<!-- {name}:end -->"

        def keep(_m: re.Match[str], block: str = block) -> str:
            return block

        text, found = pattern.subn(keep, text)
        if found != 1:
            raise ValueError(f"{PROTOCOL_PATH} must hold one {name}:begin/{name}:end section, not {found}")
    return text


def generated_files(root: Path) -> dict[Path, str]:
    """Each generated file under ``root`` with the text it must hold."""
    protocol = root / PROTOCOL_PATH
    return {
        protocol: with_sections(protocol.read_text(encoding="utf-8")),
        root / SCHEMA_PATH: schema_text(),
    }
