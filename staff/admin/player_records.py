"""What is kept of a player beside the account: roles, suspensions, self-exclusions, limits,
e-mail changes and staff notes."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth.admin import GroupAdmin
from django.contrib.auth.models import Group
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse

from accounts import emailchange
from accounts.models import EmailChange, PlayLimit, SelfExclusion, Suspension, User
from accounts.requests import signed_in
from core.admin_base import BigListMixin, QuickRowsMixin, ReadOnlyAdmin
from core.money import format_money
from staff import audit, authority
from staff.admin.reasons import ReasonedAdminMixin, reasoned_action
from staff.forms import ReasonForm
from staff.models import StaffNote

admin.site.unregister(Group)  # Django's own page for roles


@admin.register(Group)
class StaffGroupAdmin(QuickRowsMixin, ReasonedAdminMixin, GroupAdmin):
    """Roles: what each may do is a superuser's decision (``staff.authority``)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)


@admin.register(Suspension)
class SuspensionAdmin(ReadOnlyAdmin):
    list_display = ("user", "reason", "starts_at", "ends_at", "created_by", "lifted_at", "lifted_by")
    search_fields = ("user__username", "reason")
    # who lifted a suspension is read after the page (one query): joined, that empty column made
    # PostgreSQL hash every account before it sorted and cut the page
    list_select_related = ("user", "created_by")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Suspension]:
        return super().get_queryset(request).prefetch_related("lifted_by")


@admin.register(SelfExclusion)
class SelfExclusionAdmin(ReadOnlyAdmin):
    """Staff see self-exclusions; nobody may shorten or delete one."""

    list_display = ("user", "period", "starts_at", "ends_at")
    search_fields = ("user__username",)
    list_select_related = ("user",)


@admin.register(PlayLimit)
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


@admin.register(EmailChange)
class EmailChangeAdmin(ReadOnlyAdmin):
    """Staff changes of an address and the reset holds they started (``accounts.emailchange``):
    an administrator undoes one for the owner who objects by other means (a ticket, a call)."""

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
    actions = ["revert_changes"]

    def has_revert_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm("accounts.change_user"))

    @admin.action(
        description="Undo: the old address back, the hold ended (the owner objects)", permissions=["revert"]
    )
    def revert_changes(self, request: HttpRequest, queryset: QuerySet[EmailChange]) -> HttpResponse | None:
        def revert(change: EmailChange, data: dict[str, Any]) -> str:
            try:
                authority.check_may_act_on(request.user, change.user, verb="revert_email_change")
            except audit.StaffRefused as exc:
                audit.record_refusal(staff=signed_in(request), refused=exc)
                raise
            with audit.service_action():  # recorded once, as the revert (staff.credentials)
                emailchange.revert(change, by=signed_in(request), reason=data["reason"])
            return f"{change.user}: old address back."

        return reasoned_action(
            self,
            request,
            queryset,
            form=ReasonForm,
            title="Undo e-mail changes",
            action="revert_changes",
            each=revert,
            refusals=(audit.StaffRefused, emailchange.EmailChangeError),
            name=lambda change: change.user,
        )


@admin.register(StaffNote)
class StaffNoteAdmin(BigListMixin, ReadOnlyAdmin):
    """Every player's case history in one list; notes are added on the player page only."""

    list_display = ("created_at", "user", "author", "text")
    sortable_by = ()  # newest first
    search_fields = ("user__username", "author__username", "text")  # read by get_search_results
    search_help_text = "Part of a note, or the exact user name of the player or the author."
    list_select_related = ("user", "author")

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[StaffNote], search_term: str
    ) -> tuple[QuerySet[StaffNote], bool]:
        """Each part read by an index: a trigram index on the text, the accounts' ids."""
        term = search_term.strip()
        if not term:
            return queryset, False
        found = Q(text__icontains=term)
        named = list(User.objects.filter(username=term).values_list("pk", flat=True)[:10])
        if named:
            found |= Q(user_id__in=named) | Q(author_id__in=named)
        return queryset.filter(found), False
