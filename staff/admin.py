"""The staff side of the admin (issues 14 and 23, docs/staff.md): a readable game page with
cancel, a recorded view of live hands for the Game integrity role, close/reopen and
bulk-created tables, accounts by role (only a superuser grants roles or sets passwords),
suspensions, wallet adjustments in rupees under money controls, the audit trail and the
dashboard. Every page that writes asks a reason for the trail. It extends the other apps'
admin classes from here, so that only this app depends on the staff services."""

from __future__ import annotations

from typing import Any, TypeVar

from django import forms
from django.contrib import admin, messages
from django.contrib.auth.admin import GroupAdmin
from django.contrib.auth.forms import AdminPasswordChangeForm, UserChangeForm, UserCreationForm
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from accounts import emailchange, play
from accounts.admin import PlayerAdmin
from accounts.models import EmailChange, PlayLimit, SelfExclusion, Suspension, User
from accounts.requests import signed_in
from core.admin_base import BigListMixin, QuickRowsMixin, ReadOnlyAdmin
from staff import audit, authority, player, roles, selectors, services, statement
from staff.export import export_csv
from staff.forms import BulkTablesForm, CancelGameForm, NoteForm, ReasonForm, SuspendForm
from staff.models import AdjustmentRequest, StaffAction, StaffNote
from tables.admin import PoolGameAdmin, TableAdmin, TableSettingsAdmin
from tables.models import PoolGame, Seat, Table, TableSettings
from wallet.admin import ADJUST_PERMISSION, ADJUSTABLE_KINDS, AccountAdmin
from wallet.forms import AdjustmentForm
from wallet.models import Account, AccountKind
from wallet.money import format_money
from wallet.selectors import chip_balances

CANCEL = "staff.cancel_game"
CLOSE = "staff.close_table"
SUSPEND = "accounts.suspend_player"
APPROVE = "staff.approve_adjustment"
VIEW_LIVE = "staff.view_live_hands"


def _context(model_admin: admin.ModelAdmin, request: HttpRequest, **extra: Any) -> dict[str, Any]:  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    return {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, **extra}


#: Every list may be exported to CSV by whoever may view it (staff.export: asks why, recorded).
admin.site.add_action(export_csv, "export_csv")

# ---------------------------------------------------------------------------
# the audit trail: staff read it, nobody edits it
# ---------------------------------------------------------------------------
if admin.site.is_registered(StaffAction):  # django-auditlog's own page for its log-entry model
    admin.site.unregister(StaffAction)


class ByStaffFilter(admin.SimpleListFilter):
    """Who did it: staff members only (not every account on the site)."""

    title = "by staff"
    parameter_name = "actor"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        staff = User.objects.filter(Q(is_staff=True) | Q(is_superuser=True)).order_by("username")
        return [(str(pk), name) for pk, name in staff.values_list("pk", "username")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[StaffAction]) -> QuerySet[StaffAction]:
        value = self.value()
        return queryset.filter(actor_id=int(value)) if value and value.isdigit() else queryset


@admin.register(StaffAction)
class StaffActionAdmin(BigListMixin, ReadOnlyAdmin):
    list_display = ("timestamp", "actor", "verb", "object_repr", "reason", "what_changed")
    sortable_by = ("timestamp", "verb")  # the sorts an index serves (docs/staff.md, "Big lists")
    # a date filter, not a date hierarchy: that one reads the years of every row on each load
    list_filter = (("timestamp", admin.DateFieldListFilter), ByStaffFilter, "verb", "action")
    search_fields = ("object_repr", "reason", "actor__username", "verb")  # read by get_search_results
    search_help_text = "Part of the object or the reason, a staff member's exact user name, or an exact verb."
    list_select_related = ("actor",)
    fields = (
        "timestamp",
        "actor",
        "verb",
        "object_repr",
        "content_type",
        "object_pk",
        "reason",
        "what_changed",
        "remote_addr",
        "cid",
    )
    readonly_fields = fields

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[StaffAction], search_term: str
    ) -> tuple[QuerySet[StaffAction], bool]:
        """Each part read by an index (trigram on the object and the reason, staff's ids, the verb):
        no join to the accounts that would keep the indexes from serving an ``OR``."""
        term = search_term.strip()
        if not term:
            return queryset, False
        found = Q(object_repr__icontains=term) | Q(reason__icontains=term) | Q(verb=term)
        actors = list(User.objects.filter(username=term).values_list("pk", flat=True)[:10])
        if actors:
            found |= Q(actor_id__in=actors)
        return queryset.filter(found), False

    @admin.display(description="before → after")
    def what_changed(self, entry: StaffAction) -> str:
        before, after = entry.before, entry.after
        keys = [*before, *(k for k in after if k not in before)]
        return "; ".join(f"{key}: {_shown(before.get(key))} → {_shown(after.get(key))}" for key in keys)


