"""A player's turn-taking over a real socket, for the tests that play through Daphne.

The player acts once per version it was shown, on the newest view, and only once its last action
is answered. The update an action causes may arrive before the action's ``result`` (the notice goes
through the channel layer, the answer when the service's thread returns), so a player that skipped
the views that came while it waited would wait for one that never comes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class Turns:
    """What one player was shown and asked, and when it may act again."""

    name: str
    sent: int = 0
    #: The request id whose result has not come back yet.
    pending: str | None = None
    #: The version the player last acted on: one action per version shown.
    acted_on: int = -1
    #: The newest ``snapshot`` or ``update``.
    latest: dict[str, Any] | None = None

    def reconnected(self) -> None:
        """A new socket: what the old one showed and was asked is gone; request ids stay unique."""
        self.pending, self.acted_on, self.latest = None, -1, None

    def take(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """Note a message from the server; the ``result`` of the pending action, if this is it."""
        kind = message.get("type")
        if kind in ("snapshot", "update"):
            self.latest = message
        if kind == "result" and self.pending is not None and message.get("request_id") == self.pending:
            self.pending = None
            if not message.get("ok"):
                self.acted_on = -1  # refused: decide again from the view shown
            return message
        return None

    def view(self) -> dict[str, Any] | None:
        """The view to decide from, or None while an action waits or nothing new was shown."""
        if self.pending is not None or self.latest is None or self.latest["version"] <= self.acted_on:
            return None
        view: dict[str, Any] | None = self.latest.get("view")
        return view

    def act(self, action: dict[str, Any]) -> str:
        """The frame that sends ``action``, now pending, decided on the newest version."""
        assert self.latest is not None, "nothing shown to act on"
        self.sent += 1
        self.pending = f"{self.name}-{self.sent}"
        self.acted_on = int(self.latest["version"])
        return json.dumps({"type": "action", "request_id": self.pending, "action": action})
