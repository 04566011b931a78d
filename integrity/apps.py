from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "integrity"
    verbose_name = "Fair play"

    def ready(self) -> None:
        from integrity import capture  # noqa: F401  (sign-up and log-in capture, e-mail keys)
