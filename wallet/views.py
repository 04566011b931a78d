"""The player's wallet page."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from accounts.requests import signed_in
from core.money import chips, format_money
from wallet.errors import DailyTopupAlreadyClaimed, DailyTopupNeedsMailbox
from wallet.selectors import chip_balances, daily_topup_claimed, wallet_history_page
from wallet.services import claim_daily_topup, daily_topup_allowed


@login_required
def wallet_page(request: HttpRequest) -> HttpResponse:
    user = signed_in(request)
    context = {
        "chips": chip_balances(user=user),
        "page": wallet_history_page(user=user, page=request.GET.get("page")),
        "daily_claimed": daily_topup_claimed(user=user),
        "daily_allowed": daily_topup_allowed(user=user),
        "daily_amount": chips(settings.DAILY_TOPUP_CHIPS),
    }
    return render(request, "wallet/wallet.html", context)


@login_required
@require_POST
def claim_daily(request: HttpRequest) -> HttpResponse:
    try:
        txn = claim_daily_topup(user=signed_in(request))
    except DailyTopupAlreadyClaimed:
        messages.error(request, "You have already claimed today's free chips. Come back after midnight UTC.")
    except DailyTopupNeedsMailbox as exc:
        messages.error(request, str(exc))
    else:
        amount = txn.entries.get(amount__gt=0).amount
        messages.success(request, f"{format_money(amount)} of free bonus chips added to your wallet.")
    return redirect("wallet")
