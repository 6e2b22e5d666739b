"""The referee's calls in words (Python side): a table from codes to words, and ``call_words``.

Each family speaks its own language: the carom games (the world federation's rules) are called in
English, the balkline positions in the international French terms (entré, dedans, à cheval); the
Hungarian game in Hungarian, the calls the source documents put in the referee's mouth, with the
English beside them (only English where they give none). Nothing here runs inside ``jit``.
"""
from __future__ import annotations

import numpy as np

from rules import disciplines
from rules.codes import Call, PositionCall, Reason
from rules.outcome import Outcome

# code -> (Hungarian call, English words)
CALL_WORDS = {
    Call.NONE: ("", ""),
    Call.POINTS: ("", "points"),  # the referee says the number (C-14.1)
    Call.EMPTY: ("üres", "empty, no point"),  # C-9.2 a, C-14.1
    Call.JUMPED: ("kiugrott", "jumped"),  # C-9.2 b
    Call.OPPONENT_BALL: ("az ellenfél golyója", "the opponent's ball"),  # C-9.2 j
    Call.FOUL: ("hiba", "foul"),
    Call.INVALID: ("", "void shot"),
    Call.LAG_REPEAT: ("új kísérlet", "the lag is repeated"),  # C-1.3
    Call.LAG_WON: ("", "the lag is decided"),
    Call.GAME_OVER: ("", "the game is over"),
}

POSITION_WORDS = {
    PositionCall.NONE: ("", ""),
    PositionCall.ENTRE: ("entré", "both object balls in the same zone"),
    PositionCall.DEDANS: ("dedans", "both object balls in the same zone again: drive one out"),
    PositionCall.A_CHEVAL: ("à cheval", "object balls on the two sides of the line"),
}

REASON_WORDS = {
    Reason.SCORED: "valid shot",
    Reason.EMPTY: "no carom",
    Reason.TOO_FEW_CUSHIONS: "the carom was made before the cue ball touched enough cushions",
    Reason.FIRST_CAROM_NOT_OFF_RED: "the first carom of the game must be made off the red",
    Reason.FIELD_LIMIT: "a further carom in the same restricted field without driving a ball out",
    Reason.ANCHOR_LIMIT: "a further carom in the same anchor without driving a ball out",
    Reason.PURE_CAROM_LIMIT: "a third pure carom in a row scores nothing",
    Reason.JUMPED: "a ball left the table",
    Reason.FROZEN_BALL_MOVED: "the cue ball was shot into the ball or cushion it was frozen to",
    Reason.NO_TARGET_BALL: "the cue ball touched no target ball",
    Reason.PIN_FIRST: "the cue ball touched the pin before a target ball",
    Reason.PIN_NOT_BY_TARGET: "the pin was knocked down by the cue ball, not by a target ball",
    Reason.PIN_BEFORE_TARGET: "the pin fell before the cue ball touched a target ball",
    Reason.WRONG_BALL: "the shot was played with the wrong ball",
    Reason.INVALID_SHOT: "the simulation reported a problem; nothing was judged",
    Reason.GAME_OVER: "the game had already ended",
    Reason.LAG_DECIDED: "the ball nearer the bottom cushion wins the lag",
    Reason.LAG_FOUL: "a lag foul gives the other player the lag",
    Reason.LAG_REPEAT: "the lag balls collided, stopped equally far, or both fouled",
    Reason.VOID_LIMIT: "void shots in a row: judged a miss, the balls go to the starting layout",
}

BALL_IN_HAND = ("golyó kézben", "ball in hand")  # H-6.4
FROZEN = ("ragad", "the balls are frozen")  # C-14.1; original III 4.4 a
LAST_POINTS = ("utolsó {n} következik", "last {n} to come")  # C-14.1; original III 4.11


def _speaker(family: str):
    """The words of a pair (Hungarian, English) as the family's referee says them."""
    def said(hungarian: str, english: str) -> str:
        if family != "hungarian":
            return english
        if hungarian and english:
            return f"{hungarian} ({english})"
        return hungarian or english

    return said


def _position_words(code: PositionCall) -> str:
    """A balkline position call: the French term everywhere, the English beside it."""
    term, english = POSITION_WORDS[code]
    return f"{term} ({english})"


def call_words(outcome: Outcome, discipline: str) -> str:
    """The referee's call for one (unbatched) ``Outcome`` of ``discipline``, in its family's words
    (see the module docstring)."""
    points = np.asarray(outcome.points)
    if points.ndim != 1:
        raise ValueError("call_words takes one outcome; index the batch first")
    family = disciplines.get(discipline).family
    _said = _speaker(family)
    get = lambda name: np.asarray(getattr(outcome, name)).item()  # noqa: E731
    call, reason = Call(get("call")), Reason(get("reason"))
    hungarian, english = CALL_WORDS[call]
    if call == Call.POINTS:
        parts = [f"{get('shot_value')} ({english})"]
    else:
        parts = [_said(hungarian, english)]
    parts.append(REASON_WORDS[reason] + (" (foul)" if get("foul") else ""))
    if reason in (Reason.LAG_DECIDED, Reason.LAG_FOUL):
        parts.append(f"player {get('lag_winner')} chooses who breaks")
    given = [int(v) for v in points]
    if any(given):
        parts.append("points " + ", ".join(f"player {i}: {v:+d}" for i, v in enumerate(given)))
    for name in ("field_call", "anchor_call"):
        code = PositionCall(get(name))
        if code != PositionCall.NONE:
            where = "field" if name == "field_call" else "anchor"
            parts.append(f"{where}: " + _position_words(code))
    if get("frozen_warning"):
        parts.append(_said(*FROZEN))
    if get("ball_in_hand"):
        parts.append(_said(*BALL_IN_HAND))
    if get("countdown"):
        n = get("countdown")
        parts.append(_said(LAST_POINTS[0].format(n=n), LAST_POINTS[1].format(n=n)))
    if get("game_over"):
        winner = get("winner")
        parts.append("draw" if get("draw") else f"game over, player {winner} wins")
    return "; ".join(p for p in parts if p)
