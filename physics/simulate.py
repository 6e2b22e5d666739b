"""One shot, from the cue strike until every ball is at rest, as a short chain of stages:

    strike -> loop( find next event -> advance all balls -> resolve it -> log it ) -> summarise

The loop is a ``lax.while_loop`` over a fixed-shape state, so a shot compiles once. A batch of
shots plays the same stages on a pool of lanes, each lane taking the next waiting shot when its
own ends (``_simulate_pool``), and on a CPU one pool per core (``physics.cores``). Every
iteration resolves exactly one event; simultaneous events come out one after the other at the
same time, in the order ``physics.detect`` documents.
"""
from __future__ import annotations

import weakref
from functools import lru_cache, partial
from typing import Optional

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from physics import collide, cores, devices, thinning
from physics.collide import rail
from physics._pytree import pytree_dataclass, strong_type
from physics.detect import (
    CUSHION_NORMALS, PIN_DOWN, PIN_FALLING, PIN_STANDING, Layout, candidate_times, candidate_times_batch, cushion_gaps,
    pairs,
)
from physics.events import EventKind, EventLog, Motion, ShotResult, Status
from physics.motion import (
    Balls, acceleration, classify, end_of_state, evolve, hop_speed, layout_tolerance, speed_tolerance,
    vertical_acceleration,
)
from physics.params import Params, cast_params, check_params, default_params, params_are_valid
from physics.strike import Shot, check_fields, check_limits, launch_speed, map_fields, shot_is_valid, strike

# Safety net: a shot is cut off after this many events (Status.CUT_OFF); random play never
# comes near it (the longest shots seen resolve a few hundred).
MAX_EVENTS = 4096

# A resting contact is left at a speed that brings the ball back no sooner than this (s).
RELEASE_TIME = 5e-3


@pytree_dataclass
class PinBody:
    """The pin as a body during a shot. position: (2,); state: () int8 (detect.PIN_*: standing,
    falling, down); knocked_by: () int8. Between shots the game's ``rules.PinState`` says where the
    pin stands (the physics knows no rules)."""

    position: jnp.ndarray
    state: jnp.ndarray
    knocked_by: jnp.ndarray


def layout_is_valid(positions, params, pin_position=None):
    """() bool: no two balls overlap, none overlaps the pin, and every ball is inside the cushions
    (within ``motion.layout_tolerance`` of the positions' dtype)."""
    n = positions.shape[0]
    R = params.ball.radius
    i, j = pairs(n)
    d = jnp.linalg.norm(positions[j] - positions[i], axis=-1)
    reach = params.cushion_reach
    tol = layout_tolerance(params.dtype)
    inside = (
        (positions[:, 0] >= reach - tol)
        & (positions[:, 0] <= params.table.length - reach + tol)
        & (positions[:, 1] >= reach - tol)
        & (positions[:, 1] <= params.table.width - reach + tol)
    )
    ok = jnp.all(d >= 2 * R - tol) & jnp.all(inside) & jnp.all(jnp.isfinite(positions))
    if pin_position is not None:
        to_pin = jnp.linalg.norm(positions - pin_position, axis=-1)
        ok = ok & jnp.all(to_pin >= R + params.pin.contact_radius - tol)
        ok = ok & jnp.all(jnp.isfinite(pin_position))
    return ok


def _record(log, k, kind, t, ball, other, cushion, b: Balls):
    """The log with an event in slot k (none written where k is past the end)."""
    put = lambda a, x: a.at[k].set(jnp.asarray(x, a.dtype), mode="drop")  # noqa: E731
    return EventLog(
        kind=put(log.kind, kind), time=put(log.time, t), balls=put(log.balls, jnp.stack([ball, other])),
        cushion=put(log.cushion, cushion), positions=put(log.positions, b.r),
        velocities=put(log.velocities, b.v), spins=put(log.spins, b.w), motion=put(log.motion, b.motion),
    )


def _set_ball(b: Balls, k, one: Balls) -> Balls:
    """b with ball k replaced by ``one`` (fields without the ball axis)."""
    return Balls(*(full.at[k].set(part) for full, part in zip(b._fields(), one._fields())))


def _ball(b: Balls, k) -> Balls:
    return Balls(*(full[k] for full in b._fields()))


def _unit(d):
    n = jnp.linalg.norm(d)
    return jnp.where(n > 0, d / jnp.where(n > 0, n, 1.0), jnp.array([1.0, 0.0], d.dtype))


def _after_contact(one: Balls, v, w, params) -> Balls:
    """One ball with new velocity and spin from a contact: its motion state follows from them,
    except that a ball in the air stays in the air and one off the table stays off it."""
    keep = (one.motion == Motion.AIRBORNE) | (one.motion == Motion.OFF_TABLE)
    motion = jnp.where(keep, one.motion, classify(v, w, params)).astype(jnp.int8)
    return Balls(one.r, v, w, one.z, one.vz, motion)


def _release_lift(separating, pushed_in, dtype):
    """Extra separating speed for a resting contact: () >= 0.

    A ball that spin or friction keeps pushing into a cushion, the pin or another ball
    (``pushed_in`` > 0, m/s^2) would bounce back ever sooner, without end (an infinite series
    of contacts in a finite time). It leaves instead at least at the speed that brings it back
    ``RELEASE_TIME`` later, a gap of pushed_in RELEASE_TIME^2 / 8 (a few micrometres): the
    continuous push becomes a short series of small bounces (docs/physics.md section 2).
    ``separating`` is the contact's speed apart after the impact (m/s).
    """
    floor = jnp.maximum(0.5 * pushed_in * RELEASE_TIME, 2.0 * speed_tolerance(dtype))
    return jnp.where(pushed_in > 0, jnp.maximum(floor - separating, 0.0), 0.0)


