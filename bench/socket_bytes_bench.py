"""The table socket's traffic a round, at two to six players (issue 41: at most 8 KB a round at four).

    .venv/bin/python bench/socket_bytes_bench.py [--seats 2,4,6] [--rounds 10] [--db-name rummy_sockbytes]

Serves this checkout's site as production runs it (``DEBUG`` off, a Daphne on loopback, Redis;
bench/phone.py), deals a game at a free table of each size with long turns, and opens each
player's table socket as the page does (a logged-in session, the site's origin). The players draw
from the closed deck and throw the card they drew, each on their turn, for ``--rounds`` rounds (a
round: every seated player's turn once). Every frame each socket receives is counted: its
payload's bytes (the JSON text as the page reads it) and the bytes read off the connection (fewer
where the socket's permessage-deflate was agreed; the line says whether it was). It prints, per table size, the
median and largest bytes a player received a round, the bytes read off its connection a round
(after the snapshot sent at connect, read with the handshake), the messages a round, and the bytes a round by message type;
and the bytes each player sent a round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from phone import served_site  # noqa: E402

#: A round's worth of turns is every seat's turn once; a turn is a draw and a discard.
ACTIONS_A_TURN = 2


def make_table(seats: int) -> Any:
    """A dealt game of ``seats`` players at a free table with long turns: (table id, cookies by seat)."""
    from phone import session_cookies

    from accounts.models import User
    from game_engine.game import GameState
    from tables.models import Table, TableSettings
    from tables.services import table_join

    kind = TableSettings.objects.create(
        name=f"bytes {seats}", format="101", entry_fee=0, seats=seats, turn_seconds=600, extra_time_seconds=60
    )
    table = Table.objects.create(settings=kind, name=f"bytes {seats}")
    users = [
        User.objects.create(username=f"bytes-{seats}-{i}", display_name=f"Player {i}") for i in range(seats)
    ]
    for user in users:
        table_join(table_id=table.pk, user=user)
    state = GameState.from_dict(table.games.get().state)
    cookies = session_cookies(users)
    by_seat = {seat: cookies[int(p.id)] for seat, p in enumerate(state.players)}
    return table.pk, by_seat


class Player:
    """One seat's socket: plays its turns and counts what it receives."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws
        self.received: Counter[str] = Counter()  # message type -> bytes
        self.messages = 0
        self.sent = 0
        self.wire = 0  # bytes read off the connection: frame headers included, compressed if agreed
        self.acted_on = -1
        self.deflate = "permessage-deflate" in (ws.response.headers.get("Sec-WebSocket-Extensions") or "")
        read = ws.data_received

        def counted(data: bytes) -> None:
            self.wire += len(data)
            read(data)

        ws.data_received = counted  # the transport hands the connection what it reads through this

    async def send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message)
        self.sent += len(text.encode())
        await self.ws.send(text)

    def count(self, text: str) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(text)
        self.received[str(message.get("type"))] += len(text.encode())
        self.messages += 1
        return message


async def play(port: int, table_id: int, cookies: dict[int, str], rounds: int) -> list[Player]:
    """Every seat plays ``rounds`` rounds; the players, in seat order."""
    from tests.tables.procs import open_socket  # a socket as a logged-in page opens it

    players = [await open_socket(port, cookies[s], f"/ws/tables/{table_id}/") for s in sorted(cookies)]
    seated = [Player(ws) for ws in players]
    turns_left = rounds * len(seated)
    request = 0

    async def listen(player: Player) -> None:
        nonlocal turns_left, request
        while turns_left > 0:
            message = player.count(await player.ws.recv())
            view = message.get("view") if message.get("type") in ("snapshot", "update") else None
            if not view or message["version"] <= player.acted_on:
                continue
            if view.get("deal_phase") != "turn" or view.get("turn") != view.get("seat"):
                continue
            player.acted_on = message["version"]
            request += 1
            if view["has_drawn"]:
                turns_left -= 1
                action: dict[str, Any] = {"type": "discard", "card": view["drawn_card"]}
            else:
                action = {"type": "draw", "source": "closed"}
            await player.send({"type": "action", "request_id": f"r{request}", "action": action})

    listeners = [asyncio.create_task(listen(p)) for p in seated]
    try:
        await asyncio.wait_for(asyncio.gather(*listeners), timeout=60 + 10 * rounds)
        await asyncio.sleep(0.5)  # the last discard's updates reach every seat
        for player in seated:
            while True:
                try:
                    player.count(await asyncio.wait_for(player.ws.recv(), timeout=0.2))
                except TimeoutError:
                    break
    finally:
        for task in listeners:
            task.cancel()
        for player in seated:
            await player.ws.close()
    return seated


def report(seats: int, rounds: int, players: list[Player]) -> None:
    """One line for the table size, then its bytes a round by message type."""
    per_round = [sum(p.received.values()) / rounds for p in players]
    kinds: Counter[str] = Counter()
    for p in players:
        kinds.update(p.received)
    line = {
        "seats": seats,
        "rounds": rounds,
        "received_bytes_a_round_median": round(statistics.median(per_round)),
        "received_bytes_a_round_max": round(max(per_round)),
        "messages_a_round_median": round(statistics.median(p.messages / rounds for p in players), 1),
        "wire_bytes_a_round_median": round(statistics.median(p.wire / rounds for p in players)),
        "sent_bytes_a_round_median": round(statistics.median(p.sent / rounds for p in players)),
        "permessage_deflate": all(p.deflate for p in players),
        "by_type_a_round_per_player": {
            k: round(v / rounds / len(players)) for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])
        },
    }
    print(json.dumps(line), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seats", default="2,4,6")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--pg", default="postgres://postgres@127.0.0.1:5432")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379")
    parser.add_argument("--db-name", default="rummy_sockbytes")
    parser.add_argument("--redis-db", type=int, default=14)
    args = parser.parse_args()
    sizes = [int(s) for s in args.seats.split(",")]
    make = lambda tag: make_table(int(tag))  # noqa: E731
    with served_site(args, [str(n) for n in sizes], {}, daphnes=1, tag="bytes", make=make) as (ports, tables):
        for seats in sizes:
            table_id, cookies = tables[str(seats)]
            players = asyncio.run(play(ports[0], table_id, cookies, args.rounds))
            report(seats, args.rounds, players)


if __name__ == "__main__":
    main()
