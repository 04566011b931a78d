"""The use cases of the live tables, by the module each one lives in: this module only names them.

``tables.game.seating`` (joining and leaving before the start, practice on demand, the start),
``tables.game.play`` (a player's action, a blocked player's auto drop, ``run_on_game``),
``tables.game.timers`` (deadlines, the sweep, re-arming), ``tables.game.record`` (the one write path)
and ``tables.game.settlement`` (the money the events move). The code of the project imports those;
the tests and tools that say ``services.table_join`` still may.
"""

from __future__ import annotations

from tables.game.play import ANSWERS_KEPT, Ran, Step, Write, drop_blocked_player, game_act, run_on_game
from tables.game.record import write_game
from tables.game.seating import (
    PRACTICE_FORMATS,
    PRACTICE_SEATS,
    practice_table_start,
    table_join,
    table_leave,
)
from tables.game.timers import REARM_OFFSET, SWEEP_GRACE, deadlines_sweep, game_timeout, timers_rearm

__all__ = [
    "ANSWERS_KEPT",
    "PRACTICE_FORMATS",
    "PRACTICE_SEATS",
    "REARM_OFFSET",
    "SWEEP_GRACE",
    "Ran",
    "Step",
    "Write",
    "deadlines_sweep",
    "drop_blocked_player",
    "game_act",
    "game_timeout",
    "practice_table_start",
    "run_on_game",
    "table_join",
    "table_leave",
    "timers_rearm",
    "write_game",
]
