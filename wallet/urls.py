from django.urls import path

from wallet import views

urlpatterns = [
    path("", views.wallet_page, name="wallet"),
    path("daily/", views.claim_daily, name="wallet-daily"),
]
