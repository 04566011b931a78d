"""Changes made on an admin page: each asks why, and goes into the audit trail."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from staff import audit
from staff.admin.pages import page_context

FormT = TypeVar("FormT", bound=forms.BaseForm)


def with_reason(form: type[FormT]) -> type[FormT]:
    """``form`` with the reason field every audited admin change asks for."""
    field = forms.CharField(
        label="Reason for this change",
        max_length=300,
        help_text="Required; kept in the audit trail (Staff actions) with the change.",
        widget=forms.TextInput(attrs={"size": 60}),
    )
    return type(form.__name__, (form,), {"audit_reason": field})


class ReasonedAdminMixin:
    """A page whose saves are recorded by django-auditlog: it asks a reason and nobody deletes
    from it (close a table, deactivate a settings row or an account instead)."""

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fieldsets = super().get_fieldsets(request, obj)  # type: ignore[misc]  # a mixin: the ModelAdmin it is mixed into has it
        editable = (
            self.has_change_permission(request, obj)  # type: ignore[attr-defined]  # ModelAdmin's: a mixin of it
            if obj is not None
            else self.has_add_permission(request)  # type: ignore[attr-defined]  # as above
        )
        if editable:
            return [*fieldsets, ("Why", {"fields": ["audit_reason"]})]
        return fieldsets

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        form = kwargs.get("form") or self.form  # type: ignore[attr-defined]  # a mixin: the ModelAdmin it is mixed into has it
        if "audit_reason" not in form.declared_fields:
            kwargs["form"] = with_reason(form)
        return super().get_form(request, obj, change=change, **kwargs)  # type: ignore[misc]  # a mixin: the ModelAdmin it is mixed into has it

    def changeform_view(
        self,
        request: HttpRequest,
        object_id: str | None = None,
        form_url: str = "",
        extra_context: Any = None,
    ) -> HttpResponse:
        with audit.reasoned(request.POST.get("audit_reason", "") if request.method == "POST" else ""):
            return super().changeform_view(request, object_id, form_url, extra_context)  # type: ignore[misc,no-any-return]  # a mixin: the ModelAdmin it is mixed into has it

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


RowT = TypeVar("RowT")


def reasoned_action(
    model_admin: admin.ModelAdmin,  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    request: HttpRequest,
    rows: Iterable[RowT],
    *,
    form: type[forms.Form],
    title: str,
    each: Callable[[RowT, dict[str, Any]], str | None],
    refusals: tuple[type[Exception], ...],
    action: str | None = None,
    template: str = "admin/staff/reason_action.html",
    summary: Callable[[], str] | None = None,
    name: Callable[[RowT], object] = str,
) -> HttpResponse | None:
    """A bulk action that asks why before it acts: its form's page until the form is applied and
    valid, then ``each`` row done by itself, so that one row's refusal (one of ``refusals``, told
    with the row's ``name``) leaves the others done. ``each`` returns what to tell of its row, if
    anything; ``summary`` what to tell once all are done."""
    bound = form(request.POST if "apply" in request.POST else None)
    if not ("apply" in request.POST and bound.is_valid()):
        context = page_context(model_admin, request, title=title, form=bound, queryset=rows, action=action)
        return TemplateResponse(request, template, context)
    for row in rows:
        try:
            done = each(row, bound.cleaned_data)
        except refusals as exc:
            model_admin.message_user(request, f"{name(row)}: {exc}", messages.ERROR)
        else:
            if done:
                model_admin.message_user(request, done, messages.SUCCESS)
    if summary is not None:
        model_admin.message_user(request, summary(), messages.SUCCESS)
    return None
