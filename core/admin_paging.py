"""Admin lists of tables that grow without end, bounded by construction (issue 39): whatever the
table holds, a page reads at most a page of rows (and a capped count), never every row before it.

- **Counts.** An unfiltered list takes PostgreSQL's estimate of the table's rows
  (``pg_class.reltuples``); a filtered or searched one is counted exactly up to ``COUNT_CAP`` rows
  (``COUNT(*)`` over ``LIMIT COUNT_CAP + 1``) and, past it, takes the planner's estimate of the
  filtered query (``EXPLAIN``). The page says "about" beside an estimate.
- **Pages.** The first ``OFFSET_PAGES`` pages are numbered (their ``OFFSET`` is small); past them a
  list pages by seek (keyset): "older" is the rows after the last one shown in the list's order
  (``_before=<id>``), "newer" the rows before the first (``_after=<id>``), "oldest" the end of the
  list read backwards (``_oldest``), each a ``WHERE`` on the ordering's columns and a ``LIMIT``,
  served by the index behind that ordering. A list sorted by a column that may be empty or lies
  in another table keeps its numbered pages only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

from django.contrib import messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.utils import quote
from django.contrib.admin.views.main import ChangeList
from django.core.paginator import Paginator
from django.db import connection
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import cached_property

#: Tables at least this big (by PostgreSQL's estimate) are not counted row by row on an unfiltered list.
ESTIMATE_ABOVE = 100_000
#: A filtered list is counted exactly up to this many rows, estimated past it.
COUNT_CAP = 1_000
#: Pages reached by number; deeper ones by the seek links.
OFFSET_PAGES = 10
BEFORE, AFTER, OLDEST = "_before", "_after", "_oldest"
SEEK_PARAMS = (BEFORE, AFTER, OLDEST)


def table_estimate(model: Any) -> int | None:
    """PostgreSQL's estimate of ``model``'s rows, ``None`` elsewhere."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass", [model._meta.db_table]
        )
        row = cursor.fetchone()
    return int(row[0]) if row else None


def query_estimate(queryset: QuerySet[Any]) -> int | None:
    """The planner's estimate of the rows ``queryset`` returns (PostgreSQL), ``None`` elsewhere."""
    if connection.vendor != "postgresql":
        return None
    sql, params = queryset.order_by().query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return int(plan[0]["Plan"]["Plan Rows"])


def rows_by_ids(queryset: QuerySet[Any], start: int, stop: int | None) -> list[Any]:
    """``queryset[start:stop]``, found by ids first and then read by primary key.

    The ids of a page are read from the narrowest index that serves the list's filter and order
    (the index alone, no row); the rows are then read by primary key. In one query PostgreSQL
    may walk the primary key instead, newest first, and skip every row of the other values: a
    filter to an old kind (the sign-up bonuses) skips most of the table before its first row.
    """
    ids = list(queryset.values_list("pk", flat=True)[start:stop])
    found = {row.pk: row for row in queryset.order_by().filter(pk__in=ids)}
    return [found[pk] for pk in ids if pk in found]


if TYPE_CHECKING:  # generic in django-stubs only
    _Paginator = Paginator[Any]
else:
    _Paginator = Paginator


class EstimatedCountPaginator(_Paginator):
    """A count that never reads more than ``COUNT_CAP`` rows (see the module's docstring)."""

    estimated = False

    @cached_property
    def count(self) -> int:
        query = getattr(self.object_list, "query", None)
        if query is None or connection.vendor != "postgresql":
            return int(super().count)
        queryset = cast(QuerySet[Any], self.object_list)  # what has a query here: the admin's list
        if not query.where:
            estimate = table_estimate(queryset.model)
            if estimate is not None and estimate >= ESTIMATE_ABOVE:
                self.estimated = True
                return estimate
        # in the list's own order: the plan of its page, ten pages long (no annotation per row)
        capped = queryset.values("pk")[: COUNT_CAP + 1].count()
        if capped <= COUNT_CAP:
            return int(capped)
        self.estimated = True
        return max(COUNT_CAP + 1, query_estimate(queryset) or 0)

    def _get_page(self, object_list: Any, number: int, paginator: Paginator[Any]) -> Any:
        """Django's page of the slice it cut, its rows read by ids first (``rows_by_ids``)."""
        if isinstance(object_list, QuerySet) and connection.vendor == "postgresql":
            query = object_list.query
            object_list = rows_by_ids(self.object_list, query.low_mark, query.high_mark)  # type: ignore[arg-type]  # the list's queryset, as object_list was cut from it
        return super()._get_page(object_list, number, paginator)  # type: ignore[misc]  # Django's page hook, not in the stubs


