"""JSON API of the lobby, the tables and hand history (each view calls one selector or service).

A refusal is raised, not answered here: the API's exception handler (``errors.api_exception_handler``)
gives every error the one shape ``{code, rule, message}`` and the status of its code; the schema
documents each error answer with that shape (``wiredocs.document_api_errors``).
"""

from __future__ import annotations

import re

from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.requests import signed_in
from core.typed_api import serializer_for
from game_engine.melds import Verdict, verdict
from tables.errors import BadRequest
from tables.game import seating, selectors
from tables.game.shapes import DealDetail, GameHistory
from tables.models import Table
from tables.serializers import LobbyTableSerializer


def refused(why: str) -> OpenApiResponse:
    """An error answer of an operation: its body is the one ``Error`` shape (``wiredocs.document_api_errors``)."""
    return OpenApiResponse(description=why)


NOT_FOUND = refused("No such id, or not one you may see (`not_found`, `unknown_table`).")
REFUSED = refused("Refused by the rules of the tables or the wallet: the code says which (docs/protocol.md).")
BAD_REQUEST = refused(
    "A field is missing or of the wrong type (`bad_request`) or not a card (`invalid_card`)."
)
SeatSerializer = inline_serializer(
    name="SeatTaken",
    fields={
        "table": serializers.IntegerField(),
        "game": serializers.IntegerField(),
        "position": serializers.IntegerField(),
    },
)


#: A fee filter the lobby takes; anything else (words, "--5", "²", 5,000 digits) is ignored, not a 500.
FEE_FILTER = re.compile(r"-?[0-9]{1,15}")

TABLE_ID = re.compile(r"[0-9]{1,18}")

#: A lobby_update lists the tables changed in one LOBBY_PUSH_SECONDS; a page asks for them at once.
MAX_LOBBY_IDS = 500


class LobbyApi(APIView):
    @extend_schema(
        operation_id="lobby_tables",
        tags=["tables"],
        parameters=[
            OpenApiParameter("format", OpenApiTypes.STR, enum=["61", "101", "201", "points"]),
            OpenApiParameter("min_fee", OpenApiTypes.INT, description="paise"),
            OpenApiParameter("max_fee", OpenApiTypes.INT, description="paise"),
            OpenApiParameter("status", OpenApiTypes.STR, enum=["open", "playing"]),
            OpenApiParameter(
                "ids",
                OpenApiTypes.STR,
                description=f"only these tables: up to {MAX_LOBBY_IDS} ids, comma-separated (a lobby_update's)",
            ),
        ],
        responses={200: LobbyTableSerializer(many=True), 400: BAD_REQUEST},
    )
    def get(self, request: Request) -> Response:
        """Every table in the lobby, filtered by format, entry fee and status (and ids)."""
        params = request.query_params
        ids = None
        if "ids" in params:
            words = params["ids"].split(",") if params["ids"] else []
            if len(words) > MAX_LOBBY_IDS or not all(TABLE_ID.fullmatch(w) for w in words):
                raise BadRequest(f"ids must be up to {MAX_LOBBY_IDS} table ids separated by commas")
            ids = [int(w) for w in words]

        def as_int(name: str) -> int | None:
            raw = params.get(name)
            return int(raw) if raw is not None and FEE_FILTER.fullmatch(raw) else None

        rows = selectors.lobby_tables(
            fmt=params.get("format") or None,
            min_fee=as_int("min_fee"),
            max_fee=as_int("max_fee"),
            status=params.get("status") or None,
            user=signed_in(request),
            ids=ids,
        )
        return Response(rows)


class TableDetailApi(APIView):
    @extend_schema(
        operation_id="table_snapshot",
        tags=["tables"],
        responses={200: OpenApiTypes.OBJECT, 404: NOT_FOUND},
    )
    def get(self, request: Request, table_id: int) -> Response:
        """The table as the logged-in player sees it (the same snapshot the WebSocket sends)."""
        table = get_object_or_404(Table.objects.select_related("settings"), pk=table_id)
        return Response(selectors.table_snapshot(table=table, user=signed_in(request)))


