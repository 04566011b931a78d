"""The signed-in player of a request, typed as the site's ``User``."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest
from rest_framework.request import Request

from accounts.models import User


def signed_in(request: HttpRequest | Request) -> User:
    """``request.user`` where the view lets only a signed-in user through (``login_required``, the
    admin's ``admin_view``, the API's ``IsAuthenticated``): Django types it as maybe anonymous, and
    the check here says so to mypy instead of a cast that nothing verifies."""
    user = request.user
    if not isinstance(user, User):
        raise PermissionDenied("This page is for signed-in players.")
    return user