def seek_fields(model: Any, ordering: Sequence[object]) -> list[tuple[str, bool]] | None:
    """``[(field, descending)]`` of an ordering a seek can follow (the model's own columns, none
    of them empty, ending with a unique one), or ``None``."""
    out: list[tuple[str, bool]] = []
    for item in ordering:
        if not isinstance(item, str):
            return None
        name = item.lstrip("-")
        if name == "pk":
            name = model._meta.pk.name
        try:
            field = model._meta.get_field(name)
        except Exception:
            return None
        if not field.concrete or field.null or field.is_relation:
            return None  # a relation orders by the other table's ordering; an empty value has no place
        out.append((field.name, item.startswith("-")))
        if field.unique or field.primary_key:
            return out
    return None


def beyond(fields: list[tuple[str, bool]], values: dict[str, Any], forward: bool) -> Q:
    """The rows after ``values`` in the order ``fields`` (before them, when not ``forward``)."""
    q = Q()
    equal = Q()
    for name, descending in fields:
        op = "lt" if descending == forward else "gt"
        q |= equal & Q(**{f"{name}__{op}": values[name]})
        equal &= Q(**{name: values[name]})
    return q


#: Stands for a row's key in the link made once per page (a path segment no key is).
_ROW_SLOT = "__row__"