def _shown(value: Any) -> str:
    return "—" if value is None or value == "" else str(value)


# ---------------------------------------------------------------------------
# changes made on an admin page: each asks why, and goes into the audit trail
# ---------------------------------------------------------------------------
FormT = TypeVar("FormT", bound=forms.BaseForm)


def with_reason(form: type[FormT]) -> type[FormT]:
    """``form`` with the reason field every audited admin change asks for."""
    field = forms.CharField(
        label="Reason for this change",
        max_length=300,
        help_text="Required; kept in the audit trail (Staff actions) with the change.",
        widget=forms.TextInput(attrs={"size": 60}),
    )
    return type(form.__name__, (form,), {"audit_reason": field})


class ReasonedAdminMixin:
    """A page whose saves are recorded by django-auditlog: it asks a reason and nobody deletes
    from it (close a table, deactivate a settings row or an account instead)."""

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)  # type: ignore[misc]  # a mixin: the ModelAdmin it is mixed into has it
        editable = (
            self.has_change_permission(request, obj)  # type: ignore[attr-defined]  # ModelAdmin's: a mixin of it
            if obj is not None
            else self.has_add_permission(request)  # type: ignore[attr-defined]  # as above
        )
        if editable:
            return [*fieldsets, ("Why", {"fields": ["audit_reason"]})]
        return fieldsets

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = kwargs.get("form") or self.form  # type: ignore[attr-defined]  # a mixin: the ModelAdmin it is mixed into has it
        if "audit_reason" not in form.declared_fields:
            kwargs["form"] = with_reason(form)
        return super().get_form(request, obj, change=change, **kwargs)  # type: ignore[misc]  # a mixin: the ModelAdmin it is mixed into has it

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: Any = None,
    ) -> HttpResponse:
        with audit.reasoned(request.POST.get("audit_reason", "") if request.method == "POST" else ""):
            return super().changeform_view(request, object_id, form_url, extra_context)  # type: ignore[misc,no-any-return]  # a mixin: the ModelAdmin it is mixed into has it

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


# ---------------------------------------------------------------------------
# games
# ---------------------------------------------------------------------------
admin.site.unregister(PoolGame)


