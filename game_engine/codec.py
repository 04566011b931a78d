"""One field-driven codec for the engine's dataclasses: to JSON values, back, and deep copies.

The state of a game is saved after every move and loaded before the next one, and ``apply``
copies it first (copy-on-write): these run for every action. So, as ``dataclasses`` makes
``__init__``, the codec writes the three functions of each class once, from the annotations
of its fields, as plain Python (``encoder``, ``decoder``, ``copier``): a card field becomes
``v.drawn.code``, a seat map ``{str(k): [c.code for c in h] for k, h in v.hands.items()}``.

The types it knows are those the engine's states and actions are made of: ``int``, ``str``,
``bool``, ``Card`` (its code), a ``StrEnum`` (its value, a string, and its member back),
``Literal``, ``X | None``, ``list[X]``, ``tuple[X, ...]``,
``dict[int | str, X]`` (JSON keys are strings: an ``int`` key is written as one and read back),
dataclasses and ``TypedDict``s of those, and ``Any`` (a result sheet: a JSON value already,
never changed in place, copied at its top level only). A copy shares only what nothing
mutates: cards, strings, numbers and frozen dataclasses (``TableRules``). Decoding fills a
missing field from its default (a state saved before the field existed) and skips keys it
does not know; a ``TypedDict`` keeps just the keys it was given.

Why not a serialization library: none copies, and ``apply`` copies the state at every action (a
library's copy is a save and a load); and none writes a card as its code from the engine's own
dataclasses without the engine taking it on as a dependency. ``bench/codec_bench.py`` weighs
this codec against msgspec and pydantic on the states of whole games.
"""

from __future__ import annotations

import dataclasses
import enum
import types
from collections.abc import Callable
from typing import Any, Literal, Union, cast, get_args, get_origin, get_type_hints

from typing_extensions import is_typeddict

from game_engine.cards import Card, parse_card

Fn = Callable[[Any], Any]
_PLAIN = (int, str, bool, float, type(None))
#: The functions written so far, and what their code refers to, by name.
_namespace: dict[str, Any] = {"_card": parse_card, "_missing": dataclasses.MISSING}
_made: dict[tuple[str, Any], str] = {}


def encoder(cls: type[Any]) -> Fn:
    """``cls``'s values to JSON values (a ``dict`` for a dataclass)."""
    return cast(Fn, _namespace[_function("enc", cls)])


def decoder(cls: type[Any]) -> Fn:
    """JSON values back to a ``cls``."""
    return cast(Fn, _namespace[_function("dec", cls)])


def copier(cls: type[Any]) -> Fn:
    """A deep copy of a ``cls`` that shares only what nothing mutates."""
    return cast(Fn, _namespace[_function("cp", cls)])


def _function(kind: str, cls: Any) -> str:
    """The name of ``kind``'s function for the dataclass or ``TypedDict`` ``cls``, written once."""
    key = (kind, cls)
    name = _made.get(key)
    if name is not None:
        return name
    name = _made[key] = f"_{kind}_{len(_made)}_{getattr(cls, '__name__', 'T')}"
    _namespace[f"{name}_cls"] = cls
    hints = get_type_hints(cls)
    if is_typeddict(cls):
        body = _typeddict_body(kind, name, hints)
    else:
        fields = [f for f in dataclasses.fields(cls) if f.init]
        body = _dataclass_body(kind, name, cls, fields, hints)
    exec("\n".join(body), _namespace)  # noqa: S102 - code written from the class's own annotations
    return name


