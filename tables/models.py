"""Tables, seats, pool games, deals and their event log.

The engine state of a running pool game (scores, the current deal, every hand)
is one JSON document on ``PoolGame.state``; the game row is the lock every
action takes. ``Deal`` rows record each deal for hand history, and
``GameEvent`` is the append-only log of everything that happened.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

from game_engine.formats import FORMATS, TableRules, make_rules
from tables.fields import JSONTextField


class TableSettings(models.Model):
    """A kind of table staff can offer: format, stakes, seats and clocks."""

    class Format(models.TextChoices):
        POOL_61 = "61", "61 Pool"
        POOL_101 = "101", "101 Pool"
        POOL_201 = "201", "201 Pool"
        POINTS = "points", "Points Rummy"

    name = models.CharField(max_length=60, unique=True)
    format = models.CharField(max_length=8, choices=Format.choices, default=Format.POOL_101)
    entry_fee = models.BigIntegerField(
        validators=[MinValueValidator(0)], help_text="Entry fee in paise (100 paise = 1 chip)."
    )
    seats = models.PositiveSmallIntegerField(
        default=6, validators=[MinValueValidator(2), MaxValueValidator(6)]
    )
    decks = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(2), MaxValueValidator(3)]
    )
    turn_seconds = models.PositiveIntegerField(default=30)
    extra_time_seconds = models.PositiveIntegerField(default=60, help_text="Extra-time bank per pool game.")
    declare_seconds = models.PositiveIntegerField(default=45)
    pause_seconds = models.PositiveIntegerField(default=10, help_text="Pause between deals.")
    start_countdown_seconds = models.PositiveIntegerField(
        default=20, help_text="Start once two players are seated and this countdown ends."
    )
    rejoin_window_seconds = models.PositiveIntegerField(default=20)
    split_offer_seconds = models.PositiveIntegerField(default=20)
    rake_bp = models.PositiveIntegerField(
        default=1000,
        validators=[MaxValueValidator(10_000)],
        help_text="Platform fee in basis points (1000 = 10%).",
    )
    auto_split_min_fee = models.BigIntegerField(
        default=200_000, help_text="Auto split on tables whose entry fee (paise) is above this."
    )
    rejoin_max_fee = models.BigIntegerField(
        null=True, blank=True, help_text="Offer rejoin only below this entry fee (paise); blank = always."
    )
    point_value = models.BigIntegerField(default=100, help_text="Points rummy: paise per point.")
    practice = models.BooleanField(default=False, help_text="Fill empty seats with bots after a short wait.")
    bot_wait_seconds = models.PositiveIntegerField(default=5)
    active = models.BooleanField(default=True)

    class Meta:
        verbose_name_plural = "table settings"
        ordering = ["format", "entry_fee", "name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.practice and self.entry_fee:
            raise ValidationError("practice tables are free: set the entry fee to 0")
        try:
            self.rules()
        except ValueError as exc:
            raise ValidationError(str(exc)) from exc

    def rules(self) -> TableRules:
        """The engine's rules for a game at this table."""
        return make_rules(
            self.format,
            decks=self.decks,
            max_players=self.seats,
            turn_ms=self.turn_seconds * 1000,
            extra_time_ms=self.extra_time_seconds * 1000,
            declare_ms=self.declare_seconds * 1000,
            next_deal_ms=self.pause_seconds * 1000,
            rejoin_ms=self.rejoin_window_seconds * 1000,
            split_ms=self.split_offer_seconds * 1000,
            entry_fee=self.entry_fee,
            rake_bp=self.rake_bp,
            auto_split_min_fee=self.auto_split_min_fee,
            rejoin_max_fee=self.rejoin_max_fee,
            point_value=self.point_value if self.format == self.Format.POINTS else 0,
        )

    @property
    def pool_limit(self) -> int:
        return FORMATS[self.format].pool_limit


