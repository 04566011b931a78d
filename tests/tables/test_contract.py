"""One wire contract (issue 24): what the sockets and the API send is what ``tables/contract.py``
and the error catalogue declare, and docs/protocol.md and the page's JSON Schema are made from them."""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, NotRequired, get_args

import jsonschema
import pytest
from asgiref.sync import sync_to_async
from django.test import Client

from game_engine import errors as engine_errors
from game_engine import events, views
from game_engine.events import CATALOGUE as EVENTS
from game_engine.game import GameState
from tables import contract, errors, protocol, services, wiredocs
from tables.game import staffops
from tables.models import GameEvent, PoolGame, Table, TableSettings
from tables.realtime import quick, reminders
from tests.sockets import Message, of_type, open_socket, open_table, until
from tests.tables.conftest import make_player, make_table
from wallet import errors as wallet_errors

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------- the generated files
@pytest.mark.parametrize("path", [wiredocs.PROTOCOL_PATH, wiredocs.SCHEMA_PATH])
def test_what_is_made_from_the_contract_is_current(path: str) -> None:
    made = wiredocs.generated_files(ROOT)[ROOT / path]
    assert (ROOT / path).read_text(encoding="utf-8") == made, (
        f"{path} differs from tables/contract.py, tables/errors.py and game_engine/events.py: "
        "run `DEBUG=1 .venv/bin/python manage.py wire_contract`"
    )


def test_the_wire_names_every_value_the_models_hold() -> None:
    """A format or a game status is a model's choice, a phrase a key of ``quick.PHRASES``, and on the
    wire each is a ``Literal`` the page's types are made from: the two say the same values."""
    assert set(get_args(contract.TableFormat)) == set(TableSettings.Format.values)
    assert set(get_args(contract.GameStatus)) == set(PoolGame.Status.values)
    assert set(get_args(protocol.QuickPhrase)) == set(quick.PHRASES)


def test_the_protocol_document_lists_every_message_notice_kind_and_error_code() -> None:
    text = (ROOT / wiredocs.PROTOCOL_PATH).read_text(encoding="utf-8")
    for message in contract.MESSAGES:
        assert f"| `{message.type}`" in text, message
    for kind in contract.NOTICE_KINDS:
        assert f"(`kind`: `{kind}`)" in text, kind
    for entry in errors.CATALOGUE:
        assert f"| `{entry.code}` | {entry.status} |" in text, entry.code


# ---------------------------------------------------------------------- the page's handlers
def _cases(*paths: str) -> set[str]:
    """The string labels of the ``case "..."`` clauses in the page's modules."""
    text = "".join((ROOT / path).read_text(encoding="utf-8") for path in paths)
    return set(re.findall(r'case "([a-z_]+)":', text))


@pytest.mark.parametrize(
    ("socket", "messages", "module"),
    [
        ("table", contract.TABLE_MESSAGES, "static/js/table/dispatch.js"),
        ("lobby", contract.LOBBY_MESSAGES, "static/js/lobby.js"),
    ],
)
def test_the_page_has_a_case_for_every_message_its_socket_is_sent(
    socket: str, messages: tuple[type[contract.Message], ...], module: str
) -> None:
    types = {message.type for message in messages}
    missing = types - _cases(module)
    assert not missing, f"{module} has no case for the {socket} socket's {sorted(missing)}"


def test_the_page_has_a_case_for_every_notice_kind_and_every_event() -> None:
    assert set(contract.NOTICE_KINDS) - _cases("static/js/table/notices.js") == set()
    assert set(EVENTS) - _cases("static/js/table/ticker.js") == set()


