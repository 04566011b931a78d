from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "integrity"
    verbose_name = "Fair play"

    def ready(self) -> None:
        from integrity import (  # noqa: F401
            capture,  # sign-up and log-in capture, e-mail keys
            seating,  # linked accounts kept apart at tables.game.seating.seat_requested
        )
