"""Bad input: a clear error outside ``jit`` (ValueError or TypeError naming the argument and what is
allowed), a status flag inside it (on the offending lane only, the state never corrupted).

Uses the compiled shapes of the other tests (three balls, the default capacity); the one new
compilation is the jit+vmap of ``physics.simulate`` below.
"""
from __future__ import annotations

import itertools
import math

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import billiards_env
import physics
from billiards_env import actions
from billiards_env import params as env_params
from physics import Shot, Status
from physics import params as phys_params
from physics._pytree import replace as unchecked_replace
from physics import cores
from physics.simulate import padded_batch
from physics.strike import shot_is_valid
from tests.support.env import fenv, runner

POS = np.array([[0.7, 0.5], [0.7, 0.9], [2.1, 0.7]])
KEY = jax.random.PRNGKey(5)


# -- physical parameters ---------------------------------------------------------------------------


def test_every_physical_parameter_has_an_allowed_range(params):
    ranged = {path for path, _, _ in phys_params._leaves(params, "")}
    leaves = {jax.tree_util.keystr(p).lstrip(".") for p, _ in jax.tree_util.tree_leaves_with_path(params)}
    assert ranged == leaves


@pytest.mark.parametrize("override, message", [
    (dict(u_sp_proportionality=0), "params.ball.u_sp_proportionality must be in (0, inf), got 0.0"),
    (dict(end_mass_ratio=-3.5), "params.cue.end_mass_ratio must be in [0, inf), got -3.5"),
    (dict(tip_restitution=5), "params.cue.tip_restitution must be in [0, 1], got 5.0"),
    (dict(tip_restitution=-1), "params.cue.tip_restitution must be in [0, 1], got -1.0"),
    (dict(throw_a=-0.01), "params.ball.throw_a must be in [0, inf), got -0.01"),
    (dict(tip_radius=-0.01), "params.cue.tip_radius must be in (0, inf), got -0.01"),
    (dict(max_speed=-1), "params.cue.max_speed must be in (0, inf), got -1.0"),
    (dict(e_c=math.inf), "params.cushion.e_c must be in [0, 1], got inf"),
    (dict(g=math.nan), "params.g must be in (0, inf), got nan"),
    (dict(height=0.07), "params.cushion.height must be in [ball.radius, 2 ball.radius), got 0.07"),
])
def test_meaningless_physical_parameters_raise_naming_the_leaf_and_its_range(override, message):
    with pytest.raises(ValueError) as err:
        physics.default_params(**override)
    assert str(err.value) == message


def test_capacity_and_parameter_types_are_checked():
    with pytest.raises(TypeError, match="params.capacity must be an integer"):
        physics.default_params(capacity=2.7)
    with pytest.raises(ValueError, match="params.capacity must be at least 2 events, got 1"):
        physics.default_params(capacity=1)
    with pytest.raises(TypeError, match="parameter e_c must be a real number, got 'soft'"):
        physics.default_params(e_c="soft")
    with pytest.raises(TypeError, match="parameter u_s must be a real number"):
        physics.default_params(u_s=0.2 + 0.1j)


def test_replace_checks_concrete_parameters(params):
    with pytest.raises(ValueError, match=r"params.ball.u_s must be in \(0, inf\), got 0.0"):
        phys_params.replace(params.ball, u_s=jnp.asarray(0.0))
    with pytest.raises(TypeError, match="params.capacity"):
        phys_params.replace(params, capacity=2.7)
    ball = phys_params.replace(params.ball, u_s=jnp.asarray(0.3))
    assert float(phys_params.replace(params, ball=ball).ball.u_s) == 0.3


def test_simulate_refuses_invalid_concrete_parameters(params):
    bad = unchecked_replace(params, cue=unchecked_replace(params.cue, end_mass_ratio=jnp.asarray(-3.5)))
    with pytest.raises(ValueError, match=r"params.cue.end_mass_ratio must be in \[0, inf\)"):
        physics.simulate(POS, Shot(2.0, 0.0), 0, bad)
    with pytest.raises(ValueError, match="end_mass_ratio"):
        physics.simulate_batch(POS[None], Shot(2.0, 0.0), 0, bad)