def test_the_handler_check_sees_a_missing_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above would catch a drift: a page without its ``notice`` case misses it."""
    page = tmp_path / "static/js/table/dispatch.js"
    page.parent.mkdir(parents=True)
    page.write_text((ROOT / "static/js/table/dispatch.js").read_text().replace('case "notice":', "/* */"))
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="notice"):
        test_the_page_has_a_case_for_every_message_its_socket_is_sent(
            "table", contract.TABLE_MESSAGES, "static/js/table/dispatch.js"
        )


# ---------------------------------------------------------------------- the page's types
def _page_check(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """The page's code checked by tsc against the types made from the contract as it is now: its
    schema written, ``json2ts`` run over it, as ``manage.py wire_contract`` and
    ``npm run wire-types`` do, into a copy of static/."""
    static = tmp_path / "static"
    if not static.exists():
        shutil.copytree(ROOT / "static", static)
        for name in ("tsconfig.json", "package.json"):
            shutil.copy(ROOT / name, tmp_path / name)
        (tmp_path / "node_modules").symlink_to(ROOT / "node_modules")
    (static / "js/contract.schema.json").write_text(wiredocs.schema_text(), encoding="utf-8")
    run = functools.partial(subprocess.run, capture_output=True, text=True, check=False, cwd=tmp_path)
    made = run(["npm", "run", "-s", "wire-types"])
    assert made.returncode == 0, made.stderr
    return run([str(ROOT / "node_modules/.bin/tsc"), "-p", str(tmp_path)])


@pytest.mark.parametrize(
    ("shape", "name", "declared", "page"),
    [
        (views.PlayerView, "name", str | None, "table/dispatch.js"),  # nullability
        (contract.TableSummary, "seats_taken", NotRequired[int], "lobby.js"),  # optionality
        (events.DealPlayerResult, "points", int | None, "sheets.js"),  # nested: a seat of a result sheet
    ],
    ids=["nullable", "optional", "nested"],
)
def test_a_shape_changed_on_the_server_reaches_the_page_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: Any, name: str, declared: Any, page: str
) -> None:
    """A wire shape is declared once, on the server; the page's types are made from it. A field
    made nullable or optional there is so in the page's types, and the page's code that reads it
    as always there fails tsc, where it reads it."""
    assert _page_check(tmp_path).returncode == 0, "the page as it is passes"
    made = (tmp_path / "static/js/contract.d.ts").read_text(encoding="utf-8")
    assert made == (ROOT / "static/js/contract.d.ts").read_text(encoding="utf-8"), (
        "static/js/contract.d.ts is not what the contract makes: run `npm run wire-types`"
    )
    monkeypatch.setitem(shape.__annotations__, name, declared)
    done = _page_check(tmp_path)
    assert done.returncode != 0 and f"static/js/{page}" in done.stdout, done.stdout


# ---------------------------------------------------------------------- the error catalogue
def _refusals() -> list[type[Exception]]:
    found: list[type[Exception]] = []
    for module in (engine_errors, errors, wallet_errors):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Exception)
                and value.__module__ == module.__name__
            ):
                found.append(value)
    return found


def test_every_code_is_snake_case_and_declared_once() -> None:
    codes = [entry.code for entry in errors.CATALOGUE]
    assert len(codes) == len(set(codes))
    assert all(re.fullmatch(r"[a-z]+(_[a-z]+)*", code) for code in codes), codes
    classes = [cls for entry in errors.CATALOGUE for cls in entry.raised_by]
    assert len(classes) == len(set(classes)), "an exception class is in two entries"


@pytest.mark.parametrize("cls", _refusals(), ids=lambda cls: cls.__name__)
def test_every_refusal_class_has_its_own_code(cls: type[Exception]) -> None:
    """No exception of the engine, the tables or the wallet reaches a client under a base class's code."""
    entry = errors.CODES[next(e.code for e in errors.CATALOGUE if cls in e.raised_by)]
    assert cls in entry.raised_by and errors.error_code(cls.__new__(cls)) is entry


def test_no_exception_class_carries_a_code_of_its_own() -> None:
    """The catalogue is the one place a code is written (``limit_reached`` was on two classes)."""
    assert [cls.__name__ for cls in _refusals() if "code" in vars(cls)] == []


# ---------------------------------------------------------------------- the JSON API's errors
@pytest.mark.django_db
def test_every_api_error_is_code_rule_message(client: Client) -> None:
    shape = {"code", "rule", "message"}
    anonymous = client.get("/api/tables/")
    assert anonymous.status_code == 403 and set(anonymous.json()) == shape
    assert anonymous.json()["code"] == "not_authenticated"
    client.force_login(make_player("asha"))
    for method, path, status, code in [
        ("get", "/api/history/deals/987654/", 404, "not_found"),
        ("get", "/api/tables/987654/", 404, "not_found"),
        ("post", "/api/tables/987654/join/", 404, "unknown_table"),
        ("get", "/api/tables/?ids=x", 400, "bad_request"),
        ("delete", "/api/wallet/", 405, "method_not_allowed"),
        ("post", "/api/groups/evaluate/", 400, "bad_request"),
    ]:
        answer = getattr(client, method)(path)
        assert answer.status_code == status and set(answer.json()) == shape, (path, answer.content)
        assert answer.json()["code"] == code and answer.json()["message"], (path, answer.json())


# ---------------------------------------------------------------------- the sockets
@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads((ROOT / wiredocs.SCHEMA_PATH).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/ServerMessage"})


def _valid(validator: jsonschema.Draft202012Validator, message: Message) -> None:
    problems = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}" for e in validator.iter_errors(message)
    ]
    assert problems == [], (message.get("type"), problems)


