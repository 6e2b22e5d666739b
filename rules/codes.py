"""Integer codes the referee returns inside ``jit``: reasons, calls, pin states, phases.

They are plain ``IntEnum``s so that arrays hold small integers and Python code can name them.
The words for each code (English, and the Hungarian referee's call) live in ``rules.calls``.
"""
from __future__ import annotations

import enum


class Reason(enum.IntEnum):
    """Why a shot scored or did not (``Outcome.reason``). The first matching foul wins."""

    SCORED = 0  # a valid shot that scored
    EMPTY = 1  # no carom (C-9.2 a, a foul); Hungarian: a target hit, no carom, no pin (H-9.5)
    TOO_FEW_CUSHIONS = 2  # carom made before the cushions C-13.1 / C-13.2 ask for
    FIRST_CAROM_NOT_OFF_RED = 3  # rule C-2.2
    FIELD_LIMIT = 4  # restricted field: C-11.2, C-12.3, C-12.4
    ANCHOR_LIMIT = 5  # anchor square: C-12.3 c, C-12.4 b
    PURE_CAROM_LIMIT = 6  # third pure carom in a row (H-6.3, H-9.6)
    JUMPED = 7  # a ball left the table (H-4.7, C-9.2 b)
    FROZEN_BALL_MOVED = 8  # shot into a ball or cushion it was frozen to (H-4.6, C-12.7, C-13.3)
    NO_TARGET_BALL = 9  # the cue ball touched no target ball (H-4.9)
    PIN_FIRST = 10  # the cue ball touched the pin before a target ball (H-4.9)
    PIN_NOT_BY_TARGET = 11  # the pin was knocked down by the cue ball, not a target ball (H-4.8)
    PIN_BEFORE_TARGET = 12  # the pin fell before the cue ball touched a target ball (H-9.10)
    WRONG_BALL = 13  # the shot was played with another ball than the cue ball (C-9.2 j, H-4.3, H-6.4)
    INVALID_SHOT = 14  # the shot result's status is not OK: nothing is judged
    GAME_OVER = 15  # the game had already ended: the referee did nothing
    LAG_DECIDED = 16  # rule C-1.2: the lag has a winner
    LAG_FOUL = 17  # rule C-1.4: one lag ball fouled, the other player wins the lag
    LAG_REPEAT = 18  # rule C-1.3: balls collided, stopped equally far, or both fouled
    VOID_LIMIT = 19  # void shots in a row: resolved as a miss from the starting layout (rules.void)


# Reasons that are fouls in every discipline; EMPTY and TOO_FEW_CUSHIONS are fouls only in
# the carom disciplines (rule C-9.2 a), not in the Hungarian game (rule H-9.5).
FOUL_REASONS = (
    Reason.JUMPED, Reason.FROZEN_BALL_MOVED, Reason.NO_TARGET_BALL, Reason.PIN_FIRST,
    Reason.PIN_NOT_BY_TARGET, Reason.PIN_BEFORE_TARGET, Reason.WRONG_BALL, Reason.INVALID_SHOT,
)


class Call(enum.IntEnum):
    """The referee's main call after a shot (``Outcome.call``)."""

    NONE = 0
    POINTS = 1  # the referee counts the points aloud (C-14.1, original "a poének számát")
    EMPTY = 2  # "üres": zero (C-9.2 a, C-14.1)
    JUMPED = 3  # "kiugrott" (C-9.2 b; H-7)
    OPPONENT_BALL = 4  # "az ellenfél golyója" (C-9.2 j)
    FOUL = 5  # "hiba": a foul the documents give no own call for
    INVALID = 6  # the shot could not be judged (simulation status)
    LAG_REPEAT = 7  # "új kísérlet": the lag is repeated (C-1.3)
    LAG_WON = 8  # the lag is decided (C-1.2)
    GAME_OVER = 9  # the game is over; nothing was judged


