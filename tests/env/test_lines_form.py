"""The "lines" action form (``billiards_env.lines``: ``Discrete(132)``, the index of one of the
geometry's candidate strikes, whose features and mask the observation carries) through every
adapter: the spaces, reset and step with an index, bad indices refused without a change, the
public checker, and the step playing exactly the candidate its index names.

Compile time: the environments run staged (``fused=False``) on the batch shape the other
environment tests compile (``BATCH``), so only the stages that read the form are new (``init``,
``begin``, ``end``: the candidates' features); the adapters share them. The gymnax step compiles
the whole step and is marked slow."""
from __future__ import annotations

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import billiards_env
from billiards_env import actions, lines, observation
from billiards_env.params import replace
from billiards_env.sb3 import BilliardsVecEnv
from billiards_env.vector import BilliardsVectorEnv
from billiards_env.testing import api_test, check_state
from physics import execution
from physics.pytree import replace as tree_replace
from tests.support.env import BATCH, fenv, runner

FUNCTIONAL_CHECKS = ["state", "transitions", "determinism", "finished_state", "nan_action", "batch"]
GYMNASIUM_CHECKS = ["spaces", "reset", "step", "finished_episode", "determinism", "bad_actions", "gymnasium_checker"]
SIZE = observation.OBS_SIZE + lines.COUNT * lines.FEATURES + lines.COUNT  # 38 + 132 * 57 + 132 = 7694
ALLOWED = r"action must be whole numbers in 0\.\.131 of shape "
# (what, action): indices outside Discrete(132), each refused with the allowed range named
BAD = [("fraction", 131.5), ("negative", -1), ("past the end", 132), ("NaN", np.nan),
       ("shape (1,)", np.array([3])), ("strike-form vector", np.zeros(9, np.float32))]


def lines_env(discipline="three_cushion"):
    return fenv(discipline, action="lines")


def make(discipline="three_cushion", **options):
    return gym.make(billiards_env.IDS[discipline], fused=False, action="lines", **options)


def assert_lines_observation(obs, batch=()):
    """The flat lines observation: its shape, inside ``flat_space("lines")``, the mask (the last
    ``COUNT`` entries) 0 or 1 and at least one real line, the features within +-``BOUND``."""
    obs = np.asarray(obs)
    assert obs.shape == tuple(batch) + (SIZE,) and obs.dtype == np.float32
    space = observation.flat_space("lines")
    assert np.all(obs >= space.low) and np.all(obs <= space.high)
    features, mask = lines.split(obs)
    batch = tuple(batch)
    assert features.shape == batch + (lines.COUNT, lines.FEATURES) and mask.shape == batch + (lines.COUNT,)
    assert np.array_equal(mask, obs[..., -lines.COUNT:])
    assert set(np.unique(mask).tolist()) <= {0.0, 1.0}, f"mask entries other than 0 and 1: {np.unique(mask)}"
    assert np.all(np.abs(features) <= lines.BOUND) and np.any(features != 0)
    # a line is masked with all its variations (candidate i: line i // len(GRID))
    per_line = mask.reshape(batch + (lines.SEEDS, -1))
    assert np.all(per_line == per_line[..., :1]), "a line's variations masked differently"
    if batch:  # most positions offer real lines (some Hungarian ones none: both object balls on a cushion)
        assert np.mean(mask.any(-1)) > 0.5, f"{np.mean(~mask.any(-1)):.0%} of the positions offer no real line"


@pytest.mark.parametrize("discipline", ["three_cushion", "hungarian_1000"])
def test_every_adapter_has_the_discrete_action_and_the_lines_observation_spaces(discipline):
    """Built only (nothing compiled): each adapter's spaces are the form's."""
    from billiards_env.pettingzoo_env import BilliardsAECEnv

    f = lines_env(discipline)
    assert f.action_form == "lines" and f.num_actions == lines.COUNT == 132 and f.observation_size == SIZE
    assert "action='lines'" in repr(f)
    flat = observation.flat_space("lines")
    assert flat.shape == (SIZE,) and float(flat.low.min()) == -lines.BOUND and float(flat.low[0]) == 0.0
    gym_env = make(discipline)
    assert gym_env.action_space == gym.spaces.Discrete(132) and actions.form_of(gym_env) == "lines"
    assert gym_env.observation_space == flat
    as_dict = make(discipline, obs_format="dict").observation_space
    assert set(as_dict.spaces) == {name for name, _, _ in observation.GROUPS} | {"lines", "line_mask"}
    assert as_dict["lines"].shape == (lines.COUNT * lines.FEATURES,) and as_dict["line_mask"].shape == (lines.COUNT,)
    vec = BilliardsVectorEnv(2, discipline, fused=False, action="lines")
    assert vec.single_action_space == gym.spaces.Discrete(132)
    assert vec.action_space == gym.spaces.MultiDiscrete([132] * 2)
    assert vec.single_observation_space == flat and vec.observation_space.shape == (2, SIZE)
    sb3 = BilliardsVecEnv(discipline, num_envs=2, fused=False, action="lines")
    assert sb3.action_space == gym.spaces.Discrete(132) and sb3.observation_space == flat
    assert BilliardsVecEnv(discipline, num_envs=2, action="lines", obs_format="dict").observation_space == as_dict
    aec = BilliardsAECEnv(discipline, fused=False, action="lines")
    assert aec.action_space("player_1") == gym.spaces.Discrete(132) and aec.observation_space("player_0") == flat


