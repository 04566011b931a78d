"""The staff audit trail (docs/staff.md): who changed what, when, before and after, and why.

One append-only table, ``staff.models.StaffAction``, has two writers:

- django-auditlog records every change to an audited model (``AUDITLOG_INCLUDE_TRACKING_MODELS``)
  made while a staff member acts (``acting``: every admin request, ``StaffAuditMiddleware``),
  whatever admin page or form makes it: users, groups, table settings, tables, log-in lockouts.
  A player's own changes (sign-up, profile, a practice table) are not staff actions and are not
  recorded. The admin asks a reason for each change (``reasoned``).
- the staff services record their use cases (cancel a game, adjust a wallet, suspend, a view of
  a live deal) with ``record``, inside ``service_action`` so that the rows they write are not
  recorded a second time by auditlog: each change is one entry.

Refused attempts are recorded too (``record_refusal``): by the service after its transaction
rolled back, or by the middleware for a refusal raised inside the admin's own transaction.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

from auditlog.context import disable_auditlog
from auditlog.models import AbstractLogEntry
from auditlog.signals import pre_log
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import PermissionDenied
from django.db import models
from django.dispatch import receiver
from django.http import HttpRequest, HttpResponse

from core.money import format_money

Action = AbstractLogEntry.Action

#: Fields kept in paise, shown in rupees in the trail (money fields of the audited models).
MONEY_FIELDS = {"entry_fee", "auto_split_min_fee", "rejoin_max_fee", "point_value"}
#: Fields kept in basis points, shown as a percentage.
BASIS_POINT_FIELDS = {"rake_bp"}


class StaffRefused(PermissionDenied):
    """A staff member reached past their role (docs/staff.md); recorded as a refused attempt."""

    def __init__(self, message: str, *, verb: str, target: Any = None) -> None:
        super().__init__(message)
        self.verb = verb
        self.target = target


@dataclass(frozen=True)
class Acting:
    user: Any
    remote_addr: str | None = None
    reason: str = ""
    #: The site's address as the staff member reached it (links in the mail a change sends).
    origin: str | None = None


_acting: ContextVar[Acting | None] = ContextVar("staff_acting", default=None)


def current() -> Acting | None:
    """The staff member acting now, if any (an admin request, or ``acting``)."""
    return _acting.get()


def recording() -> bool:
    """Whether auditlog's entries are kept: only while a staff member acts."""
    return _acting.get() is not None


@contextlib.contextmanager
def acting(
    user: Any, *, remote_addr: str | None = None, reason: str = "", origin: str | None = None
) -> Iterator[None]:
    """Record the changes made inside as ``user``'s (with ``reason``)."""
    token = _acting.set(Acting(user=user, remote_addr=remote_addr, reason=reason, origin=origin))
    try:
        yield
    finally:
        _acting.reset(token)


@contextlib.contextmanager
def reasoned(reason: str) -> Iterator[None]:
    """The changes made inside were made for ``reason`` (the admin's reason field)."""
    now = _acting.get()
    if now is None:
        yield
        return
    token = _acting.set(replace(now, reason=(reason or "").strip()[:300]))
    try:
        yield
    finally:
        _acting.reset(token)


@contextlib.contextmanager
def service_action() -> Iterator[None]:
    """A staff service's writes: it records the use case itself, as one entry."""
    with disable_auditlog():
        yield