def _dataclass_body(
    kind: str, name: str, cls: Any, fields: list[dataclasses.Field[Any]], hints: dict[str, Any]
) -> list[str]:
    if kind == "enc":
        items = ", ".join(f"{f.name!r}: {_expr(kind, hints[f.name], f'v.{f.name}', 1)}" for f in fields)
        return [f"def {name}(v):", f"    return {{{items}}}"]
    if kind == "cp":
        if cls.__dataclass_params__.frozen:
            return [f"def {name}(v):", "    return v"]
        args = ", ".join(f"{f.name}={_expr(kind, hints[f.name], f'v.{f.name}', 1)}" for f in fields)
        return [f"def {name}(v):", f"    return {name}_cls({args})"]
    lines = [f"def {name}(d):", "    kw = {}"]
    for f in fields:
        value = _expr(kind, hints[f.name], f"d[{f.name!r}]", 1)
        lines.append(f"    if {f.name!r} in d: kw[{f.name!r}] = {value}")
        if f.default is not dataclasses.MISSING:
            _namespace[f"{name}_{f.name}"] = f.default
            lines.append(f"    else: kw[{f.name!r}] = {name}_{f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            _namespace[f"{name}_{f.name}"] = f.default_factory
            lines.append(f"    else: kw[{f.name!r}] = {name}_{f.name}()")
        else:
            lines.append(f"    else: raise KeyError({f.name!r})")
    lines.append(f"    return {name}_cls(**kw)")
    return lines


def _typeddict_body(kind: str, name: str, hints: dict[str, Any]) -> list[str]:
    lines = [f"def {name}(v):", "    out = {}"]
    for key, tp in hints.items():
        lines.append(f"    if {key!r} in v: out[{key!r}] = {_expr(kind, tp, f'v[{key!r}]', 1)}")
    lines.append("    return out")
    return lines


def _expr(kind: str, tp: Any, v: str, depth: int) -> str:
    """A Python expression of ``kind`` (enc, dec, cp) for the value ``v`` of type ``tp``."""
    if tp in _PLAIN or tp is Any:
        return v
    if tp is Card:
        return {"enc": f"{v}.code", "dec": f"_card({v})", "cp": v}[kind]
    if isinstance(tp, type) and issubclass(tp, enum.StrEnum):
        # a member is a str: JSON takes it as it is; read back by its value (a dict, not the
        # enum's call, for every state loaded)
        name = f"_enum_{tp.__name__}_{id(tp)}"
        _namespace[name] = tp._value2member_map_
        return f"{name}[{v}]" if kind == "dec" else v
    origin, args = get_origin(tp), get_args(tp)
    if origin is Literal:
        return v
    if origin in (Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        if all(a in _PLAIN or get_origin(a) is Literal for a in inner):
            return v
        if len(inner) != 1 or len(inner) == len(args):
            raise TypeError(f"the codec takes X | None, not {tp}")
        part = _expr(kind, inner[0], v, depth)
        return v if part == v else f"(None if {v} is None else {part})"
    x = f"x{depth}"
    if origin is list or origin is tuple:
        if origin is tuple and args[1:] != (Ellipsis,):
            raise TypeError(f"the codec takes tuple[X, ...], not {tp}")
        part = _expr(kind, args[0], x, depth + 1)
        make = "tuple" if origin is tuple and kind == "dec" else "list"
        if origin is tuple and kind == "cp" and part == x:
            return v  # immutable all the way down
        if part == x:
            return f"{make}({v})"
        return f"{make}({part} for {x} in {v})" if make == "tuple" else f"[{part} for {x} in {v}]"
    if origin is dict:
        key, value = args
        if key not in (int, str):
            raise TypeError(f"the codec takes dict keys of int or str, not {key}")
        k = f"k{depth}"
        part = _expr(kind, value, x, depth + 1)
        new_key = {"enc": f"str({k})", "dec": f"int({k})", "cp": k}[kind] if key is int else k
        if part == x and new_key == k:
            return f"dict({v})"
        return f"{{{new_key}: {part} for {k}, {x} in {v}.items()}}"
    if origin is None and (dataclasses.is_dataclass(tp) or is_typeddict(tp)):
        return f"{_function(kind, tp)}({v})"
    if origin is None and tp is dict:
        return f"dict({v})"
    raise TypeError(f"the codec has no rule for {tp!r}")