def _bounce_over(one: Balls, two: Balls, params):
    """A ball in the air that meets another from above bounces up off it.

    The impulse of ``collide.ball_ball_resolve`` acts across the table only; where the balls
    touch at different heights, the contact is found in three dimensions, and a pair still
    approaching along the line of centres would touch again at once, without end. The upper
    ball, if in the air, leaves upwards with restitution e_b along that line (the lower ball's
    share is taken up by the bed, as for the impulse's vertical part), at least at the release
    speed of a resting contact (``_release_lift``). Returns (one, two).
    """
    d = jnp.concatenate([two.r - one.r, (two.z - one.z)[None]])
    n3 = d / jnp.maximum(jnp.linalg.norm(d), 1e-30)
    u = jnp.concatenate([two.v - one.v, (two.vz - one.vz)[None]])
    closing = -jnp.dot(u, n3)
    need = jnp.where(closing > 0, (1.0 + params.ball.e_b) * closing, 0.0)
    # One resting on the other (gravity pulls it in) leaves at the release speed.
    a3 = lambda x: jnp.concatenate([acceleration(x, params), vertical_acceleration(x, params)[None]])  # noqa: E731
    need = need + _release_lift(need - closing, jnp.dot(a3(one) - a3(two), n3), one.r.dtype)
    nz = n3[2]  # < 0 where ball one is above
    ok = jnp.abs(nz) > 1e-6
    up_one = ok & (nz < 0) & (one.motion == Motion.AIRBORNE)
    up_two = ok & (nz > 0) & (two.motion == Motion.AIRBORNE)
    kick = need / jnp.where(ok, jnp.abs(nz), 1.0)
    one = Balls(one.r, one.v, one.w, one.z, jnp.where(up_one, one.vz + kick, one.vz), one.motion)
    two = Balls(two.r, two.v, two.w, two.z, jnp.where(up_two, two.vz + kick, two.vz), two.motion)
    return one, two


def _leave_wall(one: Balls, v, w, normal, params) -> Balls:
    """One ball after hitting a fixed body (a cushion or the pin) that lies along ``normal``
    from its centre, leaving a resting contact at the release speed (``_release_lift``)."""
    one = _after_contact(one, v, w, params)
    lift = _release_lift(-jnp.dot(one.v, normal), jnp.dot(acceleration(one, params), normal), v.dtype)
    return _after_contact(one, one.v - lift * normal, one.w, params)


def _yielded(b: Balls, pin, e, one: Balls, out: Balls, on_cloth, params) -> Balls:
    """``out``, the ball after a cushion impact, moved for the cushion's give (``CushionParams.give``).

    The rubber yields: a ball on the cloth turns ``give`` s after it meets the nose, at the point
    its path has reached by then, and leaves from there. Its paths before and after the turn are
    straight over so short a time, so the ball is put where its new path, run back to the
    impact's time, passes: give (v_in - v_out) from the contact point on the line, past it. (The
    tracked match rebounds turn give v_n past it, docs/physics.md section 2.) Two limits keep it
    a rebound: the depth past the line is at most what the ball leaves at can carry it back
    against the cloth's sliding friction (half of u_n^2 / (2 u_s g); it bites only below some
    5 cm/s), so no ball comes to rest in the rubber; and a ball already past the line (pressed
    against it, bouncing in micrometres) is measured from the line, not from where it is, so the
    bounces do not drive it ever deeper. It has no give where another ball or the pin lies
    within a radius of touching it: it could meet them while in the rubber, and a ball struck
    there would be left past the line, where the cloth cannot bring it back.
    """
    R = params.ball.radius
    n = e.normal
    on_line = one.r + jnp.minimum(cushion_gaps(one.r, params)[e.side], 0.0) * n
    step = params.cushion.give * (one.v - out.v)
    depth = jnp.dot(step, n)
    carried = 0.25 * jnp.maximum(-jnp.dot(out.v, n), 0.0) ** 2 / (params.ball.u_s * params.g)
    r = on_line + jnp.minimum(1.0, carried / jnp.maximum(depth, 1e-30)) * step
    # Clear of every other ball and the pin by a radius, where the ball is and where it goes.
    others = (jnp.arange(b.r.shape[0]) != e.i) & (b.motion != Motion.OFF_TABLE)
    apart = lambda q, reach: jnp.minimum(jnp.linalg.norm(q - one.r, axis=-1),  # noqa: E731
                                         jnp.linalg.norm(q - r, axis=-1)) >= reach + R
    clear = jnp.all(~others | apart(b.r, 2.0 * R))
    if pin is not None:
        clear = clear & ((pin.state != PIN_STANDING) | apart(pin.position, R + params.pin.contact_radius))
    moved = on_cloth & clear & (params.cushion.give > 0)
    return Balls(jnp.where(moved, r, out.r), out.v, out.w, out.z, out.vz, out.motion)


@pytree_dataclass
class _Bodies:
    """The bodies event ``index`` (into the candidate list) names, found once for both the
    pressed-contact test and the resolution: its kind flags, ball i, the other ball j (= i
    unless two balls meet), ``pair_j`` (the pair's second ball, whatever the kind), the cushion
    side, and the unit normal from ball i towards what it touches (the other ball, the pin, the
    cushion)."""

    is_pair: jax.Array
    is_pin: jax.Array
    is_fall: jax.Array
    is_cushion: jax.Array
    i: jax.Array
    j: jax.Array
    pair_j: jax.Array
    side: jax.Array
    normal: jax.Array


