"""Any admin list to a CSV file (issue 27): an action on every list, "Export to CSV".

- It exports what the list shows (its columns, its filters and search, the rows chosen or "all
  matching"), so a role exports only lists it may view: the action asks the model's view
  permission, like the list itself.
- It asks why, and records who exported what (the list, its filters, how many rows, which
  columns) in the audit trail before the file is sent.
- Spreadsheet formula injection: a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a
  carriage return is read as a formula by Excel, LibreOffice and Google Sheets (a player's name
  "=HYPERLINK(...)" would run on the staff member's machine). Such a cell is written with a
  leading apostrophe, which those programs show as text (OWASP, "CSV Injection"); every cell is
  quoted.

Django's own ``csv`` writer, streamed: a list of a million rows is written as it is read.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from typing import Any

from django.contrib import admin
from django.contrib.admin import helpers
from django.contrib.admin.utils import display_for_field, display_for_value, label_for_field, lookup_field
from django.db import models
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import strip_tags
from django.utils.text import slugify

from staff import audit
from staff.forms import ExportForm

#: A cell starting with one of these is a formula to a spreadsheet (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
CHUNK = 2000


def safe_cell(value: Any) -> str:
    """``value`` as a CSV cell that no spreadsheet reads as a formula."""
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def _columns(model_admin: admin.ModelAdmin, request: HttpRequest) -> list[tuple[Any, str]]:  # type: ignore[type-arg]
    """The list's columns with a heading (a column without one is a link or a button)."""
    out = []
    for name in model_admin.get_list_display(request):
        if name == "action_checkbox":
            continue
        label = label_for_field(name, model_admin.model, model_admin)
        if str(label).strip():
            out.append((name, strip_tags(str(label))))
    return out


def _text(name: Any, obj: models.Model, model_admin: admin.ModelAdmin) -> str:  # type: ignore[type-arg]
    """A cell as the list shows it, without markup."""
    field, attr, value = lookup_field(name, obj, model_admin)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if field is None or not isinstance(field, models.Field):
        shown = display_for_value(value, "")
    elif field.is_relation:
        shown = "" if value is None else str(value)
    else:
        shown = display_for_field(value, field, "")
    return strip_tags(str(shown))


class _Echo:
    def write(self, value: str) -> str:
        return value


def _lines(
    model_admin: admin.ModelAdmin, columns: list[tuple[Any, str]], queryset: QuerySet[Any]
) -> Iterator[str]:  # type: ignore[type-arg]
    writer = csv.writer(_Echo(), quoting=csv.QUOTE_ALL)
    yield writer.writerow([safe_cell(label) for _, label in columns])
    for obj in queryset.iterator(chunk_size=CHUNK):
        yield writer.writerow([safe_cell(_text(name, obj, model_admin)) for name, _ in columns])


@admin.action(description="Export to CSV (asks why; recorded)", permissions=["view"])
def export_csv(
    model_admin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    queryset: QuerySet[Any],
) -> HttpResponse | None:
    """The chosen rows (or all matching the list's filters and search) of any list, as CSV."""
    form = ExportForm(request.POST if "apply" in request.POST else None)
    select_across = request.POST.get("select_across") == "1"
    selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
    opts = model_admin.model._meta
    count = queryset.count()
    if not ("apply" in request.POST and form.is_valid()):
        return TemplateResponse(
            request,
            "admin/staff/export_csv.html",
            {
                **model_admin.admin_site.each_context(request),
                "opts": opts,
                "title": f"Export {opts.verbose_name_plural} to CSV",
                "form": form,
                "count": count,
                "select_across": select_across,
                "selected": selected,
                "action": "export_csv",
                "filters": request.GET.urlencode(),
            },
        )
    columns = _columns(model_admin, request)
    audit.record(
        staff=request.user,
        action="export_csv",
        target=model_admin.model,
        reason=form.cleaned_data["reason"],
        kind=audit.Action.ACCESS,
        after={
            "list": str(opts.verbose_name_plural),
            "rows": count,
            "chosen": "all matching the list" if select_across else f"{len(selected)} selected",
            "filters": request.GET.urlencode() or "none",
            "columns": ", ".join(label for _, label in columns),
        },
        label=f"{opts.verbose_name_plural} (CSV export)",
    )
    name = f"{slugify(opts.verbose_name_plural)}-{timezone.now():%Y%m%d-%H%M%S}.csv"
    response = StreamingHttpResponse(
        _lines(model_admin, columns, queryset), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
