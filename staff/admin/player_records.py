"""What staff may do on the pages of what is kept beside an account (``accounts.admin``): roles
a superuser's to change, each change with a reason; an e-mail change undone. And staff's own
notes on players."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin
from django.contrib.auth.models import Group
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse

from accounts import emailchange
from accounts.models import EmailChange, User
from accounts.requests import signed_in
from core.admin_base import BigListMixin, ReadOnlyAdmin
from core.admin_parts import extends
from staff import audit, authority
from staff.admin.reasons import ReasonedAdminMixin, reasoned_action
from staff.forms import ReasonForm
from staff.models import StaffNote

if TYPE_CHECKING:
    from accounts.admin import EmailChangeAdmin as EmailChangePage
    from accounts.admin import RoleAdmin as RolePage
else:
    EmailChangePage = RolePage = object


@extends(Group)
class StaffRolePart(ReasonedAdminMixin, RolePage):
    """Roles: what each may do is a superuser's decision (``staff.authority``)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)


@extends(EmailChange)
class StaffEmailChangePart(EmailChangePage):
    """An administrator undoes a staff change of an address for the owner who objects by other
    means (a ticket, a call)."""

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
