"""The pin (PHYSICS.md section 4, rules H-1.3, H-8.3) and balls in the air (sections 1, 5)."""
import jax
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import physics
from physics import Shot
from tests.test_physics_invariants import check_invariants, random_layout, random_shot

G = 9.81


@pytest.fixture(scope="module")
def hungarian():
    return physics.default_params("hungarian")


def topple_speed_from_physics_md(params):
    """The head-on speed at which (J h_c)^2 / (2 I_edge) = m_pin g dh (PHYSICS.md section 4),
    with J the impulse of a ball on a pin pivoting about its base edge, contact at h_c = R."""
    m, R = float(params.ball.mass), float(params.ball.radius)
    mp, H = float(params.pin.mass), float(params.pin.total_height)
    hcm, rb, e = float(params.pin.cm_height), float(params.pin.base_radius), float(params.pin.restitution)
    I_edge = mp * (H**2 / 12 + hcm**2 + rb**2)
    dh = np.hypot(hcm, rb) - hcm
    J = np.sqrt(2 * I_edge * mp * G * dh) / R
    return J * (1 / m + R**2 / I_edge) / (1 + e)


def straight_at_pin(params, distance, speed_fraction_of_cue=None):
    """Red 'distance' (m) from the pin on the long axis, white and yellow far away."""
    c = np.asarray(params.table.centre)
    return np.array([c - [distance, 0.0], [0.3, 0.2], [1.8, 0.85]]), c


def arrival_speed(params, V0, distance):
    """Speed of a centre-struck ball after travelling `distance` (sliding, then rolling)."""
    M, m = float(params.cue.mass), float(params.ball.mass)
    u_s, u_r = float(params.ball.u_s), float(params.ball.u_r)
    v0 = 2 * M * V0 / (M + m)
    t_s = 2 * v0 / (7 * u_s * G)
    d_s = v0 * t_s - 0.5 * u_s * G * t_s**2
    if distance <= d_s:
        return np.sqrt(v0**2 - 2 * u_s * G * distance)
    return np.sqrt(max((5 / 7 * v0) ** 2 - 2 * u_r * G * (distance - d_s), 0.0))


def test_pin_topple_threshold_follows_physics_md(hungarian):
    from physics.collide.ball_pin import resolve, topple_speed

    v_crit = topple_speed_from_physics_md(hungarian)
    assert float(topple_speed(hungarian)) == pytest.approx(v_crit, rel=1e-9)
    normal = np.array([1.0, 0.0])
    assert not bool(resolve(np.array([0.97 * v_crit, 0.0]), normal, hungarian)[1])
    assert bool(resolve(np.array([1.03 * v_crit, 0.0]), normal, hungarian)[1])


def test_pin_hit_at_1_m_per_s_falls_and_the_log_names_the_cue_ball(hungarian):
    distance = 0.3
    pos, pin = straight_at_pin(hungarian, distance)
    V0 = 1.0
    assert arrival_speed(hungarian, V0, distance - 0.04) > 1.0
    res = physics.simulate(pos, Shot(V0=V0, phi=0.0), 0, hungarian, pin=pin)
    kinds = [(e["kind"], e["balls"]) for e in physics.event_list(res)]
    assert ("ball_pin", [0]) in kinds and ("pin_down", [0]) in kinds
    assert kinds.index(("pin_down", [0])) == kinds.index(("ball_pin", [0])) + 1
    assert bool(res.pin_down) and int(res.pin_knocked_by) == 0 and bool(res.pin_present)
    check_invariants(res, hungarian)


def test_pin_touched_at_a_few_cm_per_s_stays_up(hungarian):
    # Rolling from rest-ish: choose V0 so the ball arrives at about 3 cm/s.
    distance = 0.25
    pos, pin = straight_at_pin(hungarian, distance)
    travel = distance - float(hungarian.ball.radius + hungarian.pin.contact_radius)
    V0 = next(v for v in np.arange(0.05, 1.0, 0.0005) if arrival_speed(hungarian, v, travel) > 0.03)
    res = physics.simulate(pos, Shot(V0=V0, phi=0.0), 0, hungarian, pin=pin)
    kinds = [e["kind"] for e in physics.event_list(res)]
    assert "ball_pin" in kinds and "pin_down" not in kinds
    assert not bool(res.pin_down) and int(res.pin_knocked_by) == -1
    check_invariants(res, hungarian)


def test_pin_down_names_the_object_ball_the_cue_ball_sent_into_it(hungarian):
    c = np.asarray(hungarian.table.centre)
    white = c - [0.25, 0.0]
    red = white - [0.3, 0.0]
    pos = np.array([red, white, [1.8, 0.85]])
    res = physics.simulate(pos, Shot(V0=2.0, phi=0.0), 0, hungarian, pin=c)
    events = physics.event_list(res)
    kinds = [(e["kind"], e["balls"]) for e in events]
    assert kinds[1] == ("ball_ball", [0, 1])
    assert ("pin_down", [1]) in kinds
    assert int(res.pin_knocked_by) == 1
    check_invariants(res, hungarian)


def test_a_fallen_pin_takes_no_further_part(hungarian):
    pos, pin = straight_at_pin(hungarian, 0.3)
    res = physics.simulate(pos, Shot(V0=3.0, phi=0.0), 0, hungarian, pin=pin)
    kinds = [e["kind"] for e in physics.event_list(res)]
    assert kinds.count("pin_down") == 1 and kinds.count("ball_pin") == 1


