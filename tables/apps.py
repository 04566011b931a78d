from django.apps import AppConfig


class TablesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tables"

    def ready(self) -> None:
        from tables import signals  # noqa: F401  (connects the sign-out receivers)
