"""The fair-play pages of the admin (docs/integrity.md): the signal pages, each with its rule; the
review queue; linked accounts; sign-in events. All read-only here: linking, clearing, deciding
and the recorded replays are added by ``staff.admin.integrity``, which owns the audit trail."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from core import admin_parts
from core.admin_base import ReadOnlyAdmin
from integrity import config, selectors
from integrity.models import AccountLink, Flag, ScanRun, SignalRow, SignInEvent

VIEW_SIGNALS = "integrity.view_signals"


def _user(user: Any) -> str:
    if user is None:
        return "—"
    return format_html(
        '<a href="{}">{}</a>', reverse("admin:accounts_user_change", args=[user.pk]), user.username
    )


@admin.register(SignInEvent)
class SignInEventAdmin(ReadOnlyAdmin):
    list_display = ("at", "user", "kind", "address", "device_short", "user_agent")
    list_filter = ("kind",)
    search_fields = ("user__username", "=address", "=device")
    list_select_related = ("user",)
    show_full_result_count = False

    @admin.display(description="device")
    def device_short(self, e: SignInEvent) -> str:
        return e.device[:12]


# what staff may do on this page: ``staff.admin.integrity``, composed over it (``core.admin_parts``)
@admin_parts.register(AccountLink)
class AccountLinkAdmin(ReadOnlyAdmin):
    list_display = (
        "user_a",
        "user_b",
        "active",
        "source",
        "evidence",
        "created_at",
        "created_by",
        "cleared_by",
    )
    list_filter = ("active", "source")
    search_fields = ("user_a__username", "user_b__username", "evidence", "reason")
    list_select_related = ("user_a", "user_b", "created_by", "cleared_by")
    readonly_fields = (
        "user_a",
        "user_b",
        "active",
        "source",
        "evidence",
        "created_at",
        "created_by",
        "reason",
        "cleared_at",
        "cleared_by",
        "clear_reason",
    )


class FlagStatusFilter(admin.SimpleListFilter):
    """The queue shows every flag but the lapsed ones by default; a lapsed flag stays findable
    (this filter, or a search, which looks at every flag)."""

    title = "status"
    parameter_name = "status"
    DEFAULT = "current"

    def __init__(self, request: HttpRequest, *args: Any) -> None:
        self.searched = bool(request.GET.get("q"))
        super().__init__(request, *args)

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [
            (self.DEFAULT, "Open and decided (not lapsed)"),
            ("open", "Open"),
            ("weakened", "Weakened"),
            ("lapsed", "Lapsed"),
            ("decided", "Decided"),
            ("all", "All"),
        ]

    def _chosen(self) -> str:
        if self.value():
            return str(self.value())
        return "all" if self.searched else self.DEFAULT

    def choices(self, changelist: Any) -> Any:
        chosen = self._chosen()
        for value, label in self.lookup_choices:
            yield {
                "selected": chosen == value,
                "query_string": changelist.get_query_string({self.parameter_name: value}),
                "display": label,
            }

    def queryset(self, request: HttpRequest, queryset: QuerySet[Flag]) -> QuerySet[Flag]:
        chosen = self._chosen()
        undecided = queryset.filter(decision="")
        return {
            self.DEFAULT: queryset.exclude(decision="", state=Flag.State.LAPSED),
            "open": undecided.filter(state=Flag.State.OPEN),
            "weakened": undecided.filter(state=Flag.State.WEAKENED),
            "lapsed": undecided.filter(state=Flag.State.LAPSED),
            "decided": queryset.exclude(decision=""),
        }.get(chosen, queryset)


# what staff may do on this page: ``staff.admin.integrity``, composed over it (``core.admin_parts``)
@admin_parts.register(Flag)
class FlagAdmin(ReadOnlyAdmin):
    """The review queue: open flags first, the strongest evidence first; lapsed ones on request."""

    list_display = ("id", "signal", "players", "summary", "raised_with", "score", "raised_at", "status")
    list_filter = (FlagStatusFilter, "signal", "decision")
    search_fields = ("user_a__username", "user_b__username", "summary")
    list_select_related = ("user_a", "user_b", "decided_by")
    change_form_template = "admin/integrity/flag.html"

    @admin.display(description="players")
    def players(self, flag: Flag) -> str:
        if flag.user_b_id:
            return format_html("{} / {}", _user(flag.user_a), _user(flag.user_b))
        return _user(flag.user_a)

    @admin.display(description="status")
    def status(self, flag: Flag) -> str:
        if flag.decision:
            return f"{flag.get_decision_display()} by {flag.decided_by} ({flag.decided_at:%Y-%m-%d})"
        if flag.state == Flag.State.LAPSED and flag.lapsed_at:
            return f"lapsed {flag.lapsed_at:%Y-%m-%d}: {flag.lapse_reason}"
        if flag.state == Flag.State.WEAKENED and flag.weakened_at:
            return f"open, weakened since {flag.weakened_at:%Y-%m-%d %H:%M}"
        return "open"

    @admin.display(description="raised with")
    def raised_with(self, flag: Flag) -> str:
        """What changed: the summary it was raised with beside the current one (``summary``)."""
        if not flag.first_summary or flag.first_summary == flag.summary:
            return "—"
        return flag.first_summary

    def flag_context(self, request: HttpRequest, flag: Flag) -> dict[str, Any]:
        """What the flag page shows; the staff side adds its decision form."""
        texts = selectors.rules()
        return {
            "flag": flag,
            "figures": selectors.readable(flag.figures),
            "rule": texts[flag.signal],
            "first_figures": selectors.readable(flag.first_figures),
            "game_groups": selectors.flag_game_groups(flag),
            "history": list(flag.updates.all()),
            "lapse_hours": config.lapse_hours(),
            "signal_url": reverse("admin:integrity_signal", args=[flag.signal]),
        }

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        flag = Flag.objects.select_related("user_a", "user_b", "decided_by").filter(pk=object_id).first()
        if flag is None:
            raise Http404
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Flag {flag.pk}: {flag.get_signal_display()}",
            "original": flag,
            **self.flag_context(request, flag),
            **(extra_context or {}),
        }
        return TemplateResponse(request, self.change_form_template, context)


@admin.register(SignalRow)
class SignalRowAdmin(ReadOnlyAdmin):
    """The signal pages: an index of every signal with its rule, and one page per signal."""

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "signal/<str:signal>/", self.admin_site.admin_view(self.signal_view), name="integrity_signal"
            ),
        ] + super().get_urls()

    def _check(self, request: HttpRequest) -> None:
        if not request.user.has_perm(VIEW_SIGNALS):
            raise PermissionDenied

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        self._check(request)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "Integrity signals",
            "signals": selectors.signal_index(),
            "scan": selectors.last_scan(),
        }
        return TemplateResponse(request, "admin/integrity/signals.html", context)

    def signal_view(self, request: HttpRequest, signal: str) -> HttpResponse:
        self._check(request)
        texts = selectors.rules()
        if signal not in texts:
            raise Http404
        page = Paginator(selectors.signal_rows(signal, limit=2000), 100).get_page(request.GET.get("page"))
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": texts[signal][0],
            "rule": texts[signal][1],
            "signal": signal,
            "page": page,
            "scan": selectors.last_scan(),
        }
        return TemplateResponse(request, "admin/integrity/signal.html", context)


@admin.register(ScanRun)
class ScanRunAdmin(ReadOnlyAdmin):
    list_display = (
        "started_at",
        "finished_at",
        "games_digested",
        "games_in_window",
        "flags_raised",
        "links_made",
    )
