"""Dict shapes for the wire: what the page's types and the schemas are made from (tables/contract.py).

A view, a result sheet or a game's result is a plain dict when it travels; the ``TypedDict``s
that declare them are read by pydantic, which makes the JSON Schema the page's types come from.
Where such a dict holds a dataclass's fields (a table's rules, a ``deal_over`` event's), its
shape is made from that dataclass (``fields_shape``), so the fields are declared once.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NotRequired, get_args, get_type_hints

# typing's TypedDict on Python 3.11 gives pydantic too little to read a TypedDict by
from typing_extensions import TypedDict

__all__ = ["NotRequired", "TypedDict", "fields_shape"]


def fields_shape(cls: type[Any], name: str, doc: str) -> Any:
    """The dataclass ``cls``'s fields as a ``TypedDict`` called ``name``; a field whose metadata
    says ``omit_none`` (left out while None, ``game_engine.events.OMIT_NONE``) is not required."""
    hints = get_type_hints(cls)
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        tp = hints[f.name]
        if f.metadata.get("omit_none"):
            kept = [a for a in get_args(tp) if a is not type(None)]
            tp = NotRequired[kept[0]] if len(kept) == 1 else NotRequired[tp]
        fields[f.name] = tp
    shape = TypedDict(name, fields)  # type: ignore[misc]  # a name and fields known only at import
    shape.__doc__ = doc
    shape.__module__ = cls.__module__
    return shape
