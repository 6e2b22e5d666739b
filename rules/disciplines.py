"""The seven disciplines as data: one row each, and nothing else; variants are rows added at run time.

Every difference between the disciplines is a value in this table. The numbers (distance,
cushions, limits, line distance) and the words (zones, re-spot kinds, as the integer codes of
``rules.codes``) become pytree leaves of ``Rules``, so that experiments may vary them and one
compiled referee serves every carom discipline; only the family chooses a code path and is static.
The table and the physics table kind are read where an environment is built.

==============  =========  ========  ========  ========  =====  ==========  ============  =========  ===  =============
id              family     distance  cushions  zones     limit  jumped      frozen        table      pin  gym name
==============  =========  ========  ========  ========  =====  ==========  ============  =========  ===  =============
three_cushion   carom      40        3         none      -      spots       spots_choice  match      no   ThreeCushion
one_cushion     carom      100       1         none      -      start       start_choice  match      no   OneCushion
straight_rail   carom      300       0         corners   2      start       start_forced  match      no   StraightRail
balkline_47_2   carom      200       0         balkline  2      start       start_choice  match      no   Balkline47_2
balkline_47_1   carom      150       0         balkline  1      start       start_choice  match      no   Balkline47_1
balkline_71_2   carom      200       0         balkline  2      start       start_choice  match      no   Balkline71_2
hungarian_1000  hungarian  1000      0         none      -      base_spots  none          hungarian  yes  Hungarian1000
==============  =========  ========  ========  ========  =====  ==========  ============  =========  ===  =============

The table is the only place that knows a discipline: the physics table, the pin and the
Gymnasium name of an environment are read from its row, never from its id. ``register_discipline``
adds a variant (a row derived from an existing one) at run time; every layer then plays it.
"""
from __future__ import annotations

import numbers
from typing import NamedTuple

from physics.table import TABLE_KINDS
from physics.thinning import CUE_CUSHIONS_KEPT
from rules.codes import FrozenRespot, JumpedRespot, Zones


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
      table: the physics table it is played on, a kind of ``physics.table.TABLE_KINDS``: "match"
        for the carom disciplines (O-2), "hungarian" for the 1:2 table (H-1.1).
      pin: the pin stands on the centre spot (H-1.3, H-2.1); the Hungarian family's referee judges it,
        the carom family's knows none, so it is True exactly for the Hungarian family.
      gym_name: the Gymnasium name, ``billiards_env/<gym_name>-v0``.
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
    table: str
    pin: bool
    gym_name: str


# rule O-1: game distances; rule C-14.1: countdown from 5 points (three-cushion from 3).
_ROWS = (
    Discipline("three_cushion", "C-13.2", "carom", 40, 3, "none", 0.47, 2, "spots", "spots_choice", 3,
               "match", False, "ThreeCushion"),
    Discipline("one_cushion", "C-13.1", "carom", 100, 1, "none", 0.47, 2, "start", "start_choice", 5,
               "match", False, "OneCushion"),
    Discipline("straight_rail", "C-11", "carom", 300, 0, "corners", 0.47, 2, "start", "start_forced", 5,
               "match", False, "StraightRail"),
    Discipline("balkline_47_2", "C-12.3", "carom", 200, 0, "balkline", 0.47, 2, "start", "start_choice", 5,
               "match", False, "Balkline47_2"),
    Discipline("balkline_47_1", "C-12.4", "carom", 150, 0, "balkline", 0.47, 1, "start", "start_choice", 5,
               "match", False, "Balkline47_1"),
    Discipline("balkline_71_2", "C-12.6", "carom", 200, 0, "balkline", 0.71, 2, "start", "start_choice", 5,
               "match", False, "Balkline71_2"),
    Discipline("hungarian_1000", "Part H", "hungarian", 1000, 0, "none", 0.47, 2, "base_spots", "none", 0,
               "hungarian", True, "Hungarian1000"),
)

TABLE = {row.id: row for row in _ROWS}
# The seven disciplines of docs/rules.md; variants added by ``register_discipline`` are in TABLE only.
DISCIPLINES = tuple(TABLE)

FAMILIES = ("carom", "hungarian")
_WORDS = dict(  # the words of a column are the names of its codes, which ``Rules`` holds as leaves
    zones=tuple(code.name.lower() for code in Zones),
    jumped_respot=tuple(code.name.lower() for code in JumpedRespot),
    frozen_respot=tuple(code.name.lower() for code in FrozenRespot),
    family=FAMILIES,
    table=TABLE_KINDS,
)


def get(discipline: str) -> Discipline:
    """The row of a discipline id; ValueError listing the valid ids for an unknown one."""
    if not isinstance(discipline, str) or discipline not in TABLE:
        raise ValueError(
            f"unknown discipline {discipline!r}; valid disciplines: {', '.join(TABLE)}"
        )
    return TABLE[discipline]


