"""Fair play: where accounts sign up and log in from, which accounts are linked, what the
integrity signals found, and the review queue (docs/integrity.md).

This module names the models of other apps by string and imports none of them, so that
``integrity.seating`` (which the table services call) sits below ``tables``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

#: How many of a flag's listed games are its first ones; the rest (up to 50 in all) are its latest.
FIRST_GAMES_LISTED = 10
LATEST_GAMES_LISTED = 40


class SignInEvent(models.Model):
    """One sign-up or log-in: from which address and device (kept ``INTEGRITY_RETENTION_DAYS``)."""

    class Kind(models.TextChoices):
        SIGNUP = "signup", "Sign-up"
        LOGIN = "login", "Log-in"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=6, choices=Kind.choices)
    at = models.DateTimeField(db_index=True)
    #: ``REMOTE_ADDR``: the client's address (Daphne's --proxy-headers behind nginx).
    address = models.GenericIPAddressField(null=True, blank=True, db_index=True)
    #: A keyed hash of the site's long-lived device cookie, never the cookie itself.
    device = models.CharField(max_length=64, blank=True, db_index=True)
    user_agent = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = "sign-in event"
        indexes = [models.Index(fields=["user", "-at"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.user} at {self.at:%Y-%m-%d %H:%M}"


class EmailKey(models.Model):
    """An account's e-mail address as the signals compare it (lower case, no dots or +tag in
    Gmail's local part): two accounts with one key share their sign-up details."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", primary_key=True
    )
    key = models.CharField(max_length=254, db_index=True)

    def __str__(self) -> str:
        return self.key


class AccountLink(models.Model):
    """Two accounts that must not meet at a table (``integrity.seating``), until staff clear it.

    Made by staff, or by a strong signal (a shared device, one e-mail address, chip dumping, a
    shared address with the play of one person; an address alone never links).
    ``user_a`` is the lower id. A cleared link stays as the record of the decision, and a signal
    does not link the pair again (staff may).
    """

    class Source(models.TextChoices):
        STAFF = "staff", "Linked by staff"
        DEVICE = "device", "Shared device"
        EMAIL = "email", "Same e-mail address"
        CHIPS = "chips", "Chips moved between them (chip dumping)"
        #: a shared sign-in address and the play of one person (``integrity.multiaccount``)
        ADDRESS = "address", "Shared address and the play of one person"

    user_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_b = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    source = models.CharField(max_length=8, choices=Source.choices)
    evidence = models.CharField(max_length=300, blank=True)
    active = models.BooleanField(default=True, help_text="Kept apart at seating while set.")
    created_at = models.DateTimeField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="Blank: made by a signal.",
    )
    reason = models.CharField(max_length=300, blank=True)
    cleared_at = models.DateTimeField(null=True, blank=True)
    cleared_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    clear_reason = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = "linked accounts"
        verbose_name_plural = "linked accounts"
        constraints = [
            models.UniqueConstraint(fields=["user_a", "user_b"], name="one_link_per_pair"),
            models.CheckConstraint(condition=models.Q(user_a__lt=models.F("user_b")), name="link_ordered"),
        ]
        indexes = [
            models.Index(fields=["user_a"], condition=models.Q(active=True), name="active_link_a"),
            models.Index(fields=["user_b"], condition=models.Q(active=True), name="active_link_b"),
        ]
        permissions = [("link_accounts", "Can link accounts and clear links (with a reason, audited)")]

    def __str__(self) -> str:
        state = "linked" if self.active else "cleared"
        return f"{self.user_a} and {self.user_b} ({state})"


class GameDigest(models.Model):
    """A finished game reduced to what the signals count (``integrity.digest``), made once."""

    game = models.OneToOneField(
        "tables.PoolGame", on_delete=models.CASCADE, related_name="+", primary_key=True
    )
    finished_at = models.DateTimeField(db_index=True)
    data = models.JSONField(null=True, blank=True, help_text="Null: nothing to count (cancelled).")

    def __str__(self) -> str:
        return f"digest of game {self.game_id}"


class SignalRow(models.Model):
    """One row of a signal page, as the last scan found it (the pages read these, not the games)."""

    class Signal(models.TextChoices):
        SHARED = "shared", "Shared address or device"
        CHIP_DUMPING = "chip_dumping", "Chip dumping"
        SOFT_PLAY = "soft_play", "Soft play"
        FEEDING = "feeding", "Feeding"
        TEAM_PLAY = "team_play", "Team play"
        CHIP_RING = "chip_ring", "Chip ring or chain"
        WIN_RATE = "win_rate", "High win rate"
        ONE_PERSON = "one_person", "Looks like one person"
        #: not a scan's signal: a link made while both accounts played in one running game
        LINKED_GAME = "linked_game", "Linked while in one game"

    signal = models.CharField(max_length=12, choices=Signal.choices)
    user_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_b = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    figures = models.JSONField(default=dict)
    games = models.JSONField(default=list, help_text="Ids of the games behind it (at most 50).")
    score = models.FloatField(default=0.0, help_text="Strength of the evidence: -log10 of its odds.")
    flagged = models.BooleanField(default=False)
    computed_at = models.DateTimeField()

    class Meta:
        ordering = ["-flagged", "-score", "id"]
        verbose_name = "integrity signal"
        indexes = [models.Index(fields=["signal", "-flagged", "-score"])]

    def __str__(self) -> str:
        return f"{self.get_signal_display()}: {self.user_a}" + (f" / {self.user_b}" if self.user_b_id else "")


