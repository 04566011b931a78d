"""Admin bases for records only a service layer writes: staff may look, never edit."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]
    pass


class ReadOnlyTabularInline(ReadOnlyMixin, admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False