class StaffAuditMiddleware:
    """Every admin request of a staff member acts as them; a refusal raised inside the admin's
    transaction is recorded here, after that transaction rolled back."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if (
            request.path.startswith("/admin/")
            and user is not None
            and user.is_authenticated
            and user.is_staff
        ):
            with acting(
                user,
                remote_addr=request.META.get("REMOTE_ADDR") or None,
                origin=request.build_absolute_uri("/"),
            ):
                response: HttpResponse = self.get_response(request)
            return response
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> None:
        if isinstance(exception, StaffRefused) and not getattr(exception, "recorded", False):
            user = getattr(request, "user", None)
            if user is not None and user.is_authenticated:
                record_refusal(
                    staff=user,
                    refused=exception,
                    remote_addr=request.META.get("REMOTE_ADDR") or None,
                )
        return None


# ---------------------------------------------------------------------------
# what an entry says
# ---------------------------------------------------------------------------
def readable(field: str, value: Any) -> Any:
    """A stored value as staff read it: paise as rupees, basis points as a percentage."""
    if value is None or value == "None":
        return None
    if field in MONEY_FIELDS:
        try:
            return format_money(int(value))
        except (TypeError, ValueError):
            return value
    if field in BASIS_POINT_FIELDS:
        try:
            return f"{int(value) / 100:.2f} %"
        except (TypeError, ValueError):
            return value
    return value


def _readable_changes(changes: Any) -> Any:
    if not isinstance(changes, dict):
        return changes
    out: dict[str, Any] = {}
    for key, value in changes.items():
        if isinstance(value, list | tuple) and len(value) == 2:
            out[key] = [readable(key, value[0]), readable(key, value[1])]
        else:
            out[key] = value
    return out


_VERBS = {Action.CREATE: "add", Action.UPDATE: "change", Action.DELETE: "delete", Action.ACCESS: "view"}


def entry_defaults(instance: models.Model, kwargs: dict[str, Any]) -> dict[str, Any]:
    """auditlog's entry for ``instance`` with the acting staff member, their reason, a verb
    (``change_user``) and the changes in readable units."""
    now = _acting.get()
    out = dict(kwargs)
    if now is not None:
        out.setdefault("actor", now.user)
        out.setdefault("remote_addr", now.remote_addr)
        out.setdefault("reason", now.reason)
    action = out.get("action", Action.UPDATE)
    out.setdefault("verb", f"{_VERBS.get(action, 'change')}_{instance._meta.model_name}")
    if "changes" in out:
        out["changes"] = _readable_changes(out["changes"])
    return out


@receiver(pre_log)
def only_while_staff_act(sender: Any, instance: Any, action: Any, **kwargs: Any) -> bool:
    """auditlog keeps an entry only for a staff member's change (see the module docstring)."""
    return recording()


# ---------------------------------------------------------------------------
# the staff services' entries
# ---------------------------------------------------------------------------
#: The models a text target names ("game:12 Table 1"), for callers that describe their target so.
_NAMED = {
    "game": ("tables", "poolgame"),
    "table": ("tables", "table"),
    "settings": ("tables", "tablesettings"),
    "user": ("accounts", "user"),
}


def _target(target: Any) -> tuple[ContentType, str, str]:
    if isinstance(target, type) and issubclass(target, models.Model):  # a whole list (an export)
        return ContentType.objects.get_for_model(target), "", str(target._meta.verbose_name_plural)
    if isinstance(target, models.Model):
        return ContentType.objects.get_for_model(target), str(target.pk), str(target)[:300]
    prefix, _, rest = str(target).partition(":")
    pk = rest.split(" ", 1)[0]
    if prefix in _NAMED and pk.isdigit():
        app_label, model = _NAMED[prefix]
        return ContentType.objects.get_by_natural_key(app_label, model), pk, str(target)[:300]
    raise TypeError(f"an audit entry needs the model instance acted on, not {target!r}")


def record(
    *,
    staff: Any,
    action: str,
    target: models.Model | type[models.Model] | str,
    reason: str = "",
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
    kind: int = Action.UPDATE,
    label: str = "",
    remote_addr: str | None = None,
) -> Any:
    """One entry: ``staff`` did ``action`` to ``target`` for ``reason``; ``before`` and ``after``
    already in readable units (rupees), paired key by key into ``changes``."""
    from staff.models import StaffAction

    content_type, pk, text = _target(target)
    before, after = before or {}, after or {}
    changes = {
        key: [before.get(key), after.get(key)] for key in [*before, *(k for k in after if k not in before)]
    }
    now = _acting.get()
    return StaffAction.objects.create(
        actor=staff,
        verb=action,
        action=kind,
        content_type=content_type,
        object_pk=pk,
        object_id=int(pk) if pk.isdigit() else None,
        object_repr=label or text,
        changes=changes,
        reason=(reason or "").strip()[:300],
        remote_addr=remote_addr or (now.remote_addr if now is not None else None),
    )


def record_refusal(*, staff: Any, refused: StaffRefused, remote_addr: str | None = None) -> Any:
    """A refused attempt: what was tried (``refused_<verb>``), on what, and why it was refused."""
    target = refused.target if isinstance(refused.target, models.Model) else staff
    entry = record(
        staff=staff,
        action=f"refused_{refused.verb}",
        target=target,
        reason=str(refused),
        kind=Action.ACCESS,
        remote_addr=remote_addr,
    )
    refused.recorded = True  # type: ignore[attr-defined]  # an attribute of ours on another library's object
    return entry
