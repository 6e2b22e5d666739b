"""The pin (docs/physics.md section 4, rules H-1.3, H-8.3) and balls in the air (sections 1, 5)."""
import jax
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import physics
from physics import EventKind, Shot
from tests.support.physics import check_invariants, random_layout, random_shot

G = 9.81


@pytest.fixture(scope="module")
def hungarian():
    return physics.default_params("hungarian")


def topple_speed_from_physics_md(params):
    """The head-on speed at which (J h_c)^2 / (2 I_edge) = m_pin g dh (docs/physics.md section 4),
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


def test_a_raised_cue_hops_lands_and_slides_on(params):
    # 45 deg at 3 m/s drives the ball into the cloth at 3.1 m/s, past strike_press: a hop of ~4 cm.
    pos = np.array([[0.7, 0.71], [2.0, 0.3], [2.0, 1.1]])
    res = physics.simulate(pos, Shot(V0=3.0, phi=0.0, theta=45.0), 0, params)
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


def test_pin_shots_batched_equal_single_shots(hungarian):
    rng = np.random.default_rng(5)
    pin = np.asarray(hungarian.table.centre)
    pos = np.stack([np.asarray(straight_at_pin(hungarian, d)[0]) for d in (0.2, 0.3, 0.4, 0.5)])
    shots = [Shot(V0=v, phi=p) for v, p in zip(rng.uniform(0.5, 3, 4), rng.uniform(-5, 5, 4))]
    # the four shots repeated over the batch that the Hungarian game's other tests compile the pool for
    rows = np.arange(64) % 4
    batch = Shot(*(np.array([getattr(s, f) for s in shots])[rows] for f in ("V0", "phi", "theta", "a", "b")))
    res = physics.simulate_batch(pos[rows], batch, 0, hungarian, pin=pin)
    for k in range(4):
        one = physics.simulate(pos[k], shots[k], 0, hungarian, pin=pin)
        assert np.array_equal(np.asarray(res.events.kind[k]), np.asarray(one.events.kind))
        assert bool(res.pin_down[k]) == bool(one.pin_down)
        assert int(res.pin_knocked_by[k]) == int(one.pin_knocked_by)
        assert np.allclose(res.final_positions[k], one.final_positions, rtol=1e-9, atol=1e-12)


@pytest.mark.slow  # unjitted, every op runs on its own (seconds per event)
def test_a_pin_shot_unjitted_equals_the_jitted_one(hungarian):
    """A slow shot that still hits and fells the pin plays the same events and leave without jit."""
    pin = np.asarray(hungarian.table.centre)
    pos = np.asarray(straight_at_pin(hungarian, 0.2)[0])
    slow = Shot(V0=0.5, phi=0.0)
    with jax.disable_jit():
        eager = physics.simulate(pos, slow, 0, hungarian, pin=pin)
    one = physics.simulate(pos, slow, 0, hungarian, pin=pin)
    assert bool(one.pin_down) and EventKind.BALL_PIN in np.asarray(one.events.kind)
    assert np.array_equal(np.asarray(eager.events.kind), np.asarray(one.events.kind))
    assert np.allclose(eager.final_positions, one.final_positions, rtol=1e-9, atol=1e-12)


def test_ball_on_the_pin_is_an_invalid_layout(hungarian):
    pin = np.asarray(hungarian.table.centre)
    pos = np.array([pin + [0.02, 0.0], [0.3, 0.2], [1.8, 0.85]])
    res = physics.simulate(pos, Shot(V0=1.0, phi=0.0), 0, hungarian, pin=pin)
    assert int(res.status) & physics.Status.INVALID_LAYOUT
    with pytest.raises(ValueError, match="pin must be None"):
        physics.simulate(pos, Shot(V0=1.0, phi=0.0), 0, hungarian, pin=[1.0, 2.0, 3.0])


# Ball-pin quartics are solved only for balls that may reach the pin (physics.detect), and a
# batch packs them into a short buffer: both must give exactly what solving every quartic gives.

def _pin_path_cases(rng, n, reach):
    """(q0, v, a, hi): random paths near the pin, and paths that graze a circle of radius within
    a hair of ``reach`` at a chosen time, from outside (straight and curved)."""
    q0 = rng.uniform(-0.4, 0.4, (n, 2))
    v = rng.normal(0, 2.0, (n, 2))
    a = rng.normal(0, 1.5, (n, 2)) * (rng.uniform(size=(n, 1)) < 0.7)
    hi = rng.uniform(0, 1.0, n)
    m = n // 2
    u = rng.normal(size=(m, 2))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    side = np.stack([-u[:, 1], u[:, 0]], axis=1)
    t_touch = rng.uniform(0, 1.0, m)
    hair = rng.choice([-1e-6, -1e-9, -1e-13, 0.0, 1e-15, 1e-13, 1e-11, 1e-9, 1e-6, 1e-4], m)
    q_touch = reach * (1 + hair)[:, None] * u
    v_touch = rng.uniform(0.05, 3.0, (m, 1)) * side
    # An acceleration that bends the path away from the pin, or not at all: the closest approach
    # is at t_touch.
    a_g = (rng.uniform(0, 2.0, (m, 1)) * u + rng.normal(0, 0.5, (m, 1)) * side) * (rng.uniform(size=(m, 1)) < 0.6)
    q0[:m] = q_touch - v_touch * t_touch[:, None] + 0.5 * a_g * t_touch[:, None] ** 2
    v[:m] = v_touch - a_g * t_touch[:, None]
    a[:m] = a_g
    hi[:m] = t_touch * rng.choice([0.999, 1.0, 1.001, 2.0], m)
    return q0, v, a, hi


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_may_meet_never_rules_out_a_contact_the_quartic_finds(dtype):

    from physics import detect, roots

    rng = np.random.default_rng(3)
    reach = 0.04075
    n = 8000
    q0, v, a, hi = (np.asarray(x, dtype) for x in _pin_path_cases(rng, n, reach))
    tol = 1e-9 if dtype == np.float64 else 1e-5

    @jax.jit
    def quartic_and_test(q0, v, a, hi):
        coeffs = detect._distance_quartic(q0, v, a, dtype(reach))
        t = roots.first_descending_root(coeffs, hi, dtype(2 * reach * tol))
        return t, detect.may_meet(q0, v, a, hi, dtype(reach))

    t, may = (np.asarray(x) for x in quartic_and_test(q0, v, a, hi))
    assert np.isfinite(t).sum() > n // 8
    assert np.all(may[np.isfinite(t)])
    # Brute force in float64 on a fine grid: every path that comes within reach is kept.
    s = np.linspace(0, 1, 1001)[None, :, None] * hi.astype(np.float64)[:, None, None]
    d = np.linalg.norm(q0[:, None] + v[:, None] * s + 0.5 * a[:, None] * s**2, axis=-1).min(axis=1)
    assert np.all(may[d <= reach])
    # The test is worth having: most random paths are ruled out.
    assert may[n // 2:].mean() < 0.5


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_may_meet_never_rules_out_a_ball_pair_contact_the_quartic_finds(dtype):
    """Ball pairs: the bound works across the table, the contact quartic in space (a ball in the
    air passes over one it clears), so the bound on the horizontal paths must keep every contact
    the three-dimensional quartic finds."""
    from physics import detect, roots

    rng = np.random.default_rng(5)
    reach = 2 * 0.03075
    n = 8000
    q0, v, a, hi = _pin_path_cases(rng, n, reach)
    air = rng.uniform(size=n) < 0.3  # one of the two in the air: a relative height and fall
    z0 = np.where(air, rng.uniform(0, 0.05, n), 0.0)
    vz = np.where(air, rng.uniform(-1.0, 1.0, n), 0.0)
    az = np.where(air, -9.81, 0.0)
    q3, v3, a3 = (np.concatenate([h, zz[:, None]], axis=-1) for h, zz in ((q0, z0), (v, vz), (a, az)))
    q0, v, a, hi, q3, v3, a3 = (np.asarray(x, dtype) for x in (q0, v, a, hi, q3, v3, a3))
    tol = 1e-9 if dtype == np.float64 else 1e-5

    @jax.jit
    def quartic_and_test(q0, v, a, hi, q3, v3, a3):
        t = roots.first_descending_root(detect._distance_quartic(q3, v3, a3, dtype(reach)), hi, dtype(2 * reach * tol))
        return t, detect.may_meet(q0, v, a, hi, dtype(reach))

    t, may = (np.asarray(x) for x in quartic_and_test(q0, v, a, hi, q3, v3, a3))
    assert np.isfinite(t[air]).sum() > 50 and np.isfinite(t[~air]).sum() > n // 8
    assert np.all(may[np.isfinite(t)])
    assert may[n // 2:].mean() < 0.5


def _grazing_balls(rng, lanes, R):
    """Ball 0 rolls straight past ball 1 (at rest); its path passes ball 1's centre at 2R + d, d
    within 60 micrometres either side (returned): a touch or a miss by less than float32's quartic
    can tell. Ball 2 rests in a corner."""
    from physics.motion import Balls

    start = rng.uniform([0.8, 0.55], [2.0, 0.87], (lanes, 2))  # no cushion on the way
    angle = rng.uniform(0, 2 * np.pi, lanes)
    u = np.stack([np.cos(angle), np.sin(angle)], -1)
    normal = np.stack([-u[:, 1], u[:, 0]], -1)
    d = rng.uniform(-60e-6, 60e-6, lanes)
    target = start + rng.uniform(0.05, 0.3, (lanes, 1)) * u + (2 * R + d)[:, None] * normal
    r = np.stack([start, target, np.full((lanes, 2), 0.1)], 1)
    v = np.zeros((lanes, 3, 2))
    v[:, 0] = rng.uniform(0.3, 1.5, (lanes, 1)) * u  # it reaches ball 1
    w = np.zeros((lanes, 3, 3))
    w[:, 0, 0], w[:, 0, 1] = -v[:, 0, 1] / R, v[:, 0, 0] / R
    motion = np.zeros((lanes, 3), np.int8)
    motion[:, 0] = physics.Motion.ROLLING
    z = np.zeros((lanes, 3))
    return Balls(r, v, w, z, z, motion), d


def test_float32_ball_contact_times_are_polished_towards_float64(monkeypatch):
    """In float32 a ball-ball contact time is refined on the gap evaluated from the relative
    position (``detect._polish_pairs``). Over many random approaching pairs it is closer to the
    float64 time than the quartic's own root, and the same contacts are found. On balls that
    pass within 60 micrometres of touching, where the float32 quartic cannot tell a touch from a
    miss, it finds the contacts float64 finds but for passes within a tenth of a micrometre, and
    a light touch's time is ten times closer (99th percentile)."""
    import jax.numpy as jnp

    from physics import detect

    # one rolling resistance (u_r_step 0): no ball reaches its roll_split before the pass
    p64, p32 = physics.default_params(u_r_step=0.0), physics.default_params(dtype="float32", u_r_step=0.0)
    R = float(p64.ball.radius)
    b = _random_balls_near_pin(np.random.default_rng(0), 2000, p64, np.array([1.4, 0.7]))
    grazing, d = _grazing_balls(np.random.default_rng(1), 4000, R)
    b = jax.tree_util.tree_map(lambda x, y: np.concatenate([x, y]), b, grazing)
    layout = detect.Layout(3, False)
    b64 = jax.tree_util.tree_map(jnp.asarray, b)
    b32 = jax.tree_util.tree_map(lambda x: jnp.asarray(x, jnp.float32) if x.dtype == np.float64 else jnp.asarray(x), b)

    def pair_times(params, balls):  # traced anew each call: the patch below takes effect
        return np.asarray(jax.jit(jax.vmap(lambda b: detect.candidate_times(b, params, layout)))(balls))[:, :3]

    t64, polished = pair_times(p64, b64), pair_times(p32, b32)
    monkeypatch.setattr(detect, "_polish_pairs", lambda paths, t, radius: t)
    raw = pair_times(p32, b32)
    g64, g_polished, g_raw = t64[2000:, 0], polished[2000:, 0], raw[2000:, 0]  # the grazing pair
    t64, polished, raw = t64[:2000], polished[:2000], raw[:2000]

    found = np.isfinite(t64)
    assert np.array_equal(np.isfinite(polished), found) and np.array_equal(np.isfinite(raw), found)
    ok = np.isfinite(t64) & (t64 > 0)
    assert ok.sum() > 500
    err, err_raw = np.abs(polished[ok] - t64[ok]), np.abs(raw[ok] - t64[ok])
    assert np.median(err) < 0.6 * np.median(err_raw)
    assert np.percentile(err, 99) < np.percentile(err_raw, 99)

    touch = np.isfinite(g64)
    assert 0.3 < touch.mean() < 0.7 and np.all(touch[d < -0.1e-6]) and not np.any(touch[d > 0.1e-6])
    wrong, wrong_raw = np.isfinite(g_polished) != touch, np.isfinite(g_raw) != touch
    assert wrong_raw.sum() > 20 and np.all(np.abs(d[wrong]) < 0.1e-6)
    both = touch & np.isfinite(g_polished) & np.isfinite(g_raw)
    err, err_raw = np.abs(g_polished[both] - g64[both]), np.abs(g_raw[both] - g64[both])
    assert np.percentile(err_raw, 99) > 1e-4 and np.percentile(err, 99) < 0.1 * np.percentile(err_raw, 99)


