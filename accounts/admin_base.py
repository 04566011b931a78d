"""Admin bases for records only a service layer writes: staff may look, never edit.

Here, in the lowest app with an admin, so that every app's admin may use them (the apps are
layered, pyproject.toml's import-linter contract: none imports one above it).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from accounts.admin_paging import EstimatedCountPaginator, SeekChangeList


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


class BigListMixin:
    """For the lists of tables that grow without end (``accounts.admin_paging``): a count that
    reads at most a capped number of rows (an estimate past it, said so), seek pages past the
    first few, and no facet counts ("Show counts" would count every row of every filter value)."""

    paginator = EstimatedCountPaginator
    show_full_result_count = False
    show_facets = admin.ShowFacets.NEVER

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> Any:
        return SeekChangeList
