"""A staff member's browser for the tests of what staff may and may not do."""

from __future__ import annotations

from typing import Any

from django.test import Client
from django.urls import reverse

from accounts.models import User


class Insider:
    """A staff member's browser: real pages, the CSRF token from the page's cookie."""

    def __init__(self, user: User) -> None:
        self.user = user
        self.client = Client(enforce_csrf_checks=True)
        self.client.force_login(user)
        self.client.get(reverse("admin:index"))  # sets the CSRF cookie, as a browser gets it

    def get(self, url: str, **params: Any) -> Any:
        return self.client.get(url, params)

    def post(self, url: str, data: dict[str, Any]) -> Any:
        token = self.client.cookies["csrftoken"].value
        return self.client.post(url, {**data, "csrfmiddlewaretoken": token})

    def form(self, url: str, **changes: Any) -> Any:
        """Post the admin form at ``url`` as shown, with ``changes`` typed over it."""
        page = self.client.get(url)
        assert page.status_code == 200, url
        data: dict[str, Any] = {}
        forms = [page.context["adminform"].form]
        for inline in page.context.get("inline_admin_formsets", []):
            formset = inline.formset
            forms += [formset.management_form, *formset.forms]
        for form in forms:
            for name, field in form.fields.items():
                if field.disabled:
                    continue
                value = form[name].value()
                if isinstance(value, bool):
                    if value:
                        data[form.add_prefix(name)] = "on"
                elif isinstance(value, list | tuple):
                    data[form.add_prefix(name)] = [str(v) for v in value]
                elif value is not None:
                    data[form.add_prefix(name)] = value
        for key, value in changes.items():
            if value is None:
                data.pop(key, None)
            else:
                data[key] = value
        return self.post(url, data)
