"""JSON API of the player's own wallet (session auth; each view calls one selector or service).

A refusal is raised, not answered here: the API's exception handler (``tables.errors``) gives every
error the one shape ``{code, rule, message}`` and its status.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.requests import signed_in
from core.money import format_money
from wallet.selectors import chip_balances, wallet_history
from wallet.services import claim_daily_topup


class BalanceSerializer(serializers.Serializer):  # type: ignore[type-arg]  # generic in the DRF stubs over what it serializes; nothing here narrows it
    balance = serializers.IntegerField(
        help_text="Paise (1 chip = 100) the player can pay entry fees with: cash + bonus."
    )
    cash = serializers.IntegerField(help_text="Cash chips, paise: winnings and staff credits.")
    bonus = serializers.IntegerField(
        help_text="Bonus chips, paise: the sign-up bonus and daily chips; they pay entry fees only (docs/rules.md §8.6)."
    )
    display = serializers.CharField(help_text="Formatted, e.g. ₹12.50.")
    currency_symbol = serializers.CharField()


class WalletEntrySerializer(serializers.Serializer):  # type: ignore[type-arg]  # generic in the DRF stubs over what it serializes; nothing here narrows it
    id = serializers.IntegerField()
    transaction_id = serializers.IntegerField()
    created_at = serializers.DateTimeField(source="transaction.created_at")
    kind = serializers.CharField(source="transaction.kind")
    memo = serializers.CharField(source="transaction.memo")
    account = serializers.CharField(source="account.kind", help_text="`wallet` (cash) or `bonus`.")
    amount = serializers.IntegerField(help_text="Signed paise: + credit, - debit.")
    balance_after = serializers.IntegerField(
        help_text="That account's balance right after this entry, paise."
    )


def _balance_payload(user: Any) -> dict[str, object]:
    chips = chip_balances(user=user)
    return {
        "balance": chips["total"],
        "cash": chips["cash"],
        "bonus": chips["bonus"],
        "display": format_money(chips["total"]),
        "currency_symbol": settings.CURRENCY_SYMBOL,
    }


class WalletBalanceApi(APIView):
    @extend_schema(operation_id="wallet_balance", responses=BalanceSerializer, tags=["wallet"])
    def get(self, request: Request) -> Response:
        """The logged-in player's balance."""
        return Response(BalanceSerializer(_balance_payload(request.user)).data)


class WalletTransactionsApi(ListAPIView):  # type: ignore[type-arg]  # generic in the DRF stubs over what it serializes; nothing here narrows it
    """The logged-in player's own wallet entries, newest first, paginated."""

    serializer_class = WalletEntrySerializer

    def get_queryset(self):
        return wallet_history(user=self.request.user)

    @extend_schema(operation_id="wallet_transactions", tags=["wallet"])
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


DailyClaimSerializer = inline_serializer(
    name="DailyClaim",
    fields={
        "transaction_id": serializers.IntegerField(),
        "amount": serializers.IntegerField(help_text="Paise credited (as bonus chips)."),
        "balance": serializers.IntegerField(),
        "cash": serializers.IntegerField(),
        "bonus": serializers.IntegerField(),
        "display": serializers.CharField(),
        "currency_symbol": serializers.CharField(),
    },
)


class WalletDailyClaimApi(APIView):
    @extend_schema(
        operation_id="wallet_claim_daily",
        request=None,
        responses={
            201: DailyClaimSerializer,
            409: OpenApiResponse(
                description="Today's (UTC) free chips were already claimed (`daily_chips_claimed`), or "
                "the account has not earned its mailbox's sign-up bonus (`daily_chips_need_mailbox`)."
            ),
        },
        tags=["wallet"],
    )
    def post(self, request: Request) -> Response:
        """Claim today's free chips (once per UTC day); a second claim is refused (409)."""
        txn = claim_daily_topup(user=signed_in(request))
        amount = txn.entries.get(amount__gt=0).amount
        payload = {
            "transaction_id": txn.pk,
            "amount": amount,
            **_balance_payload(request.user),
        }
        return Response(payload, status=status.HTTP_201_CREATED)
