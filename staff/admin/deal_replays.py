"""The admin page that opens a finished deal face up (``staff.replays``): a reason form (POST,
CSRF-checked), then the deal's replay with every hand, the look recorded before it is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.response import TemplateResponse
from django.urls import URLPattern, path

from accounts.requests import signed_in
from core.admin_parts import extends
from staff import replays
from staff.audit import StaffRefused
from staff.forms import ReasonForm
from staff.services import Refused, StaffError
from staff.shapes import FaceUp
from tables.models import Deal

if TYPE_CHECKING:
    from tables.admin import DealAdmin as DealPage
else:
    DealPage = object


class FaceUpReasonForm(ReasonForm):
    """Why every hand of this deal is needed (a dispute, a flag, a player's complaint)."""


def render_face_up(request: HttpRequest, data: FaceUp, reason: str) -> HttpResponse:
    """The replay page with every hand (the look is recorded by the caller)."""
    return render(request, "tables/deal.html", {**data, "face_up_reason": reason})


@extends(Deal)
class StaffDealPart(DealPage):
    def get_urls(self) -> list[URLPattern]:
        return [
            path(
                "<int:deal_id>/face-up/",
                self.admin_site.admin_view(self.face_up_view),
                name="tables_deal_face_up",
            ),
        ] + super().get_urls()

    def face_up_view(self, request: HttpRequest, deal_id: int) -> HttpResponse:
        """GET asks why; POST with a reason records the look and shows every hand."""
        deal = get_object_or_404(
            Deal.objects.select_related("game__table__settings"), pk=deal_id, finished_at__isnull=False
        )
        staff = signed_in(request)
        if not replays.may_open_face_up(staff):
            raise StaffRefused(
                f"{staff.username}'s role may not see the hands of a deal",
                verb=replays.VERB,
                target=deal.game,
            )
        form = FaceUpReasonForm(request.POST if request.method == "POST" else None)
        if request.method == "POST" and form.is_valid():
            try:
                data = replays.open_face_up(staff=staff, deal=deal, reason=form.cleaned_data["reason"])
            except Refused as exc:
                raise PermissionDenied(str(exc)) from exc
            except StaffError as exc:
                form.add_error(None, str(exc))
            else:
                return render_face_up(request, data, form.cleaned_data["reason"])
        return TemplateResponse(
            request,
            "admin/staff/face_up_reason.html",
            {
                **self.admin_site.each_context(request),
                "opts": self.model._meta,
                "title": f"Deal {deal.number} of game {deal.game_id} face up",
                "original": deal,
                "form": form,
            },
        )