def test_the_schema_refuses_a_message_the_contract_does_not_declare(
    validator: jsonschema.Draft202012Validator,
) -> None:
    """The check below can fail: a field that is not declared, or a wrong type, is refused."""
    good = contract.Pong(version=3).wire()
    assert validator.is_valid(good)
    assert not validator.is_valid({**good, "extra": 1})
    assert not validator.is_valid({**good, "version": "3"})
    assert not validator.is_valid({"type": "notice", "kind": "game_cancelled", "message": "bye"})
    # a part of a message (a TypedDict) holds its declared fields and nothing else
    presence = contract.Presence(players={"7": {"connected": True, "away_since": None}}).wire()
    assert validator.is_valid(presence)
    assert not validator.is_valid(
        {**presence, "players": {"7": {"connected": True, "away_since": None, "ip": "x"}}}
    )


def _documented_client_messages() -> list[dict[str, Any]]:
    """The JSON examples of docs/protocol.md's "Client → server" section."""
    text = (ROOT / wiredocs.PROTOCOL_PATH).read_text(encoding="utf-8")
    section = text.split("## Client → server", 1)[1].split("## Server → client", 1)[0]
    found: list[dict[str, Any]] = []
    decoder = json.JSONDecoder()
    for block in re.findall(r"```json\n(.*?)```", section, flags=re.S):
        at = 0
        while (start := block.find("{", at)) != -1:
            message, at = decoder.raw_decode(block, start)
            found.append(message)
    return found


def test_the_documented_client_messages_are_the_declared_ones() -> None:
    """What docs/protocol.md shows a client sending is what tables/protocol.py declares (the page's
    ``ClientMessage``), and the schema refuses what the server would refuse."""
    schema = json.loads((ROOT / wiredocs.SCHEMA_PATH).read_text(encoding="utf-8"))
    sent = jsonschema.Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/ClientMessage"})
    documented = _documented_client_messages()
    kinds = {m["type"] for m in documented} | {m["action"]["type"] for m in documented if "action" in m}
    assert {"action", "evaluate", "snapshot", "quick", "ping", "draw", "finish", "arrange"} <= kinds, kinds
    for message in documented:
        assert sent.is_valid(message), message
    draw = {"type": "action", "request_id": "c-1", "action": {"type": "draw", "source": "closed"}}
    assert sent.is_valid(draw)
    for wrong in (
        {**draw, "action": {"type": "draw", "source": "deck"}},
        {**draw, "action": {"type": "timeout"}},  # the server's own action
        {**draw, "request_id": ""},
        {"type": "evaluate", "request_id": "e", "groups": [["AH"]], "wild_rank": 14},
        {"type": "snapshot", "since": -1},
        {"type": "quick", "phrase": "hello"},
    ):
        assert not sent.is_valid(wrong), wrong


pytestmark_sockets = pytest.mark.django_db(transaction=True)


@sync_to_async
def _join(user: Any, table: Table) -> None:
    services.table_join(table_id=table.pk, user=user)


