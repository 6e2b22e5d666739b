"""Every registered environment through the public checker (``billiards_env.testing.api_test``):
the functional environment (one and a batch, staged) and the Gymnasium one; then what only the
adapters here promise: Stable-Baselines3's checker, the reward as the acting player's points with
the shot's events in ``info``, and ``gymnasium.make_vec``."""
from __future__ import annotations

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env as sb3_check_env

import billiards_env
import rules
from billiards_env import functional
from billiards_env.testing import api_test
from tests.support.env import BATCH, ENV_IDS, fenv, random_actions, runner

FUNCTIONAL_CHECKS = ["state", "transitions", "determinism", "finished_state", "nan_action", "batch"]
GYMNASIUM_CHECKS = ["spaces", "reset", "step", "finished_episode", "determinism", "bad_actions", "gymnasium_checker"]


# The carom ids share one compiled step (test_the_carom_disciplines_share_one_compiled_step): three-
# cushion and the Hungarian game run in the quick tier, the other five in the slow tier (its time budget).
@pytest.mark.parametrize("env_id", [i if i in (billiards_env.IDS["three_cushion"], billiards_env.IDS["hungarian_1000"])
                                    else pytest.param(i, marks=pytest.mark.slow) for i in ENV_IDS])
def test_api(env_id):
    discipline = billiards_env.discipline_of(env_id)
    # the staged stages and the batch shape the other environment tests compile
    env = fenv(discipline)
    assert api_test(env, seed=7, steps=2, batch=BATCH) == FUNCTIONAL_CHECKS
    key = jax.random.PRNGKey(7)
    following, stepped = runner(env, BATCH).step(runner(env, BATCH).reset(key, env.default_params),
                                                random_actions(key, BATCH), key, env.default_params)
    assert np.all(np.asarray(stepped.terminated)) and not np.any(np.asarray(following.terminated))  # reset after
    gym_env = gym.make(env_id, fused=False)
    assert api_test(gym_env, seed=3) == GYMNASIUM_CHECKS

    sb3_check_env(gym_env.unwrapped, warn=False)
    obs, info = gym_env.reset(seed=3)
    assert obs.flags.writeable
    acting = int(gym_env.unwrapped.state.current_player)
    obs, reward, terminated, truncated, info = gym_env.step(gym_env.action_space.sample())
    assert type(reward) is float and type(terminated) is bool and type(truncated) is bool
    assert terminated and info["events"][0]["kind"] == "cue_strike"
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


# -- the checker catches what breaks the contracts -----------------------------------------------------


class OffTheScale(gym.ObservationWrapper):
    """A broken wrapper: the observation scaled out of its space."""

    def observation(self, obs):
        return obs * 4.0 + 1.0


class StepsBeforeRefusing(gym.Wrapper):
    """A broken wrapper: a non-finite action draws the next shot's noise before it is refused."""

    def step(self, action):
        if not np.all(np.isfinite(np.asarray(action, np.float64))):
            inner = self.env.unwrapped
            inner._key = jax.random.split(inner._key)[0]
            raise ValueError("action must be finite")
        return self.env.step(action)


class ClipsSilently(gym.Wrapper):
    """A broken wrapper: every action taken, cleaned and clipped without a word."""

    def step(self, action):
        action = np.asarray(action, np.float32)
        if action.shape != (9,):
            raise ValueError("action must have shape (9,)")
        return self.env.step(np.clip(np.nan_to_num(action), -1.0, 1.0))


class RoundsTheReward(gym.RewardWrapper):
    """A broken wrapper: the reward as a NumPy float32, not a Python float."""

    def reward(self, reward):
        return np.float32(reward)


@pytest.mark.parametrize("wrapper, message", [
    (OffTheScale, r"reset\(seed=3\)'s observation lies outside its space \(7 of \d+ values\): index 0: 2.83793 not in "
                  r"\[0, 1\]"),
    (StepsBeforeRefusing, "refused bad actions changed the episode"),
    (ClipsSilently, r"a bad action \(NaN\) must raise ValueError, step\(\) took it"),
    (RoundsTheReward, "step 1: the reward must be a finite float, got np.float32"),
])
def test_the_checker_catches_a_broken_wrapper(wrapper, message):
    env = wrapper(gym.make("billiards_env/ThreeCushion-v0", fused=False))
    with pytest.raises(AssertionError, match=message):
        api_test(env, seed=3)


def test_the_checker_takes_sound_wrappers_and_the_dict_observation():
    clipped = gym.wrappers.ClipAction(gym.make("billiards_env/ThreeCushion-v0", fused=False))  # an unbounded Box
    assert api_test(clipped, seed=3) == GYMNASIUM_CHECKS  # a NaN still reaches the environment, which refuses it
    as_dict = gym.make("billiards_env/ThreeCushion-v0", fused=False, obs_format="dict")
    assert api_test(as_dict, seed=3, steps=1) == GYMNASIUM_CHECKS
    with pytest.raises(TypeError, match="env must be a gymnasium.Env or a billiards_env.FunctionalEnv, got str"):
        api_test("billiards_env/ThreeCushion-v0")
    with pytest.raises(ValueError, match="steps must be an int >= 1, got 0"):
        api_test(as_dict, steps=0)
    with pytest.raises(ValueError, match="batch and jit are options of a functional environment's check"):
        api_test(as_dict, batch=4)


def test_the_checker_passes_a_discipline_a_user_registers():
    """The use it is for: a variant from ``rules.register_discipline`` (data only: the carom stages
    the tests above compiled), as a functional and as a Gymnasium environment."""
    rules.register_discipline("checker_rail_20", base="straight_rail", gym_name="CheckerRail20", distance=20)
    billiards_env.register_all()
    assert api_test(billiards_env.make_functional("checker_rail_20"), seed=5) == FUNCTIONAL_CHECKS[:-1]
    assert billiards_env.api_test(gym.make("billiards_env/CheckerRail20-v0", fused=False), seed=5) == GYMNASIUM_CHECKS


@pytest.mark.slow  # compiles the whole step (jax.jit(env.step)): the largest program of an environment
def test_the_checker_compares_the_step_compiled_whole_with_the_staged_one():
    assert api_test(fenv("three_cushion"), seed=7, steps=2, jit=True) == FUNCTIONAL_CHECKS[:-1] + ["jit"]
