from django.apps import AppConfig


class StaffConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "staff"
    verbose_name = "Staff operations"

    def ready(self) -> None:
        from staff import receivers  # noqa: F401  (connects accounts.play.play_blocked to the tables)