@admin.register(PoolGame)
class StaffPoolGameAdmin(PoolGameAdmin):
    """The game page in words and rupees. A deal's hands and deck order, while it is played, are
    shown only on their own page to the role whose job needs them, and each view is recorded."""

    list_display = ("id", "table", "status", "players", "started_at", "finished_at")
    sortable_by = ("id", "status", "started_at", "finished_at")  # each read by an index
    list_select_related = ("table",)

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

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<int:game_id>/cancel/",
                self.admin_site.admin_view(self.cancel_view),
                name="tables_poolgame_cancel",
            ),
            path(
                "<int:game_id>/live/",
                self.admin_site.admin_view(self.live_view),
                name="tables_poolgame_live",
            ),
        ] + super().get_urls()

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        game = get_object_or_404(PoolGame.objects.select_related("table__settings"), pk=object_id)
        page = selectors.game_page(game)
        can_cancel = request.user.has_perm(CANCEL) and game.status in ("waiting", "running")
        return TemplateResponse(
            request,
            "admin/staff/game.html",
            _context(
                self,
                request,
                title=f"Game {game.pk} at {game.table.name}",
                original=game,
                page=page,
                can_cancel=can_cancel,
                can_view_live=request.user.has_perm(VIEW_LIVE) and page.get("live") is not None,
            ),
        )

    def cancel_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        if not request.user.has_perm(CANCEL):
            raise PermissionDenied
        game = get_object_or_404(PoolGame.objects.select_related("table__settings"), pk=game_id)
        form = CancelGameForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                result = services.cancel_game(
                    staff=signed_in(request),
                    game=game,
                    reason=form.cleaned_data["reason"],
                    message=form.cleaned_data["message"],
                )
            except services.StaffError as exc:
                form.add_error(None, str(exc))
            else:
                paid = ", ".join(f"{format_money(int(a))}" for a in result["payouts"].values()) or "nothing"
                self.message_user(
                    request,
                    f"Game {game.pk} cancelled ({result['settlement']}); paid back: {paid}.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:tables_poolgame_change", args=[game.pk]))
        return TemplateResponse(
            request,
            "admin/staff/cancel_game.html",
            _context(
                self, request, title=f"Cancel game {game.pk} at {game.table.name}", original=game, form=form
            ),
        )

    def live_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        """Every hand and the closed deck of the deal being played: for ``staff.view_live_hands``
        only, with a reason, and recorded (a refused look is recorded too)."""
        game = get_object_or_404(PoolGame.objects.select_related("table__settings"), pk=game_id)
        if not request.user.has_perm(VIEW_LIVE):
            raise audit.StaffRefused(
                f"{request.user.username}'s role may not see the hands of a deal being played",
                verb="view_live_hands",
                target=game,
            )
        reason = (request.GET.get("reason") or "").strip()
        if not reason:
            self.message_user(request, "Say why you need to see the hands.", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:tables_poolgame_change", args=[game.pk]))
        live = selectors.live_hands(game)
        if live is not None:
            audit.record(
                staff=signed_in(request),
                action="view_live_hands",
                target=game,
                reason=reason,
                kind=audit.Action.ACCESS,
                after={"deal": live["deal_no"], "turn": live.get("turn")},
                label=f"game:{game.pk} {game.table.name}",
            )
        return TemplateResponse(
            request,
            "admin/staff/live_hands.html",
            _context(
                self,
                request,
                title=f"Live hands: game {game.pk} at {game.table.name}",
                original=game,
                live=live,
                reason=reason,
            ),
        )


# ---------------------------------------------------------------------------
# tables and table settings
# ---------------------------------------------------------------------------
admin.site.unregister(Table)
admin.site.unregister(TableSettings)


@admin.register(Table)
class StaffTableAdmin(ReasonedAdminMixin, TableAdmin):
    list_display = ("name", "settings", "is_open", "created_at")
    list_filter = ("is_open", "settings__format")
    readonly_fields = ("is_open",)
    actions = ["close_tables", "reopen_tables"]

    def has_close_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(CLOSE))

    def _set_open(
        self, request: HttpRequest, queryset: QuerySet[Table], is_open: bool
    ) -> HttpResponse | None:
        action = "reopen_tables" if is_open else "close_tables"
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if not ("apply" in request.POST and form.is_valid()):
            title = "Reopen tables" if is_open else "Close tables (a running game finishes)"
            return TemplateResponse(
                request,
                "admin/staff/reason_action.html",
                _context(self, request, title=title, form=form, queryset=queryset, action=action),
            )
        for table in queryset:
            try:
                services.set_table_open(
                    staff=signed_in(request), table=table, is_open=is_open, reason=form.cleaned_data["reason"]
                )
            except services.StaffError as exc:
                self.message_user(request, f"{table}: {exc}", messages.ERROR)
        word = "closed (running games play to their end)" if not is_open else "reopened"
        self.message_user(request, f"{queryset.count()} table(s) {word}.", messages.SUCCESS)
        return None

    @admin.action(description="Close: no new games (a running game finishes)", permissions=["close"])
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        return self._set_open(request, queryset, False)

    @admin.action(description="Reopen", permissions=["close"])
    def reopen_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        return self._set_open(request, queryset, True)


@admin.register(TableSettings)
class StaffTableSettingsAdmin(ReasonedAdminMixin, TableSettingsAdmin):
    actions = ["create_tables"]

    def has_close_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(CLOSE))

    @admin.action(description="Create tables from these settings", permissions=["close"])
    def create_tables(self, request: HttpRequest, queryset: QuerySet[TableSettings]) -> HttpResponse | None:
        form = BulkTablesForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            made = 0
            for row in queryset:
                try:
                    made += len(
                        services.create_tables(
                            staff=signed_in(request),
                            settings_row=row,
                            count=form.cleaned_data["count"],
                            prefix=form.cleaned_data["prefix"] if queryset.count() == 1 else "",
                            reason=form.cleaned_data["reason"],
                        )
                    )
                except services.StaffError as exc:
                    self.message_user(request, str(exc), messages.ERROR)
            self.message_user(request, f"{made} table(s) created.", messages.SUCCESS)
            return None
        return TemplateResponse(
            request,
            "admin/staff/bulk_tables.html",
            _context(self, request, title="Create tables", form=form, queryset=queryset),
        )


