"""Tables and table settings: close and reopen, tables made in bulk; every save with a reason."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse

from accounts.requests import signed_in
from core.admin_parts import extends
from staff import services
from staff.admin.pages import CLOSE
from staff.admin.reasons import ReasonedAdminMixin, reasoned_action
from staff.forms import BulkTablesForm, ReasonForm
from tables.models import Table, TableSettings

if TYPE_CHECKING:
    from tables.admin import TableAdmin as TablePage
    from tables.admin import TableSettingsAdmin as SettingsPage
else:
    TablePage = SettingsPage = object


@extends(Table)
class StaffTablePart(ReasonedAdminMixin, TablePage):
    actions = ["close_tables", "reopen_tables"]

    def has_close_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(CLOSE))

    def _set_open(
        self, request: HttpRequest, queryset: QuerySet[Table], is_open: bool
    ) -> HttpResponse | None:
        def set_open(table: Table, data: dict[str, Any]) -> None:
            services.set_table_open(
                staff=signed_in(request), table=table, is_open=is_open, reason=data["reason"]
            )

        word = "reopened" if is_open else "closed (running games play to their end)"
        return reasoned_action(
            self,
            request,
            queryset,
            form=ReasonForm,
            title="Reopen tables" if is_open else "Close tables (a running game finishes)",
            action="reopen_tables" if is_open else "close_tables",
            each=set_open,
            refusals=(services.StaffError,),
            summary=lambda: f"{queryset.count()} table(s) {word}.",
        )

    @admin.action(description="Close: no new games (a running game finishes)", permissions=["close"])
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        return self._set_open(request, queryset, False)

    @admin.action(description="Reopen", permissions=["close"])
    def reopen_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        return self._set_open(request, queryset, True)


@extends(TableSettings)
class StaffTableSettingsPart(ReasonedAdminMixin, SettingsPage):
    actions = ["create_tables"]

    def has_close_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(CLOSE))

    @admin.action(description="Create tables from these settings", permissions=["close"])
    def create_tables(self, request: HttpRequest, queryset: QuerySet[TableSettings]) -> HttpResponse | None:
        made: list[Table] = []

        def create(row: TableSettings, data: dict[str, Any]) -> None:
            made.extend(
                services.create_tables(
                    staff=signed_in(request),
                    settings_row=row,
                    count=data["count"],
                    prefix=data["prefix"] if queryset.count() == 1 else "",
                    reason=data["reason"],
                )
            )

        return reasoned_action(
            self,
            request,
            queryset,
            form=BulkTablesForm,
            title="Create tables",
            template="admin/staff/bulk_tables.html",
            each=create,
            refusals=(services.StaffError,),
            summary=lambda: f"{len(made)} table(s) created.",
        )
