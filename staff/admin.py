"""The staff side of the admin (issue 14): a readable game page with cancel, close/reopen and
bulk-created tables, suspensions, wallet adjustments in rupees with a second approval, the
audit trail and the dashboard. It extends the other apps' admin classes from here, so that
only this app depends on the staff services."""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from accounts import play
from accounts.admin import PlayerAdmin
from accounts.models import SelfExclusion, Suspension, User
from rummy_site.admin_base import ReadOnlyAdmin
from staff import selectors, services
from staff.forms import BulkTablesForm, CancelGameForm, ReasonForm, SuspendForm
from staff.models import AdjustmentRequest, StaffAction
from tables.admin import PoolGameAdmin, TableAdmin, TableSettingsAdmin
from tables.models import PoolGame, Table, TableSettings
from wallet.admin import ADJUST_PERMISSION, ADJUSTABLE_KINDS, AccountAdmin
from wallet.forms import AdjustmentForm
from wallet.models import Account, AccountKind
from wallet.money import format_money
from wallet.selectors import chip_balances

CANCEL = "staff.cancel_game"
CLOSE = "staff.close_table"
SUSPEND = "accounts.suspend_player"
APPROVE = "staff.approve_adjustment"


def _context(model_admin: admin.ModelAdmin, request: HttpRequest, **extra: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    return {**model_admin.admin_site.each_context(request), "opts": model_admin.model._meta, **extra}


# ---------------------------------------------------------------------------
# the audit trail: staff read it, nobody edits it
# ---------------------------------------------------------------------------
@admin.register(StaffAction)
class StaffActionAdmin(ReadOnlyAdmin):
    list_display = ("at", "staff", "action", "target", "reason")
    list_filter = ("action", "staff")
    search_fields = ("target", "reason", "staff__username")
    date_hierarchy = "at"
    readonly_fields = ("at", "staff", "action", "target", "reason", "before", "after")


# ---------------------------------------------------------------------------
# games
# ---------------------------------------------------------------------------
admin.site.unregister(PoolGame)


@admin.register(PoolGame)
class StaffPoolGameAdmin(PoolGameAdmin):
    """The game page in words and rupees; staff see every hand of a running game."""

    list_display = ("id", "table", "status", "players", "started_at", "finished_at")

    @admin.display(description="players")
    def players(self, game: PoolGame) -> str:
        return ", ".join(
            s.user.table_name for s in game.seats.filter(left_at__isnull=True).select_related("user")
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<int:game_id>/cancel/",
                self.admin_site.admin_view(self.cancel_view),
                name="tables_poolgame_cancel",
            )
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
                    staff=request.user,
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


# ---------------------------------------------------------------------------
# tables and table settings
# ---------------------------------------------------------------------------
admin.site.unregister(Table)
admin.site.unregister(TableSettings)


@admin.register(Table)
class StaffTableAdmin(TableAdmin):
    list_display = ("name", "settings", "is_open", "created_at")
    list_filter = ("is_open", "settings__format")
    readonly_fields = ("is_open",)
    actions = ["close_tables", "reopen_tables"]

    def has_close_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(CLOSE))

    def _set_open(self, request: HttpRequest, queryset: QuerySet[Table], is_open: bool) -> None:
        reason = "closed by staff" if not is_open else "reopened by staff"
        for table in queryset:
            try:
                services.set_table_open(staff=request.user, table=table, is_open=is_open, reason=reason)
            except services.StaffError as exc:
                self.message_user(request, f"{table}: {exc}", messages.ERROR)
        word = "closed (running games play to their end)" if not is_open else "reopened"
        self.message_user(request, f"{queryset.count()} table(s) {word}.", messages.SUCCESS)

    @admin.action(description="Close: no new games (a running game finishes)", permissions=["close"])
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        self._set_open(request, queryset, False)

    @admin.action(description="Reopen", permissions=["close"])
    def reopen_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> None:
        self._set_open(request, queryset, True)


@admin.register(TableSettings)
class StaffTableSettingsAdmin(TableSettingsAdmin):
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
                            staff=request.user,
                            settings_row=row,
                            count=form.cleaned_data["count"],
                            prefix=form.cleaned_data["prefix"] if queryset.count() == 1 else "",
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


@admin.register(User)
class StaffPlayerAdmin(PlayerAdmin):
    list_display = ("username", "display_name", "email", "is_staff", "play_status", "date_joined")
    actions = ["suspend_players", "lift_suspensions"]

    @admin.display(description="may play?")
    def play_status(self, user: User) -> str:
        return play.block_reason(user) or "yes"

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
                        staff=request.user,
                        user=user,
                        reason=form.cleaned_data["reason"],
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
                        staff=request.user, user=user, reason=form.cleaned_data["reason"]
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


@admin.register(Suspension)
class SuspensionAdmin(ReadOnlyAdmin):
    list_display = ("user", "reason", "starts_at", "ends_at", "created_by", "lifted_at", "lifted_by")
    search_fields = ("user__username", "reason")


@admin.register(SelfExclusion)
class SelfExclusionAdmin(ReadOnlyAdmin):
    """Staff see self-exclusions; nobody may shorten or delete one."""

    list_display = ("user", "period", "starts_at", "ends_at")
    search_fields = ("user__username",)


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
        if not self.has_adjust_permission(request):
            raise PermissionDenied
        account = get_object_or_404(Account, pk=account_id, kind__in=ADJUSTABLE_KINDS)
        player = get_object_or_404(User, pk=account.player_id)
        initial = {"chips": "bonus" if account.kind == AccountKind.BONUS else "cash"}
        form = AdjustmentForm(request.POST or None, initial=initial)
        if request.method == "POST" and form.is_valid():
            bonus = form.cleaned_data["chips"] == "bonus"
            try:
                done = services.adjust_wallet(
                    staff=request.user,
                    user=player,
                    amount=form.cleaned_data["amount"],
                    reason=form.cleaned_data["reason"],
                    key=form.cleaned_data["idempotency_key"],
                    bonus=bonus,
                )
            except services.StaffError as exc:
                form.add_error("amount", str(exc))
            else:
                if isinstance(done, AdjustmentRequest):
                    self.message_user(
                        request,
                        f"{format_money(done.amount)} for {player} is above "
                        f"{format_money(services.approval_threshold())}: it waits for another staff member's approval.",
                        messages.WARNING,
                    )
                else:
                    chips = "bonus" if bonus else "cash"
                    self.message_user(
                        request,
                        f"{player}'s {chips} chips adjusted by {format_money(form.cleaned_data['amount'])}; "
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
                threshold=format_money(services.approval_threshold())
                if services.approval_threshold()
                else None,
            ),
        )


@admin.register(AdjustmentRequest)
class AdjustmentRequestAdmin(ReadOnlyAdmin):
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

    @admin.display(description="amount")
    def amount_display(self, obj: AdjustmentRequest) -> str:
        return format_money(obj.amount)

    def has_approve_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(APPROVE) and request.user.has_perm(ADJUST_PERMISSION))

    def _decide(self, request: HttpRequest, queryset: QuerySet[AdjustmentRequest], approve: bool) -> None:
        for req in queryset:
            try:
                services.decide_adjustment(staff=request.user, request=req, approve=approve)
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