def _bodies(b: Balls, pin, index, layout: Layout) -> _Bodies:
    n = layout.n
    clip = lambda x, lo, size: jnp.clip(x - lo, 0, max(size - 1, 0))  # noqa: E731
    no = jnp.zeros((), bool)
    is_pair = (index < layout.pairs) if layout.pairs else no
    is_pin = ((index >= layout.pin) & (index < layout.cushion)) if pin is not None else no
    is_fall = ((index >= layout.fall) & (index < layout.transition)) if pin is not None else no
    is_cushion = (index >= layout.cushion) & (index < layout.fall)
    p = clip(index, 0, max(layout.pairs, 1))
    pair_i = jnp.asarray(layout.pair_i if layout.pairs else [0])[p]
    pair_j = jnp.asarray(layout.pair_j if layout.pairs else [0])[p]
    c = clip(index, layout.cushion, 4 * n)
    i = jnp.select([is_pair, is_pin, is_cushion], [pair_i, clip(index, layout.pin, n), c // 4],
                   clip(index, layout.transition, n))
    normal = jnp.asarray(CUSHION_NORMALS, b.r.dtype)[c % 4]
    if layout.pairs:
        normal = jnp.where(is_pair, _unit(b.r[pair_j] - b.r[i]), normal)
    if pin is not None:
        normal = jnp.where(is_pin, _unit(pin.position - b.r[i]), normal)
    return _Bodies(is_pair, is_pin, is_fall, is_cushion, i, jnp.where(is_pair, pair_j, i), pair_j, c % 4, normal)


def _returning(b: Balls, e: _Bodies, params):
    """() bool: the event is a contact coming back at exactly the release speed of the push
    that drives it (``_release_lift``): a ball pressed against a cushion, the pin or a ball,
    touching it again after a micro-bounce. It is resolved but not logged, so to the log (and the
    referee) a pressed contact is one contact, not hundreds. The return's speed must match the
    release speed to 1e-3 of it, or, in float32, to what rounding of the positions allows."""
    one, two = _ball(b, e.i), _ball(b, e.pair_j)
    # Approach speed and push inwards along the normal; the other body is fixed unless a ball.
    approach = jnp.dot(one.v - jnp.where(e.is_pair, two.v, 0.0), e.normal)
    pushed = jnp.dot(acceleration(one, params) - jnp.where(e.is_pair, acceleration(two, params), 0.0), e.normal)
    contact = e.is_pair | e.is_pin | e.is_cushion
    release = _release_lift(jnp.zeros_like(approach), pushed, b.r.dtype)
    # The bounce is a gap of pushed RELEASE_TIME^2 / 8 (micrometres); the return's time, and so its
    # speed, is only as exact as a position: in float32 a few rounding units of the table's size
    # are a sizeable part of that gap, in float64 none (the tolerance stays 1e-3 of the speed).
    gap = jnp.maximum(pushed, 1e-30) * RELEASE_TIME ** 2 / 8.0
    rounding = 4.0 * jnp.finfo(b.r.dtype).eps * params.table.length
    tolerance = jnp.clip(rounding / gap, 1e-3, 0.5)
    return contact & (pushed > 0) & (jnp.abs(approach - release) <= tolerance * release)


def _resolve(b: Balls, pin, e: _Bodies, params):
    """Apply the event whose bodies ``e`` names to them (they are already there).

    Each kind's resolution is computed for the one or two balls the event names and the
    event's own is selected, so the step has no data-dependent branch; the chosen balls are
    then written back once. Returns (balls, pin, kind, ball, other, cushion).
    """
    one = _ball(b, e.i)

    # Two balls: the impulse acts across the table; a ball in the air keeps its vertical motion.
    two = _ball(b, e.pair_j)
    v1, w1, v2, w2 = collide.ball_ball_resolve(one.v, one.w, two.v, two.w, e.normal, params)
    p1, p2 = _after_contact(one, v1, w1, params), _after_contact(two, v2, w2, params)
    # A resting contact (balls pushed together) parts at the release speed, equal and opposite.
    lift = _release_lift(jnp.dot(p2.v - p1.v, e.normal),
                         jnp.dot(acceleration(p1, params) - acceleration(p2, params), e.normal), b.r.dtype)
    p1 = _after_contact(p1, p1.v - 0.5 * lift * e.normal, p1.w, params)
    p2 = _after_contact(p2, p2.v + 0.5 * lift * e.normal, p2.w, params)
    p1, p2 = _bounce_over(p1, p2, params)

    # A fixed body: the pin, or a cushion. On a cushion, a ball on the cloth, or in the air no
    # higher than the nose, meets the cushion model, across the table. One higher meets the nose's
    # edge or the cushion's upper face and comes back off it, or rides up onto the rail, strikes it
    # or flies over it: off the table (rules H-7.1, C-6.2: it touched the frame). ``collide.rail``;
    # docs/physics.md section 5.
    v_cushion, w_cushion = collide.cushion_resolve(one.v, one.w, e.normal, params)
    zone = jnp.where(one.motion == Motion.AIRBORNE, rail.zone(one.z, params), rail.CUSHION)
    on_face = (zone == rail.FACE) & ~e.is_pin
    v_face, vz_face, back = rail.face_rebound(one.v, one.vz, one.z, e.normal, params)
    leaves = e.is_cushion & ((zone >= rail.RAIL) | (on_face & ~back))
    v_in, w_in = jnp.where(on_face, v_face, v_cushion), jnp.where(on_face, one.w, w_cushion)
    if pin is not None:
        v_pin, topples = collide.ball_pin_resolve(one.v, e.normal, params)
        v_in, w_in = jnp.where(e.is_pin, v_pin, v_in), jnp.where(e.is_pin, one.w, w_in)
    hit = Balls(one.r, one.v, one.w, one.z, jnp.where(on_face, vz_face, one.vz), one.motion)
    bounced = _leave_wall(hit, v_in, w_in, e.normal, params)
    bounced = _yielded(b, pin, e, one, bounced, e.is_cushion & ~on_face & (one.motion != Motion.AIRBORNE), params)
    # A ball that left is put down on the floor beyond the rail it crossed, outside the playing area.
    beyond = one.r + (params.cushion_reach + params.table.face_depth + params.table.rail_width
                      + params.ball.radius) * e.normal
    gone = Balls(beyond, jnp.zeros_like(one.v), jnp.zeros_like(one.w), jnp.zeros_like(one.z),
                 jnp.zeros_like(one.z), jnp.asarray(Motion.OFF_TABLE, jnp.int8))
    wall = gone.select(leaves, bounced)

    # The end of a motion state.
    ended = end_of_state(one, params)
    end_kind = jnp.select(
        [one.motion == Motion.SLIDING, one.motion == Motion.AIRBORNE,
         (one.motion == Motion.ROLLING) & (ended.motion == Motion.SPINNING),
         (one.motion == Motion.ROLLING) & (ended.motion == Motion.ROLLING), one.motion == Motion.ROLLING],
        [EventKind.SLIDING_TO_ROLLING, EventKind.BALL_LANDING, EventKind.ROLLING_TO_SPINNING,
         EventKind.ROLLING_TO_SLOW_ROLLING, EventKind.ROLLING_TO_STATIONARY],
        EventKind.SPINNING_TO_STATIONARY,
    )

    # Select the event's outcome (the pin falling moves no ball) and write its balls back.
    first = p1.select(e.is_pair, wall.select(e.is_pin | e.is_cushion, one.select(e.is_fall, ended)))
    second = p2.select(e.is_pair, first)
    balls = _set_ball(_set_ball(b, e.i, first), e.j, second)
    cushion_kind = jnp.where(leaves, EventKind.OFF_TABLE, EventKind.BALL_CUSHION)
    kind = jnp.select([e.is_pair, e.is_pin, e.is_fall, e.is_cushion],
                      [EventKind.BALL_BALL, EventKind.BALL_PIN, EventKind.PIN_DOWN, cushion_kind], end_kind)
    ball = e.i
    if pin is not None:
        ball = jnp.where(e.is_fall, pin.knocked_by.astype(jnp.int32), ball)
        hit_pin = PinBody(pin.position, jnp.where(topples, PIN_FALLING, pin.state).astype(jnp.int8),
                           jnp.where(topples, e.i, pin.knocked_by).astype(jnp.int8))
        down = PinBody(pin.position, jnp.asarray(PIN_DOWN, jnp.int8), pin.knocked_by)
        pick = lambda c, x, y: jax.tree_util.tree_map(partial(jnp.where, c), x, y)  # noqa: E731
        pin = pick(e.is_pin, hit_pin, pick(e.is_fall, down, pin))
    other = jnp.where(e.is_pair, e.pair_j, -1)
    cushion = jnp.where(e.is_cushion, e.side, -1)
    return balls, pin, kind, ball, other, cushion


def _start(positions, shot: Shot, cue_ball, params: Params, pin_position=None):
    """The balls just after the strike, the pin, and the ``Status`` flags known before the loop.

    An elevated cue drives the ball into the cloth, which throws it back up (``strike.launch_speed``):
    a hop if that lifts it more than ``HOP_HEIGHT``. Invalid parameters, an invalid shot or an
    invalid layout leave every ball at rest, so nothing is simulated. Returns
    (balls, pin, status): status is int32 INVALID_* flags (see ``_status``).
    """
    dtype = params.dtype
    r = jnp.asarray(positions, dtype)
    n = r.shape[0]
    cue_ball = jnp.asarray(cue_ball, jnp.int32)
    shot_ok = shot_is_valid(shot, params) & (cue_ball >= 0) & (cue_ball < n)
    pin = None
    if pin_position is not None:
        pin_position = jnp.asarray(pin_position, dtype)
        pin = PinBody(pin_position, jnp.asarray(PIN_STANDING, jnp.int8), jnp.asarray(-1, jnp.int8))
    layout_ok = layout_is_valid(r, params, pin_position)
    params_ok = params_are_valid(params)
    go = shot_ok & layout_ok & params_ok
    v_cue, w_cue, down = strike(shot, params)
    up = launch_speed(down, params)
    hops = go & (up >= hop_speed(params))
    b = Balls.at_rest(r)
    v = b.v.at[cue_ball].set(jnp.where(go, v_cue, 0.0))
    w = b.w.at[cue_ball].set(jnp.where(go, w_cue, 0.0))
    vz = b.vz.at[cue_ball].set(jnp.where(hops, up, 0.0))
    motion = classify(v, w, params).at[cue_ball].set(
        jnp.where(hops, Motion.AIRBORNE, classify(v[cue_ball], w[cue_ball], params))
    )
    # Shot and layout are judged against the parameters: with invalid ones only INVALID_PARAMS says so.
    status = jnp.where(
        params_ok,
        jnp.where(shot_ok, 0, Status.INVALID_SHOT) | jnp.where(layout_ok, 0, Status.INVALID_LAYOUT),
        Status.INVALID_PARAMS,
    ).astype(jnp.int32)
    return Balls(r, v, w, b.z, vz, motion.astype(jnp.int8)), pin, status


def _next_event(b: Balls, pin, t, params):
    """Find the next event, advance every ball to it and resolve it.

    Returns (balls, pin, t, kind, ball, other, cushion).
    """
    layout = Layout(b.r.shape[0], pin is not None)
    times = candidate_times(b, params, layout, None if pin is None else (pin.position, pin.state))
    return _advance(b, pin, t, times, params)


def _advance(b: Balls, pin, t, times, params):
    """Advance every ball to the earliest of the candidate ``times`` and resolve that event
    (kind NONE: resolved, not to be logged, ``_returning``)."""
    layout = Layout(b.r.shape[0], pin is not None)
    index = jnp.argmin(times)
    dt = jnp.maximum(times[index], 0.0)
    b = evolve(b, dt, params)
    bodies = _bodies(b, pin, index, layout)
    quiet = _returning(b, bodies, params)
    b, pin, kind, ball, other, cushion = _resolve(b, pin, bodies, params)
    kind = jnp.where(quiet, EventKind.NONE, kind)
    return b, pin, t + dt, kind, ball, other, cushion


def _is_moving(motion):
    return jnp.any((motion != Motion.STATIONARY) & (motion != Motion.OFF_TABLE), axis=-1)


def _status(lost, cut_off, start_status):
    """() int32 ``Status`` flags: those found at the start (``_start``), OVERFLOW (the log lost an
    event the referee needs) and CUT_OFF (the safety net stopped the shot)."""
    return (
        jnp.where(lost, Status.OVERFLOW, 0) | jnp.where(cut_off, Status.CUT_OFF, 0) | start_status
    ).astype(jnp.int32)


@pytree_dataclass
class _Kept:
    """What thinning the log (``physics.thinning``) leaves to report: events dropped, the box
    their centres span (lo, hi: (..., n, 2)), and whether a needed event was lost."""

    dropped: jnp.ndarray
    lo: jnp.ndarray
    hi: jnp.ndarray
    lost: jnp.ndarray

    @classmethod
    def none(cls, n, dtype):
        return cls(jnp.zeros((), jnp.int32), jnp.full((n, 2), jnp.inf, dtype), jnp.full((n, 2), -jnp.inf, dtype),
                   jnp.zeros((), bool))


def _thin_if_full(log, k, kept: _Kept, n, filled):
    """Thin the log (``physics.thinning``) where ``filled`` (the last event took its last slot);
    computed only then."""
    def thin(args):
        log, k, kept = args
        log, k, dropped, lo, hi = thinning.thin(log, k, n)
        return log, k, _Kept(kept.dropped + dropped, jnp.minimum(kept.lo, lo), jnp.maximum(kept.hi, hi), kept.lost)

    return jax.lax.cond(filled, thin, lambda args: args, (log, k, kept))


def _missed(kept: _Kept, missed, kind, r) -> _Kept:
    """Count an event that found the log full of needed events: dropped, and lost unless it is a
    transition (it may be one the referee needs)."""
    transition = jnp.isin(kind, jnp.asarray(thinning.TRANSITIONS, jnp.int32))
    at = jnp.where(missed, r, jnp.nan)
    return _Kept(kept.dropped + missed.astype(jnp.int32), jnp.fmin(kept.lo, at), jnp.fmax(kept.hi, at),
                 kept.lost | (missed & ~transition))


def _log_event(log, k, kept: _Kept, kind, t, ball, other, cushion, b: Balls):
    """Write an event to slot k if there is room, else count it (``_missed``); kind NONE writes
    nothing. Returns (log, k, kept, filled: this event took the last slot)."""
    logged = kind != EventKind.NONE
    write = logged & (k < log.capacity)
    log = _record(log, jnp.where(write, k, log.capacity), kind, t, ball, other, cushion, b)
    k = jnp.where(write, k + 1, k)
    return log, k, _missed(kept, logged & ~write, kind, b.r), write & (k >= log.capacity)


def _settle(r, on_table, params):
    """Safety net for where balls come to rest: (n, 2) positions with any two on-table balls
    that overlap by more than half of ``layout_tolerance`` pushed apart along their line of
    centres, and on-table balls kept inside the cushion lines.

    Contact detection is the fix for overlaps; this only catches what its precision cannot: in
    float32 the contact quartic of a slow ball that rolls up to another after a long run loses
    the sign of f to rounding (f is about 1e-5 of its terms), and the contact can be missed.
    """
    R, reach, tol = params.ball.radius, params.cushion_reach, layout_tolerance(params.dtype)
    lo = jnp.stack([reach, reach])
    hi = jnp.stack([params.table.length - reach, params.table.width - reach])
    for _ in range(2):
        for i, j in zip(*pairs(r.shape[0])):
            d = r[j] - r[i]
            overlap = 2 * R - jnp.linalg.norm(d)
            shift = jnp.where(on_table[i] & on_table[j] & (overlap > 0.5 * tol), 0.5 * overlap + 0.125 * tol, 0.0)
            r = r.at[i].add(-shift * _unit(d)).at[j].add(shift * _unit(d))
        r = jnp.where(on_table[:, None], jnp.clip(r, lo, hi), r)
    return r


def _result(log, k, kept: _Kept, cut_off, status, b: Balls, pin, t, params) -> ShotResult:
    batch = k.shape
    dtype = params.dtype
    on_table = b.motion != Motion.OFF_TABLE
    settle = lambda r, on: _settle(r, on, params)  # noqa: E731
    for _ in batch:
        settle = jax.vmap(settle)
    refused = Status.INVALID_SHOT | Status.INVALID_LAYOUT | Status.INVALID_PARAMS
    played = (status & refused) == 0  # else nothing moved
    final = jnp.where(played[..., None, None], settle(b.r, on_table), b.r)
    if pin is None:
        pin_fields = dict(
            pin_present=jnp.zeros(batch, bool), pin_down=jnp.zeros(batch, bool),
            pin_position=jnp.zeros(batch + (2,), dtype), pin_knocked_by=jnp.full(batch, -1, jnp.int8),
        )
    else:
        pin_fields = dict(
            pin_present=jnp.ones(batch, bool), pin_down=pin.state != PIN_STANDING,
            pin_position=pin.position, pin_knocked_by=pin.knocked_by,
        )
    return ShotResult(
        events=log, num_events=k, overflow=kept.lost | cut_off, status=status, final_positions=final,
        final_time=t, on_table=on_table, dropped=kept.dropped,
        dropped_span=jnp.stack([kept.lo, kept.hi], axis=-2), **pin_fields,
    )


def _simulate(positions: ArrayLike, shot: Shot, cue_ball: ArrayLike, params: Params,
              pin_position: Optional[ArrayLike] = None) -> ShotResult:
    """One shot: a while loop of ``_next_event`` until every ball is at rest (or, as a safety
    net, ``MAX_EVENTS`` events); a full log is thinned (``physics.thinning``)."""
    b, pin, start_status = _start(positions, shot, cue_ball, params, pin_position)
    n = b.r.shape[0]
    t = jnp.zeros((), params.dtype)
    log = EventLog.empty(params.capacity, n, params.dtype)
    log = _record(log, 0, EventKind.CUE_STRIKE, t, jnp.asarray(cue_ball), -1, -1, b)

    def cond(state):
        return _is_moving(state[0].motion) & (state[5] < MAX_EVENTS)

    def body(state):
        b, pin, t, k, log, steps, kept = state
        b, pin, t, kind, ball, other, cushion = _next_event(b, pin, t, params)
        log, k, kept, filled = _log_event(log, k, kept, kind, t, ball, other, cushion, b)
        log, k, kept = _thin_if_full(log, k, kept, n, filled)
        return b, pin, t, k, log, steps + 1, kept

    one = jnp.ones((), jnp.int32)
    state = (b, pin, t, one, log, one, _Kept.none(n, params.dtype))
    b, pin, t, k, log, _, kept = jax.lax.while_loop(cond, body, state)
    cut_off = _is_moving(b.motion)
    return _result(log, k, kept, cut_off, _status(kept.lost, cut_off, start_status), b, pin, t, params)


def _simulate_pool(positions: jax.Array, shot: Shot, cue_ball: ArrayLike, params: Params,
                   pin_position: Optional[ArrayLike], lanes: int) -> ShotResult:
    """A batch of shots on a pool of ``lanes`` simulation lanes.

    Shots differ a lot in length (a few events to a hundred), and a plain ``vmap`` of the while
    loop runs every shot for as many iterations as the longest one. Here each lane takes the next
    waiting shot as soon as its own shot ends, so the batch costs about (total events / lanes)
    iterations. Every shot still goes through the arithmetic of ``_simulate`` (the candidate
    times of all lanes come from ``detect.candidate_times_batch``, which equals a ``vmap`` of
    ``detect.candidate_times`` to the last bit of a root), and its log is thinned the same way.
    pin_position: None, or (B, 2). A batch of one plays the shot's own loop: lanes to keep filled
    would cost it their bookkeeping at every event (0.3-0.4 ms a shot on a 2-core CPU), and a
    ``vmap`` of the loop would carry its whole state through a select at every event.
    """
    B, n = positions.shape[:2]
    take = lambda tree, idx: jax.tree_util.tree_map(lambda x: x[idx], tree)  # noqa: E731
    if B == 1:
        pin = None if pin_position is None else take(pin_position, 0)
        one = _simulate(take(positions, 0), take(shot, 0), take(cue_ball, 0), params, pin)
        return jax.tree_util.tree_map(lambda x: x[None], one)
    C = params.capacity
    dtype = params.dtype
    b0, pin0, start_status = jax.vmap(lambda p, s, c, q: _start(p, s, c, params, q))(
        positions, shot, cue_ball, pin_position
    )
    log = jax.vmap(lambda c, b: _record(EventLog.empty(C, n, dtype), 0, EventKind.CUE_STRIKE, 0.0, c, -1, -1, b))(
        cue_ball, b0
    )
    lanes = max(1, min(lanes, B))
    sid = jnp.arange(lanes, dtype=jnp.int32)
    none = jax.tree_util.tree_map(lambda x: jnp.broadcast_to(x, (lanes,) + x.shape), _Kept.none(n, dtype))
    carry = dict(
        sid=sid, next=jnp.asarray(lanes, jnp.int32), b=take(b0, sid), pin=take(pin0, sid),
        t=jnp.zeros((lanes,), dtype), k=jnp.ones((lanes,), jnp.int32), steps=jnp.ones((lanes,), jnp.int32),
        kept=none, log=log, num=jnp.ones((B,), jnp.int32), final=b0, final_pin=pin0,
        final_t=jnp.zeros((B,), dtype), final_kept=jax.tree_util.tree_map(lambda x: x[:1].repeat(B, 0), none),
    )

    def lane_where(c, new, old):
        return jax.tree_util.tree_map(
            lambda a, b: jnp.where(c.reshape(c.shape + (1,) * (a.ndim - 1)), a, b), new, old
        )

    def put(tree, rows, values, cols=None):
        idx = rows if cols is None else (rows, cols)
        return jax.tree_util.tree_map(lambda a, v: a.at[idx].set(v.astype(a.dtype), mode="drop"), tree, values)

    def cond(c):
        return jnp.any(c["sid"] < B)

    def body(c):
        c = dict(c)
        # Lanes whose shot has ended hand in its summary ...
        done = (c["sid"] < B) & (~_is_moving(c["b"].motion) | (c["steps"] >= MAX_EVENTS))
        out = jnp.where(done, c["sid"], B)  # index B is out of range: dropped
        c["num"] = put(c["num"], out, c["k"])
        c["final"] = put(c["final"], out, c["b"])
        c["final_pin"] = put(c["final_pin"], out, c["pin"])
        c["final_t"] = put(c["final_t"], out, c["t"])
        c["final_kept"] = put(c["final_kept"], out, c["kept"])
        # ... and take the next waiting shot.
        sid = jnp.where(done, jnp.minimum(c["next"] + jnp.cumsum(done) - 1, B), c["sid"]).astype(jnp.int32)
        c["next"] = c["next"] + jnp.sum(done).astype(jnp.int32)
        fresh = jnp.clip(sid, 0, B - 1)
        c["b"] = lane_where(done, take(b0, fresh), c["b"])
        c["pin"] = lane_where(done, take(pin0, fresh), c["pin"])
        c["t"] = jnp.where(done, 0.0, c["t"])
        c["k"] = jnp.where(done, 1, c["k"])
        c["steps"] = jnp.where(done, 1, c["steps"])
        c["kept"] = lane_where(done, none, c["kept"])
        c["sid"] = sid
        # Every lane with a shot in motion resolves its next event.
        step = (sid < B) & _is_moving(c["b"].motion) & (c["steps"] < MAX_EVENTS)
        # Candidate times for all lanes at once: the pin's quartics are packed (``detect``).
        pins = None if pin_position is None else (c["pin"].position, c["pin"].state)
        times = candidate_times_batch(c["b"], params, Layout(n, pin_position is not None), pins)
        b, pin, t, kind, ball, other, cushion = jax.vmap(lambda b, p, t, x: _advance(b, p, t, x, params))(
            c["b"], c["pin"], c["t"], times
        )
        c["b"] = lane_where(step, b, c["b"])
        c["pin"] = lane_where(step, pin, c["pin"])
        c["t"] = jnp.where(step, t, c["t"])
        logged = step & (kind != EventKind.NONE)  # else resolved but not logged
        write = logged & (c["k"] < C)
        row = jnp.where(write, sid, B)
        record = EventLog(
            kind=kind, time=t, balls=jnp.stack([ball, other], -1), cushion=cushion,
            positions=b.r, velocities=b.v, spins=b.w, motion=b.motion,
        )
        c["log"] = put(c["log"], row, record, c["k"])
        c["k"] = jnp.where(write, c["k"] + 1, c["k"])
        c["steps"] = jnp.where(step, c["steps"] + 1, c["steps"])
        # Lanes whose log is now full thin it, and events that found no room are counted
        # (rarely: only then is any of it computed).
        full, missed = write & (c["k"] >= C), logged & ~write
        c["log"], c["k"], c["kept"] = jax.lax.cond(
            jnp.any(full | missed), thin_full, lambda full, missed, kind, r, log, k, kept, sid: (log, k, kept),
            full, missed, kind, b.r, c["log"], c["k"], c["kept"], sid,
        )
        return c

    def thin_full(full, missed, kind, r, log, k, kept, sid):
        kept = jax.vmap(_missed)(kept, missed, kind, r)
        rows = jnp.clip(sid, 0, B - 1)
        thinned, k_new, kept_new = jax.vmap(lambda g, kk, kp, f: _thin_if_full(g, kk, kp, n, f))(
            take(log, rows), k, kept, full)
        log = put(log, jnp.where(full, sid, B), thinned)
        return log, jnp.where(full, k_new, k), lane_where(full, kept_new, kept)

    c = jax.lax.while_loop(cond, body, carry)
    kept = c["final_kept"]
    cut_off = _is_moving(c["final"].motion)
    pin = None if pin_position is None else c["final_pin"]
    status = _status(kept.lost, cut_off, start_status)
    return _result(c["log"], c["num"], kept, cut_off, status, c["final"], pin, c["final_t"], params)


_simulate_jit = jax.jit(_simulate)
_simulate_pool_jit = jax.jit(_simulate_pool, static_argnames="lanes")
_simulate_batch_params_jit = jax.jit(jax.vmap(_simulate, in_axes=(0, 0, 0, 0, 0)))

# Lanes of the shot pool: enough to keep the vector units busy, few enough that lanes rarely idle.
DEFAULT_LANES = 128


def _as_shot(shot, params: Params, batch=None) -> Shot:
    """The shot, checked: real fields of shape () (or (batch,)), and within the limits of
    ``params`` when both are concrete (traced values are flagged in ``status`` instead)."""
    if not isinstance(shot, Shot):
        raise TypeError(f"shot must be a physics.Shot, got {type(shot).__name__}")
    check_fields(shot, () if batch is None else (batch,))
    check_limits(shot, params)
    return shot


def _as_params(params: Params | None, batch=None) -> Params:
    """The params (default: ``default_params()``), checked when concrete and cast to their own
    dtype as the compiled simulation takes them; with ``batch``, every leaf must have that leading
    batch axis (``batched_params``)."""
    params = default_params() if params is None else params
    if not isinstance(params, Params):
        raise TypeError(f"params must be a physics.Params (physics.default_params()), got {type(params).__name__}")
    if batch is None:
        return _checked_cast(params)
    check_params(params)
    for path, leaf in jax.tree_util.tree_leaves_with_path(params):
        if np.shape(leaf)[:1] != (batch,):
            raise ValueError(
                f"with batched_params, params{jax.tree_util.keystr(path)} must have the leading batch axis "
                f"of positions ({batch},), got shape {np.shape(leaf)}"
            )
    return cast_params(params, params.dtype)


# Checked and cast parameter sets, by id: (a weak reference to the set, the set cast).
_CHECKED: dict[int, tuple] = {}
_CHECKED_SIZE = 32


def _checked_cast(params: Params) -> Params:
    """``check_params`` and the cast to the params' dtype, done once per set of concrete JAX arrays.

    Such a set cannot change (a frozen dataclass of immutable arrays), so its check and cast are
    remembered while it lives: checking and converting its leaves on every call would cost a
    single shot about a millisecond, more than simulating it. A set with a NumPy array or a
    Python number in it (which could be changed in place) is checked on every call.
    """
    key = id(params)
    hit = _CHECKED.get(key)
    if hit is not None and hit[0]() is params:
        return hit[1]
    check_params(params)
    cast = cast_params(params, params.dtype)
    leaves = jax.tree_util.tree_leaves(params)
    if all(isinstance(x, jax.Array) and not isinstance(x, jax.core.Tracer) for x in leaves):
        if len(_CHECKED) >= _CHECKED_SIZE:
            _CHECKED.pop(next(iter(_CHECKED)))
        _CHECKED[key] = (weakref.ref(params), cast)
    return cast


def _check_real(name, value):
    if hasattr(value, "dtype"):
        dtype = np.dtype(value.dtype)
    else:
        try:
            dtype = np.asarray(value).dtype
        except (TypeError, ValueError) as err:
            raise TypeError(f"{name} must be real numbers (int or float), got {type(value).__name__}") from err
    if dtype.kind not in "fiu":
        raise TypeError(f"{name} must be real numbers (int or float), got dtype {dtype}")


def _check_positions(positions, batched: bool):
    shape = np.shape(positions)
    want = 3 if batched else 2
    if len(shape) != want or shape[-1] != 2 or shape[-2] < 1:
        expected = "(batch, n_balls, 2)" if batched else "(n_balls, 2)"
        raise ValueError(f"positions must have shape {expected}, got {shape}")
    if batched and shape[0] < 1:
        raise ValueError(f"positions must hold at least one shot (batch size >= 1), got shape {shape}")
    _check_real("positions", positions)


def _check_pin(pin, batch=None):
    if pin is None:
        return
    shape = np.shape(pin)
    ok = shape == (2,) or (batch is not None and shape == (batch, 2))
    if not ok:
        allowed = "(2,)" if batch is None else f"(2,) or ({batch}, 2)"
        raise ValueError(f"pin must be None (no pin) or a position of shape {allowed}, got {shape}")
    _check_real("pin", pin)


def _check_cue_ball(cue_ball, n: int, batch=None):
    """An integer ball index in [0, n - 1] (or (batch,) of them); the range only when concrete."""
    if type(cue_ball) is int and 0 <= cue_ball < n:  # the usual argument, passed at once
        return
    allowed = f"an integer ball index in [0, {n - 1}]" + ("" if batch is None else f", or ({batch},) of them")
    dtype = getattr(cue_ball, "dtype", None)
    integer = (isinstance(cue_ball, (int, np.integer)) and not isinstance(cue_ball, (bool, np.bool_))) or (
        dtype is not None and np.dtype(dtype).kind in "iu"
    )
    if not integer:
        raise TypeError(f"cue_ball must be {allowed}, got {cue_ball!r}")
    if np.shape(cue_ball) not in ((), () if batch is None else (batch,)):
        raise ValueError(f"cue_ball must be {allowed}, got shape {np.shape(cue_ball)}")
    if not isinstance(cue_ball, jax.core.Tracer):
        values = np.asarray(cue_ball)
        if (values < 0).any() or (values >= n).any():
            raise ValueError(f"cue_ball must be {allowed}, got {values.tolist()}")


def _canonical(positions, shot: Shot, cue_ball, params: Params, pin, batch=None):
    """The arguments as the compiled simulation takes them: positions and pin in the params' dtype
    (the params are already cast, ``_as_params``), the cue ball an int32, and no number weakly
    typed (a Python number in the shot takes the params' dtype; a shot array keeps its own, whose
    rounding the limits allow for), so that a Python number and an array of the same value share
    one compiled program. With ``batch``, the shot's fields and the cue ball are broadcast to
    (batch,), the fields in the params' dtype."""
    dtype = params.dtype
    as_float = lambda x: _xp(x).asarray(x, dtype)  # noqa: E731
    if batch is None:
        shot = map_fields(lambda x: strong_type(x, dtype), shot)
        cue_ball = _xp(cue_ball).asarray(cue_ball, np.int32)
    else:
        shot = map_fields(lambda x: _broadcast_to_batch(x, (batch,), dtype), shot)
        cue_ball = _broadcast_to_batch(cue_ball, (batch,), np.int32)
    return as_float(positions), shot, cue_ball, params, None if pin is None else as_float(pin)


def _broadcast_to_batch(x, shape, dtype):
    """``x`` in ``dtype`` broadcast to ``shape`` (as is when it has that shape already: a
    broadcast costs microseconds, a single shot's entry counts them)."""
    x = _xp(x).asarray(x, dtype)
    return x if x.shape == shape else _xp(x).broadcast_to(x, shape)


def _xp(x):
    """NumPy for host data (NumPy arrays, Python numbers), jax.numpy for JAX arrays and tracers.
    Arguments prepared on the host reach the compiled call in one transfer, where a ``jnp`` call
    per argument would cost tens of microseconds each: a single shot's front end would take
    longer than simulating it."""
    return jnp if isinstance(x, jax.Array) else np


def simulate(positions: ArrayLike, shot: Shot, cue_ball: int = 0, params: Params | None = None,
             pin: Optional[ArrayLike] = None) -> ShotResult:
    """Simulate one shot. positions: (n_balls, 2) ball centres (m); the cue ball is struck.

    pin: None for the carom games, or where the pin stands, (2,) (the Hungarian game: usually
    ``params.table.centre``). Runs compiled (the first call for a given shape and set of static
    settings compiles); numbers are taken in the params' dtype. Bad arguments raise TypeError or
    ValueError naming the allowed values; what only shows in traced values (under ``jit``) is
    flagged in ``result.status``.
    """
    params = _as_params(params)
    _check_positions(positions, batched=False)
    _check_pin(pin)
    n = np.shape(positions)[0]
    _check_cue_ball(cue_ball, n)
    shot = _as_shot(shot, params)
    positions, shot, cue_ball, params, pin = _canonical(positions, shot, cue_ball, params, pin)
    return _simulate_jit(positions, shot, cue_ball, params, pin)


def simulate_batch(
    positions: ArrayLike, shot: Shot, cue_ball: ArrayLike = 0, params: Params | None = None,
    pin: Optional[ArrayLike] = None, *, batched_params: bool = False, lanes: int = DEFAULT_LANES,
    threads: int | None = None,
) -> ShotResult:
    """Simulate a batch of shots in one compiled call (on a CPU with several cores, one per core).

    positions: (batch, n_balls, 2), batch >= 1; shot: a ``Shot`` whose fields are (batch,) arrays
    (scalars are broadcast); cue_ball: an int or (batch,) ints; pin: None, (2,) or (batch, 2);
    params: shared, or with a leading batch axis on every leaf when ``batched_params`` is True
    (to sweep a physical parameter, with a plain ``vmap``). lanes: how many shots run side by
    side (see ``_simulate_pool``), on each device, at least 1; the batch is compiled padded to
    ``padded_batch(batch, lanes)`` shots; a batch of one plays the shot's own loop, as ``simulate``
    does (no lanes to keep filled). Bad arguments raise as in ``simulate``; a size
    that does not match the batch of ``positions`` raises ValueError naming the argument.

    With several devices a batch that splits evenly over them is split (``physics.devices``):
    each device plays its rows on its own pool, and the result's leaves stay sharded. On a CPU
    with one device, a batch of at least two lanes' worth of shots (a sweep: two rows) is cut into
    blocks played on ``threads`` threads at once (``physics.cores``; default: one per core the
    process may use, 1 to play it as one call); the result is the same, bit for bit.
    """
    _check_positions(positions, batched=True)
    threads = cores.check_threads(threads)
    if int(lanes) < 1:  # the batch is padded to a multiple of them
        raise ValueError(f"lanes must be an int >= 1 (shots played side by side), got {lanes!r}")
    batch, n = np.shape(positions)[:2]
    params = _as_params(params, batch if batched_params else None)
    _check_pin(pin, batch)
    _check_cue_ball(cue_ball, n, batch)
    shot = _as_shot(shot, params, batch)
    positions, shot, cue_ball, params, pin = _canonical(positions, shot, cue_ball, params, pin, batch)
    if pin is not None:
        pin = _xp(pin).broadcast_to(pin, (batch, 2))
    lanes = 1 if batched_params else int(lanes)  # a vmap of the shot's loop: every row is a lane
    size = batch if batched_params else padded_batch(batch, lanes)
    block = None if _traced(positions, shot, cue_ball, params, pin) else cores.block_size(batch, lanes, threads)
    if block is not None:
        size = -(-batch // block) * block
    if size > batch:  # null shots (V0 = 0: nothing moves) fill the batch up to its compiled size
        fill = lambda x: _xp(x).concatenate([x, _xp(x).broadcast_to(x[:1], (size - batch,) + x.shape[1:])])  # noqa: E731
        positions, cue_ball = fill(positions), fill(cue_ball)
        pin = None if pin is None else fill(pin)
        shot = map_fields(lambda x: _xp(x).concatenate([x, _xp(x).zeros((size - batch,), x.dtype)]), shot)
        params = jax.tree_util.tree_map(fill, params) if batched_params else params
    if batched_params:
        play = lambda a: _simulate_batch_params_jit(a[0], a[1], a[2], a[4], a[3])  # noqa: E731
        if block is not None:
            return cores.play_blocks(play, (positions, shot, cue_ball, pin, params), size, block, batch)
        return play((positions, shot, cue_ball, pin, params))
    if block is not None:
        play = lambda a: _simulate_pool_jit(a[0], a[1], a[2], params, a[3], lanes=lanes)  # noqa: E731
        return cores.play_blocks(play, (positions, shot, cue_ball, pin), size, block, batch)
    if devices.device_count() > 1:
        result = _simulate_pool_split(lanes)(positions, shot, cue_ball, params, pin)
    else:
        result = _simulate_pool_jit(positions, shot, cue_ball, params, pin, lanes=lanes)
    return result if size == batch else jax.tree_util.tree_map(lambda x: x[:batch], result)


def _traced(*trees) -> bool:
    """Whether any leaf is a tracer (``simulate_batch`` called inside ``jit``): one program then."""
    return any(isinstance(x, jax.core.Tracer) for x in jax.tree_util.tree_leaves(trees))


def padded_batch(batch: int, lanes: int = DEFAULT_LANES) -> int:
    """The batch size ``simulate_batch`` compiles for ``batch`` shots: the next power of two up to
    ``lanes``, then the next multiple of ``lanes``. Batches of many sizes then share a few compiled
    programs; the null shots that fill a batch end at once (each shot's arithmetic does not depend
    on the others, so the results of the real shots are the same)."""
    if batch <= lanes:
        return min(next_power_of_two(batch), max(lanes, 1))
    return -(-batch // lanes) * lanes


def next_power_of_two(n: int) -> int:
    """The smallest power of two >= n (n >= 1): the sizes compiled programs are padded to."""
    return 1 << (n - 1).bit_length()


@lru_cache(maxsize=None)
def _simulate_pool_split(lanes: int):
    """The pool compiled to run on every device's rows (``physics.devices.split_batch``)."""
    return jax.jit(devices.split_batch(partial(_simulate_pool, lanes=lanes), (True, True, True, False, True)))
