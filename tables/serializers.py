"""The shapes of the rows the site sends both over HTTP and over a socket, as the JSON API documents them.

The lobby's list (``GET /api/tables/``, ``apis.LobbyApi``) and its live feed (``lobbyfeed``) send the
same rows, declared once as ``tables.contract.TableSummary``; the serializer drf-spectacular
documents the API's answer with is made from that declaration.
"""

from __future__ import annotations

from core.typed_api import serializer_for
from tables.contract import TableSummary

LobbyTableSerializer = serializer_for(TableSummary, "LobbyTable")
