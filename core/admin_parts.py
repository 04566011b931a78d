"""Admin pages composed across the apps' layers.

A model's page is declared and registered once, by the model's own app (``register``). An app
above it adds what its job needs there (staff: actions under a permission, pages of its own, the
reason every save asks) as a mixin (``extends``), since the app below may not import it. The site
is built from both once every app's admin module is imported (``install``, from the site's
AppConfig): each page's class is its parts over the owner's class, in the order the parts were
declared.

A part types its ``super()`` calls against the owner's page with a base that is the owner's class
to mypy and ``object`` when the program runs (``if TYPE_CHECKING: Base = OwnerAdmin``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib import admin
from django.db.models import Model

_pages: dict[type[Model], type[admin.ModelAdmin[Any]]] = {}
_parts: dict[type[Model], list[type]] = {}

AdminT = TypeVar("AdminT", bound="admin.ModelAdmin[Any]")
PartT = TypeVar("PartT", bound=type)


class AdminPartsError(Exception):
    """A page registered twice, or a part for a page that no app registers."""


def register(*models: type[Model]) -> Callable[[type[AdminT]], type[AdminT]]:
    """The owning app's page for ``models``: ``django.contrib.admin.register`` that waits for the parts."""

    def record(page: type[AdminT]) -> type[AdminT]:
        for model in models:
            if model in _pages:
                raise AdminPartsError(f"{model._meta.label}: a page is registered already ({_pages[model]})")
            _pages[model] = page
        return page

    return record


def extends(model: type[Model]) -> Callable[[PartT], PartT]:
    """A mixin from an app above ``model``'s own app, composed over its page by ``install``."""

    def record(part: PartT) -> PartT:
        _parts.setdefault(model, []).append(part)
        return part

    return record


def composed(model: type[Model]) -> type[admin.ModelAdmin[Any]]:
    """The class the site registers for ``model``: its parts over its owner's page."""
    page = _pages[model]
    parts = _parts.get(model, [])
    if not parts:
        return page
    return type(
        page.__name__, (*parts, page), {"__module__": page.__module__, "__qualname__": page.__qualname__}
    )


def install(site: admin.AdminSite) -> None:
    """Registers every page with its parts; a part without its page is refused (a typo or an
    app left out would otherwise drop a job's actions silently), and so is a model another page
    holds. Installing again leaves the site as it is: the apps' ready() runs again whenever the
    app registry is rebuilt (``override_settings(INSTALLED_APPS=...)``)."""
    orphans = [model._meta.label for model in _parts if model not in _pages]
    if orphans:
        raise AdminPartsError(f"parts for models no app registers a page for: {', '.join(orphans)}")
    for model, page in _pages.items():
        if site.is_registered(model):
            if isinstance(site.get_model_admin(model), page):
                continue
            raise AdminPartsError(
                f"{model._meta.label}: another page holds it ({site.get_model_admin(model)})"
            )
        site.register(model, composed(model))
