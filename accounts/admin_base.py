"""Admin bases for records only a service layer writes: staff may look, never edit.

Here, in the lowest app with an admin, so that every app's admin may use them (the apps are
layered, pyproject.toml's import-linter contract: none imports one above it).
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.paginator import Paginator
from django.db import connection
from django.http import HttpRequest
from django.utils.functional import cached_property


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


#: Tables at least this big (by PostgreSQL's estimate) are not counted row by row on an unfiltered list.
ESTIMATE_ABOVE = 100_000


class EstimatedCountPaginator(Paginator):
    """An admin list's paginator that does not count a big table row by row (issue 27).

    An unfiltered list of a big table (the ledger, the event log) would run ``COUNT(*)`` over
    every row on each load; on PostgreSQL it takes the planner's estimate of the table's rows
    (``pg_class.reltuples``, kept by autovacuum) instead, once that passes ``ESTIMATE_ABOVE``. A
    filtered or searched list, and any list elsewhere, is counted exactly.
    """

    @cached_property
    def count(self) -> int:
        query = getattr(self.object_list, "query", None)
        if query is not None and not query.where and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass",
                    [self.object_list.model._meta.db_table],
                )
                row = cursor.fetchone()
            if row and row[0] >= ESTIMATE_ABOVE:
                return int(row[0])
        return int(super().count)


class BigListMixin:
    """For the lists of tables that grow without end: no whole-table count (Django's "N total"
    beside a filtered count is not shown, and an unfiltered count is PostgreSQL's estimate)."""

    paginator = EstimatedCountPaginator
    show_full_result_count = False