class PositionCall(enum.IntEnum):
    """Announcement of the object balls' place (C-12.10, C-14.1), for fields and for anchors."""

    NONE = 0
    ENTRE = 1  # "entré": both object balls now lie in the same field (or anchor)
    DEDANS = 2  # "dedans": the same, for the second time: the next carom must drive one out
    A_CHEVAL = 3  # "à cheval": in the same anchor but on the two sides of its line


class PinState(enum.IntEnum):
    """The pin between shots (rules H-8.4 to H-8.7)."""

    NO_PIN = 0  # the carom disciplines
    STANDING = 1  # standing, on its spot or where a ball pushed it (H-8.4)
    WAITING = 2  # fell, its spot is taken by a ball: off the table until the spot is free (H-8.5)
    JAMMED = 3  # fell and cannot be taken away without moving a ball: stays lying (H-8.6)


class Zones(enum.IntEnum):
    """The restricted zones of a discipline (the discipline table's ``zones`` column)."""

    NONE = 0
    CORNERS = 1  # straight rail: the four corner fields (C-11.1, O-5)
    BALKLINE = 2  # balkline: nine fields and eight anchor squares (C-12.2, C-12.5)


class JumpedRespot(enum.IntEnum):
    """Where jumped balls go (the ``jumped_respot`` column)."""

    START = 0  # all three to the starting position (C-11.4, C-12.8, C-13.4 a)
    SPOTS = 1  # each to its three-cushion spot (C-13.4 b-d)
    BASE_SPOTS = 2  # the Hungarian base spots (H-7)


class FrozenRespot(enum.IntEnum):
    """What happens when the cue ball is frozen to a ball (the ``frozen_respot`` column)."""

    START_FORCED = 0  # the referee puts the balls in the starting position (C-11.3)
    START_CHOICE = 1  # the shooter may have them put there (C-12.7 a, C-13.3 one-cushion)
    SPOTS_CHOICE = 2  # the shooter may have the frozen balls spotted (C-13.3 three-cushion)
    NONE = 3  # no re-spot: shoot away (H-4.6)


class Phase(enum.IntEnum):
    """Where the game is."""

    LAG = 0  # rule C-1: both players lag for the choice of the break
    PLAY = 1


# The main call for each reason (index = Reason). Zero is announced as "üres" (C-14.1).
CALL_OF_REASON = (
    Call.POINTS,  # SCORED
    Call.EMPTY,  # EMPTY
    Call.EMPTY,  # TOO_FEW_CUSHIONS
    Call.EMPTY,  # FIRST_CAROM_NOT_OFF_RED
    Call.EMPTY,  # FIELD_LIMIT
    Call.EMPTY,  # ANCHOR_LIMIT
    Call.EMPTY,  # PURE_CAROM_LIMIT
    Call.JUMPED,  # JUMPED
    Call.FOUL,  # FROZEN_BALL_MOVED
    Call.FOUL,  # NO_TARGET_BALL
    Call.FOUL,  # PIN_FIRST
    Call.FOUL,  # PIN_NOT_BY_TARGET
    Call.FOUL,  # PIN_BEFORE_TARGET
    Call.OPPONENT_BALL,  # WRONG_BALL
    Call.INVALID,  # INVALID_SHOT
    Call.GAME_OVER,  # GAME_OVER
    Call.LAG_WON,  # LAG_DECIDED
    Call.LAG_WON,  # LAG_FOUL
    Call.LAG_REPEAT,  # LAG_REPEAT
    Call.INVALID,  # VOID_LIMIT
)
assert len(CALL_OF_REASON) == len(Reason)

# The Hungarian game's own calls where they differ from the carom games' (index = Reason). The
# Hungarian original names no "opponent's ball": every ball but the red is a target ball for both
# players (H-3.1), so a shot with another ball is the plain foul, "hiba" (H-4.3).
HUNGARIAN_CALLS = {Reason.WRONG_BALL: Call.FOUL}
CALL_OF_REASON_HUNGARIAN = tuple(HUNGARIAN_CALLS.get(r, c) for r, c in zip(Reason, CALL_OF_REASON))
