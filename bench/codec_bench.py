"""The engine state's codec against msgspec and pydantic: which one to keep (issue 42).

    .venv/bin/python bench/codec_bench.py [--games 3] [--players 6] [--every 3]

Every action loads a game's state, copies it (``apply`` is copy-on-write) and saves it. The
states are those of whole bot games (``game_engine.bots.play_game``: every phase, deals in
play, result sheets, rejoin and split offers), a sample of each. For each library, per state,
in CPU microseconds (medians over the sample): ``save`` (state to JSON bytes), ``load`` (JSON
bytes to a state), ``copy`` (a deep copy: the codec's own copier; msgspec and pydantic have
none, so a load of a save), and whether a state comes back equal. Also ``update``: one seat's
``update`` message built around its encoded view and made JSON text (``Update(...).wire()`` and
orjson, as ``TableConsumer.table_changed`` does), against a msgspec ``Struct`` and a pydantic model of
the same fields. msgspec and pydantic read the engine's own dataclasses; only the card is
taught to them (its code on the wire).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec  # noqa: E402
import orjson  # noqa: E402
from pydantic import BaseModel, TypeAdapter  # noqa: E402
from pydantic_core import core_schema  # noqa: E402

from game_engine.bots import RANDOM, SMART, play_game  # noqa: E402
from game_engine.cards import Card, parse_card  # noqa: E402
from game_engine.formats import TableRules  # noqa: E402
from game_engine.game import GameState  # noqa: E402
from game_engine.views import view_for  # noqa: E402


def states(games: int, players: int, every: int) -> list[GameState]:
    """Every ``every``-th state of ``games`` bot games (smart and random bots, seeds 1..games)."""
    kept: list[GameState] = []
    for seed in range(1, games + 1):
        seen = 0

        def keep(state: GameState, _events: list[Any]) -> None:
            nonlocal seen
            seen += 1
            if seen % every == 0:
                kept.append(state)

        play_game(TableRules(pool_limit=101), players, seed, [SMART, RANDOM] * (players // 2), on_step=keep)
    return kept


def _card_schema(_source: Any, _handler: Any) -> core_schema.CoreSchema:
    """pydantic's view of a card: its code on the wire, parsed back."""
    return core_schema.no_info_plain_validator_function(
        lambda v: v if isinstance(v, Card) else parse_card(v),
        serialization=core_schema.plain_serializer_function_ser_schema(lambda c: c.code),
    )


def libraries() -> dict[
    str, tuple[Callable[[GameState], bytes], Callable[[bytes], GameState], Callable[[GameState], GameState]]
]:
    """Each library's (save, load, copy) of a state."""
    Card.__get_pydantic_core_schema__ = classmethod(lambda cls, s, h: _card_schema(s, h))  # type: ignore[attr-defined]
    adapter = TypeAdapter(GameState)
    encoder = msgspec.json.Encoder(enc_hook=lambda c: c.code if isinstance(c, Card) else None)
    decoder = msgspec.json.Decoder(GameState, dec_hook=lambda t, v: parse_card(v) if t is Card else v)

    def codec_load(data: bytes) -> GameState:
        return GameState.from_dict(orjson.loads(data))

    return {
        "codec": (
            lambda s: orjson.dumps(s.to_dict(), option=orjson.OPT_NON_STR_KEYS),
            codec_load,
            GameState.clone,
        ),
        "msgspec": (encoder.encode, decoder.decode, lambda s: decoder.decode(encoder.encode(s))),
        "pydantic": (
            adapter.dump_json,
            adapter.validate_json,
            lambda s: adapter.validate_python(adapter.dump_python(s)),
        ),
    }


def cpu_us(fn: Callable[[Any], Any], items: list[Any], repeat: int) -> float:
    """The median over ``items`` of the CPU microseconds of one call of ``fn`` (best of ``repeat``)."""
    per_item = []
    for item in items:
        best = float("inf")
        for _ in range(repeat):
            t0 = time.thread_time_ns()
            fn(item)
            best = min(best, time.thread_time_ns() - t0)
        per_item.append(best / 1000)
    return round(statistics.median(per_item), 1)


class UpdateStruct(msgspec.Struct, tag_field="type", tag="update", omit_defaults=True):
    version: int
    events: list[dict[str, Any]]
    view: msgspec.Raw
    game: dict[str, Any] | None
    seats: list[dict[str, Any]] | None = None
    rebuilt: bool | None = None


class UpdateModel(BaseModel):
    type: str = "update"
    version: int
    events: list[dict[str, Any]]
    view: Any
    game: dict[str, Any] | None


def update_builders(sample: list[GameState]) -> dict[str, Callable[[GameState], Any]]:
    """Each library's ``update`` of one seat, around the view already encoded once for every socket."""
    from tables.contract import Update  # noqa: PLC0415 - Django is set up by main first

    views = {id(s): orjson.dumps(view_for(s, 0), option=orjson.OPT_NON_STR_KEYS) for s in sample}
    events = [{"type": "discard", "seat": 1, "card": "7H", "auto": False}]
    game = {
        "id": 1,
        "status": "running",
        "version": 9,
        "deadline_at": None,
        "deadline_kind": "turn",
        "result": None,
    }
    encoder = msgspec.json.Encoder()

    def codec(s: GameState) -> bytes:
        view = orjson.Fragment(views[id(s)])
        return orjson.dumps(Update(version=s.version, events=events, view=view, game=game).wire())  # type: ignore[arg-type]  # the view as JSON, as the consumer sends it

    def with_msgspec(s: GameState) -> bytes:
        return encoder.encode(
            UpdateStruct(version=s.version, events=events, view=msgspec.Raw(views[id(s)]), game=game)
        )

    # pydantic has no raw JSON field: the view goes in as the dict it was encoded from
    decoded = {key: orjson.loads(value) for key, value in views.items()}

    def with_pydantic(s: GameState) -> bytes:
        return (
            UpdateModel(version=s.version, events=events, view=decoded[id(s)], game=game)
            .model_dump_json()
            .encode()
        )

    return {"codec": codec, "msgspec": with_msgspec, "pydantic": with_pydantic}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    import os  # noqa: PLC0415

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "rummy_site.settings")
    os.environ.setdefault("DEBUG", "1")  # settings only: the contract's messages, no server
    import django  # noqa: PLC0415

    django.setup()
    sample = states(args.games, args.players, args.every)
    out: dict[str, Any] = {"states": len(sample), "unit": "CPU microseconds per state, median"}
    for name, (save, load, copy) in libraries().items():
        saved = [save(s) for s in sample]
        equal = sum(load(b) == s for b, s in zip(saved, sample, strict=True))
        out[name] = {
            "save": cpu_us(save, sample, args.repeat),
            "load": cpu_us(load, saved, args.repeat),
            "copy": cpu_us(copy, sample, args.repeat),
            "bytes": int(statistics.median(len(b) for b in saved)),
            "round_trips_equal": f"{equal}/{len(sample)}",
        }
    for name, build in update_builders(sample).items():
        out[name]["update"] = cpu_us(build, sample, args.repeat)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