class QuickLinksChangeList(ChangeList):
    """A list whose rows' links are made once per page: Django reverses each row's URL and, for a
    list with a query string, resolves it again to add the list's filters, a tenth of the time a
    100-row page takes to build. Same links."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # the rows' links carry the filters already: Django's per-row pass has nothing to add
        self.row_filters, self.preserved_filters = self.preserved_filters, ""

    def url_for_result(self, result: Any) -> str:
        template = self.__dict__.get("_row_url")
        if template is None:
            url = reverse(
                f"admin:{self.opts.app_label}_{self.opts.model_name}_change",
                args=(_ROW_SLOT,),
                current_app=self.model_admin.admin_site.name,
            )
            context: dict[str, Any] = {"preserved_filters": self.row_filters, "opts": self.opts}
            template = self._row_url = add_preserved_filters(context, url)
        return str(template).replace(_ROW_SLOT, str(quote(getattr(result, self.pk_attname))), 1)


class SeekChangeList(QuickLinksChangeList):
    """A big list's pages: numbered near the start, by seek past it (see the module's docstring)."""

    def get_filters_params(self, params: Any = None) -> Any:
        lookup_params = super().get_filters_params(params)
        for key in SEEK_PARAMS:
            lookup_params.pop(key, None)
        return lookup_params

    def _get_deterministic_ordering(self, ordering: list[Any]) -> list[Any]:
        """Django's ordering made total by ``-pk``; after a descending column, ``pk``: so that one
        index on ``(column, -id)`` serves the sort both ways (read forwards, or backwards)."""
        ordering = super()._get_deterministic_ordering(ordering)  # type: ignore[misc]  # Django's, private: not in the stubs
        if len(ordering) >= 2 and ordering[-1] == "-pk":
            before = ordering[-2]
            if isinstance(before, str) and before.startswith("-") and before not in ("-pk", "-id"):
                ordering = [*ordering[:-1], "pk"]
        return ordering

    def get_ordering_field(self, field_name: Any) -> Any:
        """Only the sorts the list offers (``sortable_by``, those an index serves), even from a
        hand-made ``?o=``: another would read and sort the whole table."""
        if self.sortable_by is not None and field_name not in self.sortable_by:
            return None
        return super().get_ordering_field(field_name)

    def get_results(self, request: HttpRequest) -> None:
        self.offset_pages = OFFSET_PAGES
        self.seek = seek_fields(self.model, list(self.queryset.query.order_by))
        self.seek_older: str | None = None
        self.seek_newer: str | None = None
        self.seek_oldest: str | None = None
        cursor = {k: request.GET.get(k) for k in SEEK_PARAMS if k in request.GET}
        if cursor and self.seek:
            self._seek_results(request, cursor)
            return
        if self.page_num > OFFSET_PAGES:
            messages.info(
                request,
                f"Pages past {OFFSET_PAGES} are reached with the “older” and “oldest” links, or by "
                "narrowing the list with a filter or a search.",
            )
            self.page_num = OFFSET_PAGES
        super().get_results(request)
        self._number_pages(current=self.page_num)
        self.estimated = getattr(self.paginator, "estimated", False)
        listed = self.result_list  # the queryset itself when the list fits one page (Django's)
        by_ids = isinstance(listed, QuerySet) and connection.vendor == "postgresql"
        rows = rows_by_ids(listed, 0, None) if by_ids else list(listed)
        self.result_list = rows
        if self.seek and rows and self.multi_page and not (self.show_all and self.can_show_all):
            last_page = self.page_num >= self.paginator.num_pages
            if not last_page:
                self.seek_older = self.get_query_string({BEFORE: rows[-1].pk}, remove=["p", AFTER, OLDEST])
            self.seek_oldest = self.get_query_string({OLDEST: 1}, remove=["p", BEFORE, AFTER])

    def _number_pages(self, current: int | None) -> None:
        """The numbered pages offered: the first ``OFFSET_PAGES`` at most."""
        last = min(OFFSET_PAGES, self.paginator.num_pages)
        self.numbered_pages = [
            (n, self.get_query_string({"p": n}, remove=list(SEEK_PARAMS)), n == current)
            for n in range(1, last + 1)
        ]

    def _seek_results(self, request: HttpRequest, cursor: dict[str, str | None]) -> None:
        """One page by seek: the rows after (``_before``) or before (``_after``) a row, or the
        list's last page (``_oldest``), each read with a ``LIMIT``, never an ``OFFSET``."""
        assert self.seek is not None
        paginator = self.model_admin.get_paginator(request, self.queryset, self.list_per_page)
        size = self.list_per_page
        forward = BEFORE in cursor
        queryset = self.queryset
        pivot = cursor.get(BEFORE) if forward else cursor.get(AFTER)
        if pivot is not None or AFTER in cursor:
            names = [name for name, _ in self.seek]
            values = (
                self.model._default_manager.filter(pk=int(pivot)).values(*names).first()
                if pivot and pivot.isdigit() and len(pivot) < 19
                else None
            )
            if values is None:
                raise IncorrectLookupParameters(f"no row {pivot!r} to page from")
            queryset = queryset.filter(beyond(self.seek, values, forward))
        if not forward:
            queryset = queryset.reverse()
        rows = (
            rows_by_ids(queryset, 0, size + 1)
            if connection.vendor == "postgresql"
            else list(queryset[: size + 1])
        )
        more = len(rows) > size
        rows = rows[:size]
        if not forward:
            rows.reverse()
        self.result_count = paginator.count
        self.estimated = getattr(paginator, "estimated", False)
        self.full_result_count = None
        self.show_full_result_count = False
        self.show_admin_actions = True
        self.result_list = rows
        self.can_show_all = False
        self.multi_page = True
        self.paginator = paginator
        self.page_num = 1  # for Django's page range, unused: no number is this page's
        self._number_pages(current=None)
        keep = ["p", *SEEK_PARAMS]
        if rows and (more if forward else AFTER in cursor):
            self.seek_older = self.get_query_string({BEFORE: rows[-1].pk}, remove=keep)
        if rows and (True if forward else more):
            self.seek_newer = self.get_query_string({AFTER: rows[0].pk}, remove=keep)
        if OLDEST not in cursor:
            self.seek_oldest = self.get_query_string({OLDEST: 1}, remove=keep)
