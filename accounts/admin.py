"""The accounts' pages: players, roles, and what is kept beside an account (suspensions,
self-exclusions, limits, e-mail changes). Each is read-only here or Django's own; what staff
may do on them (a reason on each save, suspend, undo an e-mail change) is added by
``staff.admin.players`` and ``staff.admin.player_records``."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin, UserAdmin
from django.contrib.auth.models import Group
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.models import EmailChange, PlayLimit, SelfExclusion, Suspension, User
from core import admin_parts
from core.admin_base import QuickRowsMixin, ReadOnlyAdmin
from core.money import format_money


@admin_parts.register(User)
class PlayerAdmin(QuickRowsMixin, UserAdmin):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    fieldsets = (*UserAdmin.fieldsets, ("Table", {"fields": ("display_name",)}))  # type: ignore[misc]  # Optional in django-stubs; Django's UserAdmin always sets it
    list_display: tuple[str, ...] = ("username", "display_name", "email", "is_staff", "date_joined")
    search_fields = ("username", "display_name", "email")


admin.site.unregister(Group)  # Django's own page for roles: this app's takes its place, once


@admin_parts.register(Group)
class RoleAdmin(QuickRowsMixin, GroupAdmin):
    """Roles, each a group of permissions (``staff.roles`` makes them)."""


@admin_parts.register(Suspension)
class SuspensionAdmin(ReadOnlyAdmin):
    list_display = ("user", "reason", "starts_at", "ends_at", "created_by", "lifted_at", "lifted_by")
    search_fields = ("user__username", "reason")
    # who lifted a suspension is read after the page (one query): joined, that empty column made
    # PostgreSQL hash every account before it sorted and cut the page
    list_select_related = ("user", "created_by")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Suspension]:
        return super().get_queryset(request).prefetch_related("lifted_by")


@admin_parts.register(SelfExclusion)
class SelfExclusionAdmin(ReadOnlyAdmin):
    """Staff see self-exclusions; nobody may shorten or delete one."""

    list_display = ("user", "period", "starts_at", "ends_at")
    search_fields = ("user__username",)
    list_select_related = ("user",)


@admin_parts.register(PlayLimit)
class PlayLimitAdmin(ReadOnlyAdmin):
    """Players' own daily limits (each setting kept: a raise waits 24 hours); only the player sets them."""

    list_display = ("user", "kind", "value_display", "effective_at", "created_at")
    list_filter = ("kind",)
    search_fields = ("user__username", "user__email")
    list_select_related = ("user",)
    fields = ("user", "kind", "value_display", "effective_at", "created_at")
    readonly_fields = fields

    @admin.display(description="limit")
    def value_display(self, row: PlayLimit) -> str:
        if row.value is None:
            return "no limit"
        return format_money(row.value) if row.kind == PlayLimit.Kind.SPEND else f"{row.value} minutes"


@admin_parts.register(EmailChange)
class EmailChangeAdmin(ReadOnlyAdmin):
    """Staff changes of an address and the reset holds they started (``accounts.emailchange``)."""

    list_display = ("user", "old_email", "new_email", "changed_by", "created_at", "held_until", "reverted_at")
    list_select_related = ("user", "changed_by")
    search_fields = ("user__username", "old_email", "new_email")
    fields = (
        "user",
        "old_email",
        "new_email",
        "changed_by",
        "created_at",
        "held_until",
        "reverted_at",
        "reverted_by",
    )
    readonly_fields = fields
