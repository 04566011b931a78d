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

- The file is never built in the process that serves players: the action records the export,
  keeps the list as asked (``ExportJob``) and hands it to a Celery worker on a queue of its own
  (``staff.tasks.run_export`` -> ``staff.export_job``), which writes it in pieces; the staff member
  follows it on the exports page (``staff.export_views``), which offers the file when it is done.
- A list of more than ``EXPORT_MAX_ROWS`` rows is refused: narrowed with its filters, it may go.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import display_for_field, display_for_value, label_for_field, lookup_field
from django.db import models, transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import strip_tags

from accounts.requests import signed_in
from core.celeryapp import app as celery_app
from staff import audit
from staff.forms import ExportForm
from staff.models import ExportJob

#: A cell starting with one of these is a formula to a spreadsheet (OWASP's list).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
RUN_EXPORT = "staff.tasks.run_export"


def safe_cell(value: Any) -> str:
    """``value`` as a CSV cell that no spreadsheet reads as a formula."""
    text = "" if value is None else str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def list_columns(model_admin: admin.ModelAdmin, request: HttpRequest) -> list[tuple[Any, str]]:  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    """The list's columns with a heading (a column without one is a link or a button)."""
    out = []
    for name in model_admin.get_list_display(request):
        if name == "action_checkbox":
            continue
        label = label_for_field(name, model_admin.model, model_admin)
        if str(label).strip():
            out.append((name, strip_tags(str(label))))
    return out


def cell_text(name: Any, obj: models.Model, model_admin: admin.ModelAdmin) -> str:  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
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


def enqueue(job_id: int) -> None:
    """Hand the export to the exports worker (routed by ``CELERY_TASK_ROUTES``) once it is committed."""
    transaction.on_commit(lambda: celery_app.send_task(RUN_EXPORT, args=(job_id,)))


@admin.action(description="Export to CSV (asks why; recorded)", permissions=["view"])
def export_csv(
    model_admin: admin.ModelAdmin,  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    request: HttpRequest,
    queryset: QuerySet[Any],
) -> HttpResponse | None:
    """Ask why, then queue the chosen rows (or all matching the list's filters and search) for the
    exports worker and show the staff member their exports; nothing is written here."""
    form = ExportForm(request.POST if "apply" in request.POST else None)
    select_across = request.POST.get("select_across") == "1"
    selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
    opts = model_admin.model._meta
    count = queryset.count()
    cap = int(settings.EXPORT_MAX_ROWS)
    if not ("apply" in request.POST and form.is_valid()) or count > cap:
        if count > cap:
            form.add_error(
                None,
                f"{count} rows is more than an export may hold ({cap}): narrow the list with its "
                "filters or search, or export it in parts.",
            )
        return TemplateResponse(
            request,
            "admin/staff/export_csv.html",
            {
                **model_admin.admin_site.each_context(request),
                "opts": opts,
                "title": f"Export {opts.verbose_name_plural} to CSV",
                "form": form,
                "count": count,
                "cap": cap,
                "select_across": select_across,
                "selected": selected,
                "action": "export_csv",
                "filters": request.GET.urlencode(),
            },
        )
    columns = list_columns(model_admin, request)
    with transaction.atomic():
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
        job = ExportJob.objects.create(
            requested_by=signed_in(request),
            model=opts.label,
            list_name=str(opts.verbose_name_plural),
            query=request.GET.urlencode(),
            select_across=select_across,
            selected=[] if select_across else [str(pk) for pk in selected],
            reason=form.cleaned_data["reason"],
            rows_total=count,
        )
        enqueue(job.pk)
    messages.info(
        request,
        f"The export of {count} {opts.verbose_name_plural} is being written; it is offered here when done.",
    )
    return HttpResponseRedirect(reverse("staff-exports"))
