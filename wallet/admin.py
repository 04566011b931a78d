"""Read-only ledger in the admin, plus a staff form that credits or debits a wallet via ``adjust``."""

from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from rummy_site.admin_base import ReadOnlyAdmin, ReadOnlyTabularInline
from wallet.errors import WalletError
from wallet.forms import AdjustmentForm
from wallet.models import Account, AccountKind, Entry, LedgerTransaction
from wallet.money import format_money
from wallet.services import adjust

ADJUST_PERMISSION = "wallet.adjust_balance"


class EntryInline(ReadOnlyTabularInline):
    """The ledger is only ever written by ``wallet.services``."""

    model = Entry
    fields = ("account", "amount_display", "balance_after_display")
    readonly_fields = fields

    @admin.display(description="amount")
    def amount_display(self, entry: Entry) -> str:
        return format_money(entry.amount)

    @admin.display(description="balance after")
    def balance_after_display(self, entry: Entry) -> str:
        return format_money(entry.balance_after)


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(ReadOnlyAdmin):
    list_display = ("id", "created_at", "kind", "memo", "caused_by", "idempotency_key")
    list_filter = ("kind",)
    search_fields = ("idempotency_key", "memo", "caused_by__username")
    date_hierarchy = "created_at"
    inlines = [EntryInline]
    list_select_related = ("caused_by",)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    list_display = ("id", "kind", "ref", "user", "balance_display", "adjust_link")
    list_filter = ("kind",)
    search_fields = ("ref", "user__username", "user__display_name")
    list_select_related = ("user",)
    actions = ["credit_or_debit"]

    @admin.display(description="balance", ordering="balance")
    def balance_display(self, account: Account) -> str:
        return format_money(account.balance)

    @admin.display(description="")
    def adjust_link(self, account: Account) -> str:
        if account.kind != AccountKind.WALLET:
            return ""
        return format_html(
            '<a href="{}">Credit / debit</a>', reverse("admin:wallet_account_adjust", args=[account.pk])
        )

    def has_adjust_permission(self, request: HttpRequest) -> bool:
        return bool(
            request.user.is_active and request.user.is_staff and request.user.has_perm(ADJUST_PERMISSION)
        )

    @admin.action(description="Credit or debit this player", permissions=["adjust"])
    def credit_or_debit(self, request: HttpRequest, queryset: QuerySet[Account]) -> HttpResponse | None:
        wallets = list(queryset.filter(kind=AccountKind.WALLET)[:2])
        if len(wallets) != 1 or queryset.count() != 1:
            self.message_user(request, "Select exactly one player wallet.", messages.WARNING)
            return None
        return HttpResponseRedirect(reverse("admin:wallet_account_adjust", args=[wallets[0].pk]))

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
        """Staff credit/debit of one wallet; every change goes through ``services.adjust``."""
        if not self.has_adjust_permission(request):
            raise PermissionDenied
        account = get_object_or_404(
            Account.objects.select_related("user"), pk=account_id, kind=AccountKind.WALLET
        )
        form = AdjustmentForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                adjust(
                    user=account.user,
                    amount=form.cleaned_data["amount"],
                    reason=form.cleaned_data["reason"],
                    staff_user=request.user,
                    idempotency_key=form.cleaned_data["idempotency_key"],
                )
            except WalletError as exc:
                form.add_error(None, str(exc))
            else:
                account.refresh_from_db()
                self.message_user(
                    request,
                    f"{account.user} adjusted by {format_money(form.cleaned_data['amount'])}; "
                    f"balance now {format_money(account.balance)}.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:wallet_account_changelist"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Credit or debit {account.user}",
            "account": account,
            "balance": format_money(account.balance),
            "form": form,
        }
        return TemplateResponse(request, "admin/wallet/account/adjust.html", context)
