"""Every admin list builds its rows for less (``core.admin_base.QuickRowsMixin``): the row
checkboxes written as the markup Django's widget would render, and the rows' links made once a page
as Django would make each (with the list's filters kept), so "select all", the actions and the way
back to a filtered list work as before."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pytest
from django.contrib import admin
from django.contrib.admin.templatetags.admin_urls import add_preserved_filters
from django.contrib.admin.utils import quote
from django.test import Client
from django.urls import reverse

from accounts.models import User
from core.admin_base import QuickRowsMixin

pytestmark = pytest.mark.django_db


def listed_admins() -> list[admin.ModelAdmin]:  # type: ignore[type-arg]
    """The registered admins whose lists have row checkboxes (the project's own models)."""
    ours = ("accounts", "wallet", "tables", "integrity", "staff", "auth")
    return [
        model_admin
        for model, model_admin in admin.site._registry.items()
        if model._meta.app_label in ours and model_admin.actions is not None
    ]


def test_every_list_of_ours_writes_its_checkboxes_itself() -> None:
    slow = [type(a).__name__ for a in listed_admins() if not isinstance(a, QuickRowsMixin)]
    assert listed_admins() and not slow, f"rendered through the form widget: {slow}"


@pytest.mark.parametrize("name", ["plain", 'quote " <b>&amp;</b>'])
def test_the_checkbox_is_the_widgets_markup(name: str) -> None:
    user = User.objects.create_user(username="rows", display_name=name)
    user.username = name  # str(user) is what the label reads
    model_admin = admin.site._registry[User]
    assert model_admin.action_checkbox(user) == admin.ModelAdmin.action_checkbox(model_admin, user)


@pytest.mark.parametrize("query", ["", "o=-1", "q=ro&o=2.-1"])
def test_the_rows_links_are_djangos(query: str) -> None:
    boss = User.objects.create_superuser("rowsboss", password="x")
    for n in range(3):
        User.objects.create_user(username=f"row{n}")
    client = Client()
    client.force_login(boss)
    page = client.get(f"/admin/accounts/user/?{query}")
    assert page.status_code == 200
    links = re.findall(r'<th class="field-username"><a href="([^"]+)"', page.content.decode())
    filters = urlencode({"_changelist_filters": query}) if query else ""
    expected = [
        add_preserved_filters(
            {"preserved_filters": filters, "opts": User._meta},
            reverse("admin:accounts_user_change", args=(quote(user.pk),)),
        ).replace("&", "&amp;")
        for user in User.objects.filter(username__icontains="ro" if "q=" in query else "")
    ]
    assert links and sorted(links) == sorted(expected)
