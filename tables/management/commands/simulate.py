"""Play whole pool games between bots through the real services, database and wallet; or, with
``--collusion``, measure the integrity signals on colluding bot pairs (``integrity.simulation``)."""

from __future__ import annotations

import time
import uuid
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db.models import Count

from integrity import simulation
from tables import clock as table_clock
from tables.clock import OffsetClock
from tables.game import drivers, notify, practice, seating
from tables.models import Deal, GameEvent, PoolGame, Table, TableSettings
from wallet.audit import check_ledger
from wallet.services import grant


class Command(BaseCommand):
    help = "Simulate pool games between bots through the services (wallet included), then check the ledger."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--format", default="101", choices=["61", "101", "201"])
        parser.add_argument("--players", type=int, default=6)
        parser.add_argument("--games", type=int, default=5)
        parser.add_argument("--fee", type=int, default=1_000, help="entry fee in paise")
        parser.add_argument(
            "--seed", type=int, default=None, help="first game's shuffle seed (then +1 a game)"
        )
        parser.add_argument(
            "--collusion",
            action="store_true",
            help="colluding bot pairs (chip dumping, soft play, feeding) among honest bots, through the "
            "engine in this process: print each integrity signal's detection and false-flag rates",
        )
        parser.add_argument("--workers", type=int, default=2, help="--collusion: processes playing games")
        parser.add_argument("--pairs", type=int, default=4, help="--collusion: colluding pairs of each kind")
        parser.add_argument("--honest", type=int, default=48, help="--collusion: honest bots")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["collusion"]:
            self._collusion(options)
            return
        players, games = options["players"], options["games"]
        if not 2 <= players <= 6:
            raise CommandError("--players must be 2 to 6")
        run = uuid.uuid4().hex[:6]
        kind = TableSettings.objects.create(
            name=f"simulation {run}",
            format=options["format"],
            entry_fee=options["fee"],
            seats=players,
        )
        table = Table.objects.create(settings=kind, name=kind.name)
        bots = practice.bot_users(players)
        for bot in bots:  # enough chips for every entry and rejoin of the run
            grant(
                user=bot, amount=options["fee"] * 10 * games + 100, idempotency_key=f"simulate:{run}:{bot.pk}"
            )
        fake = OffsetClock()
        real_now = table_clock.now
        table_clock.now = fake.now  # simulated time: deadlines pass instantly
        started = time.perf_counter()
        finished: list[PoolGame] = []
        try:
            with notify.suppressed():
                for n in range(games):
                    for bot in bots:
                        seat = seating.table_join(table_id=table.pk, user=bot)
                    game = seat.game
                    if options["seed"] is not None:
                        PoolGame.objects.filter(pk=game.pk).update(seed=options["seed"] + n)
                    finished.append(drivers.play_out(game_id=game.pk, clock=fake))
        finally:
            table_clock.now = real_now
            kind.active = False  # keep it out of the lobby (a save: table settings are audited models)
            kind.save(update_fields=["active"])
        elapsed = time.perf_counter() - started
        ids = [g.pk for g in finished]
        deals = Deal.objects.filter(game_id__in=ids).count()
        turns = GameEvent.objects.filter(game_id__in=ids, type="turn").count()
        kinds = dict(GameEvent.objects.filter(game_id__in=ids).values_list("type").annotate(n=Count("id")))
        problems = check_ledger()
        splits = sum(1 for g in finished if g.result and g.result.get("split"))
        self.stdout.write(
            f"format {options['format']}, {players} players: {games} games in {elapsed:.2f} s "
            f"= {games / elapsed:.2f} games/s; {deals} deals ({deals / games:.1f} a game), "
            f"{turns} turns ({turns / elapsed:.0f} turns/s); {splits} ended in a split; "
            f"drops {kinds.get('drop', 0)}, finishes {kinds.get('finish', 0)}, rejoins {kinds.get('rejoined', 0)}"
        )
        if problems:
            for p in problems:
                self.stderr.write(f"ledger: {p}")
            raise CommandError(f"check_ledger found {len(problems)} problem(s)")
        self.stdout.write("check_ledger: clean")

    def _collusion(self, options: dict[str, Any]) -> None:
        """Seeded: the same --seed, --games and --format print the same figures."""
        seed = 1 if options["seed"] is None else options["seed"]
        games = options["games"]
        self.stdout.write(
            f"playing {games} games ({options['format']} pool, seed {seed}) between honest and colluding bots..."
        )
        out = simulation.run(
            games=games,
            seed=seed,
            fmt=options["format"],
            fee=options["fee"] or 1_000,
            workers=max(1, options["workers"]),
            pairs_per_kind=max(1, options["pairs"]),
            honest=max(4, options["honest"]),
            progress=lambda n: self.stderr.write(f"  {n} games played"),
        )
        for line in simulation.report(out):
            self.stdout.write(line)