def test_a_ball_passing_by_or_leaving_the_pin_needs_no_quartic():
    import jax.numpy as jnp

    from physics import detect

    reach = 0.04075
    q0 = jnp.array([[-0.3, 0.0421], [-0.3, 0.040], [0.05, 0.0], [0.3, 0.0]])
    v = jnp.array([[2.0, 0.0], [2.0, 0.0], [1.0, 0.0], [-1.0, 0.0]])
    a = -0.1 * v  # rolling: along the path
    hi = jnp.array([1.0, 1.0, 1.0, 0.2])
    may = np.asarray(detect.may_meet(q0, v, a, hi, reach))
    # Passes 1.3 mm wide: ruled out; grazes: kept; leaves: ruled out; arrives after hi: ruled out.
    assert may.tolist() == [False, True, False, False]


def _random_balls_near_pin(rng, lanes, params, pin):
    from physics.motion import Balls, classify

    R, reach = float(params.ball.radius), float(params.ball.radius + params.pin.contact_radius)
    r = np.empty((lanes, 3, 2))
    for k in range(lanes):
        while True:
            p = pin + rng.uniform(-0.35, 0.35, (3, 2))
            d = np.linalg.norm(p[:, None] - p[None], axis=-1) + np.eye(3)
            if d.min() >= 2 * R and np.linalg.norm(p - pin, axis=1).min() > reach:
                r[k] = p
                break
    # Mostly aimed at the pin, some not; sliding (random spin), rolling, at rest, in the air.
    to_pin = (pin - r) / np.linalg.norm(pin - r, axis=-1, keepdims=True)
    turn = rng.uniform(-0.3, 0.3, (lanes, 3))
    c, s = np.cos(turn), np.sin(turn)
    aim = np.stack([c * to_pin[..., 0] - s * to_pin[..., 1], s * to_pin[..., 0] + c * to_pin[..., 1]], -1)
    v = aim * rng.uniform(0, 3, (lanes, 3, 1)) * (rng.uniform(size=(lanes, 3, 1)) < 0.8)
    w = rng.normal(0, 40, (lanes, 3, 3))
    rolling = rng.uniform(size=(lanes, 3)) < 0.4
    w[..., 0] = np.where(rolling, -v[..., 1] / R, w[..., 0])
    w[..., 1] = np.where(rolling, v[..., 0] / R, w[..., 1])
    motion = np.asarray(classify(v, w, params))
    air = rng.uniform(size=(lanes, 3)) < 0.1
    z = np.where(air, rng.uniform(0, 0.02, (lanes, 3)), 0.0)
    vz = np.where(air, rng.uniform(-0.5, 0.5, (lanes, 3)), 0.0)
    motion = np.where(air, physics.Motion.AIRBORNE, motion).astype(np.int8)
    return Balls(r, v, w, z, vz, motion)


