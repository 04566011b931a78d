"""The audit trail (``StaffAction``): staff read it, nobody edits it."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import Q, QuerySet
from django.http import HttpRequest

from accounts.models import User
from core.admin_base import BigListMixin, ReadOnlyAdmin
from staff.models import StaffAction

if admin.site.is_registered(StaffAction):  # django-auditlog's own page for its log-entry model
    admin.site.unregister(StaffAction)


class ByStaffFilter(admin.SimpleListFilter):
    """Who did it: staff members only (not every account on the site)."""

    title = "by staff"
    parameter_name = "actor"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        staff = User.objects.filter(Q(is_staff=True) | Q(is_superuser=True)).order_by("username")
        return [(str(pk), name) for pk, name in staff.values_list("pk", "username")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[StaffAction]) -> QuerySet[StaffAction]:
        value = self.value()
        return queryset.filter(actor_id=int(value)) if value and value.isdigit() else queryset


@admin.register(StaffAction)
class StaffActionAdmin(BigListMixin, ReadOnlyAdmin):
    list_display = ("timestamp", "actor", "verb", "object_repr", "reason", "what_changed")
    sortable_by = ("timestamp", "verb")  # the sorts an index serves (docs/staff.md, "Big lists")
    # a date filter, not a date hierarchy: that one reads the years of every row on each load
    list_filter = (("timestamp", admin.DateFieldListFilter), ByStaffFilter, "verb", "action")
    search_fields = ("object_repr", "reason", "actor__username", "verb")  # read by get_search_results
    search_help_text = "Part of the object or the reason, a staff member's exact user name, or an exact verb."
    list_select_related = ("actor",)
    fields = (
        "timestamp",
        "actor",
        "verb",
        "object_repr",
        "content_type",
        "object_pk",
        "reason",
        "what_changed",
        "remote_addr",
        "cid",
    )
    readonly_fields = fields

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[StaffAction], search_term: str
    ) -> tuple[QuerySet[StaffAction], bool]:
        """Each part read by an index (trigram on the object and the reason, staff's ids, the verb):
        no join to the accounts that would keep the indexes from serving an ``OR``."""
        term = search_term.strip()
        if not term:
            return queryset, False
        found = Q(object_repr__icontains=term) | Q(reason__icontains=term) | Q(verb=term)
        actors = list(User.objects.filter(username=term).values_list("pk", flat=True)[:10])
        if actors:
            found |= Q(actor_id__in=actors)
        return queryset.filter(found), False

    @admin.display(description="before → after")
    def what_changed(self, entry: StaffAction) -> str:
        before, after = entry.before, entry.after
        keys = [*before, *(k for k in after if k not in before)]
        return "; ".join(f"{key}: {_shown(before.get(key))} → {_shown(after.get(key))}" for key in keys)


def _shown(value: Any) -> str:
    return "—" if value is None or value == "" else str(value)
