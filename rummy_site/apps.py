from django.apps import AppConfig
from django.db.models.signals import post_migrate, pre_migrate


class SiteConfig(AppConfig):
    """The site itself as an app: it comes before django-auditlog in INSTALLED_APPS, so its
    ``auditlogflush`` is the one ``manage.py`` runs, it grants the app role after every migrate, it
    bounds each migration's wait for a lock (``rummy_site.migration_locks``), and it builds the admin
    site from each app's pages and the parts apps above add to them (``core.admin_parts``)."""

    name = "rummy_site"
    verbose_name = "Site"

    def ready(self) -> None:
        from django.conf import settings
        from django.contrib import admin

        from core import admin_parts
        from rummy_site.db_roles import grant_after_migrate
        from rummy_site.migration_locks import limit_lock_waits, reset_lock_waits
        from sitemetrics import instruments

        # after django.contrib.admin's own ready(), which imported every app's admin module
        admin_parts.install(admin.site)
        instruments.ENABLED = settings.METRICS  # METRICS=0: nothing recorded (docs/operations.md)

        pre_migrate.connect(limit_lock_waits, sender=self, dispatch_uid="rummy_site.limit_lock_waits")
        post_migrate.connect(grant_after_migrate, sender=self, dispatch_uid="rummy_site.grant_app_role")
        post_migrate.connect(reset_lock_waits, sender=self, dispatch_uid="rummy_site.reset_lock_waits")