def assert_same_times(got, want):
    """The same candidates found (inf at the same places), at the same times to rounding: a
    quartic solved in a buffer of another size may be compiled with other fusions, and its root
    can differ in the last bit."""
    assert np.array_equal(np.isfinite(got), np.isfinite(want))
    fin = np.isfinite(want)
    assert np.allclose(got[fin], want[fin], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("buffer", [1, 3, None])
def test_batched_pin_candidates_equal_solving_every_quartic(hungarian, monkeypatch, buffer):
    import jax.numpy as jnp

    from physics import detect

    rng = np.random.default_rng(buffer or 0)
    pin = np.asarray(hungarian.table.centre)
    lanes = 64
    b = jax.tree_util.tree_map(jnp.asarray, _random_balls_near_pin(rng, lanes, hungarian, pin))
    layout = detect.Layout(3, True)
    state = jnp.asarray(np.where(rng.uniform(size=lanes) < 0.9, detect.PIN_STANDING, detect.PIN_DOWN), jnp.int8)
    position = jnp.broadcast_to(jnp.asarray(pin), (lanes, 2))
    packed = np.asarray(jax.jit(lambda b, p, s: detect.candidate_times_batch(b, hungarian, layout, (p, s), buffer))(
        b, position, state))
    def one_by_one():  # compiled (op by op it compiles hundreds of small programs); traced anew after the patch
        return np.asarray(jax.jit(jax.vmap(lambda b, p, s: detect.candidate_times(b, hungarian, layout, (p, s))))(
            b, position, state))

    single = one_by_one()
    monkeypatch.setattr(detect, "may_meet", lambda q0, v, a, hi, reach: jnp.ones(hi.shape, bool))
    every = one_by_one()
    pin_slots = slice(layout.pin, layout.cushion)
    assert np.isfinite(every[:, pin_slots]).sum() >= 5  # the case is not empty
    assert_same_times(packed, every)
    assert_same_times(single, every)


@pytest.mark.parametrize("buffer", [1, None])
def test_batched_pair_candidates_equal_solving_every_quartic(hungarian, monkeypatch, buffer):
    """Without a pin the ball-ball quartics are packed as well (``detect.may_meet``)."""
    import jax.numpy as jnp

    from physics import detect

    rng = np.random.default_rng(7 if buffer else 8)
    lanes = 64
    b = jax.tree_util.tree_map(jnp.asarray, _random_balls_near_pin(rng, lanes, hungarian, np.array([1.2, 0.6])))
    layout = detect.Layout(3, False)
    packed = np.asarray(jax.jit(lambda b: detect.candidate_times_batch(b, hungarian, layout, None, buffer))(b))
    def one_by_one():
        return np.asarray(jax.jit(jax.vmap(lambda b: detect.candidate_times(b, hungarian, layout)))(b))

    single = one_by_one()
    monkeypatch.setattr(detect, "may_meet", lambda q0, v, a, hi, reach: jnp.ones(hi.shape, bool))
    every = one_by_one()
    assert np.isfinite(every[:, : layout.pairs]).sum() >= 5  # the case is not empty
    assert_same_times(packed, every)
    assert_same_times(single, every)


def _post_like_pin_shots(rng, params, n):
    """Balls around a pin too heavy to fall, cue ball aimed at the pin or at an object ball: the
    balls bounce off it, and in some shots two or three different balls touch it."""
    pin = np.asarray(params.table.centre)
    R, reach = float(params.ball.radius), float(params.ball.radius + params.pin.contact_radius)
    pos = []
    while len(pos) < n:
        p = pin + rng.uniform(-0.25, 0.25, (3, 2))
        d = np.linalg.norm(p[:, None] - p[None], axis=-1) + np.eye(3)
        if d.min() >= 2 * R and np.linalg.norm(p - pin, axis=1).min() > reach:
            pos.append(p)
    pos = np.array(pos)
    target = np.where(rng.uniform(size=n)[:, None] < 0.5, pos[:, 1], pin)
    aim = np.degrees(np.arctan2(target[:, 1] - pos[:, 0, 1], target[:, 0] - pos[:, 0, 0]))
    aim = aim + rng.uniform(-15, 15, n)
    shots = Shot(V0=rng.uniform(1, 6, n), phi=aim, theta=np.zeros(n), a=rng.uniform(-0.4, 0.4, n),
                 b=rng.uniform(-0.4, 0.4, n))
    return pos, shots, pin


@pytest.mark.slow  # two programs of its own (a one-slot pin buffer, every quartic solved)
def test_shots_with_several_balls_on_the_pin_equal_solving_every_quartic(monkeypatch):
    import sys

    import jax.numpy as jnp

    from physics import detect

    sim = sys.modules["physics.simulate"]
    params = physics.default_params("hungarian", pin_mass=100.0)
    B = 96
    pos, shots, pin = _post_like_pin_shots(np.random.default_rng(3), params, B)
    pos = jnp.asarray(pos)
    shots = jax.tree_util.tree_map(jnp.asarray, shots)
    cue = jnp.zeros(B, jnp.int32)
    pins = jnp.broadcast_to(jnp.asarray(pin), (B, 2))
    # The packed pool with a one-slot buffer (so some steps take several rounds).
    monkeypatch.setattr(detect, "buffer_size", lambda lanes: 1)
    packed = jax.jit(sim._simulate_pool, static_argnames="lanes")(pos, shots, cue, params, pins, lanes=16)
    # Every ball-pin quartic solved, shot by shot.
    monkeypatch.setattr(detect, "may_meet", lambda q0, v, a, hi, reach: jnp.ones(hi.shape, bool))
    every = jax.jit(jax.vmap(sim._simulate, in_axes=(0, 0, 0, None, 0)))(pos, shots, cue, params, pins)
    kind = np.asarray(every.events.kind)
    balls = np.asarray(every.events.balls)
    on_pin = [len(set(balls[k][kind[k] == physics.EventKind.BALL_PIN][:, 0])) for k in range(B)]
    assert max(on_pin) >= 2 and not np.asarray(every.pin_down).any()
    assert np.array_equal(np.asarray(packed.events.kind), kind)
    assert np.array_equal(np.asarray(packed.events.balls), balls)
    assert np.array_equal(np.asarray(packed.num_events), np.asarray(every.num_events))
    n = np.asarray(every.num_events)
    for k in range(B):
        assert_same_times(np.asarray(packed.events.time[k, : n[k]]), np.asarray(every.events.time[k, : n[k]]))
    assert np.allclose(packed.final_positions, every.final_positions, rtol=0, atol=1e-12)
    assert np.all(np.asarray(packed.status) == 0)


@pytest.mark.slow  # float32 with the pin: two programs of its own (the pool and a single shot)
def test_float32_pin_shots_batch_equals_single():
    params = physics.default_params("hungarian", dtype="float32")
    pos = np.stack([np.asarray(straight_at_pin(params, d)[0]) for d in (0.2, 0.35)]).astype(np.float32)
    pin = np.asarray(params.table.centre, np.float32)
    shots = Shot(V0=np.array([1.5, 0.4], np.float32), phi=np.array([1.0, -2.0], np.float32))
    res = physics.simulate_batch(pos, shots, 0, params, pin=pin, lanes=2)
    assert res.final_positions.dtype == np.float32
    for k in range(2):
        one = physics.simulate(pos[k], Shot(V0=shots.V0[k], phi=shots.phi[k]), 0, params, pin=pin)
        assert np.array_equal(np.asarray(res.events.kind[k]), np.asarray(one.events.kind))
        assert np.allclose(res.final_positions[k], one.final_positions, atol=1e-5)
        assert int(one.status) == 0
    assert "ball_pin" in [e["kind"] for e in physics.event_list(one)]