def test_a_hard_jump_shot_at_a_cushion_leaves_the_table(params):
    R = float(params.ball.radius)
    pos = np.array([[2.6, 0.71], [0.5, 0.3], [0.5, 1.1]])
    res = physics.simulate(pos, Shot(V0=6.0, phi=0.0, theta=40.0), 0, params)
    events = physics.event_list(res)
    assert events[0]["motion"][0] == "airborne"
    gone = [e for e in events if e["kind"] == "off_table"]
    assert gone and gone[0]["balls"] == [0]
    assert not bool(res.on_table[0]) and bool(res.on_table[1]) and bool(res.on_table[2])
    assert gone[0]["cushion"] == "top"
    assert float(res.final_positions[0, 0]) > 2.84 + R  # beyond the top cushion
    check_invariants(res, params)


@settings(max_examples=30, deadline=None, derandomize=True)
@given(V0=st.floats(0.1, 10.0), phi=st.floats(-180, 180), a=st.floats(-0.4, 0.4), b=st.floats(-0.4, 0.4))
def test_a_level_shot_of_any_speed_never_leaves_the_table(params, V0, phi, a, b):
    pos = np.array([[2.6, 0.71], [0.5, 0.3], [0.5, 1.1]])
    res = physics.simulate(pos, Shot(V0=V0, phi=phi, a=a, b=b), 0, params)
    assert bool(np.all(res.on_table))
    assert "airborne" not in {m for e in physics.event_list(res) for m in e["motion"]}


def test_a_small_elevation_hops_lands_and_slides_on(params):
    pos = np.array([[0.7, 0.71], [2.0, 0.3], [2.0, 1.1]])
    res = physics.simulate(pos, Shot(V0=2.0, phi=0.0, theta=15.0), 0, params)
    events = physics.event_list(res)
    landings = [e for e in events if e["kind"] == "ball_landing"]
    assert events[0]["motion"][0] == "airborne" and landings
    # Bounce heights shrink by e_table^2 each time: landing intervals by e_table.
    t = [0.0] + [e["t"] for e in landings]
    gaps = np.diff(t)
    e_table = float(params.ball.e_table)
    assert gaps[1] / gaps[0] == pytest.approx(e_table, rel=1e-9)
    assert landings[-1]["motion"][0] in ("sliding", "rolling")
    # In the air the ball flies straight at constant speed across the table.
    assert np.allclose(events[0]["velocities"][0], landings[0]["velocities"][0], rtol=1e-12)
    check_invariants(res, params)


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1))
def test_invariants_with_the_pin_and_in_the_air(hungarian, seed):
    rng = np.random.default_rng(seed)
    pin = np.asarray(hungarian.table.centre)
    R, rp = float(hungarian.ball.radius), float(hungarian.pin.contact_radius)
    while True:
        pos = random_layout(rng, hungarian)
        if np.linalg.norm(pos - pin, axis=1).min() > R + rp:
            break
    res = physics.simulate(pos, random_shot(rng), 0, hungarian, pin=pin)
    check_invariants(res, hungarian)
    # No ball ever passes through the standing pin.
    n = int(res.num_events)
    log = jax.tree_util.tree_map(np.asarray, res.events)
    down = [k for k in range(n) if log.kind[k] == physics.EventKind.PIN_DOWN]
    t_end = log.time[down[0]] if down else float(res.final_time)
    times = np.linspace(0, t_end, 400)
    p = np.asarray(physics.positions_at(res, times, hungarian))
    k = np.clip(np.searchsorted(log.time[:n], times, side="right") - 1, 0, n - 1)
    on_cloth = ~np.isin(log.motion[k], [physics.Motion.AIRBORNE, physics.Motion.OFF_TABLE])
    d = np.where(on_cloth, np.linalg.norm(p - pin, axis=-1), np.inf)
    assert d.min() >= R + rp - 1e-9


def test_pin_shots_jit_equals_no_jit_and_batch_equals_single(hungarian):
    rng = np.random.default_rng(5)
    pin = np.asarray(hungarian.table.centre)
    pos = np.stack([np.asarray(straight_at_pin(hungarian, d)[0]) for d in (0.2, 0.3, 0.4, 0.5)])
    shots = [Shot(V0=v, phi=p) for v, p in zip(rng.uniform(0.5, 3, 4), rng.uniform(-5, 5, 4))]
    batch = Shot(*(np.array([getattr(s, f) for s in shots]) for f in ("V0", "phi", "theta", "a", "b")))
    res = physics.simulate_batch(pos, batch, 0, hungarian, pin=pin, lanes=2)
    for k in range(4):
        one = physics.simulate(pos[k], shots[k], 0, hungarian, pin=pin)
        assert np.array_equal(np.asarray(res.events.kind[k]), np.asarray(one.events.kind))
        assert bool(res.pin_down[k]) == bool(one.pin_down)
        assert int(res.pin_knocked_by[k]) == int(one.pin_knocked_by)
        assert np.allclose(res.final_positions[k], one.final_positions, rtol=1e-9, atol=1e-12)
    with jax.disable_jit():
        eager = physics.simulate(pos[1], shots[1], 0, hungarian, pin=pin)
    one = physics.simulate(pos[1], shots[1], 0, hungarian, pin=pin)
    assert np.array_equal(np.asarray(eager.events.kind), np.asarray(one.events.kind))
    assert np.allclose(eager.final_positions, one.final_positions, rtol=1e-9, atol=1e-12)


def test_ball_on_the_pin_is_an_invalid_layout(hungarian):
    pin = np.asarray(hungarian.table.centre)
    pos = np.array([pin + [0.02, 0.0], [0.3, 0.2], [1.8, 0.85]])
    res = physics.simulate(pos, Shot(V0=1.0, phi=0.0), 0, hungarian, pin=pin)
    assert int(res.status) & physics.Status.INVALID_LAYOUT
    with pytest.raises(ValueError, match="pin must be None"):
        physics.simulate(pos, Shot(V0=1.0, phi=0.0), 0, hungarian, pin=[1.0, 2.0, 3.0])