@pytest.mark.slow  # the quick tier's time budget: the lines form's adapters are checked in the slow tier
def test_gymnax_has_the_discrete_action_and_the_lines_observation_and_resets_into_it():
    gymnax = pytest.importorskip("gymnax")
    env, params = billiards_env.make_gymnax("three_cushion", action="lines")
    a, o = env.action_space(params), env.observation_space(params)
    assert isinstance(a, gymnax.environments.spaces.Discrete) and a.n == 132 and env.num_actions == 132
    assert "action='lines'" in repr(env)
    sample = a.sample(jax.random.PRNGKey(0))
    assert sample.shape == () and bool(a.contains(sample)) and not bool(a.contains(132))
    flat = observation.flat_space("lines")
    assert o.shape == (SIZE,)
    np.testing.assert_array_equal(np.asarray(o.low), flat.low)
    np.testing.assert_array_equal(np.asarray(o.high), flat.high)
    obs, state = env.reset(jax.random.PRNGKey(1), params)
    assert_lines_observation(obs)
    assert bool(o.contains(obs)) and np.array_equal(np.asarray(obs), np.asarray(state.observation))


@pytest.mark.slow  # compiles the whole step (gymnax jits it): the largest program of an environment
def test_gymnax_steps_with_an_index():
    pytest.importorskip("gymnax")
    env, params = billiards_env.make_gymnax("three_cushion", action="lines")
    obs, state = env.reset(jax.random.PRNGKey(1), params)
    action = env.action_space(params).sample(jax.random.PRNGKey(2))
    obs, new, reward, terminated, truncated, info = env.step(jax.random.PRNGKey(3), state, action, params)
    assert_lines_observation(obs)
    assert bool(env.observation_space(params).contains(obs)) and bool(terminated)  # shot mode: one shot
    assert_lines_observation(info["final_observation"])


@pytest.mark.slow  # the quick tier's time budget: the lines form's adapters are checked in the slow tier
def test_the_functional_lines_env_passes_the_checker():
    assert api_test(lines_env(), seed=7, steps=2, batch=BATCH) == FUNCTIONAL_CHECKS


def test_the_hungarian_lines_observation_is_the_forms():
    """The Hungarian game's candidates (the red the cue ball, the pin's lines): a batch of first
    observations in the space, with a 0/1 mask, and candidates that differ (its step: below, slow)."""
    env = lines_env("hungarian_1000")
    states = runner(env, BATCH).reset(jax.random.PRNGKey(4), env.default_params)
    check_state(states, (BATCH,), "lines")
    assert_lines_observation(states.observation, (BATCH,))
    assert len(np.unique(np.asarray(states.candidates.phi))) > BATCH


@pytest.mark.parametrize("discipline", [
    "three_cushion",
    pytest.param("hungarian_1000", marks=pytest.mark.slow),  # compiles the Hungarian referee and physics
])
def test_playing_candidate_i_plays_exactly_the_states_candidate_i(discipline):
    """Noise 0, a batch whose rows play candidates spread over 0..131: the shot each step played is
    the observed position's candidate of its index (the aim up to its wrap into (-180, 180]), and the
    observations carry the candidates' features and a 0/1 mask."""
    env = lines_env(discipline)
    params = replace(env.default_params, noise=jnp.asarray(0.0))
    run = runner(env, BATCH)
    states = run.reset(jax.random.PRNGKey(4), params)
    assert_lines_observation(states.observation, (BATCH,))
    picks = (np.arange(BATCH) * 67 + 5) % lines.COUNT  # 64 of the 132, both ends included below
    picks[:2] = [0, lines.COUNT - 1]
    stepped, _ = run.step_rows(states, picks.astype(np.int32), jax.random.split(jax.random.PRNGKey(5), BATCH), params)
    assert_lines_observation(stepped.observation, (BATCH,))
    candidates = jax.tree_util.tree_map(np.asarray, states.candidates)
    played = jax.tree_util.tree_map(np.asarray, stepped.shot)
    rows = np.arange(BATCH)
    for name in ("V0", "theta", "a", "b"):
        want, got = getattr(candidates, name)[rows, picks], getattr(played, name)
        assert np.array_equal(got, want), f"{name}: rows {np.nonzero(got != want)[0].tolist()} played another strike"
    aim = np.asarray(execution.wrap_degrees(jnp.asarray(candidates.phi[rows, picks])))
    assert np.array_equal(played.phi, aim), f"phi: rows {np.nonzero(played.phi != aim)[0].tolist()}"
    # the candidates differ (an index chooses something), and a masked candidate is still played
    assert len({(float(v), float(p)) for v, p in zip(played.V0, played.phi)}) > BATCH // 2


