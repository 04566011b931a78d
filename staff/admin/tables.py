"""Tables and table settings: close and reopen, tables made in bulk; every save with a reason."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from accounts.requests import signed_in
from staff import services
from staff.admin.pages import CLOSE, page_context
from staff.admin.reasons import ReasonedAdminMixin
from staff.forms import BulkTablesForm, ReasonForm
from tables.admin import TableAdmin, TableSettingsAdmin
from tables.models import Table, TableSettings


@admin.register(Table)
class StaffTableAdmin(ReasonedAdminMixin, TableAdmin):
    list_display = ("name", "settings", "is_open", "created_at")
    list_filter = ("is_open", "settings__format")
    readonly_fields = ("is_open",)
    actions = ["close_tables", "reopen_tables"]

    def has_close_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(CLOSE))

    def _set_open(
        self, request: HttpRequest, queryset: QuerySet[Table], is_open: bool
    ) -> HttpResponse | None:
        action = "reopen_tables" if is_open else "close_tables"
        form = ReasonForm(request.POST if "apply" in request.POST else None)
        if not ("apply" in request.POST and form.is_valid()):
            title = "Reopen tables" if is_open else "Close tables (a running game finishes)"
            return TemplateResponse(
                request,
                "admin/staff/reason_action.html",
                page_context(self, request, title=title, form=form, queryset=queryset, action=action),
            )
        for table in queryset:
            try:
                services.set_table_open(
                    staff=signed_in(request), table=table, is_open=is_open, reason=form.cleaned_data["reason"]
                )
            except services.StaffError as exc:
                self.message_user(request, f"{table}: {exc}", messages.ERROR)
        word = "closed (running games play to their end)" if not is_open else "reopened"
        self.message_user(request, f"{queryset.count()} table(s) {word}.", messages.SUCCESS)
        return None

    @admin.action(description="Close: no new games (a running game finishes)", permissions=["close"])
    def close_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        return self._set_open(request, queryset, False)

    @admin.action(description="Reopen", permissions=["close"])
    def reopen_tables(self, request: HttpRequest, queryset: QuerySet[Table]) -> HttpResponse | None:
        return self._set_open(request, queryset, True)


@admin.register(TableSettings)
class StaffTableSettingsAdmin(ReasonedAdminMixin, TableSettingsAdmin):
    actions = ["create_tables"]

    def has_close_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(CLOSE))

    @admin.action(description="Create tables from these settings", permissions=["close"])
    def create_tables(self, request: HttpRequest, queryset: QuerySet[TableSettings]) -> HttpResponse | None:
        form = BulkTablesForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            made = 0
            for row in queryset:
                try:
                    made += len(
                        services.create_tables(
                            staff=signed_in(request),
                            settings_row=row,
                            count=form.cleaned_data["count"],
                            prefix=form.cleaned_data["prefix"] if queryset.count() == 1 else "",
                            reason=form.cleaned_data["reason"],
                        )
                    )
                except services.StaffError as exc:
                    self.message_user(request, str(exc), messages.ERROR)
            self.message_user(request, f"{made} table(s) created.", messages.SUCCESS)
            return None
        return TemplateResponse(
            request,
            "admin/staff/bulk_tables.html",
            page_context(self, request, title="Create tables", form=form, queryset=queryset),
        )
