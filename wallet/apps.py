from django.apps import AppConfig


class WalletConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "wallet"

    def ready(self) -> None:
        from wallet import receivers  # noqa: F401  (a new account's sign-up bonus)