def ids() -> tuple[str, ...]:
    """Every registered discipline id: the seven of ``DISCIPLINES``, then the variants."""
    return tuple(TABLE)


def by_gym_name(gym_name: str) -> Discipline | None:
    """The row with this Gymnasium name, or None."""
    return next((row for row in TABLE.values() if row.gym_name == gym_name), None)


def codes_of(row: Discipline) -> tuple[int, int, int]:
    """The row's words as the integer codes ``Rules`` holds: (zones, jumped_respot, frozen_respot)."""
    return (Zones[row.zones.upper()], JumpedRespot[row.jumped_respot.upper()],
            FrozenRespot[row.frozen_respot.upper()])


def matching(ruleset) -> tuple[str, ...]:
    """The ids of the rows whose family and words ``ruleset`` (a ``rules.Rules`` with concrete
    leaves) carries; their options may differ. ``Rules`` hold no id: this is how code that holds
    rules tells the disciplines apart (a trained policy checking what it is asked to play)."""
    words = (int(ruleset.zones), int(ruleset.jumped_respot), int(ruleset.frozen_respot))
    return tuple(row.id for row in TABLE.values() if row.family == ruleset.family and codes_of(row) == words)


def _check_row(row: Discipline) -> None:
    """ValueError naming the column and what it allows, for a row no referee could play."""
    for column, allowed in _WORDS.items():
        if getattr(row, column) not in allowed:
            raise ValueError(f"column {column} must be one of {', '.join(allowed)}, got {getattr(row, column)!r}")
    if not row.id.isidentifier():
        raise ValueError(f"column id must be a Python identifier (letters, digits, _), got {row.id!r}")
    if not row.gym_name.isidentifier():
        raise ValueError(f"column gym_name must be a Python identifier (letters, digits, _), got {row.gym_name!r}")
    if row.pin != (row.family == "hungarian"):
        raise ValueError(f"column pin must be {row.family == 'hungarian'} for the {row.family} family: "
                         "only the Hungarian referee judges the pin (H-8)")
    if row.family == "hungarian" and (row.zones != "none" or row.cushions_required != 0):
        raise ValueError("the hungarian family plays without zones and cushion requirements "
                         "(columns zones='none', cushions_required=0)")
    if isinstance(row.cushions_required, numbers.Integral) and row.cushions_required > CUE_CUSHIONS_KEPT:
        raise ValueError(f"column cushions_required must be at most {CUE_CUSHIONS_KEPT} (the cue ball's cushion "
                         f"contacts a shot's log always keeps), got {row.cushions_required!r}")
    for column, low in (("distance", 1), ("field_limit", 1), ("cushions_required", 0), ("countdown_from", 0)):
        value = getattr(row, column)
        if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < low:
            raise ValueError(f"column {column} must be an integer >= {low}, got {value!r}")
    if not isinstance(row.line_distance, numbers.Real) or not row.line_distance > 0:
        raise ValueError(f"column line_distance must be a number > 0 (m), got {row.line_distance!r}")


def register_discipline(discipline: str, *, base: str, gym_name: str, **changes) -> Discipline:
    """Add a variant of an existing discipline to the table and return its row.

    The variant is ``base``'s row with the id ``discipline``, the Gymnasium name ``gym_name`` and the
    other columns in ``changes`` (e.g. ``distance=500``, ``table="hungarian"``); every layer then
    plays it like the seven (``rules.make_rules``, ``billiards_env.make_functional``, and Gymnasium
    after ``billiards_env.register_all()``). Registering the same row again does nothing; an id or
    a Gymnasium name that is taken by another row, an unknown column or a row no referee can play
    raises ValueError.
    """
    row = get(base)
    valid = [f for f in Discipline._fields if f not in ("id", "gym_name")]
    unknown = sorted(set(changes) - set(valid))
    if unknown:
        raise ValueError(f"unknown column(s) {', '.join(unknown)} in changes; valid: {', '.join(valid)}")
    if not isinstance(discipline, str) or not isinstance(gym_name, str):
        raise TypeError(f"discipline and gym_name must be str, got {discipline!r} and {gym_name!r}")
    row = row._replace(id=discipline, gym_name=gym_name, **changes)
    _check_row(row)
    if TABLE.get(discipline, row) != row:
        raise ValueError(f"discipline {discipline!r} is already registered with other columns")
    taken = by_gym_name(gym_name)
    if taken is not None and taken.id != discipline:
        raise ValueError(f"gym_name {gym_name!r} is already used by discipline {taken.id!r}")
    TABLE[discipline] = row
    return row


for _row in _ROWS:
    _check_row(_row)
