"""The gymnax environments (``billiards_env.gymnax_env``): the gymnax-style loop (``jax.vmap`` of
``reset``, ``jax.vmap`` of ``step`` inside ``lax.scan``, through gymnax's own ``LogWrapper``) for
every discipline, its rewards the official points of the functional environment stepped on the
same keys, gymnax's automatic reset, the spaces, and ``make_gymnax``'s names.

Compile time: the loop is one program per discipline on batches of ``N`` environments, and its
reference another (shared with the parameter sweep of tests/env/test_behaviour.py), each half a
minute or more on a 2-core CPU when the compilation cache is cold; three-cushion runs in the
quick suite, the other six disciplines (the Hungarian game's pin among them) are marked slow.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import billiards_env
from billiards_env import actions, observation
from billiards_env.modes import shooter_reward
from rules import disciplines
from tests.support.env import autoreset_step, stacked

try:
    import gymnax
    from gymnax.wrappers.purerl import LogWrapper
except ImportError as error:  # the optional jax extra (gymnax 1.0 also imports six, undeclared)
    pytest.skip(f"gymnax is not importable ({error}): pip install -e '.[jax]'", allow_module_level=True)

N = 4  # environments
STEPS = 3
QUICK = ("three_cushion",)


def loop(env):
    """The compiled gymnax-style loop; it returns, per step, what its reference needs: the states
    it stepped from, the actions and the environments' keys."""
    logged = LogWrapper(env)

    @jax.jit
    def run(key, params):
        k_reset, k_steps = jax.random.split(key)
        obs, state = jax.vmap(logged.reset, in_axes=(0, None))(jax.random.split(k_reset, N), params)

        def body(carry, k):
            obs, state = carry
            k_act, k_env = jax.random.split(k)
            action = jax.random.uniform(k_act, (N, actions.N_ACTIONS), jnp.float32, minval=-1.0, maxval=1.0)
            env_keys = jax.random.split(k_env, N)
            obs2, state2, reward, terminated, truncated, info = jax.vmap(
                logged.step, in_axes=(0, 0, 0, None))(env_keys, state, action, params)
            out = dict(obs=obs, reward=reward, terminated=terminated, truncated=truncated,
                       final_obs=info["final_observation"], episode_return=info["returned_episode_returns"],
                       points=info["points"], shooter=state.env_state.current_player, next_obs=obs2,
                       next_step_count=state2.env_state.step_count, before=state.env_state, action=action,
                       env_keys=env_keys)
            return (obs2, state2), out

        _, out = jax.lax.scan(body, (obs, state), jax.random.split(k_steps, STEPS))
        return out

    return run


def reference(discipline, mode, out, params):
    """The functional environment's automatic-reset step on the loop's states, actions and keys
    (gymnax's step hands step_env and reset_env the two halves of its key, as step_autoreset
    does), compiled apart from the loop (tests/test_env_support.autoreset_step)."""
    step = autoreset_step(discipline, mode)
    rows = []
    for t in range(STEPS):
        before = jax.tree_util.tree_map(lambda x, t=t: x[t], out["before"])
        following, stepped = step(before, out["action"][t], out["env_keys"][t], stacked(params, N))
        rows.append(dict(reward=shooter_reward(before, stepped), obs=stepped.observation, done=stepped.done,
                         next_obs=following.observation))
    return {name: np.stack([np.asarray(r[name]) for r in rows]) for name in rows[0]}


def check_discipline(discipline, mode="shot"):
    env, params = billiards_env.make_gymnax(discipline, mode)
    out = loop(env)(jax.random.PRNGKey(7), params)
    ref = reference(discipline, mode, out, params)
    out = jax.device_get({k: v for k, v in out.items() if k != "before"})
    # the rewards are the functional env's on the same keys, and the shooter's official points
    np.testing.assert_array_equal(out["reward"], ref["reward"])
    shooter_points = np.take_along_axis(out["points"], out["shooter"][..., None], -1)[..., 0]
    np.testing.assert_array_equal(out["reward"], shooter_points)
    np.testing.assert_array_equal(out["terminated"] | out["truncated"], ref["done"])
    np.testing.assert_array_equal(out["final_obs"], ref["obs"])
    np.testing.assert_array_equal(out["next_obs"], ref["next_obs"])
    # auto-reset: a finished episode restarts (step count 0), and the log returns its points
    done = out["terminated"] | out["truncated"]
    assert np.all(out["next_step_count"][done] == 0)
    np.testing.assert_array_equal(out["episode_return"][done], out["reward"][done])
    # every observation lies in the space
    space = env.observation_space(params)
    assert np.all((out["obs"] >= np.asarray(space.low)) & (out["obs"] <= np.asarray(space.high)))
    return out


@pytest.mark.slow  # end to end: a compiled loop of the gymnax step (the other disciplines' loops too)
def test_three_cushion_shot_loop_matches_the_functional_env():
    out = check_discipline("three_cushion")
    assert out["terminated"].all()  # "shot" mode: every step ends its episode
    assert np.isin(out["reward"], [0.0, 1.0]).all()


@pytest.mark.slow
@pytest.mark.parametrize("discipline", [d for d in disciplines.DISCIPLINES if d not in QUICK])
def test_other_disciplines_shot_loop_matches_the_functional_env(discipline):
    out = check_discipline(discipline)
    assert out["terminated"].all()


def test_make_gymnax_takes_discipline_and_gym_ids_and_names_the_valid_ones():
    env, params = billiards_env.make_gymnax("billiards_env/Hungarian1000-v0", mode="inning")
    assert isinstance(env, gymnax.environments.environment.Environment)
    assert env.functional.discipline == "hungarian_1000" and env.functional.mode == "inning"
    assert params.rules.is_hungarian and int(params.rules.distance) == 1000
    assert env.name == "Hungarian1000-inning" and env.num_actions == 9
    with pytest.raises(ValueError, match="unknown environment 'snooker'; valid ids: billiards_env/ThreeCushion-v0"):
        billiards_env.make_gymnax("snooker")
    with pytest.raises(ValueError, match="unknown mode 'match'"):
        billiards_env.make_gymnax("three_cushion", mode="match")


def test_spaces_are_the_action_box_and_the_flat_observation():
    env, params = billiards_env.make_gymnax("one_cushion")
    a, o = env.action_space(params), env.observation_space(params)
    assert isinstance(a, gymnax.environments.spaces.Box) and a.shape == (9,)
    assert (float(a.low), float(a.high)) == (-1.0, 1.0)
    assert o.shape == (observation.OBS_SIZE,)
    np.testing.assert_array_equal(np.asarray(o.high), observation.flat_space().high)
    sample = a.sample(jax.random.PRNGKey(0))
    assert sample.shape == (9,) and bool(a.contains(sample)) and not bool(a.contains(jnp.full(9, 2.0)))
