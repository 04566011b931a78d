from django.urls import path

from wallet import apis

urlpatterns = [
    path("", apis.WalletBalanceApi.as_view(), name="api-wallet"),
    path("transactions/", apis.WalletTransactionsApi.as_view(), name="api-wallet-transactions"),
    path("daily/", apis.WalletDailyClaimApi.as_view(), name="api-wallet-daily"),
]
