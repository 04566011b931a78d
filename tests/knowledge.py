"""What one seat knows of a game, built only from the updates it receives (the
``verify_action`` tests of tests/game_engine/test_events.py and tests/tables/test_verify_updates.py)."""

from __future__ import annotations

from collections import Counter
from typing import Any


class SeatKnowledge:
    """What one seat knows, built only from the updates it receives: the events
    (public) and, for its own hidden facts, the view the update carries."""

    def __init__(self, seat: int, view: dict[str, Any]) -> None:
        self.seat = seat
        self.phase: str = view["phase"]
        self.deal_no: int = view["deal_no"]
        self.scores = {p["seat"]: p["score"] for p in view["players"]}
        self.eliminated = {p["seat"]: p["eliminated"] for p in view["players"]}
        self.open_pile: list[str] = list(view["open_pile"])
        self.closed_count: int = view["closed_count"]
        self.turn: int | None = view["turn"]
        self.hand: Counter[str] | None = Counter(view["hand"]) if view["hand"] is not None else None

    def apply(self, events: list[dict[str, Any]], view: dict[str, Any]) -> None:
        """The events in order; ``view`` is read only for this seat's own hidden cards."""
        me = self.seat
        for e in events:
            kind = e["type"]
            if kind == "deal_started":
                self.phase, self.deal_no = "playing", e["deal_no"]
                self.open_pile, self.closed_count = [e["open_card"]], e["closed_count"]
                self.hand = Counter(view["hand"]) if me in e["order"] else None  # dealt face down
            elif kind == "turn":
                self.turn = e["seat"]
            elif kind == "draw":
                if e["source"] == "open":
                    card = self.open_pile.pop()
                    assert card == e["card"]
                else:
                    self.closed_count -= 1
                    card = view["drawn_card"] if e["seat"] == me else None  # the one hidden card
                if e["seat"] == me and self.hand is not None:
                    assert card is not None
                    self.hand[card] += 1
            elif kind == "discard":
                self.open_pile.append(e["card"])
                if e["seat"] == me and self.hand is not None:
                    self.hand[e["card"]] -= 1
            elif kind == "reshuffle":
                self.closed_count, self.open_pile = e["closed_count"], [e["open_top"]]
            elif kind == "finish":
                self.phase, self.turn = "declaring", None
                if e["seat"] == me:  # the card in the finish slot is face down: the seat knows it
                    self.hand = Counter(view["hand"])
            elif kind == "declaration":
                if e["valid"]:
                    self.phase = "declaring"
                else:
                    self.phase = "playing"
                    self.open_pile.append(e["open_top"])
            elif kind == "deal_over":
                self.phase, self.turn, self.hand = "deal_over", None, None
            elif kind == "scores":
                self.scores = {int(k): v for k, v in e["scores"].items()}
                for seat in e["eliminated"]:
                    self.eliminated[seat] = True
            elif kind == "rejoin_offer":
                self.phase = "rejoin_window"
            elif kind == "rejoined":
                self.scores[e["seat"]] = e["score"]
                self.eliminated[e["seat"]] = False
            elif kind == "split_offer":
                self.phase = "split_offer"
            elif kind == "next_deal":
                self.phase = "between_deals"
            elif kind == "player_left":
                self.eliminated[e["seat"]] = True
            elif kind == "game_over":
                self.phase = "finished"
        if self.phase == "deal_over":  # a deal_over is always followed by what comes next
            raise AssertionError("a deal ended without a scores/next step in the same update")

    def compare(self, fresh: dict[str, Any]) -> None:
        """What a fresh snapshot gives this seat now must equal what the updates told it."""
        assert self.phase == fresh["phase"]
        assert self.deal_no == fresh["deal_no"]
        assert self.scores == {p["seat"]: p["score"] for p in fresh["players"]}
        assert self.eliminated == {p["seat"]: p["eliminated"] for p in fresh["players"]}
        if fresh["phase"] in ("playing", "declaring"):
            assert self.open_pile == fresh["open_pile"]
            assert self.closed_count == fresh["closed_count"]
            assert fresh["turn"] is None or self.turn == fresh["turn"]
            mine = Counter(fresh["hand"]) if fresh["hand"] is not None else None
            assert (+self.hand if self.hand is not None else None) == mine
        else:
            assert fresh["hand"] is None