# ---------------------------------------------------------------------------
# players: suspension, self-exclusion shown
# ---------------------------------------------------------------------------
admin.site.unregister(User)
admin.site.unregister(Group)

#: What a staff member who is not a superuser sees of an account: no roles, permissions or password.
PLAYER_FIELDSETS = (
    (None, {"fields": ("username", "role")}),
    ("Name and contact", {"fields": ("display_name", "first_name", "last_name", "email")}),
    ("Status", {"fields": ("is_active",)}),
    ("Dates", {"fields": ("last_login", "date_joined")}),
)


class RoleFilter(admin.SimpleListFilter):
    """By role (a group), or none: each an ``EXISTS`` on the role links, where the inherited
    "groups" filter joins them and needs ``DISTINCT`` over every account."""

    title = "role"
    parameter_name = "role"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("none", "none"), *((str(pk), name) for pk, name in Group.objects.values_list("pk", "name"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        value = self.value()
        links = User.groups.through.objects.filter(user_id=OuterRef("pk"))
        if value == "none":
            return queryset.filter(~Exists(links))
        if value and value.isdigit():
            return queryset.filter(Exists(links.filter(group_id=int(value))))
        return queryset


@admin.register(User)
class StaffPlayerAdmin(BigListMixin, ReasonedAdminMixin, PlayerAdmin):
    """Accounts, least privilege first (docs/staff.md, ``staff.authority``): only a superuser
    creates accounts, grants roles and permissions or sets passwords; nobody edits their own
    account or one of an equal or higher role; everyone else's form has no such field at all."""

    list_display = ("username", "display_name", "email", "role", "play_status", "date_joined", "player_link")
    sortable_by = ("username", "date_joined")  # each read by an index
    list_filter = ("is_staff", "is_superuser", "is_active", RoleFilter)
    search_help_text = "A name, an e-mail address or an id."
    form = with_reason(UserChangeForm)
    add_form = with_reason(UserCreationForm)
    change_password_form = with_reason(AdminPasswordChangeForm)
    change_user_password_template = "admin/staff/user_password.html"
    actions = ["suspend_players", "lift_suspensions"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        """Whether each may play, and each one's roles, read with the page (no query per row)."""
        return play.with_blocks(super().get_queryset(request)).prefetch_related("groups")

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[User], search_term: str
    ) -> tuple[QuerySet[User], bool]:
        """A name or an e-mail address (parts of them), or an id."""
        results, duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if term.isdigit() and len(term) < 19:
            results = results | queryset.filter(pk=int(term))
        return results, duplicates

    @admin.display(description="may play?")
    def play_status(self, user: User) -> str:
        return play.block_summary(user)

    @admin.display(description="")
    def player_link(self, user: User) -> str:
        return format_html(
            '<a href="{}" class="player-link">Player page</a>',
            reverse("admin:accounts_user_player", args=[user.pk]),
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<int:user_id>/player/",
                self.admin_site.admin_view(self.player_view),
                name="accounts_user_player",
            ),
            path(
                "<int:user_id>/player/note/",
                self.admin_site.admin_view(self.note_view),
                name="accounts_user_note",
            ),
        ] + super().get_urls()

    def player_view(
        self, request: HttpRequest, user_id: int, note_form: NoteForm | None = None
    ) -> HttpResponse:
        """One player seen whole (``staff.player``): balances, the ledger statement, games and
        deals, suspensions, self-exclusions, limits, integrity sections and the staff notes."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        target = get_object_or_404(User, pk=user_id)  # a player's roles are never read (staff.roles)
        page = player.player_page(
            user=target,
            viewer=request.user,
            statement_cursor=statement.cursor_from(request.GET),
            games_before=player.games_cursor(request.GET),
        )
        may_act = authority.may_act_on(request.user, target)
        may_adjust = request.user.has_perm(ADJUST_PERMISSION) and may_act
        may_note = request.user.has_perm(services.NOTE_PERMISSION) and may_act
        accounts = page["accounts"]
        return TemplateResponse(
            request,
            "admin/staff/player.html",
            _context(
                self,
                request,
                title=f"Player {target.username}",
                original=target,
                p=page,
                note_form=(note_form or NoteForm()) if may_note else None,
                adjust_cash=reverse("admin:wallet_account_adjust", args=[accounts[AccountKind.WALLET].pk])
                if may_adjust and AccountKind.WALLET in accounts
                else None,
                adjust_bonus=reverse("admin:wallet_account_adjust", args=[accounts[AccountKind.BONUS].pk])
                if may_adjust and AccountKind.BONUS in accounts
                else None,
            ),
            status=400 if note_form is not None else 200,
        )

    def note_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """Add a note to the case history (POST only); recorded in the audit trail."""
        target = get_object_or_404(User, pk=user_id)
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:accounts_user_player", args=[target.pk]))
        form = NoteForm(request.POST)
        if form.is_valid():
            try:
                services.add_note(staff=signed_in(request), user=target, text=form.cleaned_data["text"])
            except services.Refused as exc:
                raise PermissionDenied(str(exc)) from exc
            except services.StaffError as exc:
                form.add_error("text", str(exc))
            else:
                self.message_user(
                    request, f"Note added to {target.username}'s case history.", messages.SUCCESS
                )
                return HttpResponseRedirect(
                    reverse("admin:accounts_user_player", args=[target.pk]) + "#notes"
                )
        return self.player_view(request, user_id, note_form=form)

    @admin.display(description="role")
    def role(self, user: User) -> str:
        return roles.role_name(user)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if request.user.is_superuser or obj is None:
            fieldsets = super().get_fieldsets(request, obj)
            if obj is not None:
                fieldsets = [*fieldsets[:-1], ("Role", {"fields": ("role",)}), fieldsets[-1]]
            return fieldsets
        fieldsets = list(PLAYER_FIELDSETS)
        if self.has_change_permission(request, obj):
            fieldsets.append(("Why", {"fields": ["audit_reason"]}))
        return fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if request.user.is_superuser:
            return ("role", "last_login", "date_joined")
        if authority.is_staff_account(obj):  # a reset goes to it: a superuser's to change
            return ("username", "role", "email", "last_login", "date_joined")
        return ("username", "role", "last_login", "date_joined")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or authority.may_act_on(request.user, obj)

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: Any = None,
    ) -> HttpResponse:
        if request.method == "POST":
            target = User.objects.filter(pk=object_id).first() if object_id else None
            asked = sorted(k for k in authority.PRIVILEGED_FORM_KEYS if k in request.POST)
            if asked and not request.user.is_superuser:
                raise audit.StaffRefused(
                    f"only a superuser may change {', '.join(asked)}",
                    verb="change_user",
                    target=target or request.user,
                )
            if target is not None and not request.user.is_superuser:
                # the log-in name, and a staff account's address (a reset goes to it): shown read-only
                forged = [
                    key
                    for key in authority.CREDENTIAL_FIELDS
                    if key in request.POST and (key == "username" or authority.is_staff_account(target))
                ]
                if forged:
                    raise audit.StaffRefused(
                        f"only a superuser may change {', '.join(forged)} (of {target.username})",
                        verb="change_user",
                        target=target,
                    )
            if target is not None:
                if not super().has_change_permission(request, target):
                    raise audit.StaffRefused(
                        f"{request.user.username}'s role may not change accounts",
                        verb="change_user",
                        target=target,
                    )
                authority.check_may_act_on(request.user, target, verb="change_user")
        return super().changeform_view(request, object_id, form_url, extra_context)

    def user_change_password(self, request: HttpRequest, id: str, form_url: str = "") -> HttpResponse:
        target = get_object_or_404(User, pk=id)
        if not request.user.is_superuser:
            raise audit.StaffRefused(
                f"only a superuser may set a password (of {target.username})",
                verb="set_password",
                target=target,
            )
        authority.check_may_act_on(request.user, target, verb="set_password")
        with audit.reasoned(request.POST.get("audit_reason", "") if request.method == "POST" else ""):
            return super().user_change_password(request, id, form_url)

    def get_actions(self, request: HttpRequest) -> Any:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_suspend_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(SUSPEND))

    @admin.action(
        description="Suspend (with a reason and an end date, or until lifted)", permissions=["suspend"]
    )
    def suspend_players(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        form = SuspendForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            for user in queryset:
                try:
                    services.suspend(
                        staff=signed_in(request),
                        user=user,
                        reason=form.cleaned_data["reason"],
                        message=form.cleaned_data["message"],
                        until=form.cleaned_data["until"],
                    )
                    self.message_user(request, f"{user.username} suspended.", messages.SUCCESS)
                except services.StaffError as exc:
                    self.message_user(request, f"{user.username}: {exc}", messages.ERROR)
            return None
        return TemplateResponse(
            request,
            "admin/staff/reason_action.html",
            _context(
                self, request, title="Suspend players", form=form, queryset=queryset, action="suspend_players"
            ),
        )

    @admin.action(description="Lift suspension", permissions=["suspend"])
    def lift_suspensions(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            for user in queryset:
                try:
                    services.lift_suspension(
                        staff=signed_in(request), user=user, reason=form.cleaned_data["reason"]
                    )
                    self.message_user(request, f"{user.username}: suspension lifted.", messages.SUCCESS)
                except services.StaffError as exc:
                    self.message_user(request, f"{user.username}: {exc}", messages.ERROR)
            return None
        return TemplateResponse(
            request,
            "admin/staff/reason_action.html",
            _context(
                self,
                request,
                title="Lift suspensions",
                form=form,
                queryset=queryset,
                action="lift_suspensions",
            ),
        )


@admin.register(Group)
class StaffGroupAdmin(QuickRowsMixin, ReasonedAdminMixin, GroupAdmin):
    """Roles: what each may do is a superuser's decision (``staff.authority``)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)


@admin.register(Suspension)
class SuspensionAdmin(ReadOnlyAdmin):
    list_display = ("user", "reason", "starts_at", "ends_at", "created_by", "lifted_at", "lifted_by")
    search_fields = ("user__username", "reason")
    # who lifted a suspension is read after the page (one query): joined, that empty column made
    # PostgreSQL hash every account before it sorted and cut the page
    list_select_related = ("user", "created_by")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Suspension]:
        return super().get_queryset(request).prefetch_related("lifted_by")


