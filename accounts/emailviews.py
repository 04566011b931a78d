"""The owner's objection to a staff change of their address: the link the old address was sent
(``accounts.emailchange``). A GET only shows what changed (mail scanners follow links); the
button posts the objection."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from accounts import emailchange


@require_http_methods(["GET", "POST"])
def object_to_email_change(request: HttpRequest, token: str) -> HttpResponse:
    change = emailchange.change_for_token(token)
    context: dict[str, object] = {"change": change, "done": False, "error": ""}
    if change is None:
        context["error"] = "This link is not valid."
        return render(request, "accounts/email_change.html", context, status=404)
    if change.reverted_at is not None:
        context["error"] = "This change was already undone: your account has its old address."
        return render(request, "accounts/email_change.html", context, status=409)
    if not change.open(timezone.now()):
        context["error"] = "This link has expired; if the change was not yours, write to support."
        return render(request, "accounts/email_change.html", context, status=410)
    if request.method == "POST":
        try:
            emailchange.revert(
                change,
                by=change.user,
                reason="the owner objected through the link sent to the old address",
            )
        except emailchange.EmailChangeError as exc:
            context["error"] = str(exc)
            return render(request, "accounts/email_change.html", context, status=409)
        context["done"] = True
    return render(request, "accounts/email_change.html", context)
