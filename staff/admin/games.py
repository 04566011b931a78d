"""The game page in words and rupees, with cancel and the recorded view of live hands."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse

from accounts.requests import signed_in
from core.admin_parts import extends
from core.money import format_money
from staff import audit, selectors, services
from staff.admin.pages import CANCEL, VIEW_LIVE, page_context
from staff.forms import CancelGameForm
from tables.models import PoolGame

if TYPE_CHECKING:
    from tables.admin import PoolGameAdmin as GamePage
else:
    GamePage = object


@extends(PoolGame)
class StaffPoolGamePart(GamePage):
    """The game page in words and rupees. A deal's hands and deck order, while it is played, are
    shown only on their own page to the role whose job needs them, and each view is recorded."""

    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<int:game_id>/cancel/",
                self.admin_site.admin_view(self.cancel_view),
                name="tables_poolgame_cancel",
            ),
            path(
                "<int:game_id>/live/",
                self.admin_site.admin_view(self.live_view),
                name="tables_poolgame_live",
            ),
        ] + super().get_urls()

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: Any = None
    ) -> HttpResponse:
        if not self.has_view_permission(request):
            raise PermissionDenied
        game = get_object_or_404(PoolGame.objects.select_related("table__settings"), pk=object_id)
        page = selectors.game_page(game)
        can_cancel = request.user.has_perm(CANCEL) and game.status in (
            PoolGame.Status.WAITING,
            PoolGame.Status.RUNNING,
        )
        return TemplateResponse(
            request,
            "admin/staff/game.html",
            page_context(
                self,
                request,
                title=f"Game {game.pk} at {game.table.name}",
                original=game,
                page=page,
                can_cancel=can_cancel,
                can_view_live=request.user.has_perm(VIEW_LIVE) and page.get("live") is not None,
            ),
        )

    def cancel_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        if not request.user.has_perm(CANCEL):
            raise PermissionDenied
        game = get_object_or_404(PoolGame.objects.select_related("table__settings"), pk=game_id)
        form = CancelGameForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            try:
                result = services.cancel_game(
                    staff=signed_in(request),
                    game=game,
                    reason=form.cleaned_data["reason"],
                    message=form.cleaned_data["message"],
                )
            except services.StaffError as exc:
                form.add_error(None, str(exc))
            else:
                paid = ", ".join(f"{format_money(int(a))}" for a in result["payouts"].values()) or "nothing"
                self.message_user(
                    request,
                    f"Game {game.pk} cancelled ({result['settlement']}); paid back: {paid}.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(reverse("admin:tables_poolgame_change", args=[game.pk]))
        return TemplateResponse(
            request,
            "admin/staff/cancel_game.html",
            page_context(
                self, request, title=f"Cancel game {game.pk} at {game.table.name}", original=game, form=form
            ),
        )

    def live_view(self, request: HttpRequest, game_id: int) -> HttpResponse:
        """Every hand and the closed deck of the deal being played: for ``staff.view_live_hands``
        only, with a reason, and recorded (a refused look is recorded too)."""
        game = get_object_or_404(PoolGame.objects.select_related("table__settings"), pk=game_id)
        if not request.user.has_perm(VIEW_LIVE):
            raise audit.StaffRefused(
                f"{request.user.username}'s role may not see the hands of a deal being played",
                verb="view_live_hands",
                target=game,
            )
        reason = (request.GET.get("reason") or "").strip()
        if not reason:
            self.message_user(request, "Say why you need to see the hands.", messages.ERROR)
            return HttpResponseRedirect(reverse("admin:tables_poolgame_change", args=[game.pk]))
        live = selectors.live_hands(game)
        if live is not None:
            audit.record(
                staff=signed_in(request),
                action="view_live_hands",
                target=game,
                reason=reason,
                kind=audit.Action.ACCESS,
                after={"deal": live["deal_no"], "turn": live.get("turn")},
                label=f"game:{game.pk} {game.table.name}",
            )
        return TemplateResponse(
            request,
            "admin/staff/live_hands.html",
            page_context(
                self,
                request,
                title=f"Live hands: game {game.pk} at {game.table.name}",
                original=game,
                live=live,
                reason=reason,
            ),
        )