class Flag(models.Model):
    """A finding in the review queue: staff replay the games behind it and decide, with a reason.

    A flag punishes nobody by itself. One flag per signal and pair (or player) until decided; a
    decided one is raised again only when the evidence has doubled (games behind it) since the
    decision. Until decided, every scan recomputes it (``integrity.flagging.keep_flag_true``):
    its figures follow the evidence, it weakens when the signal no longer flags the pair and
    lapses (closed, with a record) when it has not for ``INTEGRITY_LAPSE_HOURS``; a lapsed flag
    reopens if the signal flags the pair again. The scan never changes a decided flag.
    """

    class State(models.TextChoices):
        OPEN = "open", "Open"
        WEAKENED = "weakened", "Weakened: the signal no longer flags it"
        LAPSED = "lapsed", "Lapsed: closed by the scan"

    class Decision(models.TextChoices):
        CLEARED = "cleared", "Cleared: nothing wrong"
        WARNED = "warned", "Warned"
        SUSPENDED = "suspended", "Suspended"
        REVERSED = "reversed", "Chips reversed"

    signal = models.CharField(max_length=12, choices=SignalRow.Signal.choices, db_index=True)
    user_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    user_b = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    summary = models.CharField(max_length=300)
    figures = models.JSONField(default=dict)
    games = models.JSONField(
        default=list, help_text="Ids of the games listed: the first ones and the latest (at most 50)."
    )
    #: how many games are behind it in all (the list above holds at most 50 of them)
    games_total = models.PositiveIntegerField(default=0)
    score = models.FloatField(default=0.0)
    #: what it was raised with (the figures above follow the evidence at each scan)
    first_summary = models.CharField(max_length=300, blank=True)
    first_figures = models.JSONField(default=dict, blank=True)
    first_score = models.FloatField(default=0.0)
    raised_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    state = models.CharField(max_length=8, choices=State.choices, default=State.OPEN, db_index=True)
    #: since when the signal has not flagged it (null while it does)
    weakened_at = models.DateTimeField(null=True, blank=True)
    lapsed_at = models.DateTimeField(null=True, blank=True)
    lapse_reason = models.CharField(max_length=300, blank=True)
    decision = models.CharField(max_length=10, choices=Decision.choices, blank=True)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    decision_reason = models.CharField(max_length=300, blank=True)
    #: how many games were behind it when decided (it is raised again past twice as many)
    games_at_decision = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = [models.F("decided_at").desc(nulls_first=True), "-score", "-raised_at"]
        verbose_name = "flag"
        verbose_name_plural = "review queue"
        indexes = [models.Index(fields=["signal", "user_a", "user_b"])]
        permissions = [
            ("review_flag", "Can replay a flag's games and record a decision (audited)"),
            ("view_signals", "Can see the integrity signal pages, sign-in addresses and devices"),
        ]

    def __str__(self) -> str:
        who = f"{self.user_a}" + (f" / {self.user_b}" if self.user_b_id else "")
        return f"{self.get_signal_display()}: {who}"

    @property
    def open(self) -> bool:
        """Waiting for a decision: neither decided by staff nor lapsed."""
        return not self.decision and self.state != self.State.LAPSED

    @property
    def listed_first(self) -> int:
        """How many of ``games`` are the first games behind it; the rest are the latest ones."""
        return FIRST_GAMES_LISTED if self.games_total > len(self.games) else len(self.games)


class FlagUpdate(models.Model):
    """One change the scan made to an undecided flag: raised, its evidence grew or shrank, weakened,
    strengthened again, lapsed, reopened. Rows, not a list on the flag: a flag open for months
    gathers many, each is written once and never rewritten, and the flag page lists them in order.
    """

    class Kind(models.TextChoices):
        RAISED = "raised", "Raised"
        UPDATED = "updated", "Evidence changed"
        WEAKENED = "weakened", "Weakened"
        STRENGTHENED = "strengthened", "Flagged again"
        LAPSED = "lapsed", "Lapsed"
        REOPENED = "reopened", "Reopened"

    flag = models.ForeignKey(Flag, on_delete=models.CASCADE, related_name="updates")
    at = models.DateTimeField()
    kind = models.CharField(max_length=12, choices=Kind.choices)
    summary = models.CharField(max_length=300, blank=True)
    figures = models.JSONField(default=dict, blank=True)
    score = models.FloatField(default=0.0)
    games_total = models.PositiveIntegerField(default=0)
    note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["at", "id"]
        verbose_name = "flag update"

    def __str__(self) -> str:
        return f"{self.get_kind_display()} at {self.at:%Y-%m-%d %H:%M}"


class PlayerWarning(models.Model):
    """What a player is told once, at their next log-in, when staff warn them after a review."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    flag = models.ForeignKey(Flag, on_delete=models.CASCADE, related_name="warnings")
    message = models.CharField(max_length=300)
    created_at = models.DateTimeField()
    shown_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"warning to {self.user}"


class ScanRun(models.Model):
    """One run of the signals: when, how many games it digested, what it found."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    games_digested = models.PositiveIntegerField(default=0)
    games_in_window = models.PositiveIntegerField(default=0)
    flags_raised = models.PositiveIntegerField(default=0)
    links_made = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at"]
        verbose_name = "integrity scan"

    def __str__(self) -> str:
        return f"scan of {self.started_at:%Y-%m-%d %H:%M}"
