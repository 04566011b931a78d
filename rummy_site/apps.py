from django.apps import AppConfig
from django.db.models.signals import post_migrate


class SiteConfig(AppConfig):
    """The site itself as an app: it comes before django-auditlog in INSTALLED_APPS, so its
    ``auditlogflush`` is the one ``manage.py`` runs, and it grants the app role after every migrate."""

    name = "rummy_site"
    verbose_name = "Site"

    def ready(self) -> None:
        from django.conf import settings

        from rummy_site.db_roles import grant_after_migrate
        from sitemetrics import instruments

        instruments.ENABLED = settings.METRICS  # METRICS=0: nothing recorded (docs/operations.md)

        post_migrate.connect(grant_after_migrate, sender=self, dispatch_uid="rummy_site.grant_app_role")
