"""Events (public facts the server broadcasts) and deadlines (when to send ``timeout``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """A public event: everything in ``data`` may be shown to every seat and spectator."""

    type: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.type, **self.data}


@dataclass(frozen=True, slots=True)
class Deadline:
    """When the server must send ``{"type": "timeout", "at": at_ms}``.

    ``kind``: "turn", "extra", "declare", "next_deal", "rejoin" or "split";
    ``seat``: whose clock it is, or None when it concerns the table.
    """

    at_ms: int
    kind: str
    seat: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"at_ms": self.at_ms, "kind": self.kind, "seat": self.seat}
