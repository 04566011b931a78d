"""Pages of the lobby, the table and hand history."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from accounts.requests import signed_in
from tables.errors import REFUSALS
from tables.game import seating, selectors
from tables.models import Table, TableSettings
from tables.realtime import quick
from wallet.selectors import chip_balances


def lobby(request: HttpRequest) -> HttpResponse:
    """The lobby for a logged-in player; for a visitor, the landing page (what this is, sign up, rules)."""
    if not request.user.is_authenticated:
        return render(request, "pages/landing.html")
    fmt = request.GET.get("format") or None
    status = request.GET.get("status") or None
    rows = selectors.lobby_tables(fmt=fmt, status=status, user=request.user)
    return render(
        request,
        "tables/lobby.html",
        {
            "tables": rows,
            "formats": TableSettings.Format.choices,
            "selected_format": fmt or "",
            "selected_status": status or "",
            "chips": chip_balances(user=request.user),
            "practice_seats": list(seating.PRACTICE_SEATS),
        },
    )


@login_required
@require_POST
def join(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        seed = request.POST.get("client_seed") or None  # docs/fairness.md: the browser's own seed
        seating.table_join(table_id=table_id, user=signed_in(request), client_seed=seed)
    except REFUSALS as exc:
        messages.error(request, str(exc))
        return redirect("lobby")
    return redirect("table", table_id=table_id)


@login_required
@require_POST
def practice(request: HttpRequest) -> HttpResponse:
    """The lobby's "Play practice now": the player's own table with bots, the game started."""
    try:
        seats = int(request.POST.get("seats", ""))
    except ValueError:
        seats = 0
    try:
        table = seating.practice_table_start(
            user=signed_in(request),
            fmt=request.POST.get("format", ""),
            seats=seats,
            client_seed=request.POST.get("client_seed") or None,  # docs/fairness.md: the browser's own seed
        )
    except REFUSALS as exc:
        messages.error(request, str(exc))
        return redirect("lobby")
    return redirect("table", table_id=table.pk)


@login_required
@require_POST
def leave(request: HttpRequest, table_id: int) -> HttpResponse:
    try:
        seating.table_leave(table_id=table_id, user=signed_in(request))
        messages.success(request, "You left the table; your entry fee is back in your wallet.")
    except REFUSALS as exc:
        messages.error(request, str(exc))
    return redirect("lobby")


@login_required
def table(request: HttpRequest, table_id: int) -> HttpResponse:
    table = get_object_or_404(Table.objects.select_related("settings"), pk=table_id)
    game = selectors.current_game(table)
    # the first state, shown before the socket brings it (its snapshot, presence aside)
    snapshot = selectors.table_snapshot(table=table, user=signed_in(request), game=game)
    summary = snapshot["table"]
    config = {  # the page's data, read by static/js/table.js (no inline script)
        "table_id": table.pk,
        "table_name": table.name,
        "format_label": summary["format_label"],
        "entry_fee_display": summary["entry_fee_display"],
        "currency": summary["entry_fee_display"][:1],
        "ws_path": f"/ws/tables/{table.pk}/",
        "csrf": get_token(request),
        "user_id": request.user.pk,
        "lobby_url": reverse("lobby"),
        "history_url": reverse("history"),  # the game's page is history_url + "games/<id>/"
        "rules_url": reverse("rules"),
        "join_url": reverse("table-join", args=[table.pk]),
        "leave_url": reverse("table-leave", args=[table.pk]),
        "game_id": game.pk if game is not None else None,
        "scores": selectors.score_rows(game),
        "quick_phrases": quick.PHRASES,  # the quick messages a player may send (tables/realtime/quick.py)
        "snapshot": snapshot,
    }
    return render(request, "tables/table.html", {"table": table, "table_config": config})


@login_required
def history(request: HttpRequest) -> HttpResponse:
    page = Paginator(selectors.finished_deals_for(user=signed_in(request)), 25).get_page(
        request.GET.get("page")
    )
    return render(request, "tables/history.html", {"page": page})


#: The staff permission of the one role whose job needs the hands (staff/roles.py): with it, the
#: table's view of a deal links to the staff page that opens it face up, with a reason.
VIEW_HANDS = "staff.view_live_hands"


@login_required
def deal_detail(request: HttpRequest, deal_id: int) -> HttpResponse:
    """A finished deal's replay: face up for a player of its game (docs/rules.md §10.3); for staff
    who did not play in it, the deal as the table saw it (``game.selectors.played_in``)."""
    deal = get_object_or_404(selectors.deal_visible_to(request.user), pk=deal_id)
    face_up = selectors.played_in(request.user, deal.game_id)
    face_up_url = None
    if not face_up and request.user.has_perm(VIEW_HANDS):
        face_up_url = reverse("admin:tables_deal_face_up", args=[deal.pk])
    return render(
        request,
        "tables/deal.html",
        {
            "deal": selectors.deal_detail(deal=deal, face_up=face_up),
            "fairness": selectors.deal_fairness(deal=deal) if face_up else None,
            "face_up_url": face_up_url,
        },
    )


@login_required
def game_detail(request: HttpRequest, game_id: int) -> HttpResponse:
    """A pool game's page: its deals' scores, eliminations, rejoins, payout, and links to replays."""
    game = get_object_or_404(selectors.game_visible_to(request.user), pk=game_id)
    data = selectors.game_history(game=game)
    names = {p["seat"]: p["name"] for p in data["players"]}

    def name_of(seat: int | None) -> str:
        return names.get(seat, "?") if seat is not None else "?"

    deals = [  # seat numbers to names for the template
        {
            **d,
            "rows": [
                {
                    "name": p["name"],
                    "points": (d["points"] or {}).get(str(p["seat"])),
                    "score": (d["scores"] or {}).get(str(p["seat"])),
                    "winner": d["winner"] == p["seat"],
                    "eliminated": p["seat"] in d["eliminated"],
                }
                for p in data["players"]
            ],
            "rejoined_names": [(name_of(r["seat"]), r) for r in d["rejoined"]],
            "left_names": [name_of(s) for s in d["left"]],
        }
        for d in data["deals"]
    ]
    result: dict[str, Any] = dict(data["result"])
    if result["over"]:
        result["payouts"] = [{**row, "name": name_of(row["seat"])} for row in data["result"]["payouts"]]
        winner = result["winner_seat"]
        result["winner_name"] = names.get(winner) if winner is not None else None
    return render(request, "tables/game.html", {"game": {**data, "deals": deals, "result": result}})