class Table(models.Model):
    """A table in the lobby; it hosts one pool game after another."""

    settings = models.ForeignKey(TableSettings, on_delete=models.PROTECT, related_name="tables")
    name = models.CharField(max_length=60)
    #: A private practice table (practice on demand): only this player sits there or sees it in the lobby.
    owner = models.ForeignKey(
        "accounts.User",  # (``settings`` here is the field above)
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="practice_tables",
        help_text="Set on a player's own practice table: nobody else may join it or see it in the lobby.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    #: Staff close a table (issue 14): no new game starts there; a running one plays to its end.
    is_open = models.BooleanField(default=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name

    def open_to(self, user_id: int) -> bool:
        """Whether this user may take a seat here: anyone at a public table, its owner alone at a private one."""
        return self.owner_id is None or self.owner_id == user_id


class PoolGame(models.Model):
    """One pool game at a table, from the first seat taken to the prize paid."""

    class Status(models.TextChoices):
        WAITING = "waiting", "Waiting for players"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="games")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.WAITING)
    #: The engine's ``GameState.to_dict()``; empty while waiting for players. ``json``, not ``jsonb``,
    #: on PostgreSQL (``tables.fields``): written and read whole by every action, never queried into.
    state = JSONTextField(default=dict, blank=True)
    version = models.PositiveIntegerField(default=0)
    #: How many events the log holds for this game (the next event's ``seq``).
    event_count = models.PositiveIntegerField(default=0)
    #: When the next ``timeout`` is due (engine deadline, or the start countdown while waiting).
    #: Not indexed: every action moves it, and an indexed column would make each action's update of
    #: the row a non-HOT one (migration 0009); the sweeps find open games by ``tables_game_open``.
    deadline_at = models.DateTimeField(null=True, blank=True)
    deadline_kind = models.CharField(max_length=12, blank=True)
    #: When the timer task armed for this game fires. One armed timer follows the deadline: a
    #: change arms a new one only when its deadline comes before it (``record.arm_timer``).
    timer_at = models.DateTimeField(null=True, blank=True)
    seed = models.BigIntegerField(null=True, blank=True, help_text="Shuffle seed; set for tests and replays.")
    #: Engine seats played by bots (practice tables), so bot moves are scheduled without a query.
    bot_seats = models.JSONField(default=list, blank=True)
    result = models.JSONField(null=True, blank=True)
    #: Each player's last answered request ids and their answers, newest last
    #: (``{user_id: [[request_id, answer], ...]}``): a repeated id gets its first answer
    #: without another query, since the row is locked and saved by every action anyway.
    answers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"],
                condition=models.Q(status__in=["waiting", "running"]),
                name="one_open_game_per_table",
            )
        ]
        # the staff dashboard's counts of today and of open games, read by index (issue 27)
        indexes = [
            models.Index(fields=["started_at"], name="tables_game_started"),
            models.Index(fields=["finished_at"], name="tables_game_finished"),
            models.Index(
                fields=["status"],
                condition=models.Q(status__in=["waiting", "running"]),
                name="tables_game_open",
            ),
            # the admin's status filter, newest first (issue 39)
            models.Index(fields=["status", "-id"], name="tables_game_status_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.table} game {self.pk}"

    @property
    def escrow_ref(self) -> str:
        return f"game:{self.pk}"


class Seat(models.Model):
    """A player's place in a pool game; the entry fee was paid to take it."""

    game = models.ForeignKey(PoolGame, on_delete=models.CASCADE, related_name="seats")
    position = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats")
    is_bot = models.BooleanField(default=False)
    #: The seat number inside the engine state (0..n-1 in position order), set when the game starts.
    engine_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    joined_at = models.DateTimeField(auto_now_add=True)
    #: Set when the player left before the game started (their fee was refunded).
    left_at = models.DateTimeField(null=True, blank=True)
    #: The player's seed for the shuffle, sent with the join (docs/fairness.md); blank: generated.
    client_seed = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering = ["position"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "position"],
                condition=models.Q(left_at__isnull=True),
                name="one_player_per_seat",
            ),
            models.UniqueConstraint(
                fields=["game", "user"], condition=models.Q(left_at__isnull=True), name="one_seat_per_player"
            ),
        ]

    def __str__(self) -> str:
        return f"seat {self.position} of {self.game}"


class Deal(models.Model):
    """One deal of a pool game, kept for hand history."""

    game = models.ForeignKey(PoolGame, on_delete=models.CASCADE, related_name="deals")
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    #: The deal's result as the engine reports it: shown groups, points, running scores.
    result = models.JSONField(null=True, blank=True)
    players = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="deals", blank=True)
    #: The verifiable shuffle (docs/fairness.md): the commitment from the start, the seed once over.
    commitment = models.CharField(max_length=64, blank=True, default="")
    server_seed = models.CharField(max_length=64, blank=True, default="")
    client_seeds = models.JSONField(default=list, blank=True)
    #: The deck order the deal was dealt from (top first), recorded at its start: staff only.
    dealt_order = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["game_id", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="one_row_per_deal")]
        indexes = [models.Index(fields=["started_at"], name="tables_deal_started")]  # deals today

    def __str__(self) -> str:
        return f"deal {self.number} of {self.game}"


class GameEvent(models.Model):
    """Append-only log: every public event, in the order the engine produced them."""

    game = models.ForeignKey(PoolGame, on_delete=models.CASCADE, related_name="events")
    deal_number = models.PositiveIntegerField(default=0)
    version = models.PositiveIntegerField(help_text="The game version this event produced.")
    seq = models.PositiveIntegerField(help_text="Order within the game.")
    type = models.CharField(max_length=32)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "seq"]
        constraints = [models.UniqueConstraint(fields=["game", "seq"], name="event_order_unique")]
        indexes = [
            models.Index(fields=["game", "version"]),
            # the admin's type filter, newest first (issue 39)
            models.Index(fields=["type", "-id"], name="tables_event_type_recent"),
        ]

    def __str__(self) -> str:
        return f"{self.type} @{self.version}"

    def as_message(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}
