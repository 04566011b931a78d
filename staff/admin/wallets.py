"""Wallet adjustments in rupees, with a second approval above the threshold."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from accounts.models import User
from accounts.requests import signed_in
from core.admin_base import ReadOnlyAdmin
from core.admin_parts import extends
from core.money import format_money
from staff import adjustments, audit, authority, money_controls, roles, services
from staff.admin.pages import APPROVE, page_context
from staff.models import AdjustmentRequest
from wallet.admin import ADJUST_PERMISSION, ADJUSTABLE_KINDS
from wallet.forms import AdjustmentForm
from wallet.models import Account, AccountKind
from wallet.selectors import chip_balances

if TYPE_CHECKING:
    from wallet.admin import AccountAdmin as AccountPage
else:
    AccountPage = object


@extends(Account)
class StaffAccountPart(AccountPage):
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
        """Credit or debit through ``staff.adjustments.adjust_wallet``: the form is kept with the error.

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
                adjusted = adjustments.adjust_wallet(
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
            page_context(
                self,
                request,
                title=f"Credit or debit {player}",
                player=player,
                cash=format_money(balances["cash"]),
                bonus=format_money(balances["bonus"]),
                form=form,
                controls=money_controls.adjustment_controls(staff=signed_in(request)),
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
                adjustments.decide_adjustment(staff=signed_in(request), request=req, approve=approve)
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
