from django.apps import AppConfig
from django.db.models.signals import post_migrate


class StaffConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "staff"
    verbose_name = "Staff operations"

    def ready(self) -> None:
        from staff import (  # noqa: F401
            authority,  # refuses, below every form, a staff change the roles do not allow
            credentials,  # holds resets back after a staff change of an address (after authority)
        )
        from staff.roles import ensure_groups

        post_migrate.connect(ensure_groups, sender=self)