def test_params_are_valid_is_traceable(params):
    valid = jax.jit(lambda u: phys_params.params_are_valid(
        unchecked_replace(params, ball=unchecked_replace(params.ball, u_sp_proportionality=u))))
    assert bool(valid(0.444)) and not bool(valid(0.0)) and not bool(valid(jnp.nan))


def test_under_jit_and_vmap_only_the_bad_lanes_are_flagged(params):
    """Lane 2 has a NaN cue speed, lane 5 a spin friction of 0: each gets its flag, nothing moves
    there, and every other lane equals the same shot simulated alone."""
    B = 8
    V0 = np.linspace(1.0, 4.0, B)
    V0[2] = np.nan
    phi = np.linspace(0.0, 300.0, B)
    u_sp = np.full(B, float(params.ball.u_sp_proportionality))  # the fixture's own value, but lane 5
    u_sp[5] = 0.0

    def one(v, p, u):
        lane = unchecked_replace(params, ball=unchecked_replace(params.ball, u_sp_proportionality=u))
        return physics.simulate(POS, Shot(v, p), 0, lane)

    res = jax.jit(jax.vmap(one))(V0, phi, u_sp)
    status = np.asarray(res.status)
    assert status[2] == Status.INVALID_SHOT and status[5] == Status.INVALID_PARAMS
    for k in (2, 5):
        np.testing.assert_array_equal(res.final_positions[k], POS)
        assert float(res.final_time[k]) == 0.0 and int(res.num_events[k]) == 1
    for k in set(range(B)) - {2, 5}:
        alone = physics.simulate(POS, Shot(V0[k], phi[k]), 0, params)
        assert status[k] == 0
        n = int(alone.num_events)
        assert int(res.num_events[k]) == n
        np.testing.assert_array_equal(np.asarray(res.events.kind[k]), np.asarray(alone.events.kind))
        np.testing.assert_allclose(res.final_positions[k], alone.final_positions, rtol=1e-12, atol=1e-12)


# -- the shot and its limits -----------------------------------------------------------------------


def test_shot_checks_only_what_holds_whatever_the_parameters(params):
    assert float(Shot(V0=15.0, phi=0.0).V0) == 15.0  # above the default max_speed: the params decide
    fast = physics.simulate(POS, Shot(V0=15.0, phi=0.0), 0, physics.default_params(max_speed=20))
    assert int(fast.status) == 0 and int(fast.num_events) > 1
    with pytest.raises(ValueError, match=r"V0 must be in \[0, 10\] m/s \(params.cue.max_speed\)"):
        physics.simulate(POS, Shot(V0=15.0, phi=0.0), 0, params)
    with pytest.raises(ValueError, match=r"V0 must be in \[0, 5\] m/s"):
        physics.simulate(POS, Shot(V0=8.0, phi=0.0), 0, physics.default_params(max_speed=5))
    with pytest.raises(ValueError, match=r"at most 0.6 R \(params.cue.max_offset"):
        physics.simulate(POS, Shot(V0=1.0, phi=0.0, a=0.5, b=0.5), 0, params)
    with pytest.raises(ValueError, match=r"V0 must be in \[0, 10\]"):
        physics.simulate_batch(POS[None], Shot(V0=np.array([10.5]), phi=0.0), 0, params)


def test_a_limit_rounded_to_the_values_dtype_is_allowed(params):
    at_limit = np.float32(0.6)  # 0.6000000238...: above 0.6, but 0.6 in float32
    above = np.nextafter(at_limit, np.float32(1.0))
    check = jax.jit(lambda a: shot_is_valid(Shot(np.float32(2.0), np.float32(0.0), a=a), params))
    assert bool(check(at_limit)) and not bool(check(above))
    assert not bool(check(np.float32(0.6) * np.float32(1.01)))
    assert int(physics.simulate(POS, Shot(V0=2.0, phi=0.0, a=at_limit), 0, params).status) == 0
    with pytest.raises(ValueError, match="miscue"):
        physics.simulate(POS, Shot(V0=2.0, phi=0.0, a=above), 0, params)
    with pytest.raises(ValueError, match="miscue"):
        physics.simulate(POS, Shot(V0=2.0, phi=0.0, a=0.6 + 1e-9), 0, params)
    diagonal = np.float32(0.6 / math.sqrt(2))  # a = b on the limit's circle, rounded to float32
    on_circle = jax.jit(lambda a: shot_is_valid(Shot(np.float32(2.0), np.float32(0.0), a=a, b=a), params))
    assert bool(on_circle(diagonal)) and not bool(on_circle(diagonal * np.float32(1.0001)))
    speed = jax.jit(lambda v: shot_is_valid(Shot(v, np.float32(0.0)), physics.default_params(max_speed=9.1)))
    assert bool(speed(np.float32(9.1))) and not bool(speed(np.nextafter(np.float32(9.1), np.float32(10))))


