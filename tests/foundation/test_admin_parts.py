"""Admin pages composed across the layers (``core.admin_parts``): each model's page is registered
once, by the model's own app, and an app above adds its behaviour as a mixin over it."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.auth.models import Group

from core import admin_parts
from tables.models import Table

ROOT = Path(__file__).resolve().parents[2]
OUR_APPS = ("accounts", "wallet", "tables", "integrity", "staff")
#: Django's own models whose page an app of ours takes over, and the app that does.
ADOPTED = {"auth.Group": "accounts"}


def test_every_page_of_ours_is_the_model_apps_own_class() -> None:
    for model, page in admin.site._registry.items():
        label = model._meta.label
        owner = ADOPTED.get(label, model._meta.app_label)
        if owner not in OUR_APPS:
            continue
        assert type(page).__module__.split(".")[0] == owner, (label, type(page).__module__)


def test_staff_adds_to_other_apps_pages_without_registering_them() -> None:
    """What staff may do on a table, a game, an account or a flag is in the live page's class."""
    table_page = type(admin.site._registry[Table])
    assert table_page.__module__ == "tables.admin"
    bases = [c.__module__ for c in table_page.__mro__]
    assert "staff.admin.tables" in bases
    assert "close_tables" in table_page.actions
    assert [c.__module__ for c in type(admin.site._registry[Group]).__mro__][:3] == [
        "accounts.admin",
        "staff.admin.player_records",
        "staff.admin.reasons",
    ]


def _calls(path: Path, names: set[str]) -> list[str]:
    """The models a module's calls of ``names`` (``register``, ``unregister``: the admin site's
    methods and Django's decorator) name."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in names:
            found.extend(ast.unparse(arg) for arg in node.args)
    return found


def test_staff_registers_only_its_own_models() -> None:
    from staff import models as staff_models

    for path in sorted((ROOT / "staff").rglob("*.py")):
        for name in _calls(path, {"register", "unregister"}):
            assert hasattr(staff_models, name), f"{path.relative_to(ROOT)} registers {name}"


class _Page(admin.ModelAdmin):  # type: ignore[type-arg]  # generic only in django-stubs
    def greeting(self) -> str:
        return "page"


@pytest.fixture
def fresh_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(admin_parts, "_pages", {})
    monkeypatch.setattr(admin_parts, "_parts", {})


def test_parts_are_composed_over_the_page_in_their_order(fresh_parts: None) -> None:
    admin_parts.register(Table)(_Page)

    @admin_parts.extends(Table)
    class First:
        def greeting(self) -> str:
            return "first+" + super().greeting()  # type: ignore[misc]  # the page's, once composed

    @admin_parts.extends(Table)
    class Second:
        def greeting(self) -> str:
            return "second+" + super().greeting()  # type: ignore[misc]  # as above

    site = admin.AdminSite(name="parts-test")
    admin_parts.install(site)
    page: Any = site._registry[Table]
    assert page.greeting() == "first+second+page"
    assert type(page).__name__ == "_Page" and type(page).__module__ == __name__


def test_a_page_registered_twice_is_refused(fresh_parts: None) -> None:
    admin_parts.register(Table)(_Page)
    with pytest.raises(admin_parts.AdminPartsError, match="tables.Table"):
        admin_parts.register(Table)(_Page)


def test_a_part_for_a_page_nobody_registers_is_refused(fresh_parts: None) -> None:
    admin_parts.extends(Table)(type("Lost", (), {}))
    with pytest.raises(admin_parts.AdminPartsError, match="tables.Table"):
        admin_parts.install(admin.AdminSite(name="parts-test"))


def test_a_page_without_parts_is_registered_as_declared(fresh_parts: None) -> None:
    admin_parts.register(Table)(_Page)
    site = admin.AdminSite(name="parts-test")
    admin_parts.install(site)
    assert type(site._registry[Table]) is _Page


def test_installing_again_leaves_the_site_as_it_is(fresh_parts: None) -> None:
    """The apps' ready() runs again when the app registry is rebuilt (override_settings)."""
    admin_parts.register(Table)(_Page)
    admin_parts.extends(Table)(type("Part", (), {}))
    site = admin.AdminSite(name="parts-test")
    admin_parts.install(site)
    installed = site._registry[Table]
    admin_parts.install(site)
    assert site._registry[Table] is installed


def test_a_model_another_page_holds_is_refused(fresh_parts: None) -> None:
    admin_parts.register(Table)(_Page)
    site = admin.AdminSite(name="parts-test")
    site.register(Table, admin.ModelAdmin)
    with pytest.raises(admin_parts.AdminPartsError, match="another page holds it"):
        admin_parts.install(site)
