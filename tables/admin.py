"""Staff tools: table settings are edited here; games, deals and events are read-only history
(the service layer is their only writer)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from accounts.lookup import named
from core import admin_parts
from core.admin_base import BigListMixin, QuickRowsMixin, ReadOnlyAdmin, ReadOnlyTabularInline
from core.money import format_money
from game_engine.events import CATALOGUE
from tables.game.selectors import without_hands
from tables.models import Deal, GameEvent, PoolGame, Seat, Table, TableSettings
from wallet.forms import RupeesField


def _games_search(term: str) -> tuple[str, Any]:
    """What a search box term names, for the game, deal and event lists, each read by an index:
    a number is a game's id; an account's exact user name or e-mail address, that player's
    games; anything else, part of a table's name (tables are few)."""
    term = term.strip()
    if term.isdigit() and len(term) < 19:
        return "game", int(term)
    players = list(named(term).values_list("pk", flat=True)[:10])
    if players:
        return "players", players
    return "tables", list(Table.objects.filter(name__icontains=term).values_list("pk", flat=True)[:1000])


GAMES_SEARCH_HELP = "A game's id, a player's exact user name or e-mail address, or part of a table's name."


class TableInline(admin.TabularInline):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    model = Table
    extra = 1
    fields = ("name",)


class TableSettingsForm(forms.ModelForm):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    """Amounts in rupees (kept in paise), the rake as a percentage of basis points' label."""

    entry_fee = RupeesField(label="Entry fee (₹)", min_value=0, help_text="Rupees, e.g. 100 or 12.50.")
    auto_split_min_fee = RupeesField(
        label="Auto split above entry fee (₹)",
        min_value=0,
        help_text="Auto split on tables whose entry fee is above this.",
    )
    rejoin_max_fee = RupeesField(
        label="Rejoin only below entry fee (₹)",
        required=False,
        min_value=0,
        help_text="Blank: always offer rejoin.",
    )
    point_value = RupeesField(
        label="Point value (₹)", min_value=0, help_text="Points rummy: rupees per point."
    )

    class Meta:
        model = TableSettings
        fields = [f.name for f in TableSettings._meta.concrete_fields if f.name != "id"]