class TableJoinApi(APIView):
    @extend_schema(
        operation_id="table_join",
        tags=["tables"],
        request=None,
        responses={201: SeatSerializer, 404: NOT_FOUND, 409: REFUSED},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Pay the entry fee and take a seat."""
        seat = seating.table_join(table_id=table_id, user=signed_in(request))
        return Response({"table": table_id, "game": seat.game_id, "position": seat.position}, status=201)


class TableLeaveApi(APIView):
    @extend_schema(
        operation_id="table_leave",
        tags=["tables"],
        request=None,
        responses={204: None, 404: NOT_FOUND, 409: REFUSED},
    )
    def post(self, request: Request, table_id: int) -> Response:
        """Leave before the game starts; the entry fee is refunded."""
        seating.table_leave(table_id=table_id, user=signed_in(request))
        return Response(status=204)


class PracticeRequestSerializer(serializers.Serializer):  # type: ignore[type-arg]  # generic in the DRF stubs over what it serializes; nothing here narrows it
    format = serializers.ChoiceField(choices=list(seating.PRACTICE_FORMATS), help_text="The pool.")
    seats = serializers.IntegerField(
        min_value=min(seating.PRACTICE_SEATS),
        max_value=max(seating.PRACTICE_SEATS),
        help_text="You and bots.",
    )


PracticeTableSerializer = inline_serializer(
    name="PracticeTable",
    fields={
        "table": serializers.IntegerField(),
        "game": serializers.IntegerField(),
        "url": serializers.CharField(help_text="The table page."),
    },
)


class PracticeStartApi(APIView):
    @extend_schema(
        operation_id="practice_start",
        tags=["tables"],
        request=PracticeRequestSerializer,
        responses={201: PracticeTableSerializer, 400: BAD_REQUEST, 409: REFUSED},
    )
    def post(self, request: Request) -> Response:
        """Practice on demand: your own free table, bots in the other seats, the game started at once.

        If you are still playing a practice game of the same pool and seats, that table
        is answered again; a practice game of another kind must be finished or left first (409).
        """
        data = PracticeRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        table = seating.practice_table_start(
            user=signed_in(request), fmt=data.validated_data["format"], seats=data.validated_data["seats"]
        )
        game = selectors.current_game(table)
        return Response(
            {"table": table.pk, "game": game.pk if game else None, "url": reverse("table", args=[table.pk])},
            status=201,
        )


class DealSummarySerializer(serializers.Serializer):  # type: ignore[type-arg]  # generic in the DRF stubs over what it serializes; nothing here narrows it
    id = serializers.IntegerField()
    game_id = serializers.IntegerField()
    table = serializers.CharField(source="game.table.name")
    format = serializers.CharField(source="game.table.settings.format")
    number = serializers.IntegerField()
    finished_at = serializers.DateTimeField()


class DealHistoryApi(ListAPIView):  # type: ignore[type-arg]  # generic in the DRF stubs over what it serializes; nothing here narrows it
    """The logged-in player's finished deals, newest first, paginated."""

    serializer_class = DealSummarySerializer

    def get_queryset(self):
        return selectors.finished_deals_for(user=self.request.user)

    @extend_schema(operation_id="deal_history", tags=["history"])
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


DealDetailSerializer = serializer_for(DealDetail, "DealDetail")


class DealDetailApi(APIView):
    @extend_schema(
        operation_id="deal_detail",
        tags=["history"],
        responses={200: DealDetailSerializer, 404: NOT_FOUND},
    )
    def get(self, request: Request, deal_id: int) -> Response:
        """Every event and every shown hand of one finished deal of a game the player played in,
        with every hand open (docs/rules.md §10.3). Staff who did not play in it get the deal as
        the table saw it (``face_up`` false: no replay, no server seed, no hand but those shown);
        hands face up are on a staff page of their own, with a reason (docs/staff.md)."""
        deal = get_object_or_404(selectors.deal_visible_to(request.user), pk=deal_id)
        return Response(
            selectors.deal_detail(deal=deal, face_up=selectors.played_in(request.user, deal.game_id))
        )


GameHistorySerializer = serializer_for(GameHistory, "GameHistory")


class GameHistoryApi(APIView):
    @extend_schema(
        operation_id="game_detail",
        tags=["history"],
        responses={200: GameHistorySerializer, 404: NOT_FOUND},
    )
    def get(self, request: Request, game_id: int) -> Response:
        """One pool game: each deal's points and running scores, eliminations, rejoins, the split or
        payout, and which deals can be replayed (players of the game and staff, docs/rules.md §10.3)."""
        game = get_object_or_404(selectors.game_visible_to(request.user), pk=game_id)
        return Response(selectors.game_history(game=game))


class GroupsEvaluateSerializer(serializers.Serializer):  # type: ignore[type-arg]  # generic in the DRF stubs over what it serializes; nothing here narrows it
    groups = serializers.ListField(
        child=serializers.ListField(child=serializers.CharField(max_length=8), max_length=14),
        max_length=14,
        help_text="The arrangement, as lists of card codes (e.g. [['AH', '2H', '3H'], ['PJ', '5D', '5C']]).",
    )
    wild_rank = serializers.IntegerField(min_value=1, max_value=13, help_text="The deal's wild rank (A = 1).")


GroupsVerdictSerializer = serializer_for(Verdict, "GroupsVerdict")


class GroupsEvaluateApi(APIView):
    @extend_schema(
        operation_id="groups_evaluate",
        tags=["tables"],
        request=GroupsEvaluateSerializer,
        responses={200: GroupsVerdictSerializer, 400: BAD_REQUEST},
    )
    def post(self, request: Request) -> Response:
        """The engine's verdict on an arrangement: each group's kind and points, and the whole show.

        ``kind`` is ``pure_sequence``, ``impure_sequence``, ``set`` or ``invalid``; a
        group's ``points`` are what its cards would count if it does not help (jokers 0);
        ``points`` is the docs/rules.md §5 count of the arrangement and ``valid`` whether it is a
        valid declaration (docs/rules.md §4, 13 cards).
        """
        data = GroupsEvaluateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(verdict(data.validated_data["groups"], data.validated_data["wild_rank"]))