@admin.register(SelfExclusion)
class SelfExclusionAdmin(ReadOnlyAdmin):
    """Staff see self-exclusions; nobody may shorten or delete one."""

    list_display = ("user", "period", "starts_at", "ends_at")
    search_fields = ("user__username",)
    list_select_related = ("user",)


@admin.register(PlayLimit)
class PlayLimitAdmin(ReadOnlyAdmin):
    """Players' own daily limits (each setting kept: a raise waits 24 hours); only the player sets them."""

    list_display = ("user", "kind", "value_display", "effective_at", "created_at")
    list_filter = ("kind",)
    search_fields = ("user__username", "user__email")
    list_select_related = ("user",)
    fields = ("user", "kind", "value_display", "effective_at", "created_at")
    readonly_fields = fields

    @admin.display(description="limit")
    def value_display(self, row: PlayLimit) -> str:
        if row.value is None:
            return "no limit"
        return format_money(row.value) if row.kind == PlayLimit.Kind.SPEND else f"{row.value} minutes"


@admin.register(EmailChange)
class EmailChangeAdmin(ReadOnlyAdmin):
    """Staff changes of an address and the reset holds they started (``accounts.emailchange``):
    an administrator undoes one for the owner who objects by other means (a ticket, a call)."""

    list_display = ("user", "old_email", "new_email", "changed_by", "created_at", "held_until", "reverted_at")
    list_select_related = ("user", "changed_by")
    search_fields = ("user__username", "old_email", "new_email")
    fields = (
        "user",
        "old_email",
        "new_email",
        "changed_by",
        "created_at",
        "held_until",
        "reverted_at",
        "reverted_by",
    )
    readonly_fields = fields
    actions = ["revert_changes"]

    def has_revert_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("accounts.change_user"))

    @admin.action(
        description="Undo: the old address back, the hold ended (the owner objects)", permissions=["revert"]
    )
    def revert_changes(self, request: HttpRequest, queryset: QuerySet[EmailChange]) -> HttpResponse | None:
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            for change in queryset:
                try:
                    authority.check_may_act_on(request.user, change.user, verb="revert_email_change")
                    with audit.service_action():  # recorded once, as the revert (staff.credentials)
                        emailchange.revert(change, by=signed_in(request), reason=form.cleaned_data["reason"])
                except audit.StaffRefused as exc:
                    audit.record_refusal(staff=signed_in(request), refused=exc)
                    self.message_user(request, f"{change.user}: {exc}", messages.ERROR)
                except emailchange.EmailChangeError as exc:
                    self.message_user(request, f"{change.user}: {exc}", messages.ERROR)
                else:
                    self.message_user(request, f"{change.user}: old address back.", messages.SUCCESS)
            return None
        return TemplateResponse(
            request,
            "admin/staff/reason_action.html",
            _context(
                self,
                request,
                title="Undo e-mail changes",
                form=form,
                queryset=queryset,
                action="revert_changes",
            ),
        )


