from django.apps import AppConfig

from tables import signals  # noqa: F401  (connects the sign-out receivers; it imports no models)


class TablesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "tables"

    def ready(self) -> None:
        from tables import receivers  # noqa: F401  (drops a blocked player at their tables)
