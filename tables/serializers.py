"""The shapes of the rows the site sends both over HTTP and over a socket.

The lobby's list (``GET /api/tables/``, ``apis.LobbyApi``) and its live feed (``lobbyfeed``) send the
same rows, so their one serializer sits below both: the feed imports no view module to get it.
"""

from __future__ import annotations

from rest_framework import serializers


class LobbyTableSerializer(serializers.Serializer):  # type: ignore[type-arg]  # generic in the DRF stubs over what it serializes; nothing here narrows it
    id = serializers.IntegerField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=["61", "101", "201", "points"])
    format_label = serializers.CharField()
    entry_fee = serializers.IntegerField(help_text="Paise (1 chip = 100).")
    entry_fee_display = serializers.CharField()
    seats = serializers.IntegerField()
    seats_taken = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["open", "playing"])
    practice = serializers.BooleanField()
    private = serializers.BooleanField(help_text="The player's own practice table (practice on demand).")
    game_id = serializers.IntegerField(allow_null=True)
    prize_pool = serializers.IntegerField(
        help_text="Paise a full table pays: every seat's fee less the rake."
    )
    prize_pool_display = serializers.CharField(allow_null=True)
    decks = serializers.IntegerField()
    turn_seconds = serializers.IntegerField()
