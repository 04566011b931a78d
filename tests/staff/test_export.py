"""Any admin list to CSV (issue 27): hostile cells escaped against spreadsheet formulas, the list's
own filters and columns, the role's view permission, and every export in the audit trail."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import User
from staff.export import FORMULA_STARTS, safe_cell
from staff.models import StaffAction

pytestmark = pytest.mark.django_db
ClientFor = Callable[[User], Client]

HOSTILE = [
    '=HYPERLINK("http://evil.example","x")',
    "+1+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
]


def test_every_dangerous_first_character_is_escaped_and_others_are_not() -> None:
    for cell in HOSTILE:
        assert safe_cell(cell) == "'" + cell
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r"}
    assert safe_cell("asha") == "asha" and safe_cell("a=b") == "a=b" and safe_cell(None) == ""
    assert safe_cell(-5) == "'-5"


def _export(client: Client, url: str, reason: str | None, **post: object) -> object:
    data: dict[str, object] = {"action": "export_csv", **post}
    if reason is not None:
        data.update(apply="1", reason=reason)
    return client.post(url, data)


def _rows(response: object) -> list[list[str]]:
    body = b"".join(response.streaming_content).decode()  # type: ignore[attr-defined]
    return list(csv.reader(io.StringIO(body, newline="")))


def test_a_list_with_hostile_names_exports_them_as_text(administrator: User, client_for: ClientFor) -> None:
    hostile = [
        User.objects.create_user(f"h{n}", display_name=name[:24], email=f"h{n}@example.com")
        for n, name in enumerate(HOSTILE)
    ]
    User.objects.create_user("asha", display_name="Asha")
    client = client_for(administrator)
    url = reverse("admin:accounts_user_changelist")
    ids = [u.pk for u in hostile]
    # first the reason is asked: nothing exported, nothing recorded yet
    ask = _export(client, url, None, index="0", _selected_action=ids)
    assert ask.status_code == 200 and 'id="export-form"' in ask.content.decode()  # type: ignore[attr-defined]
    assert not StaffAction.objects.filter(verb="export_csv").exists()
    response = _export(
        client, url, "player list for the fraud review", _selected_action=ids, select_across="0"
    )
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")  # type: ignore[index]
    assert response["Content-Disposition"].startswith('attachment; filename="users-')  # type: ignore[index]
    rows = _rows(response)
    header, body = rows[0], rows[1:]
    assert header[:3] == ["username", "display name", "email address"] and "may play?" in header
    assert len(body) == len(HOSTILE)
    names = {row[0]: row[1] for row in body}
    for n, name in enumerate(HOSTILE):
        assert names[f"h{n}"] == "'" + name[:24], name
    for row in body:
        for cell in row:
            assert not cell.startswith(FORMULA_STARTS), cell
    entry = StaffAction.objects.get(verb="export_csv")
    assert entry.actor == administrator and entry.reason == "player list for the fraud review"
    assert entry.after["rows"] == len(HOSTILE) and entry.after["list"] == "users"
    assert "username" in entry.after["columns"] and entry.object_repr == "users (CSV export)"


def test_all_matching_rows_follow_the_lists_search(support: User, client_for: ClientFor) -> None:
    for n in range(7):
        User.objects.create_user(f"ravi{n}")
    User.objects.create_user("asha")
    client = client_for(support)
    url = reverse("admin:accounts_user_changelist") + "?q=ravi"
    response = _export(
        client,
        url,
        "count the ravis",
        _selected_action=[User.objects.get(username="ravi0").pk],
        select_across="1",
    )
    names = [row[0] for row in _rows(response)[1:]]
    assert sorted(names) == [f"ravi{n}" for n in range(7)]
    entry = StaffAction.objects.get(verb="export_csv")
    assert entry.after["chosen"] == "all matching the list" and entry.after["filters"] == "q=ravi"


def test_an_export_needs_a_reason_and_the_lists_view_permission(support: User, client_for: ClientFor) -> None:
    asha = User.objects.create_user("asha")
    url = reverse("admin:accounts_user_changelist")
    response = _export(client_for(support), url, "", _selected_action=[asha.pk], select_across="0")
    assert response.status_code == 200 and "This field is required" in response.content.decode()  # type: ignore[attr-defined]
    # a staff member without a role views no list, so exports none
    nobody = User.objects.create_user("nobody", is_staff=True)
    response = _export(client_for(nobody), url, "curious", _selected_action=[asha.pk], select_across="0")
    assert response.status_code == 403
    # a support agent may not view roles (groups): no export of them either
    groups = reverse("admin:auth_group_changelist")
    assert (
        _export(client_for(support), groups, "curious", _selected_action=[1], select_across="0").status_code
        == 403
    )
    assert not StaffAction.objects.filter(verb="export_csv").exists()


def test_the_action_is_offered_on_every_list_its_viewer_may_view(administrator: User, support: User) -> None:
    from django.contrib import admin
    from django.test import RequestFactory

    for staff in (administrator, support):
        request = RequestFactory().get("/admin/")
        request.user = staff
        viewed = []
        for model, model_admin in admin.site._registry.items():
            offered = "export_csv" in model_admin.get_actions(request)
            assert offered == model_admin.has_view_permission(request), (staff, model._meta.label)
            if offered:
                viewed.append(model._meta.label)
        assert (
            "accounts.User" in viewed
            and "wallet.LedgerTransaction" in viewed
            and "staff.StaffAction" in viewed
        )