@pytest.mark.slow  # the quick tier's time budget: the lines form's adapters are checked in the slow tier
def test_the_gymnasium_lines_env_passes_the_checker_and_refuses_bad_indices_unchanged():
    env = make()
    assert api_test(env, seed=3) == GYMNASIUM_CHECKS
    obs, _ = env.reset(seed=0)
    assert_lines_observation(obs)
    inner = env.unwrapped
    before, key = inner.state, inner._key
    for what, action in BAD:
        with pytest.raises(ValueError, match=ALLOWED):
            env.step(action)
        assert inner.state is before and inner._key is key, f"a refused {what} action changed the episode"
    obs, reward, terminated, _, info = env.step(np.int64(131))
    assert_lines_observation(obs)
    assert obs in env.observation_space and terminated and info["events"][0]["kind"] == "cue_strike"
    env.reset(seed=0)
    assert env.step(131)[1:4] == (reward, terminated, False)  # a Python int: the same step
    as_dict = make(obs_format="dict")
    assert api_test(as_dict, seed=3, steps=1) == GYMNASIUM_CHECKS
    obs, _ = as_dict.reset(seed=0)
    assert set(obs) == {name for name, _, _ in observation.groups("lines")}
    assert np.array_equal(np.concatenate(list(obs.values())), env.reset(seed=0)[0])


@pytest.mark.slow  # the quick tier's time budget: the lines form's adapters are checked in the slow tier
def test_the_vector_and_sb3_adapters_step_a_batch_of_indices_and_refuse_bad_ones():
    vec = gym.make_vec("billiards_env/ThreeCushion-v0", num_envs=BATCH, fused=False, lanes=BATCH, action="lines")
    obs, _ = vec.reset(seed=1)
    assert obs in vec.observation_space
    assert_lines_observation(obs, (BATCH,))
    before = vec.unwrapped.state
    good = np.arange(BATCH) % lines.COUNT
    for what, bad in [("past the end", np.where(good == 3, lines.COUNT, good)), ("fraction", good + 0.5),
                      ("NaN", np.full(BATCH, np.nan)), ("one index", 3), ("shape (BATCH, 1)", good[:, None])]:
        with pytest.raises(ValueError, match=ALLOWED + rf"\({BATCH},\)"):
            vec.step(bad)
        assert vec.unwrapped.state is before, f"a refused batch ({what}) changed the environments"
    obs, reward, terminated, truncated, info = vec.step(vec.action_space.sample())
    assert obs in vec.observation_space and np.all(terminated) and info["final_obs"].shape == (BATCH, SIZE)
    assert_lines_observation(info["final_obs"], (BATCH,))
    vec.close()
    sb3 = BilliardsVecEnv("three_cushion", num_envs=BATCH, fused=False, lanes=BATCH, action="lines")
    obs = sb3.reset()
    assert_lines_observation(obs, (BATCH,))
    with pytest.raises(ValueError, match=ALLOWED + rf"\({BATCH},\)"):
        sb3.step_async(good - 1)
    obs, reward, dones, infos = sb3.step(good)
    assert_lines_observation(obs, (BATCH,))
    assert np.all(dones) and infos[0]["terminal_observation"].shape == (SIZE,)
    assert_lines_observation(infos[0]["terminal_observation"])