@admin.register(StaffNote)
class StaffNoteAdmin(BigListMixin, ReadOnlyAdmin):
    """Every player's case history in one list; notes are added on the player page only."""

    list_display = ("created_at", "user", "author", "text")
    sortable_by = ()  # newest first
    search_fields = ("user__username", "author__username", "text")  # read by get_search_results
    search_help_text = "Part of a note, or the exact user name of the player or the author."
    list_select_related = ("user", "author")

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[StaffNote], search_term: str
    ) -> tuple[QuerySet[StaffNote], bool]:
        """Each part read by an index: a trigram index on the text, the accounts' ids."""
        term = search_term.strip()
        if not term:
            return queryset, False
        found = Q(text__icontains=term)
        named = list(User.objects.filter(username=term).values_list("pk", flat=True)[:10])
        if named:
            found |= Q(user_id__in=named) | Q(author_id__in=named)
        return queryset.filter(found), False


# ---------------------------------------------------------------------------
# wallet adjustments in rupees, with a second approval above the threshold
# ---------------------------------------------------------------------------
admin.site.unregister(Account)


@admin.register(Account)
class StaffAccountAdmin(AccountAdmin):
    def get_urls(self) -> list[URLPattern]:
        custom = [
            path(
                "<int:account_id>/adjust/",
                self.admin_site.admin_view(self.adjust_view),
                name="wallet_account_adjust",
            )
        ]
        return custom + super().get_urls()

    def adjust_view(self, request: HttpRequest, account_id: int) -> HttpResponse:
        """Credit or debit through ``staff.services.adjust_wallet``: the form is kept with the error.

        Reached from a player's cash account or their bonus account; the form chooses which
        of the two chips it moves (docs/rules.md §8.6), the account's own kind first.
        """
        account = get_object_or_404(Account, pk=account_id, kind__in=ADJUSTABLE_KINDS)
        player = get_object_or_404(User, pk=account.player_id)
        if not self.has_adjust_permission(request):
            raise audit.StaffRefused(
                f"{request.user.username}'s role may not credit or debit chips",
                verb="adjust_wallet",
                target=player,
            )
        initial = {"chips": "bonus" if account.kind == AccountKind.BONUS else "cash"}
        form = AdjustmentForm(request.POST or None, initial=initial)
        if request.method == "POST" and form.is_valid():
            bonus = form.cleaned_data["chips"] == "bonus"
            try:
                adjusted = services.adjust_wallet(
                    staff=signed_in(request),
                    user=player,
                    amount=form.cleaned_data["amount"],
                    reason=form.cleaned_data["reason"],
                    message=form.cleaned_data["message"],
                    key=form.cleaned_data["idempotency_key"],
                    bonus=bonus,
                )
            except services.StaffError as exc:
                form.add_error("amount", str(exc))
            else:
                chips = "bonus" if bonus else "cash"
                amount = format_money(form.cleaned_data["amount"])
                if adjusted.replayed:
                    self.message_user(
                        request,
                        f"This form was already sent: {amount} for {player} was not applied again.",
                        messages.INFO,
                    )
                elif adjusted.waiting:
                    self.message_user(
                        request,
                        f"{amount} for {player} waits for another administrator's approval "
                        "(Adjustment requests): your adjustments over the approval window pass the threshold.",
                        messages.WARNING,
                    )
                else:
                    self.message_user(
                        request,
                        f"{player}'s {chips} chips adjusted by {amount}; "
                        f"now {format_money(chip_balances(user=player)[chips])}.",
                        messages.SUCCESS,
                    )
                return HttpResponseRedirect(reverse("admin:wallet_account_changelist"))
        balances = chip_balances(user=player)
        return TemplateResponse(
            request,
            "admin/wallet/account/adjust.html",
            _context(
                self,
                request,
                title=f"Credit or debit {player}",
                player=player,
                cash=format_money(balances["cash"]),
                bonus=format_money(balances["bonus"]),
                form=form,
                controls=selectors.adjustment_controls(staff=signed_in(request)),
            ),
        )

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> Any:
        model_admin = self

        class OwnersRead(super().get_changelist(request, **kwargs)):  # type: ignore[misc]  # the changelist class the admin would use, extended
            """Reads the page's account owners (and their roles) at once: no query per row."""

            def get_results(self, request: HttpRequest) -> None:
                super().get_results(request)
                if model_admin.has_adjust_permission(request):
                    model_admin.read_owners(request, list(self.result_list))

        return OwnersRead

    def read_owners(self, request: HttpRequest, accounts: list[Account]) -> None:
        """Whether this staff member may adjust each account, decided for the whole page at once."""
        ids = {a.player_id for a in accounts if a.kind in ADJUSTABLE_KINDS}
        owners = User.objects.prefetch_related("groups").in_bulk(ids)
        actor_rank = roles.rank(request.user)
        for account in accounts:
            owner = owners.get(account.player_id) if account.kind in ADJUSTABLE_KINDS else None
            account.may_adjust = bool(  # type: ignore[attr-defined]  # an attribute of ours on another library's object
                owner is not None and owner.pk != request.user.pk and actor_rank > roles.rank(owner)
            )

    def may_adjust(self, request: HttpRequest, account: Account) -> bool:
        """Whether the "Credit / debit" link is of any use to this staff member for this account."""
        if account.kind not in ADJUSTABLE_KINDS or not self.has_adjust_permission(request):
            return False
        if hasattr(account, "may_adjust"):  # read with its page (``read_owners``)
            return bool(account.may_adjust)
        owner = (
            account.user
            if account.user_id
            else (
                User.objects.filter(pk=account.player_id).first() if account.player_id is not None else None
            )
        )
        return authority.may_act_on(request.user, owner)

    def get_list_display(self, request: HttpRequest) -> Any:
        """The "Credit / debit" link only where this staff member may use it (never their own
        account, never one of an equal or higher role, never without the permission)."""
        shown = [name for name in super().get_list_display(request) if name != "adjust_link"]
        if self.has_adjust_permission(request):

            @admin.display(description="")
            def adjust(account: Account) -> str:
                return self.adjust_link(account) if self.may_adjust(request, account) else ""

            shown.append(adjust)
        return shown

    def get_actions(self, request: HttpRequest) -> Any:
        actions = super().get_actions(request)
        if not self.has_adjust_permission(request):
            actions.pop("credit_or_debit", None)
        return actions


