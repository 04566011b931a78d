"""Accounts by role, least privilege first (docs/staff.md, ``staff.authority``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import admin, messages
from django.contrib.auth.forms import AdminPasswordChangeForm, UserChangeForm, UserCreationForm
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from accounts import play
from accounts.models import User
from accounts.requests import signed_in
from core.admin_base import BigListMixin
from core.admin_parts import extends
from staff import audit, authority, player, roles, services, statement
from staff.admin.pages import SUSPEND, page_context
from staff.admin.reasons import ReasonedAdminMixin, reasoned_action, with_reason
from staff.forms import NoteForm, ReasonForm, SuspendForm
from wallet.admin import ADJUST_PERMISSION
from wallet.models import AccountKind

if TYPE_CHECKING:
    from accounts.admin import PlayerAdmin as PlayerPage
else:
    PlayerPage = object

#: What a staff member who is not a superuser sees of an account: no roles, permissions or password.
PLAYER_FIELDSETS = (
    (None, {"fields": ("username", "role")}),
    ("Name and contact", {"fields": ("display_name", "first_name", "last_name", "email")}),
    ("Status", {"fields": ("is_active",)}),
    ("Dates", {"fields": ("last_login", "date_joined")}),
)


class RoleFilter(admin.SimpleListFilter):
    """By role (a group), or none: each an ``EXISTS`` on the role links, where the inherited
    "groups" filter joins them and needs ``DISTINCT`` over every account."""

    title = "role"
    parameter_name = "role"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("none", "none"), *((str(pk), name) for pk, name in Group.objects.values_list("pk", "name"))]

    def queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> QuerySet[User]:
        value = self.value()
        links = User.groups.through.objects.filter(user_id=OuterRef("pk"))
        if value == "none":
            return queryset.filter(~Exists(links))
        if value and value.isdigit():
            return queryset.filter(Exists(links.filter(group_id=int(value))))
        return queryset


@extends(User)
class StaffPlayerPart(BigListMixin, ReasonedAdminMixin, PlayerPage):
    """Accounts, least privilege first (docs/staff.md, ``staff.authority``): only a superuser
    creates accounts, grants roles and permissions or sets passwords; nobody edits their own
    account or one of an equal or higher role; everyone else's form has no such field at all."""

    list_display = ("username", "display_name", "email", "role", "play_status", "date_joined", "player_link")
    sortable_by = ("username", "date_joined")  # each read by an index
    list_filter = ("is_staff", "is_superuser", "is_active", RoleFilter)
    search_help_text = "A name, an e-mail address or an id."
    form = with_reason(UserChangeForm)
    add_form = with_reason(UserCreationForm)
    change_password_form = with_reason(AdminPasswordChangeForm)
    change_user_password_template = "admin/staff/user_password.html"
    actions = ["suspend_players", "lift_suspensions"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[User]:
        """Whether each may play, and each one's roles, read with the page (no query per row)."""
        return play.with_blocks(super().get_queryset(request)).prefetch_related("groups")

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet[User], search_term: str
    ) -> tuple[QuerySet[User], bool]:
        """A name or an e-mail address (parts of them), or an id."""
        results, duplicates = super().get_search_results(request, queryset, search_term)
        term = search_term.strip()
        if term.isdigit() and len(term) < 19:
            results = results | queryset.filter(pk=int(term))
        return results, duplicates

    @admin.display(description="may play?")
    def play_status(self, user: User) -> str:
        return play.block_summary(user)

    @admin.display(description="")
    def player_link(self, user: User) -> str:
        return format_html(
            '<a href="{}" class="player-link">Player page</a>',
            reverse("admin:accounts_user_player", args=[user.pk]),
        )

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<int:user_id>/player/",
                self.admin_site.admin_view(self.player_view),
                name="accounts_user_player",
            ),
            path(
                "<int:user_id>/player/note/",
                self.admin_site.admin_view(self.note_view),
                name="accounts_user_note",
            ),
        ] + super().get_urls()

    def player_view(
        self, request: HttpRequest, user_id: int, note_form: NoteForm | None = None
    ) -> HttpResponse:
        """One player seen whole (``staff.player``): balances, the ledger statement, games and
        deals, suspensions, self-exclusions, limits, integrity sections and the staff notes."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        target = get_object_or_404(User, pk=user_id)  # a player's roles are never read (staff.roles)
        page = player.player_page(
            user=target,
            viewer=request.user,
            statement_cursor=statement.cursor_from(request.GET),
            games_before=player.games_cursor(request.GET),
        )
        may_act = authority.may_act_on(request.user, target)
        may_adjust = request.user.has_perm(ADJUST_PERMISSION) and may_act
        may_note = request.user.has_perm(services.NOTE_PERMISSION) and may_act
        accounts = page["accounts"]
        return TemplateResponse(
            request,
            "admin/staff/player.html",
            page_context(
                self,
                request,
                title=f"Player {target.username}",
                original=target,
                p=page,
                note_form=(note_form or NoteForm()) if may_note else None,
                adjust_cash=reverse("admin:wallet_account_adjust", args=[accounts[AccountKind.WALLET].pk])
                if may_adjust and AccountKind.WALLET in accounts
                else None,
                adjust_bonus=reverse("admin:wallet_account_adjust", args=[accounts[AccountKind.BONUS].pk])
                if may_adjust and AccountKind.BONUS in accounts
                else None,
            ),
            status=400 if note_form is not None else 200,
        )

    def note_view(self, request: HttpRequest, user_id: int) -> HttpResponse:
        """Add a note to the case history (POST only); recorded in the audit trail."""
        target = get_object_or_404(User, pk=user_id)
        if request.method != "POST":
            return HttpResponseRedirect(reverse("admin:accounts_user_player", args=[target.pk]))
        form = NoteForm(request.POST)
        if form.is_valid():
            try:
                services.add_note(staff=signed_in(request), user=target, text=form.cleaned_data["text"])
            except services.Refused as exc:
                raise PermissionDenied(str(exc)) from exc
            except services.StaffError as exc:
                form.add_error("text", str(exc))
            else:
                self.message_user(
                    request, f"Note added to {target.username}'s case history.", messages.SUCCESS
                )
                return HttpResponseRedirect(
                    reverse("admin:accounts_user_player", args=[target.pk]) + "#notes"
                )
        return self.player_view(request, user_id, note_form=form)

    @admin.display(description="role")
    def role(self, user: User) -> str:
        return roles.role_name(user)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if request.user.is_superuser or obj is None:
            fieldsets = super().get_fieldsets(request, obj)
            if obj is not None:
                fieldsets = [*fieldsets[:-1], ("Role", {"fields": ("role",)}), fieldsets[-1]]
            return fieldsets
        fieldsets = list(PLAYER_FIELDSETS)
        if self.has_change_permission(request, obj):
            fieldsets.append(("Why", {"fields": ["audit_reason"]}))
        return fieldsets

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if request.user.is_superuser:
            return ("role", "last_login", "date_joined")
        if authority.is_staff_account(obj):  # a reset goes to it: a superuser's to change
            return ("username", "role", "email", "last_login", "date_joined")
        return ("username", "role", "last_login", "date_joined")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.is_active and request.user.is_superuser)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if not super().has_change_permission(request, obj):
            return False
        return obj is None or authority.may_act_on(request.user, obj)

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: Any = None,
    ) -> HttpResponse:
        if request.method == "POST":
            target = User.objects.filter(pk=object_id).first() if object_id else None
            asked = sorted(k for k in authority.PRIVILEGED_FORM_KEYS if k in request.POST)
            if asked and not request.user.is_superuser:
                raise audit.StaffRefused(
                    f"only a superuser may change {', '.join(asked)}",
                    verb="change_user",
                    target=target or request.user,
                )
            if target is not None and not request.user.is_superuser:
                # the log-in name, and a staff account's address (a reset goes to it): shown read-only
                forged = [
                    key
                    for key in authority.CREDENTIAL_FIELDS
                    if key in request.POST and (key == "username" or authority.is_staff_account(target))
                ]
                if forged:
                    raise audit.StaffRefused(
                        f"only a superuser may change {', '.join(forged)} (of {target.username})",
                        verb="change_user",
                        target=target,
                    )
            if target is not None:
                if not super().has_change_permission(request, target):
                    raise audit.StaffRefused(
                        f"{request.user.username}'s role may not change accounts",
                        verb="change_user",
                        target=target,
                    )
                authority.check_may_act_on(request.user, target, verb="change_user")
        return super().changeform_view(request, object_id, form_url, extra_context)

    def user_change_password(self, request: HttpRequest, id: str, form_url: str = "") -> HttpResponse:
        target = get_object_or_404(User, pk=id)
        if not request.user.is_superuser:
            raise audit.StaffRefused(
                f"only a superuser may set a password (of {target.username})",
                verb="set_password",
                target=target,
            )
        authority.check_may_act_on(request.user, target, verb="set_password")
        with audit.reasoned(request.POST.get("audit_reason", "") if request.method == "POST" else ""):
            return super().user_change_password(request, id, form_url)

    def get_actions(self, request: HttpRequest) -> Any:
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def has_suspend_permission(self, request: HttpRequest) -> bool:
        return bool(request.user.has_perm(SUSPEND))

    @admin.action(
        description="Suspend (with a reason and an end date, or until lifted)", permissions=["suspend"]
    )
    def suspend_players(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        def suspend(user: User, data: dict[str, Any]) -> str:
            services.suspend(
                staff=signed_in(request),
                user=user,
                reason=data["reason"],
                message=data["message"],
                until=data["until"],
            )
            return f"{user.username} suspended."

        return reasoned_action(
            self,
            request,
            queryset,
            form=SuspendForm,
            title="Suspend players",
            action="suspend_players",
            each=suspend,
            refusals=(services.StaffError,),
        )

    @admin.action(description="Lift suspension", permissions=["suspend"])
    def lift_suspensions(self, request: HttpRequest, queryset: QuerySet[User]) -> HttpResponse | None:
        def lift(user: User, data: dict[str, Any]) -> str:
            services.lift_suspension(staff=signed_in(request), user=user, reason=data["reason"])
            return f"{user.username}: suspension lifted."

        return reasoned_action(
            self,
            request,
            queryset,
            form=ReasonForm,
            title="Lift suspensions",
            action="lift_suspensions",
            each=lift,
            refusals=(services.StaffError,),
        )
