"""The seven disciplines as data: one row each, and nothing else.

Every difference between the disciplines is a value in this table. Numbers that experiments may
want to vary (distance, cushions, limits, line distance) become pytree leaves of ``Rules``; the
words (family, zones, re-spot kinds) choose code paths and are static metadata.

=================  =========  ========  ========  =========  =====  ==========  ============
id                 family     distance  cushions  zones      limit  jumped      frozen
=================  =========  ========  ========  =========  =====  ==========  ============
three_cushion      carom      40        3         none       -      spots       spots_choice
one_cushion        carom      100       1         none       -      start       start_choice
straight_rail      carom      300       0         corners    2      start       start_forced
balkline_47_2      carom      200       0         balkline   2      start       start_choice
balkline_47_1      carom      150       0         balkline   1      start       start_choice
balkline_71_2      carom      200       0         balkline   2      start       start_choice
hungarian_1000     hungarian  1000      0         none       -      base_spots  none
=================  =========  ========  ========  =========  =====  ==========  ============
"""
from __future__ import annotations

from typing import NamedTuple


class Discipline(NamedTuple):
    """One discipline's rules as data.

    Attributes:
      id: the discipline id.
      clause: the clause of docs/rules.md that defines it.
      family: "carom" (Part C: each player has his own cue ball, one point per carom) or
        "hungarian" (Part H: the red is everyone's cue ball, the pin, points 10 / 50 / 100).
      distance: the game distance in points (open point O-1).
      cushions_required: cue-ball cushion contacts needed before the carom (C-13.1, C-13.2).
      zones: "none", "corners" (straight-rail restricted fields, C-11.1, O-5) or "balkline"
        (fields and anchor squares, C-12.2, C-12.5).
      line_distance: balkline line distance from the cushions (m), C-12.2 / C-12.5.
      field_limit: consecutive caroms allowed with both object balls in one field or anchor,
        the last of which must drive an object ball out (C-11.2, C-12.3, C-12.4, C-12.6).
      jumped_respot: "start" (all three balls to the starting position: C-11.4, C-12.8,
        C-13.4 a), "spots" (three-cushion spots: C-13.4 b-d) or "base_spots" (H-7).
      frozen_respot: "start_forced" (C-11.3), "start_choice" (C-12.7 a, C-13.3 one-cushion),
        "spots_choice" (C-13.3 three-cushion) or "none" (Hungarian: shoot away, H-4.6).
      countdown_from: the referee announces the last this-many points (C-14.1); 0: never.
    """

    id: str
    clause: str
    family: str
    distance: int
    cushions_required: int
    zones: str
    line_distance: float
    field_limit: int
    jumped_respot: str
    frozen_respot: str
    countdown_from: int


# rule O-1: game distances; rule C-14.1: countdown from 5 points (three-cushion from 3).
_ROWS = (
    Discipline("three_cushion", "C-13.2", "carom", 40, 3, "none", 0.47, 2, "spots", "spots_choice", 3),
    Discipline("one_cushion", "C-13.1", "carom", 100, 1, "none", 0.47, 2, "start", "start_choice", 5),
    Discipline("straight_rail", "C-11", "carom", 300, 0, "corners", 0.47, 2, "start", "start_forced", 5),
    Discipline("balkline_47_2", "C-12.3", "carom", 200, 0, "balkline", 0.47, 2, "start", "start_choice", 5),
    Discipline("balkline_47_1", "C-12.4", "carom", 150, 0, "balkline", 0.47, 1, "start", "start_choice", 5),
    Discipline("balkline_71_2", "C-12.6", "carom", 200, 0, "balkline", 0.71, 2, "start", "start_choice", 5),
    Discipline("hungarian_1000", "Part H", "hungarian", 1000, 0, "none", 0.47, 2, "base_spots", "none", 0),
)

TABLE = {row.id: row for row in _ROWS}
DISCIPLINES = tuple(TABLE)


def get(discipline: str) -> Discipline:
    """The row of a discipline id; ValueError listing the valid ids for an unknown one."""
    if not isinstance(discipline, str) or discipline not in TABLE:
        raise ValueError(
            f"unknown discipline {discipline!r}; valid disciplines: {', '.join(DISCIPLINES)}"
        )
    return TABLE[discipline]
