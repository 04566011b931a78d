"""Admin bases for records only a service layer writes: staff may look, never edit.

Here, in the lowest app with an admin, so that every app's admin may use them (the apps are
layered, pyproject.toml's import-linter contract: none imports one above it).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.contrib import admin
from django.contrib.admin import helpers
from django.http import HttpRequest
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _

from core.admin_paging import EstimatedCountPaginator, QuickLinksChangeList, SeekChangeList


class QuickRowsMixin:
    """A list's rows built for less: the checkbox written straight as HTML (Django renders each
    one through the form widget's template, a third of the time a 100-row page takes to build)
    and the rows' links made once per page (``QuickLinksChangeList``). Same markup."""

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> Any:
        return QuickLinksChangeList

    def action_checkbox(self, obj: Any) -> SafeString:
        return format_html(
            '<input type="checkbox" name="{}" value="{}" class="action-select" aria-label="{}">',
            helpers.ACTION_CHECKBOX_NAME,
            obj.pk,
            format_html(_("Select this object for an action - {}"), str(obj)),
        )


class ReadOnlyMixin:
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyAdmin(QuickRowsMixin, ReadOnlyMixin, admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    pass


class ReadOnlyTabularInline(ReadOnlyMixin, admin.TabularInline):  # type: ignore[type-arg]  # generic only in django-stubs: Django's class takes no parameter at run time
    extra = 0
    can_delete = False


class BigListMixin:
    """For the lists of tables that grow without end (``core.admin_paging``): a count that
    reads at most a capped number of rows (an estimate past it, said so), seek pages past the
    first few, and no facet counts ("Show counts" would count every row of every filter value)."""

    paginator: ClassVar[type] = EstimatedCountPaginator
    show_full_result_count: ClassVar[bool] = False
    show_facets: ClassVar[admin.ShowFacets] = admin.ShowFacets.NEVER

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> Any:
        return SeekChangeList