@pytestmark_sockets
async def test_every_message_the_sockets_send_is_declared(validator: jsonschema.Draft202012Validator) -> None:
    """A waiting table filling up, a game started, a move, an evaluation, refusals, a ping, a
    cancellation and a reminder: every frame of the table and lobby sockets matches the schema,
    and each event sent is the event the game's log keeps."""
    table = await sync_to_async(make_table)(seats=3, fee=1_000, seed=5)
    asha, ravi, meena = [await sync_to_async(make_player)(name) for name in ("asha", "ravi", "meena")]
    await _join(asha, table)
    page = await open_table(asha, table.pk, watching_presence=True)
    lobby = await open_socket(ravi, "/ws/lobby/", watching_presence=True)
    frames: list[Message] = []
    try:
        frames.append(await until(page, of_type("snapshot")))
        assert frames[-1]["table"]["seats_taken"] == 1

        ravi_page = await open_table(
            ravi, table.pk, watching_presence=True
        )  # ravi comes: asha's page hears it
        frames.append(await until(page, of_type("presence")))
        await ravi_page.disconnect()
        await _join(ravi, table)  # a second player sits down: the page's "2 / 3 seats taken"
        seated = await until(page, of_type("update"))
        frames.append(seated)
        assert seated["rebuilt"] is True and seated["table"]["seats_taken"] == 2, seated
        assert [e["type"] for e in seated["events"]] == ["seat_taken"]
        frames.append(await until(lobby, of_type("lobby_update")))

        await page.send_json_to({"type": "ping"})
        frames.append(await until(page, of_type("pong")))
        await lobby.send_json_to({"type": "ping"})
        frames.append(await until(lobby, of_type("pong")))
        await page.send_to(text_data="not json")
        frames.append(await until(page, of_type("error")))
        await page.send_json_to({"type": "action", "request_id": "early", "action": {"type": "drop"}})
        frames.append(await until(page, of_type("result")))
        assert frames[-1]["ok"] is False and frames[-1]["error"]["code"] == "no_game"

        await _join(meena, table)  # the last seat: the game starts under the open page
        started = await until(page, lambda m: m["type"] == "update" and m["view"] is not None)
        frames.append(started)
        game = await sync_to_async(PoolGame.objects.get)(table=table)
        state = GameState.from_dict(game.state)
        me = next(i for i, p in enumerate(state.players) if p.id == str(asha.pk))
        groups = [list(g) for g in started["view"]["arrangement"]]
        await page.send_json_to({"type": "evaluate", "request_id": "e1", "groups": groups})
        frames.append(await until(page, of_type("evaluation", request_id="e1")))
        await page.send_json_to({"type": "evaluate", "request_id": "e2", "groups": [["ZZ"]]})
        frames.append(await until(page, of_type("evaluation", request_id="e2")))
        assert frames[-1]["error"]["code"] == "invalid_card"
        other_tab = await open_table(
            asha, table.pk, watching_presence=True
        )  # an arrangement made in one tab reaches the other
        try:
            frames.append(await until(other_tab, of_type("snapshot")))
            arrange = {"type": "arrange", "groups": [sum(groups, [])]}
            await page.send_json_to({"type": "action", "request_id": "r1", "action": arrange})
            frames.append(await until(page, of_type("result", request_id="r1")))
            frames.append(await until(other_tab, of_type("view")))
        finally:
            await other_tab.disconnect()
        action = (
            {"type": "drop"} if state.deal and state.deal.turn == me else {"type": "auto_drop", "on": True}
        )
        await page.send_json_to({"type": "action", "request_id": "a1", "action": action})
        frames.append(await until(page, of_type("result", request_id="a1")))
        assert frames[-1]["ok"] is True, frames[-1]
        await page.send_json_to({"type": "action", "request_id": "a1", "action": action})
        frames.append(await until(page, of_type("result", request_id="a1")))
        assert frames[-1]["repeated"] is True
        await page.send_json_to({"type": "quick", "phrase": "well_played"})
        frames.append(await until(page, of_type("quick_message", seat=me)))

        await sync_to_async(staffops.cancel_game)(game_id=game.pk, message="A fault at the server.")
        notice = await until(page, of_type("notice"), seen=frames)
        frames.append(notice)
        # the table waits for players again: its page gets a snapshot without the cancelled game
        frames.append(await until(page, lambda m: m["type"] == "snapshot" and m["game"] is None, seen=frames))
    finally:
        await page.disconnect()
        await lobby.disconnect()
    frames.append(reminders.reminder(3_600))

    for frame in frames:
        _valid(validator, frame)
    assert {f["type"] for f in frames} >= {m.type for m in contract.MESSAGES}

    # what was sent is what the log keeps: the seat events and the cancellation included
    stored = await sync_to_async(
        lambda: [
            {"type": e.type, **e.data}
            for e in GameEvent.objects.filter(game=game, type__in=["seat_taken", "game_cancelled"]).order_by(
                "seq"
            )
        ]
    )()
    assert [e["type"] for e in stored] == [
        "seat_taken",
        "seat_taken",
        "game_cancelled",
    ]  # meena's seat started it
    assert seated["events"][0] == {**stored[1], "version": seated["version"]}
    assert stored[2] == {
        "type": "game_cancelled",
        "message": notice["message"],
        "settlement": notice["settlement"],
        "payouts": notice["payouts"],
        "rake": 0,
    }
    for event in stored:
        _valid(validator, {"type": "update", "version": 1, "events": [event], "view": None, "game": None})
    assert set(EVENTS) >= {"seat_taken", "seat_left", "game_cancelled"}


@pytestmark_sockets
def test_a_seat_given_up_before_the_start_is_in_the_log() -> None:
    table = make_table(seats=3, fee=1_000)
    asha = make_player("asha")
    services.table_join(table_id=table.pk, user=asha)
    services.table_leave(table_id=table.pk, user=asha)
    game = PoolGame.objects.get(table=table)
    logged = list(GameEvent.objects.filter(game=game).order_by("seq").values_list("type", "version", "data"))
    assert logged == [
        ("seat_taken", 1, {"position": 0, "name": "Asha"}),
        ("seat_left", 2, {"position": 0, "name": "Asha"}),
    ]
    assert game.event_count == 2 and game.version == 2
