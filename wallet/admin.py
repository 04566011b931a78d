"""Read-only ledger in the admin, with a "Credit / debit" link on each player's cash and bonus
accounts (the form behind it, with its second approval, is ``staff.admin.wallets``)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from accounts.lookup import named
from accounts.models import User
from core import admin_parts
from core.admin_base import BigListMixin, ReadOnlyAdmin, ReadOnlyTabularInline
from core.money import format_money
from wallet.models import Account, AccountKind, Entry, LedgerTransaction

ADJUST_PERMISSION = "wallet.adjust_balance"
#: How many players a name search looks at for their bonus accounts.
SEARCH_PLAYERS = 100
#: The accounts staff may credit or debit: a player's cash chips and their bonus chips.
ADJUSTABLE_KINDS = (AccountKind.WALLET, AccountKind.BONUS)
#: Every kind, stated so that a search by ref reads the (kind, ref) unique index, not every account.
ALL_KINDS = Q(kind__in=list(AccountKind.values))


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


def _accounts_named(term: str) -> list[int]:
    """Ledger accounts a search term names: its exact ref (``game:12``, ``user:5``, ``house``) or the
    cash and bonus accounts of the player with that exact user name or e-mail address."""
    refs = [term, *(f"user:{pk}" for pk in named(term).values_list("pk", flat=True)[:10])]
    return list(Account.objects.filter(ALL_KINDS, ref__in=refs).values_list("pk", flat=True))


@admin.register(LedgerTransaction)
class LedgerTransactionAdmin(BigListMixin, ReadOnlyAdmin):
    list_display = ("id", "created_at", "kind", "memo", "caused_by", "idempotency_key")
    sortable_by = ("id", "created_at", "kind", "idempotency_key")  # each read by an index
    # a date filter rather than a date hierarchy, which reads the dates of every row on each load
    list_filter = ("kind", ("created_at", admin.DateFieldListFilter))
    search_fields = ("idempotency_key",)  # read by get_search_results below
    search_help_text = (
        "A transaction id; an idempotency key; an account (game:12, house) or a player's exact user "
        "name or e-mail address: every transaction on their cash and bonus accounts; a staff member's "
        "user name: what they caused."
    )
    inlines = [EntryInline]
    list_select_related = ("caused_by",)
    show_full_result_count = False

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[LedgerTransaction], search_term: str
    ) -> tuple[QuerySet[LedgerTransaction], bool]:
        """Each kind of term read by an index, never a scan of every memo: grants and settlements
        carry no ``caused_by``, so a player's transactions are found by their accounts' entries."""
        term = search_term.strip()
        if not term:
            return queryset, False
        if term.isdigit() and len(term) < 19:
            return queryset.filter(pk=int(term)), False
        accounts = _accounts_named(term)
        if accounts:
            legs = Entry.objects.filter(transaction_id=OuterRef("pk"), account_id__in=accounts)
            return queryset.filter(Exists(legs)), False
        staff = list(User.objects.filter(username=term).values_list("pk", flat=True))
        return queryset.filter(Q(idempotency_key=term) | Q(caused_by_id__in=staff)), False


# what staff may do on this page: ``staff.admin.wallets``, composed over it (``core.admin_parts``)
@admin_parts.register(Account)
class AccountAdmin(BigListMixin, ReadOnlyAdmin):
    list_display = ("id", "kind", "ref", "user", "balance_display", "adjust_link")
    sortable_by = ("id", "kind")  # each read by an index
    list_filter = ("kind",)
    search_fields = ("ref",)  # read by get_search_results below
    search_help_text = "An account's ref (user:5, game:12, house) or id, or a player's name or e-mail address (or part of it)."
    list_select_related = ("user",)
    actions = ["credit_or_debit"]
    fields = ("kind", "ref", "user", "balance_display", "created_at")
    readonly_fields = fields

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[Account], search_term: str
    ) -> tuple[QuerySet[Account], bool]:
        """A player's name also finds their bonus account, which has no ``user`` link (only the
        wallet has that one-to-one link), so a player holding free chips only is found too."""
        term = search_term.strip()
        if not term:
            return queryset, False
        players = User.objects.filter(
            Q(username__icontains=term) | Q(display_name__icontains=term) | Q(email__icontains=term)
        )
        refs = [term, *(f"user:{pk}" for pk in players.values_list("pk", flat=True)[:SEARCH_PLAYERS])]
        found = ALL_KINDS & Q(ref__in=refs)
        if term.isdigit() and len(term) < 19:
            found |= Q(pk=int(term))
        return queryset.filter(found), False

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