@pytest.mark.slow  # the quick tier's time budget: the lines form's adapters are checked in the slow tier
def test_pettingzoo_observes_the_lines_and_plays_an_index():
    from pettingzoo.test import api_test as pettingzoo_api_test

    from billiards_env.pettingzoo_env import BilliardsAECEnv

    env = BilliardsAECEnv("three_cushion", fused=False, action="lines", max_steps=4)
    pettingzoo_api_test(env, num_cycles=2, verbose_progress=False)
    env.reset(seed=0)
    shooter = env.agent_selection
    mine = env.observe(shooter)
    assert_lines_observation(mine)
    assert mine in env.observation_space(shooter)
    assert np.array_equal(mine, np.asarray(env.functional_state.observation))  # the one the step plays from
    other = env.observe("player_1" if shooter == "player_0" else "player_0")
    assert_lines_observation(other)
    # the candidates are the shooter's, whoever looks (up to the rounding of another compiled program)
    assert np.array_equal(lines.split(other)[1], lines.split(mine)[1])
    assert np.allclose(other[observation.OBS_SIZE:], mine[observation.OBS_SIZE:], rtol=0, atol=1e-6)
    before = env.functional_state
    with pytest.raises(ValueError, match=ALLOWED):
        env.step(132)
    assert env.functional_state is before
    env.step(7)
    assert int(env.functional_state.step_count) == 1
    assert_lines_observation(env.observe(env.agent_selection))


class ClipsTheIndex(gym.Wrapper):
    """A broken wrapper: any action taken, cleaned and clipped into 0..131 without a word."""

    def step(self, action):
        return self.env.step(int(np.clip(np.nan_to_num(np.asarray(action, np.float64)), 0, lines.COUNT - 1)))


@pytest.mark.slow  # the quick tier's time budget: the lines form's adapters are checked in the slow tier
def test_the_checker_catches_a_wrapper_that_clips_indices_and_spaces_of_another_form():
    with pytest.raises(AssertionError, match=r"a bad action \(NaN\) must raise ValueError, step\(\) took it"):
        api_test(ClipsTheIndex(make()), seed=3)
    env = make()
    env.unwrapped.observation_space = observation.flat_space()  # the strike form's: 38 entries
    with pytest.raises(AssertionError, match="the 'lines' form's flat observation space is Box"):
        api_test(env, seed=3)
    env = make()
    env.unwrapped.action_space = actions.space("strike")
    with pytest.raises(AssertionError, match=r"the 'lines' form's action space is Discrete\(132\)"):
        api_test(env, seed=3)


@pytest.mark.slow  # the quick tier's time budget: the lines form's adapters are checked in the slow tier
def test_check_state_holds_a_lines_state_to_the_form():
    env = lines_env()
    state = runner(env).reset(jax.random.PRNGKey(0), env.default_params)
    check_state(state, form="lines")
    with pytest.raises(AssertionError, match=rf"State.observation is float32 \({SIZE},\), the contract says float32 "
                                             rf"\({observation.OBS_SIZE},\)"):
        check_state(state)
    with pytest.raises(AssertionError, match="State.candidates must be the 132 candidate strikes"):
        check_state(tree_replace(state, candidates=None), form="lines")
    with pytest.raises(AssertionError, match="State.candidates must be None for the 'contact' form"):
        check_state(tree_replace(state, observation=state.observation[:observation.OBS_SIZE]), form="contact")


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["shot", "inning"])
def test_the_training_step_finds_each_positions_lines_once_and_observes_what_the_whole_step_does(mode):
    """``runner.batch_step(final_view=False)``, the learners' step, finds the candidates after the
    automatic reset, once per environment: the observations and candidates of the positions played
    next are those of the plain step, whether the inning went on or a new layout was drawn."""
    from billiards_env.runner import batch_step

    env = billiards_env.make_functional("three_cushion", mode, action="lines")
    params = env.default_params
    states = env.init_batch(jax.random.split(jax.random.PRNGKey(4), 16), params)
    acts = jnp.arange(16, dtype=jnp.int32) % lines.COUNT
    whole = jax.jit(batch_step(env.config, 16, final_view=True))
    once = jax.jit(batch_step(env.config, 16, final_view=False))
    key = jax.random.PRNGKey(8)
    next_whole, stepped_whole = whole(states, acts, key, params)
    next_once, stepped_once = once(states, acts, key, params)
    np.testing.assert_array_equal(np.asarray(stepped_once.rewards), np.asarray(stepped_whole.rewards))
    # the same numbers, up to the rounding of two differently fused programs (features near 0 differ by 1e-16)
    close = lambda a, b: np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-9, atol=1e-12)  # noqa: E731
    close(next_once.observation, next_whole.observation)
    jax.tree_util.tree_map(close, next_once.candidates, next_whole.candidates)
    np.testing.assert_array_equal(np.asarray(next_once.game.positions), np.asarray(next_whole.game.positions))
    done = np.asarray(stepped_whole.done)
    if mode == "inning":
        assert 0 < done.sum() < 16  # some innings went on, some were reset
    tail = np.asarray(stepped_once.observation)[:, observation.OBS_SIZE:]
    assert np.all(tail == 0)  # the step's own States carry no lines: they were found once, after the reset
