"""Read-only ledger in the admin, with a "Credit / debit" link on each player's cash and bonus
accounts (the form behind it, with its second approval, is ``staff.admin``)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from accounts.models import User
from rummy_site.admin_base import ReadOnlyAdmin, ReadOnlyTabularInline
from wallet.models import Account, AccountKind, Entry, LedgerTransaction
from wallet.money import format_money

ADJUST_PERMISSION = "wallet.adjust_balance"
#: How many players a name search looks at for their bonus accounts.
SEARCH_PLAYERS = 100
#: The accounts staff may credit or debit: a player's cash chips and their bonus chips.
ADJUSTABLE_KINDS = (AccountKind.WALLET, AccountKind.BONUS)


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
    fields = ("kind", "ref", "user", "balance_display", "created_at")
    readonly_fields = fields

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Account], search_term: str
    ) -> tuple[QuerySet[Account], bool]:
        """A player's name also finds their bonus account, which has no ``user`` link (only the
        wallet has that one-to-one link), so a player holding free chips only is found too."""
        results, duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if term:
            players = User.objects.filter(Q(username__icontains=term) | Q(display_name__icontains=term))
            refs = [f"user:{pk}" for pk in players.values_list("pk", flat=True)[:SEARCH_PLAYERS]]
            results = results | queryset.filter(kind=AccountKind.BONUS, ref__in=refs)
        return results, duplicates

    @admin.display(description="balance", ordering="balance")
    def balance_display(self, account: Account) -> str:
        return format_money(account.balance)

    @admin.display(description="")
    def adjust_link(self, account: Account) -> str:
        if account.kind not in ADJUSTABLE_KINDS:
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
        wallets = list(queryset.filter(kind__in=ADJUSTABLE_KINDS)[:2])
        if len(wallets) != 1 or queryset.count() != 1:
            self.message_user(request, "Select exactly one player's cash or bonus account.", messages.WARNING)
            return None
        return HttpResponseRedirect(reverse("admin:wallet_account_adjust", args=[wallets[0].pk]))