@admin.register(AdjustmentRequest)
class AdjustmentRequestAdmin(ReadOnlyAdmin):
    list_select_related = ("user", "requested_by", "decided_by")
    list_display = (
        "requested_at",
        "user",
        "amount_display",
        "bonus",
        "reason",
        "requested_by",
        "status",
        "decided_by",
    )
    list_filter = ("status",)
    actions = ["approve", "reject"]
    fields = (
        "user",
        "amount_display",
        "bonus",
        "reason",
        "message",
        "requested_by",
        "requested_at",
        "status",
        "decided_by",
        "decided_at",
    )
    readonly_fields = fields

    @admin.display(description="amount")
    def amount_display(self, obj: AdjustmentRequest) -> str:
        return format_money(obj.amount)

    def has_approve_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(APPROVE) and request.user.has_perm(ADJUST_PERMISSION))

    def _decide(self, request: HttpRequest, queryset: QuerySet[AdjustmentRequest], approve: bool) -> None:
        for req in queryset:
            try:
                services.decide_adjustment(staff=signed_in(request), request=req, approve=approve)
                self.message_user(
                    request, f"{req}: {'approved' if approve else 'rejected'}.", messages.SUCCESS
                )
            except services.StaffError as exc:
                self.message_user(request, f"{req}: {exc}", messages.ERROR)

    @admin.action(description="Approve and apply", permissions=["approve"])
    def approve(self, request: HttpRequest, queryset: QuerySet[AdjustmentRequest]) -> None:
        self._decide(request, queryset, True)

    @admin.action(description="Reject", permissions=["approve"])
    def reject(self, request: HttpRequest, queryset: QuerySet[AdjustmentRequest]) -> None:
        self._decide(request, queryset, False)


# the staff actions of the fair-play pages (link, clear, decide, replay), in a module of their own
from staff import integrity_admin  # noqa: E402,F401
