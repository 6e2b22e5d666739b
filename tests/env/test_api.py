"""``api_test(env_id)``, run on every discipline: random episodes under jit, one environment and a
batch (the physics on the lane pool), dtypes and shapes, a finished state stepping to itself,
rewards equal to the referee's points, determinism, batched against single, and the Gymnasium
and Stable-Baselines3 checkers, ``gymnasium.make`` and ``gymnasium.make_vec``."""
from __future__ import annotations

import warnings

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import billiards_env
import rules
from billiards_env import functional
from billiards_env.params import replace
from tests.support.env import BATCH, ENV_IDS, check_state, fenv, index, random_actions, runner, tree_equal



def play(env, params, key, steps, batch=None):
    """Random shots from a new episode: the list of States (the first is the initial one)."""
    run = runner(env, batch)
    k_init, k_play = jax.random.split(key)
    states = [run.reset(k_init, params)]
    for i in range(steps):
        k_act, k_step = jax.random.split(jax.random.fold_in(k_play, i))
        out = run.step(states[-1], random_actions(k_act, batch), k_step, params)
        states.append(out[0] if batch is None else out[1])  # a batch: the state before its autoreset
    return states


def check_game(states, batch=()):
    for before, after in zip(states, states[1:]):
        check_state(after, batch)
        done = np.asarray(before.terminated | before.truncated)
        # the base step: a finished state steps to itself, with zero rewards
        if np.any(done):
            same = jax.tree_util.tree_map(
                lambda a, b, done=done: np.asarray(a == b).reshape(done.shape + (-1,)).all(-1),
                replace(before, rewards=after.rewards), after)
            assert all(np.all(leaf[done]) for leaf in jax.tree_util.tree_leaves(same))
            assert np.all(np.asarray(after.rewards)[done] == 0)
        # rewards are the referee's points of the step (two players, no built-in opponent)
        live = ~done
        assert np.array_equal(np.asarray(after.rewards)[live], np.asarray(after.outcome.points, np.float32)[live])
        steps = np.asarray(after.step_count)
        assert np.all(steps[live] == np.asarray(before.step_count)[live] + 1)


def api_test(env_id: str):
    discipline = billiards_env.discipline_of(env_id)
    key = jax.random.PRNGKey(7)

    # Random episodes ("shot" mode: one shot each), one environment, then a batch.
    env = fenv(discipline)
    params = env.default_params
    single = play(env, params, key, 2)
    check_state(single[0])
    check_game(single)
    assert bool(single[1].terminated) and not bool(single[1].truncated)
    assert tree_equal(single, play(env, params, key, 2))  # same key, same episode

    keys = jax.random.split(key, 8)
    run = runner(env, BATCH)
    states = run.reset(keys[0], params)
    check_state(states, (BATCH,))
    actions = random_actions(keys[1], BATCH)
    following, batched = run.step(states, actions, keys[2], params)
    check_game([states, batched], (BATCH,))
    check_game([batched, run.step(batched, actions, keys[3], params)[1]], (BATCH,))  # all finished
    assert np.all(np.asarray(batched.terminated)) and not np.any(np.asarray(following.terminated))
    step_keys = jax.random.split(jax.random.split(keys[2])[0], BATCH)  # the keys the batch used
    for i in range(2):  # batched as single: the same verdicts, the same layout to rounding
        one, _ = runner(env).step(index(states, i), actions[i], step_keys[i], params)
        assert np.array_equal(np.asarray(one.rewards), np.asarray(batched.rewards[i]))
        assert tree_equal(one.outcome, index(batched.outcome, i))
        np.testing.assert_allclose(np.asarray(one.game.positions), np.asarray(batched.game.positions[i]), atol=1e-9)

    # Gymnasium: the checkers, make and make_vec.
    gym_env = gym.make(env_id, fused=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(gym_env.unwrapped, skip_render_check=True)
    sb3_check_env(gym_env.unwrapped, warn=False)
    obs, info = gym_env.reset(seed=3)
    assert obs.dtype == np.float32 and obs.flags.writeable and obs in gym_env.observation_space
    acting = int(gym_env.unwrapped.state.current_player)
    obs, reward, terminated, truncated, info = gym_env.step(gym_env.action_space.sample())
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert terminated and isinstance(info["call"], str) and info["events"][0]["kind"] == "cue_strike"
    assert reward == info["points"][acting]

    vec = gym.make_vec(env_id, num_envs=BATCH, fused=False, lanes=BATCH)
    assert vec.metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
    obs, _ = vec.reset(seed=1)
    assert obs in vec.observation_space
    acting = np.asarray(vec.unwrapped.state.current_player)
    obs2, reward, terminated, truncated, info = vec.step(vec.action_space.sample())
    assert obs2.shape == (BATCH, billiards_env.observation.OBS_SIZE) and obs2.dtype == np.float32
    assert np.all(terminated) and info["_final_obs"].all() and info["final_obs"].shape == obs2.shape
    assert np.array_equal(reward, info["points"][np.arange(BATCH), acting].astype(float))
    vec.close()


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_api(env_id):
    api_test(env_id)



def test_the_carom_disciplines_share_one_compiled_step():
    """Within a family the disciplines differ in data only: one Config and one params structure, so
    one compiled step (and referee) serves the six carom disciplines; the Hungarian game has its own."""
    carom = [d for d in rules.DISCIPLINES if d != "hungarian_1000"]
    envs = [billiards_env.make_functional(d) for d in carom]
    assert {env.config for env in envs} == {envs[0].config}
    assert {jax.tree_util.tree_structure(env.default_params) for env in envs} == {
        jax.tree_util.tree_structure(envs[0].default_params)}
    assert [env.discipline for env in envs] == carom  # identity stays with the environment
    # the params carry the discipline's words: another discipline's are refused, options may differ
    with pytest.raises(ValueError, match="params carry the rules of straight_rail( / [a-z_0-9]+)*, not three_cushion"):
        billiards_env.FunctionalEnv("three_cushion", params=billiards_env.default_params("straight_rail"))
    with pytest.raises(ValueError, match="params carry the rules of hungarian_1000( / [a-z_0-9]+)*, not one_cushion"):
        billiards_env.FunctionalEnv("one_cushion", params=billiards_env.default_params("hungarian_1000"))
    longer = billiards_env.default_params("three_cushion", rule_options=dict(distance=60))
    assert billiards_env.FunctionalEnv("three_cushion", params=longer).discipline == "three_cushion"
    # params stacked for a sweep (batched leaves) cannot name one row: only the family is checked
    sweep = jax.tree_util.tree_map(lambda *xs: jnp.stack(xs), longer, billiards_env.default_params("straight_rail"))
    assert billiards_env.FunctionalEnv("three_cushion", params=sweep).config == envs[0].config
    hungarian = billiards_env.make_functional("hungarian_1000")
    assert hungarian.config != envs[0].config and hungarian.config.pin and not envs[0].config.pin
    # jit keys on the static Config and on the params' structure: both agree, so the stages that
    # test_api compiled for one carom discipline serve the next
    stages = [functional.make_ops(env.config, batched=True, staged=True) for env in (envs[0], envs[2])]
    assert stages[0].judge is stages[1].judge and stages[0].end is stages[1].end
