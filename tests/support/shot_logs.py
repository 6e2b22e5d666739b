"""Hand-written shot logs for the rules tests: a few events in, a ``physics.ShotResult`` out.

    shot = build_shot(script(0, "cushion", "cushion", "ball 2", "cushion", "ball 1"), final)

``script`` turns short step strings into event dicts, one step every ``dt`` seconds after the cue
strike; a step starting with "=" happens at the same time as the previous one. Steps:

  "cushion" / "cushion top"     the cue ball touches a cushion (bottom, top, right, left; the
                                cushions cycle right, top, left, bottom when none is named)
  "ball 2"                      the cue ball touches ball 2
  "balls 1-2"                   balls 1 and 2 touch each other
  "pin" / "pin by 1"            the cue ball (ball 1) touches the pin
  "pin down" / "pin down by 1"  the pin falls, knocked by the cue ball (ball 1)
  "off 2"                       ball 2 leaves the table
  "strike 1"                    a cue strike on ball 1 (``script`` adds one on the cue ball first
                                unless ``strike=False``)
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from physics.events import Cushion, EventKind, EventLog, ShotResult

CAPACITY = 32
N_BALLS = 3
_CUSHIONS = {"bottom": Cushion.BOTTOM, "top": Cushion.TOP, "right": Cushion.RIGHT, "left": Cushion.LEFT}
_CYCLE = (Cushion.RIGHT, Cushion.TOP, Cushion.LEFT, Cushion.BOTTOM)


def event(kind, time, a=-1, b=-1, cushion=-1, positions=None):
    """One event as a dict (balls sorted for ball-ball contacts, as the physics logs them)."""
    if kind == EventKind.BALL_BALL:
        a, b = min(a, b), max(a, b)
    return dict(kind=int(kind), time=float(time), balls=(int(a), int(b)), cushion=int(cushion), positions=positions)


def script(cue, *steps, dt=0.1, start=0.0, strike=True):
    """A list of event dicts from step strings (see the module docstring)."""
    events = [event(EventKind.CUE_STRIKE, start, cue)] if strike else []
    t = start
    cycle = 0
    for step in steps:
        same = step.startswith("=")
        words = step.lstrip("=").strip().lower().split()
        if not same:
            t += dt
        head = words[0]
        if head == "cushion":
            if len(words) > 1:
                c = _CUSHIONS[words[1]]
            else:
                c = _CYCLE[cycle % 4]
                cycle += 1
            events.append(event(EventKind.BALL_CUSHION, t, cue, cushion=c))
        elif head == "ball":
            events.append(event(EventKind.BALL_BALL, t, cue, int(words[1])))
        elif head == "balls":
            a, b = (int(v) for v in words[1].split("-"))
            events.append(event(EventKind.BALL_BALL, t, a, b))
        elif head == "pin" and (len(words) == 1 or words[1] == "by"):
            ball = int(words[2]) if len(words) > 2 else cue
            events.append(event(EventKind.BALL_PIN, t, ball))
        elif head == "pin" and words[1] == "down":
            ball = int(words[3]) if len(words) > 3 else cue
            events.append(event(EventKind.PIN_DOWN, t, ball))
        elif head == "off":
            events.append(event(EventKind.OFF_TABLE, t, int(words[1])))
        elif head == "strike":
            events.append(event(EventKind.CUE_STRIKE, t, int(words[1])))
        else:
            raise ValueError(f"unknown step {step!r}")
    return events


def build_shot(events, final_positions, *, on_table=None, status=0, overflow=False,
               pin_present=False, pin_position=(0.0, 0.0), capacity=CAPACITY, dtype=np.float64,
               as_numpy=False):
    """A ``ShotResult`` of the fixed shapes (numpy inside) from event dicts and the final layout.

    Events are sorted by time (stably); an event without ``positions`` records the final layout.
    ``on_table`` defaults to every ball whose OFF_TABLE event is absent. ``as_numpy`` keeps numpy
    leaves (cheap to stack into large batches).
    """
    events = sorted(events, key=lambda e: e["time"])
    if len(events) > capacity:
        raise ValueError(f"{len(events)} events do not fit the capacity {capacity}")
    final = np.asarray(final_positions, dtype)
    n = final.shape[0]
    kind = np.zeros((capacity,), np.int8)
    time = np.full((capacity,), np.inf, dtype)
    balls = np.full((capacity, 2), -1, np.int8)
    cushion = np.full((capacity,), -1, np.int8)
    positions = np.zeros((capacity, n, 2), dtype)
    for i, e in enumerate(events):
        kind[i] = e["kind"]
        time[i] = e["time"]
        balls[i] = e["balls"]
        cushion[i] = e["cushion"]
        positions[i] = final if e.get("positions") is None else np.asarray(e["positions"], dtype)
    off = {e["balls"][0] for e in events if e["kind"] == EventKind.OFF_TABLE}
    if on_table is None:
        on_table = [b not in off for b in range(n)]
    downs = [e for e in events if e["kind"] == EventKind.PIN_DOWN]
    log = EventLog(
        kind=kind, time=time, balls=balls, cushion=cushion, positions=positions,
        velocities=np.zeros((capacity, n, 2), dtype), spins=np.zeros((capacity, n, 3), dtype),
        motion=np.zeros((capacity, n), np.int8),
    )
    shot = ShotResult(
        events=log,
        num_events=np.asarray(len(events), np.int32),
        overflow=np.asarray(bool(overflow)),
        status=np.asarray(int(status), np.int32),
        final_positions=final,
        final_time=np.asarray(events[-1]["time"] if events else 0.0, dtype),
        on_table=np.asarray(on_table, bool),
        pin_present=np.asarray(bool(pin_present)),
        pin_down=np.asarray(bool(downs)),
        pin_position=np.asarray(pin_position, dtype),
        pin_knocked_by=np.asarray(downs[0]["balls"][0] if downs else -1, np.int8),
    )
    return shot if as_numpy else jax.tree_util.tree_map(jnp.asarray, shot)


def stack(items):
    """Stack equal-shaped pytrees (shots or states) into one batch."""
    return jax.tree_util.tree_map(lambda *xs: jnp.stack([jnp.asarray(x) for x in xs]), *items)


def event_dicts(shot: ShotResult):
    """The used events of one (unbatched) shot as plain dicts, for the reference referee."""
    n = int(shot.num_events)
    ev = shot.events
    return [
        dict(
            kind=int(ev.kind[i]), time=float(ev.time[i]),
            balls=(int(ev.balls[i, 0]), int(ev.balls[i, 1])), cushion=int(ev.cushion[i]),
            positions=np.asarray(ev.positions[i]).tolist(),
        )
        for i in range(n)
    ]