def _edges(dtype, limit_speed=10.0, limit_offset=0.6):
    """Values of each checked field on both sides of its limits, in ``dtype``."""
    up = lambda x: np.nextafter(dtype(x), dtype(np.inf))  # noqa: E731
    slack = 1 + float(np.finfo(dtype).eps)
    speed_edge = dtype(limit_speed * slack)
    diagonal = dtype(limit_offset * slack / math.sqrt(2))
    return dict(
        V0=[dtype(2), dtype(0), -dtype(0), dtype(-1e-30), speed_edge, up(speed_edge), dtype(np.inf), dtype(np.nan)],
        theta=[dtype(0), up(-1e-30), dtype(89.99), dtype(90), np.nextafter(dtype(90), dtype(0)), dtype(np.nan)],
        phi=[dtype(-180), dtype(-np.inf)],
        ab=[(dtype(0), dtype(0)), (diagonal, diagonal), (up(diagonal), up(diagonal)), (dtype(limit_offset), dtype(0)),
            (up(dtype(limit_offset * slack)), dtype(0)), (dtype(np.nan), dtype(0))],
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("size", [None, 1, 3])
def test_the_one_pass_shot_check_agrees_with_the_checks_one_by_one_at_every_edge(dtype, size):
    """``check_shot`` lets a shot through on one pass (Python numbers for a single float64 shot,
    NumPy for the rest); the checks one by one decide alone otherwise: both must agree on each
    side of every limit."""
    from physics.strike import _all_within, _name_the_failure

    edges = _edges(dtype)
    ordinary = dict(V0=dtype(0.5), phi=dtype(0), theta=dtype(0), a=dtype(0), b=dtype(0))
    cases = 0
    for V0, theta, phi, (a, b) in itertools.product(edges["V0"], edges["theta"], edges["phi"], edges["ab"]):
        edge = dict(V0=V0, phi=phi, theta=theta, a=a, b=b)
        if size is None:
            values = {k: np.asarray(v) for k, v in edge.items()}
        else:  # in a batch the edge value sits beside ordinary ones
            values = {k: np.append(np.full(size - 1, ordinary[k]), v).astype(dtype) for k, v in edge.items()}
        passes = _all_within(values, np.asarray(10.0), np.asarray(0.6))
        try:
            _name_the_failure(values, values, np.asarray(10.0), np.asarray(0.6))
            valid = True
        except ValueError:
            valid = False
        assert passes == valid, edge
        cases += 1
    assert cases == 8 * 6 * 2 * 6


@pytest.mark.parametrize("value", [[1.0, 2.0], "2.0", 2.0 + 1j, np.array([2.0 + 0j])])
def test_shot_fields_that_are_not_real_numbers_raise_type_error(value):
    with pytest.raises(TypeError, match="Shot.V0 must be a real number or array"):
        Shot(V0=value, phi=0.0)


def test_simulate_refuses_shot_fields_it_cannot_use(params):
    with pytest.raises(TypeError, match=r"Shot.V0 must be a real number or array \(int or float\), got None"):
        physics.simulate(POS, Shot(V0=None, phi=0.0), 0, params)  # None passes Shot(): JAX uses it in in_axes
    with pytest.raises(TypeError, match="Shot.theta must be a real number"):
        physics.simulate(POS, Shot(V0=1.0, phi=0.0, theta=np.array([True])), 0, params)
    with pytest.raises(ValueError, match=r"Shot.V0 must have shape \(\), got \(3,\)"):
        physics.simulate(POS, Shot(V0=np.ones(3), phi=0.0), 0, params)
    with pytest.raises(TypeError, match="shot must be a physics.Shot"):
        physics.simulate(POS, (1.0, 0.0), 0, params)
    with pytest.raises(TypeError, match="positions must be real numbers"):
        physics.simulate(POS + 0j, Shot(1.0, 0.0), 0, params)


@pytest.mark.parametrize("cue_ball", [1.5, True, np.float64(1.0), np.array(1.0)])
def test_cue_ball_must_be_an_integer_index(params, cue_ball):
    with pytest.raises(TypeError, match=r"cue_ball must be an integer ball index in \[0, 2\]"):
        physics.simulate(POS, Shot(1.0, 0.0), cue_ball, params)


def test_cue_ball_out_of_range_or_of_the_wrong_shape_raises(params):
    with pytest.raises(ValueError, match=r"in \[0, 2\], got \[3\]|in \[0, 2\], got 3"):
        physics.simulate(POS, Shot(1.0, 0.0), 3, params)
    with pytest.raises(ValueError, match=r"got shape \(2,\)"):
        physics.simulate(POS, Shot(1.0, 0.0), np.array([0, 1]), params)
    with pytest.raises(ValueError, match=r"got \[0, -1\]"):
        physics.simulate_batch(np.stack([POS, POS]), Shot(1.0, 0.0), np.array([0, -1]), params)


@pytest.mark.parametrize("kwargs, message", [
    (dict(shot=Shot(V0=np.ones(3), phi=0.0)), r"Shot.V0 must have shape \(\) or \(2,\), got \(3,\)"),
    (dict(shot=Shot(V0=1.0, phi=np.zeros(1))), r"Shot.phi must have shape \(\) or \(2,\), got \(1,\)"),
    (dict(cue_ball=np.zeros(3, int)), r"cue_ball must be an integer .* or \(2,\) of them, got shape \(3,\)"),
    (dict(pin=np.zeros((3, 2))), r"pin must be None .* \(2,\) or \(2, 2\), got \(3, 2\)"),
    (dict(positions=np.zeros((0, 3, 2))), r"batch size >= 1"),
    (dict(batched_params=True), r"params.ball.mass must have the leading batch axis of positions \(2,\)"),
])
def test_simulate_batch_names_the_argument_whose_batch_size_differs(params, kwargs, message):
    args = dict(positions=np.stack([POS, POS]), shot=Shot(V0=np.ones(2), phi=0.0), cue_ball=0, pin=None)
    args.update(kwargs)
    batched = args.pop("batched_params", False)
    with pytest.raises(ValueError, match=message):
        physics.simulate_batch(args["positions"], args["shot"], args["cue_ball"], params, args["pin"],
                               batched_params=batched)


# -- environment parameters ------------------------------------------------------------------------


@pytest.mark.parametrize("values, error, message", [
    (dict(reward_scale=math.inf), ValueError, "params.reward_scale must be a real number in (0, inf), got inf"),
    (dict(reward_scale=math.nan), ValueError, "params.reward_scale must be a real number in (0, inf), got nan"),
    (dict(noise=-0.5), ValueError, "params.noise must be a real number in [0, inf), got -0.5"),
    (dict(theta_max=0.0), ValueError, "params.theta_max must be a real number in (0, 90), got 0.0"),
    (dict(offset_max=0.0), ValueError, "params.offset_max must be a real number in (0, 1), got 0.0"),
    (dict(start_probability=1.5), ValueError, "params.start_probability must be a real number in [0, 1], got 1.5"),
    (dict(layout_player=2), ValueError, "params.layout_player must be an integer in [0, 1], got 2"),
    (dict(max_steps=0), ValueError, "params.max_steps must be an integer in [1, inf), got 0"),
    (dict(max_steps=math.inf), TypeError, "params.max_steps must be an integer in [1, inf), got inf"),
    (dict(zero_sum=2), TypeError, "params.zero_sum must be True or False, got 2"),
    (dict(noise="none"), TypeError, "params.noise must be a real number in [0, inf), got 'none'"),
    (dict(v_min=9.0), ValueError, "params.v_min must be below v_max, got 9.0"),
])
def test_environment_parameters_raise_naming_the_allowed_values(values, error, message):
    with pytest.raises(error) as err:
        billiards_env.default_params("three_cushion", **values)
    assert str(err.value) == message


def test_environment_replace_checks_concrete_parameters():
    p = billiards_env.default_params("three_cushion")
    with pytest.raises(ValueError, match=r"params.reward_scale must be a real number in \(0, inf\), got inf"):
        env_params.replace(p, reward_scale=jnp.asarray(math.inf))
    with pytest.raises(ValueError, match="params.cushion.e_c"):
        env_params.replace(p, physics=unchecked_replace(p.physics, cushion=unchecked_replace(
            p.physics.cushion, e_c=jnp.asarray(1.2))))
    assert float(env_params.replace(p, reward_scale=jnp.asarray(2.0)).reward_scale) == 2.0


@pytest.mark.parametrize("bad", ["reward_scale", "e_c"])
def test_invalid_traced_environment_parameters_void_the_shot(bad):
    """The staged stages take params as traced arguments: nothing can raise there, so nothing is
    struck, the referee voids the shot (reason INVALID_SHOT; the game unchanged but for the shot
    counter) and the rewards are 0. Invalid physics also flag the physics' own result."""
    env = fenv("three_cushion")
    run = runner(env)
    p = env.default_params
    if bad == "reward_scale":
        broken = unchecked_replace(p, reward_scale=jnp.asarray(math.inf, p.reward_scale.dtype))
    else:
        broken = unchecked_replace(p, physics=unchecked_replace(p.physics, cushion=unchecked_replace(
            p.physics.cushion, e_c=jnp.asarray(math.nan))))
    s = run.reset(KEY, p)
    action = np.array([0.1, 0.5, -1, 0, 0, 0, 0, 0, 0], np.float32)
    after, result = run.step(s, action, KEY, broken)
    assert int(result.status) == (Status.INVALID_PARAMS if bad == "e_c" else 0)
    assert int(result.num_events) == 1  # the strike only: nothing moved
    assert int(after.outcome.reason) == billiards_env.functional.rules.Reason.INVALID_SHOT
    np.testing.assert_array_equal(np.asarray(after.rewards), [0.0, 0.0])
    np.testing.assert_array_equal(np.asarray(after.game.positions), np.asarray(s.game.positions))
    np.testing.assert_array_equal(np.asarray(after.game.scores), np.asarray(s.game.scores))
    with pytest.raises(ValueError, match=bad):
        env.step(s, action, KEY, broken)  # concrete params: the functional step raises


# -- actions and the adapters ----------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(8,), (10,), (3,), (1, 9)])
def test_functional_step_refuses_other_action_shapes_at_trace_time(shape):
    env = fenv("three_cushion")
    s = env.init(KEY)
    with pytest.raises(ValueError, match=r"action must have shape \(9,\)"):
        jax.jit(env.step)(s, np.zeros(shape, np.float32), KEY)


def test_batched_step_names_the_batch_shape():
    env = fenv("three_cushion")
    states = env.init_batch(jax.random.split(KEY, 2))
    with pytest.raises(ValueError, match=r"action must have shape \(2, 9\)"):
        env.step_batch(states, np.zeros((2, 8), np.float32), jax.random.split(KEY, 2))


def test_complex_actions_raise_type_error():
    with pytest.raises(TypeError, match="action must be real numbers"):
        actions.check_action(np.full(9, 0.5 + 0.5j))
    with pytest.raises(TypeError, match="action must be real numbers"):
        actions.sanitize(jnp.zeros(9, jnp.complex64))
    env = gym.make("billiards_env/ThreeCushion-v0", fused=False)
    env.reset(seed=0)
    with pytest.raises(TypeError, match="action must be real numbers"):
        env.step(np.full(9, 0.1 + 0j))


def test_gymnasium_step_raises_outside_the_box_instead_of_clipping():
    env = gym.make("billiards_env/ThreeCushion-v0", fused=False)
    env.reset(seed=0)
    for bad in (np.full(9, np.nan, np.float32), np.full(9, 1.0001, np.float32)):
        with pytest.raises(ValueError, match=r"\[-1.0, 1.0\]"):
            env.step(bad)
    assert "raises ValueError" in type(env.unwrapped).step.__doc__


def test_sb3_vec_env_refuses_no_envs_and_steps_without_episodes():
    from billiards_env.sb3 import BilliardsVecEnv

    for n in (0, -2, 2.5):
        with pytest.raises(ValueError, match="num_envs must be a positive integer"):
            BilliardsVecEnv("three_cushion", num_envs=n)
    venv = BilliardsVecEnv("three_cushion", num_envs=2, fused=False)
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        venv.step(np.zeros((2, 9), np.float32))
    venv.close()
    with pytest.raises(RuntimeError, match=r"call reset\(\) before step\(\)"):
        venv.step(np.zeros((2, 9), np.float32))


def test_pettingzoo_follows_its_own_errors_before_reset_and_names_the_agents():
    from billiards_env.pettingzoo_env import BilliardsAECEnv

    env = BilliardsAECEnv("three_cushion", fused=False)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(np.zeros(9, np.float32))
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before observe"):
        env.observe("player_0")
    with pytest.raises(ValueError, match="unknown agent 'player_7'; valid: player_0, player_1"):
        env.observe("player_7")


def test_unknown_discipline_names_list_the_valid_ones():
    with pytest.raises(ValueError, match="three_cushion"):
        billiards_env.default_params("snooker")
    with pytest.raises(gym.error.Error):
        gym.make("billiards_env/Snooker-v0")


# -- one compiled program for numbers of any kind ------------------------------------------------------


def test_python_numbers_and_arrays_share_one_compiled_simulation(params, caplog):
    # Counted as compilations of the simulation (JAX's compile log), not as entries of the jit's
    # dispatch cache: host data and JAX arrays take separate entries of one compiled program.
    as_numbers = physics.simulate(POS.tolist(), Shot(V0=2.0, phi=10.0), 0, params)
    with jax.log_compiles(), caplog.at_level("WARNING"):
        as_arrays = physics.simulate(jnp.asarray(POS), Shot(V0=jnp.asarray(2.0), phi=np.float64(10.0)), np.int64(0),
                                     params)
        weak_params = unchecked_replace(params, g=jnp.asarray(9.81))  # jnp.asarray(float) is weakly typed
        physics.simulate(POS, Shot(V0=2.0, phi=10.0), 0, weak_params)
    compiled = [r.getMessage() for r in caplog.records if "Compiling jit(_simulate)" in r.getMessage()]
    assert compiled == []  # no new trace: each weak type used to compile its own program
    assert np.array_equal(np.asarray(as_numbers.final_positions), np.asarray(as_arrays.final_positions))


def test_a_shot_of_device_arrays_is_checked_where_it_is_simulated(params):
    shot = Shot(V0=jnp.asarray(-1.0), phi=jnp.asarray(0.0))  # not read back when built
    with pytest.raises(ValueError, match=r"V0 must be in \[0, inf\)"):
        physics.simulate(POS, shot, 0, params)
    with pytest.raises(ValueError, match="V0 must be in"):  # host numbers: when built
        Shot(V0=np.float64(-1.0), phi=0.0)


def test_a_parameter_set_is_checked_once_while_it_lives_unless_it_can_change(params):
    """A set of JAX arrays cannot change, so the simulation checks and casts it once; a set that
    holds a NumPy array is checked on every call, and a value changed in place is still refused."""
    import importlib

    checked = importlib.import_module("physics.simulate")._CHECKED
    physics.simulate(POS, Shot(V0=2.0, phi=0.0), 0, params)
    assert checked[id(params)][0]() is params
    g = np.array(9.81)
    mutable = unchecked_replace(params, g=g)
    physics.simulate(POS, Shot(V0=2.0, phi=0.0), 0, mutable)
    # not recorded as checked (an entry under its id may be a dead set's whose id was reused)
    assert checked.get(id(mutable), (lambda: None,))[0]() is not mutable
    g[...] = -1.0
    with pytest.raises(ValueError, match=r"params\.g must be"):
        physics.simulate(POS, Shot(V0=2.0, phi=0.0), 0, mutable)
    with pytest.raises(ValueError, match=r"params\.g must be"):
        physics.simulate(POS, Shot(V0=2.0, phi=0.0), 0, unchecked_replace(params, g=jnp.asarray(-1.0)))


@pytest.mark.parametrize("batch, lanes, size", [(1, 128, 1), (3, 128, 4), (48, 128, 64), (128, 128, 128),
                                                (129, 128, 256), (5, 2, 6), (3, 3, 3)])
def test_a_batch_is_compiled_padded_to_a_few_sizes(batch, lanes, size):
    assert padded_batch(batch, lanes) == size


@pytest.mark.parametrize("pin", [None, pytest.param("centre", marks=pytest.mark.slow)])  # slow: the time budget
def test_a_batch_of_one_gives_what_the_shot_gives_alone(params, pin):
    # A batch of one runs the shot's own loop rather than the lane pool; its result keeps the batch axis.
    pin = None if pin is None else np.asarray(params.table.centre)
    pos = np.array([[0.7, 0.5], [0.7, 0.9], [2.1, 0.3]])
    for V0, phi, a in ((3.0, 40.0, 0.3), (0.0, 0.0, 0.0)):
        batch = physics.simulate_batch(pos[None], Shot(V0=np.array([V0]), phi=phi, a=a), 0, params, pin)
        one = physics.simulate(pos, Shot(V0=V0, phi=phi, a=a), 0, params, pin)
        for got, want in zip(jax.tree_util.tree_leaves(batch), jax.tree_util.tree_leaves(one)):
            assert np.shape(got) == (1,) + np.shape(want)
            np.testing.assert_allclose(np.asarray(got)[0], np.asarray(want), rtol=0, atol=1e-12)
    assert int(batch.num_events[0]) == 1 and int(one.num_events) == 1  # the null shot: the strike alone


def test_a_padded_batch_gives_each_shot_what_it_gives_alone(params):
    rng = np.random.default_rng(3)
    n = 37  # padded with null shots to 64, the batch other tests compile the pool for
    shots = Shot(V0=rng.uniform(1, 5, n), phi=rng.uniform(-180, 180, n))
    pos = np.broadcast_to(POS, (n, 3, 2))
    batch = physics.simulate_batch(pos, shots, 0, params)
    assert np.shape(batch.final_positions) == (n, 3, 2) and np.shape(batch.events.kind)[0] == n
    for k in range(n):
        one = physics.simulate(POS, Shot(V0=shots.V0[k], phi=shots.phi[k]), 0, params)
        assert np.array_equal(np.asarray(batch.events.kind[k]), np.asarray(one.events.kind))
        # as every batch against single shots: the same events, the last bit apart at most
        np.testing.assert_allclose(np.asarray(batch.final_positions[k]), np.asarray(one.final_positions),
                                   rtol=0, atol=1e-12)


@pytest.mark.parametrize("batch, lanes, threads, block", [(8192, 128, 2, 4096), (300, 128, 2, 256), (300, 128, 3, 128),
                                                          (300, 128, 16, 128), (256, 128, 2, 128), (128, 128, 2, None),
                                                          (100, 128, 2, None), (8192, 128, 1, None)])
def test_a_batch_on_a_cpu_is_cut_into_blocks_of_whole_lanes(batch, lanes, threads, block):
    assert cores.block_size(batch, lanes, threads) == (block if jax.default_backend() == "cpu" else None)


@pytest.mark.parametrize("pin", [None, pytest.param("centre", marks=pytest.mark.slow)])  # slow: the time budget
def test_a_batch_played_on_threads_is_the_one_call_bit_for_bit(params, pin):
    # 37 shots on lanes of 8: one call pads them to 40, two threads play two blocks of 24 (11 null
    # shots), three threads three blocks of 16.
    rng = np.random.default_rng(11)
    n = 37
    pin = None if pin is None else np.asarray(params.table.centre) + np.array([0.3, 0.0])
    shots = Shot(V0=rng.uniform(0.5, 6, n), phi=rng.uniform(-180, 180, n), a=rng.uniform(-0.4, 0.4, n))
    pos = np.broadcast_to(POS, (n, 3, 2))
    one = physics.simulate_batch(pos, shots, 0, params, pin, lanes=8, threads=1)
    for threads in (2, 3):
        split = physics.simulate_batch(pos, shots, 0, params, pin, lanes=8, threads=threads)
        for got, want in zip(jax.tree_util.tree_leaves(split), jax.tree_util.tree_leaves(one)):
            assert isinstance(got, jax.Array) and got.shape == want.shape and got.dtype == want.dtype
            assert np.array_equal(np.asarray(got), np.asarray(want), equal_nan=True)
    assert np.unique(np.asarray(one.num_events)).size > 3  # shots of many lengths, so lanes change shots


def test_a_batch_inside_jit_is_one_program(params):
    shots = Shot(V0=np.linspace(1.0, 4.0, 20), phi=np.linspace(0.0, 90.0, 20))
    pos = np.broadcast_to(POS, (20, 3, 2))
    inside = jax.jit(lambda p: physics.simulate_batch(p, shots, 0, params, lanes=8))(pos)
    want = physics.simulate_batch(pos, shots, 0, params, lanes=8, threads=2)
    assert np.array_equal(np.asarray(inside.events.kind), np.asarray(want.events.kind))
    # compiled with its caller, the last bit apart at most
    np.testing.assert_allclose(np.asarray(inside.final_positions), np.asarray(want.final_positions), rtol=0, atol=1e-12)


@pytest.mark.parametrize("threads", [0, -2, 1.5, True, "2"])
def test_threads_other_than_a_positive_int_are_refused(params, threads):
    with pytest.raises(ValueError, match="threads must be None .* or an int >= 1"):
        physics.simulate_batch(np.broadcast_to(POS, (2, 3, 2)), Shot(V0=np.ones(2), phi=np.zeros(2)), 0, params,
                               threads=threads)


@pytest.mark.slow  # the quick tier's time budget: a batch on threads is checked there
def test_a_parameter_sweep_played_on_threads_is_the_one_call_bit_for_bit():
    # batched_params: a vmap of the shot's loop, each row its own parameters; 5 rows on two threads
    # are two blocks of 3 (one null row).
    n = 5
    rng = np.random.default_rng(12)
    sets = [physics.default_params(u_r=u_r) for u_r in np.linspace(0.005, 0.02, n)]
    swept = jax.tree_util.tree_map(lambda *x: jnp.stack(x), *sets)
    shots = Shot(V0=rng.uniform(1, 5, n), phi=rng.uniform(-180, 180, n))
    pos = np.broadcast_to(POS, (n, 3, 2))
    one = physics.simulate_batch(pos, shots, 0, swept, batched_params=True, threads=1)
    split = physics.simulate_batch(pos, shots, 0, swept, batched_params=True, threads=2)
    for got, want in zip(jax.tree_util.tree_leaves(split), jax.tree_util.tree_leaves(one)):
        assert got.shape == want.shape and np.array_equal(np.asarray(got), np.asarray(want), equal_nan=True)
    assert np.unique(np.asarray(one.final_time)).size == n


@pytest.mark.parametrize("files, quota", [({"cpu.max": "max 100000\n"}, None), ({"cpu.max": "150000 100000\n"}, 1.5),
                                          ({"cpu/cpu.cfs_quota_us": "-1", "cpu/cpu.cfs_period_us": "100000"}, None),
                                          ({"cpu/cpu.cfs_quota_us": "200000", "cpu/cpu.cfs_period_us": "100000"}, 2.0),
                                          ({}, None)])
def test_a_containers_cpu_quota_caps_the_threads(tmp_path, monkeypatch, files, quota):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert cores.cpu_quota(str(tmp_path)) == quota
    monkeypatch.setattr(cores, "cpu_quota", lambda: quota)
    monkeypatch.setattr(cores.os, "sched_getaffinity", lambda pid: set(range(8)), raising=False)
    assert cores.cpu_cores() == (8 if quota is None else math.ceil(quota))