# what staff may do on this page: ``staff.admin.tables``, composed over it (``core.admin_parts``)
@admin_parts.register(TableSettings)
class TableSettingsAdmin(QuickRowsMixin, admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    form = TableSettingsForm
    list_display = (
        "name",
        "format",
        "fee",
        "seats",
        "decks",
        "turn_seconds",
        "rake_bp",
        "practice",
        "active",
    )
    list_filter = ("format", "practice", "active")
    search_fields = ("name",)
    inlines = [TableInline]
    fieldsets = (
        (None, {"fields": ("name", "format", "entry_fee", "seats", "decks", "active")}),
        (
            "Clocks (seconds)",
            {
                "fields": (
                    "turn_seconds",
                    "extra_time_seconds",
                    "declare_seconds",
                    "pause_seconds",
                    "start_countdown_seconds",
                    "rejoin_window_seconds",
                    "split_offer_seconds",
                )
            },
        ),
        ("Money and splits", {"fields": ("rake_bp", "auto_split_min_fee", "rejoin_max_fee", "point_value")}),
        ("Practice", {"fields": ("practice", "bot_wait_seconds")}),
    )

    @admin.display(description="entry fee")
    def fee(self, obj: TableSettings) -> str:
        return format_money(obj.entry_fee)


# what staff may do on this page: ``staff.admin.tables``, composed over it (``core.admin_parts``)
@admin_parts.register(Table)
class TableAdmin(QuickRowsMixin, admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    list_display = ("name", "settings", "is_open", "created_at")
    list_filter = ("is_open", "settings__format")
    readonly_fields = ("is_open",)  # closed and reopened by an action that asks why
    search_fields = ("name",)
    list_select_related = ("settings",)
    # a player's own practice table: an id box, not a menu of every account on the site
    raw_id_fields = ("owner",)


class SeatInline(ReadOnlyTabularInline):
    model = Seat
    fields = ("position", "engine_seat", "user", "is_bot", "joined_at", "left_at")
    readonly_fields = fields


class DealInline(ReadOnlyTabularInline):
    model = Deal
    fields = ("number", "started_at", "finished_at")
    readonly_fields = fields
    show_change_link = True


# what staff may do on this page: ``staff.admin.games``, composed over it (``core.admin_parts``)
@admin_parts.register(PoolGame)
class PoolGameAdmin(BigListMixin, ReadOnlyAdmin):
    list_display = ("id", "table", "status", "players", "started_at", "finished_at")
    sortable_by = ("id", "status", "started_at", "finished_at")  # each read by an index
    list_select_related = ("table",)
    list_filter = ("status", "table__settings__format")
    search_fields = ("table__name",)  # read by get_search_results below
    search_help_text = GAMES_SEARCH_HELP
    readonly_fields = (
        "table",
        "status",
        "version",
        "event_count",
        "deadline_at",
        "deadline_kind",
        "seed",
        "result",
        "created_at",
        "started_at",
        "finished_at",
    )
    exclude = ("state",)
    inlines = [SeatInline, DealInline]

    def get_queryset(self, request: HttpRequest) -> QuerySet[PoolGame]:
        seated = Seat.objects.filter(left_at__isnull=True).select_related("user").order_by("position")
        return (
            super()
            .get_queryset(request)
            .prefetch_related(Prefetch("seats", queryset=seated, to_attr="seated"))
        )

    @admin.display(description="players")
    def players(self, game: PoolGame) -> str:
        seated = getattr(game, "seated", None)
        if seated is None:
            seated = game.seats.filter(left_at__isnull=True).select_related("user")
        return ", ".join(s.user.table_name for s in seated)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[PoolGame], search_term: str
    ) -> tuple[QuerySet[PoolGame], bool]:
        if not search_term.strip():
            return queryset, False
        kind, value = _games_search(search_term)
        if kind == "game":
            return queryset.filter(pk=value), False
        if kind == "players":
            return queryset.filter(pk__in=Seat.objects.filter(user_id__in=value).values("game_id")), False
        return queryset.filter(table_id__in=value), False


# what staff may do on this page: ``staff.admin.deal_replays``, composed over it (``core.admin_parts``)
@admin_parts.register(Deal)
class DealAdmin(BigListMixin, ReadOnlyAdmin):
    """Hand history for support staff: every event and every shown hand of a deal."""

    list_display = ("id", "game", "number", "started_at", "finished_at")
    sortable_by = ("id", "started_at")  # each read by an index
    ordering = ("-id",)  # newest first, paged by seek (core.admin_paging)
    list_select_related = ("game__table",)
    list_filter = ("game__table__settings__format",)
    search_fields = ("game__table__name",)  # read by get_search_results below
    search_help_text = GAMES_SEARCH_HELP
    readonly_fields = (
        "game",
        "number",
        "started_at",
        "finished_at",
        "commitment",
        "client_seeds",
        "deck_order",
        "shown_hands",
        "event_log",
    )
    exclude = ("result", "players", "dealt_order", "server_seed")

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Deal], search_term: str
    ) -> tuple[QuerySet[Deal], bool]:
        if not search_term.strip():
            return queryset, False
        kind, value = _games_search(search_term)
        if kind == "game":
            return queryset.filter(game_id=value), False
        if kind == "players":
            through = Deal.players.through.objects.filter(user_id__in=value).values("deal_id")
            return queryset.filter(pk__in=through), False
        return queryset.filter(game__table_id__in=value), False

    @admin.display(description="dealt order")
    def deck_order(self, obj: Deal) -> str:
        """The deck order (and the server seed that gives it) is every player's hand: hidden here.
        A deal being played is on the game's live hands page, a finished one on its face-up page,
        each for the one role that may see hands, with a reason, recorded (docs/staff.md)."""
        if obj.finished_at is None:
            return "hidden: the deal is being played"
        return format_html(
            'hidden: <a href="{}">open every hand face up</a> (Game integrity, asks why, recorded)',
            reverse("admin:tables_deal_face_up", args=[obj.pk]),
        )

    @admin.display(description="shown hands")
    def shown_hands(self, obj: Deal) -> str:
        result = obj.result or {}
        names = result.get("names", {})
        rows = [
            (
                names.get(seat, seat),
                p.get("status"),
                p.get("points"),
                "  ".join(" ".join(g) for g in (p.get("groups") or [])) or "—",
            )
            for seat, p in result.get("players", {}).items()
        ]
        if not rows:
            return "—"
        return format_html(
            "<p>Cut joker: {}</p><table><tr><th>player</th><th>status</th><th>points</th><th>groups</th></tr>{}</table>",
            result.get("cut_joker", "?"),
            format_html_join("", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>", rows),
        )

    @admin.display(description="events")
    def event_log(self, obj: Deal) -> str:
        events = GameEvent.objects.filter(game=obj.game, deal_number=obj.number).order_by("seq")
        return format_html(
            "<ol>{}</ol>",
            format_html_join(
                "", "<li><code>{}</code> {}</li>", ((e.type, without_hands(e.data)) for e in events)
            ),
        )


class EventTypeFilter(admin.SimpleListFilter):
    """The event types of the protocol's catalogue (not a scan of the whole log for its values)."""

    title = "type"
    parameter_name = "type"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(name, name) for name in sorted(CATALOGUE)]

    def queryset(self, request: HttpRequest, queryset: QuerySet[GameEvent]) -> QuerySet[GameEvent]:
        return queryset.filter(type=self.value()) if self.value() else queryset


@admin.register(GameEvent)
class GameEventAdmin(BigListMixin, ReadOnlyAdmin):
    list_display = ("game", "deal_number", "seq", "version", "type", "created_at")
    sortable_by = ()  # newest first only: a sort of the log by another column reads all of it
    ordering = ("-id",)  # newest first, paged by seek (core.admin_paging)
    exclude = ("data",)
    readonly_fields = ("public_data",)

    @admin.display(description="data")
    def public_data(self, obj: GameEvent) -> Any:
        """What the table was sent; a ``deal_over``'s server seed (every hand) left out."""
        return without_hands(obj.data)

    list_select_related = ("game__table",)
    list_filter = (EventTypeFilter,)
    search_fields = ("game__table__name",)  # read by get_search_results below
    search_help_text = GAMES_SEARCH_HELP
    show_full_result_count = False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[GameEvent], search_term: str
    ) -> tuple[QuerySet[GameEvent], bool]:
        if not search_term.strip():
            return queryset, False
        kind, value = _games_search(search_term)
        if kind == "game":
            return queryset.filter(game_id=value), False
        if kind == "players":
            return queryset.filter(
                game_id__in=Seat.objects.filter(user_id__in=value).values("game_id")
            ), False
        return queryset.filter(game__table_id__in=value), False
