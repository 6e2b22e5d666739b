"""``api_test``: an environment checked against the adapters' contracts (docs/design.md contract 3).

For who adds a discipline (``rules.register_discipline``) or wraps an environment, as the test
suite checks every registered one; a failure raises AssertionError saying what broke:

    from billiards_env.testing import api_test
    api_test(gymnasium.make("billiards_env/Pin500-v0"))     # a Gymnasium environment, wrappers too
    api_test(billiards_env.make_functional("pin_500"))      # the functional environment

A Gymnasium environment (``check_gymnasium``): its spaces; ``reset`` and ``step`` return what
Gymnasium says (an observation inside ``observation_space``, a float reward, bool flags, an info
dict with the ``call`` and ``repairs`` keys); the same seed and actions give the same episode;
a finished episode refuses another step (``gymnasium.error.ResetNeeded``); bad actions (NaN, the
wrong shape, out of a bounded Box) raise ValueError and change nothing; and Gymnasium's own
checker. An unwrapped billiards environment's spaces must be its action form's
(``actions.space``, ``observation.flat_space`` or ``dict_space``); the actions played are drawn
from ``env.action_space``, and a bad action is whatever lies outside it (a Box: NaN, another
shape, above its high; a Discrete: NaN, not whole, below its start or past its end, another
shape). A functional environment (``check_functional``): the State's fields, dtypes and shapes,
the observation inside ``observation.flat_space(env.action_form)``, the "lines" form's candidates;
the step count and rewards (the referee's points, ``modes.reward_of``, without a built-in
opponent); the same key, the same episode; a finished state steps to itself with zero rewards; a
NaN action plays as zeros (as index 0 for "lines"); the random actions are drawn from the form's
action space (``actions.shape``); with ``batch``, a
batch and its rows one by one; with ``jit``, the step compiled whole equals the step run stage by
stage (``billiards_env.runner``). Each returns the names of the checks it ran.
"""
from __future__ import annotations

import warnings
from typing import Any

import gymnasium as gym
import jax
import jax.numpy as jnp
import numpy as np

from billiards_env import actions, lines, modes, observation
from billiards_env.functional import FunctionalEnv, State
from billiards_env.gym_env import REPAIRS_KEY
from billiards_env.runner import Runner
from physics.pytree import replace

# A State's fields: (dtype, shape without the batch axes), for the strike and contact forms
# (``state_fields`` gives any form's).
STATE_FIELDS = {
    "observation": (np.float32, (observation.OBS_SIZE,)),
    "current_player": (np.int32, ()),
    "rewards": (np.float32, (2,)),
    "terminated": (np.bool_, ()),
    "truncated": (np.bool_, ()),
    "step_count": (np.int32, ()),
    "opponent_shots": (np.int32, ()),
}


def state_fields(form: str = "strike") -> dict:
    """``STATE_FIELDS`` of an action form: the observation's length is the form's
    (``observation.size``)."""
    return dict(STATE_FIELDS, observation=(np.float32, (observation.size(actions.check_form(form)),)))


def api_test(env, *, seed: int = 0, steps: int = 3, batch: int | None = None, jit: bool = False) -> list[str]:
    """Check ``env``, a Gymnasium environment (``gymnasium.Env``, wrappers included) or a
    ``FunctionalEnv``, against the environments' contracts (module docstring); AssertionError
    naming the first that fails. Returns the names of the checks run. seed: of the episodes
    played; steps: random actions played (at least 1); batch, jit: functional environments only
    (``check_functional``)."""
    if isinstance(env, FunctionalEnv):
        return check_functional(env, seed=seed, steps=steps, batch=batch, jit=jit)
    if isinstance(env, gym.Env):
        if batch is not None or jit:
            raise ValueError("batch and jit are options of a functional environment's check, not a Gymnasium one's")
        return check_gymnasium(env, seed=seed, steps=steps)
    raise TypeError(f"env must be a gymnasium.Env or a billiards_env.FunctionalEnv, got {type(env).__name__}")


# -- functional ------------------------------------------------------------------------------------


def check_state(state: State, batch: tuple = (), form: str = "strike") -> None:
    """AssertionError unless the State's fields have their dtypes and shapes (``state_fields(form)``,
    with the leading ``batch`` axes), the observation lies in ``observation.flat_space(form)``,
    the candidates are there for the "lines" form only (a strike per candidate, ``lines.COUNT``)
    and the current player is 0 or 1. ``form``: the environment's action form."""
    for name, (dtype, shape) in state_fields(form).items():
        value = np.asarray(getattr(state, name))
        want = tuple(batch) + shape
        assert value.dtype == dtype and value.shape == want, (
            f"State.{name} is {value.dtype} {value.shape}, the contract says {np.dtype(dtype)} {want}")
    _assert_in_space(np.asarray(state.observation), observation.flat_space(form), "State.observation", batch)
    if form != "lines":
        assert state.candidates is None, f"State.candidates must be None for the {form!r} form"
    else:
        want = tuple(batch) + (lines.COUNT,)
        candidates = state.candidates
        shapes = {name: np.shape(np.asarray(getattr(candidates, name))) if hasattr(candidates, name) else None
                  for name in ("V0", "phi", "theta", "a", "b")}
        assert all(shape == want for shape in shapes.values()), (
            f"State.candidates must be the {lines.COUNT} candidate strikes, {want} each, got {shapes}")
    layout = np.shape(state.game.positions)
    assert layout == tuple(batch) + (3, 2), f"State.game.positions has shape {layout}, want {tuple(batch) + (3, 2)}"
    players = set(np.unique(np.asarray(state.current_player)).tolist())
    assert players <= {0, 1}, f"State.current_player must be 0 or 1, got {sorted(players)}"


def check_transition(before: State, after: State, env: FunctionalEnv, params, batch: tuple = ()) -> None:
    """AssertionError unless ``after`` is a legal step from ``before``: a valid State; where
    ``before`` had finished, the same State with zero rewards (the base step); elsewhere one more
    step, and without a built-in opponent's shots rewards equal to the referee's points
    (``modes.reward_of`` of the step's outcome)."""
    check_state(after, batch, env.action_form)
    done = np.asarray(before.terminated | before.truncated).reshape(tuple(batch))
    rewards = np.asarray(after.rewards)
    if np.any(done):
        for (path, a), b in zip(jax.tree_util.tree_leaves_with_path(replace(before, rewards=after.rewards)),
                                jax.tree_util.tree_leaves(after)):
            same = np.asarray(np.asarray(a == b).reshape(done.shape + (-1,)).all(-1))
            assert np.all(same[done]), f"a finished State stepped to another: State{jax.tree_util.keystr(path)} changed"
        assert np.all(rewards[done] == 0), f"a finished State stepped with rewards {rewards[done].tolist()}, not 0"
    live = ~done
    steps_before, steps_after = np.asarray(before.step_count), np.asarray(after.step_count)
    assert np.all(steps_after[live] == steps_before[live] + 1), (
        f"step_count went from {steps_before[live].tolist()} to {steps_after[live].tolist()}, not one more")
    if env.policy is None:
        reward_of = modes.reward_of
        for _ in batch:
            reward_of = jax.vmap(reward_of, in_axes=(0, None))
        want = np.asarray(reward_of(after.outcome, params))
        assert np.array_equal(rewards[live], want[live]), (
            f"rewards {rewards[live].tolist()} are not the referee's points of the step {want[live].tolist()}")


def check_functional(env: FunctionalEnv, params=None, *, seed: int = 0, steps: int = 3, batch: int | None = None,
                     jit: bool = False) -> list[str]:
    """The functional environment's checks (module docstring), on ``params`` (default:
    ``env.default_params``), run stage by stage (``Runner(fused=False)``); ``batch``: also a batch
    of that many environments (its lanes as many), row by row against one environment; ``jit``:
    also ``jax.jit(env.step)`` against the staged step (compiles the whole step: the costliest)."""
    _check_counts(steps, batch)
    params = env.default_params if params is None else params
    key = jax.random.PRNGKey(seed)
    run = Runner(env, None, fused=False)
    form = env.action_form
    done = []

    def episode():
        k_init, k_play = jax.random.split(key)
        states = [run.reset(k_init, params)]
        for i in range(steps):
            k_act, k_step = jax.random.split(jax.random.fold_in(k_play, i))
            states.append(run.step(states[-1], _random_actions(k_act, None, form), k_step, params)[0])
        return states

    states = episode()
    check_state(states[0], form=form)
    for before, after in zip(states, states[1:]):
        check_transition(before, after, env, params)
    done += ["state", "transitions"]
    again = episode()
    for i, (a, b) in enumerate(zip(states, again)):
        assert _tree_equal(a, b), f"the same key played another episode: the States after step {i} differ"
    done.append("determinism")
    first, k = states[0], jax.random.fold_in(key, 99)
    finished = replace(first, terminated=jnp.asarray(True))
    check_transition(finished, run.step(finished, _random_actions(k, None, form), k, params)[0], env, params)
    done.append("finished_state")
    nan = run.step(first, np.full(actions.shape(form), np.nan, np.float32), k, params)[0]
    zero = run.step(first, np.zeros(actions.shape(form), np.float32), k, params)[0]
    assert _tree_equal(nan, zero), ("inside jit a NaN action must play as zeros (actions.sanitize; index 0 for "
                                    "\"lines\"), it played otherwise")
    done.append("nan_action")
    if batch is not None:
        _check_batch(env, params, key, batch, run)
        done.append("batch")
    if jit:
        action, k_step = _random_actions(jax.random.fold_in(key, 7), None, form), jax.random.fold_in(key, 8)
        whole = jax.jit(env.step)(first, action, k_step, params)
        staged = run.step(first, action, k_step, params)[0]
        assert _tree_equal(whole, staged), "jax.jit(env.step) and the step run stage by stage give other States"
        done.append("jit")
    return done


def _check_batch(env, params, key, batch: int, single: Runner) -> None:
    """A batch's reset and step (per-row keys) against its rows stepped one by one."""
    run = Runner(env, batch, fused=False, lanes=batch)
    k_init, k_act, k_step = jax.random.split(jax.random.fold_in(key, 1), 3)
    states = run.reset(k_init, params)
    check_state(states, (batch,), env.action_form)
    acts = _random_actions(k_act, batch, env.action_form)
    keys = jax.random.split(k_step, batch)
    stepped = run.step_rows(states, acts, keys, params)[0]
    check_transition(states, stepped, env, params, (batch,))
    for i in range(min(batch, 2)):
        one = single.step(_index(states, i), acts[i], keys[i], params)[0]
        row = _index(stepped, i)
        same = _tree_equal((one.rewards, one.outcome), (row.rewards, row.outcome))
        assert same, f"row {i} of a batch step gave another outcome than the same environment stepped alone"
        assert np.allclose(np.asarray(one.game.positions), np.asarray(row.game.positions), rtol=0, atol=1e-9), (
            f"row {i} of a batch step left the balls elsewhere than the same environment stepped alone")


# -- Gymnasium -------------------------------------------------------------------------------------


def check_gymnasium(env: gym.Env, *, seed: int = 0, steps: int = 3) -> list[str]:
    """The Gymnasium environment's checks (module docstring). ``steps`` random actions are played
    from ``reset(seed=seed)`` (episodes that end are reset with the next seed); the finished
    episode's refusal is checked when one ends within them ("finished_episode" in the result)."""
    _check_counts(steps, None)
    done = ["spaces"]
    for name in ("action_space", "observation_space"):
        space = getattr(env, name, None)
        assert isinstance(space, gym.spaces.Space), f"env.{name} must be a gymnasium.spaces.Space, got {space!r}"
    _check_form_spaces(env.unwrapped)

    env.action_space.seed(seed)
    moves = [env.action_space.sample() for _ in range(steps)]

    def episode(record: bool):
        out: list[tuple] = []
        obs, info = _reset(env, seed)
        out.append(("reset", _copy(obs)))
        episodes = 0
        for i, action in enumerate(moves):
            obs, reward, terminated, truncated, info = _step(env, action, f"step {i + 1}")
            out.append((_copy(obs), reward, terminated, truncated, info.get("call")))
            if terminated or truncated:
                if record:
                    try:
                        env.step(action)
                    except gym.error.ResetNeeded:
                        ended.append(i + 1)
                    else:
                        raise AssertionError(f"step() after the episode ended (step {i + 1}) must raise "
                                             "gymnasium.error.ResetNeeded")
                episodes += 1
                _reset(env, seed + episodes)
        return out

    ended: list[int] = []
    first = episode(record=True)
    done += ["reset", "step"] + (["finished_episode"] if ended else [])
    second = episode(record=False)
    for i, (a, b) in enumerate(zip(first, second)):
        assert _same_record(a, b), (f"the same seed ({seed}) and actions gave another episode: "
                                    f"{'the reset' if i == 0 else f'step {i}'} differs ({_describe(a)} against "
                                    f"{_describe(b)})")
    done.append("determinism")
    if _bad_actions_refused(env, seed, moves[0], first[1]):
        done.append("bad_actions")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a wrapped environment draws a warning; the checks are what count
        from gymnasium.utils.env_checker import check_env

        check_env(env, skip_render_check=True, skip_close_check=True)
    done.append("gymnasium_checker")
    return done


def _check_form_spaces(inner) -> None:
    """An unwrapped billiards environment (one with an ``action_form`` and an ``obs_format``):
    AssertionError unless its spaces are its form's (``actions.space``, ``observation.flat_space``
    or ``dict_space``). Other environments are not checked here."""
    form, obs_format = getattr(inner, "action_form", None), getattr(inner, "obs_format", None)
    if not (isinstance(form, str) and form in actions.FORMS and obs_format in ("flat", "dict")):
        return
    want = actions.space(form)
    assert inner.action_space == want, (
        f"the {form!r} form's action space is {want}, the environment's {inner.action_space}")
    want = observation.flat_space(form) if obs_format == "flat" else observation.dict_space(form)
    assert inner.observation_space == want, (
        f"the {form!r} form's {obs_format} observation space is {want}, the environment's {inner.observation_space}")


def _bad_actions(space: gym.spaces.Space) -> list[tuple[str, Any]]:
    """(what, action) pairs outside ``space``: a Box's NaN, another shape and (bounded) above its
    high; a Discrete's NaN, a fraction, below its start, past its end and another shape. None for
    any other space (an empty list)."""
    if isinstance(space, gym.spaces.Discrete):
        start = int(space.start)
        end = start + int(space.n)
        return [("NaN", np.float32(np.nan)), (f"{start + 0.5}, not whole", np.float64(start + 0.5)),
                (f"{start - 1}, below the start", np.int64(start - 1)), (f"{end}, past the end", np.int64(end)),
                ("shape (1,)", np.full((1,), start, np.int64))]
    if not isinstance(space, gym.spaces.Box):
        return []
    bad: list[tuple[str, Any]] = [
        ("NaN", np.full(space.shape, np.nan, np.float32)),
        (f"shape {space.shape[:-1] + (space.shape[-1] + 1,)}",
         np.zeros(space.shape[:-1] + (space.shape[-1] + 1,), np.float32)),
    ]
    if np.all(np.isfinite(space.high)):
        bad.append(("above the Box's high", (space.high + 1.0).astype(np.float32)))
    return bad


def _bad_actions_refused(env: gym.Env, seed: int, good, first_step) -> bool:
    """Bad actions raise ValueError and leave the episode as it was: after them, the first good
    action plays the step it played from the same reset. False where the action space is neither
    a Box nor a Discrete (no bad actions to make)."""
    bad = _bad_actions(env.action_space)
    if not bad:
        return False
    _reset(env, seed)
    for what, action in bad:
        try:
            env.step(action)
        except ValueError:
            continue
        except Exception as err:  # noqa: BLE001 - any other refusal is the wrong one
            raise AssertionError(f"a bad action ({what}) must raise ValueError, it raised "
                                 f"{type(err).__name__}: {err}") from err
        raise AssertionError(f"a bad action ({what}) must raise ValueError, step() took it")
    obs, reward, terminated, truncated, info = _step(env, good, "the step after refused bad actions")
    after = (_copy(obs), reward, terminated, truncated, info.get("call"))
    assert _same_record(after, first_step), (
        f"refused bad actions changed the episode: the next step played {_describe(after)}, the same step from the "
        f"same reset without them {_describe(first_step)}")
    return True


def _reset(env, seed):
    out = env.reset(seed=seed)
    assert isinstance(out, tuple) and len(out) == 2, f"reset() must return (observation, info), got {out!r}"
    obs, info = out
    _assert_in_space(obs, env.observation_space, f"reset(seed={seed})'s observation")
    _check_info(info, "reset()")
    return obs, info


def _step(env, action, where: str):
    out = env.step(action)
    assert isinstance(out, tuple) and len(out) == 5, (
        f"{where}: step() must return (observation, reward, terminated, truncated, info), got {len(out)} values")
    obs, reward, terminated, truncated, info = out
    _assert_in_space(obs, env.observation_space, f"{where}'s observation")
    assert isinstance(reward, float) and np.isfinite(reward), (
        f"{where}: the reward must be a finite float, got {reward!r}")
    for name, flag in (("terminated", terminated), ("truncated", truncated)):
        assert isinstance(flag, bool), f"{where}: {name} must be a bool, got {type(flag).__name__} {flag!r}"
    _check_info(info, f"{where}'s step()")
    assert isinstance(info["call"], str) and info["call"], f"{where}: info['call'] must name the referee's call"
    return obs, reward, terminated, truncated, info


def _check_info(info, where: str) -> None:
    assert isinstance(info, dict), f"{where} must return an info dict, got {type(info).__name__}"
    for name, kind in (("call", str), (REPAIRS_KEY, int)):
        assert isinstance(info.get(name), kind), (
            f"{where}'s info must hold {name!r} ({kind.__name__}), got {info.get(name)!r}")


# -- helpers ---------------------------------------------------------------------------------------


def _assert_in_space(value, space: gym.spaces.Space, where: str, batch: tuple = ()) -> None:
    """AssertionError naming how ``value`` falls outside ``space`` (a batch: every row)."""
    if isinstance(space, gym.spaces.Box):
        array = np.asarray(value)
        want = tuple(batch) + space.shape
        assert array.dtype == space.dtype and array.shape == want, (
            f"{where} is {array.dtype} {array.shape}, its space {space.dtype} {want}")
        outside = ~np.isfinite(array) | (array < space.low) | (array > space.high)
        if np.any(outside):
            low, high = np.broadcast_to(space.low, want), np.broadcast_to(space.high, want)
            shown = "; ".join(f"index {list(i) if len(i) > 1 else int(i[0])}: {float(array[tuple(i)]):.6g} not in "
                              f"[{float(low[tuple(i)]):.6g}, {float(high[tuple(i)]):.6g}]"
                              for i in np.argwhere(outside)[:3])
            raise AssertionError(f"{where} lies outside its space ({int(outside.sum())} of {array.size} values): "
                                 f"{shown}")
        return
    if batch:
        for i in range(batch[0]):
            _assert_in_space(_index(value, i), space, f"{where}[{i}]", tuple(batch[1:]))
        return
    if isinstance(space, gym.spaces.Dict) and isinstance(value, dict):
        assert set(value) == set(space.spaces), f"{where} has keys {sorted(value)}, its space {sorted(space.spaces)}"
        for name, sub in space.spaces.items():
            _assert_in_space(value[name], sub, f"{where}[{name!r}]")
        return
    assert space.contains(value), f"{where} is not in its space {space}: {value!r}"


def _check_counts(steps, batch) -> None:
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"steps must be an int >= 1, got {steps!r}")
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
        raise ValueError(f"batch must be None or an int >= 1, got {batch!r}")


def _random_actions(key, batch: int | None = None, form: str = "strike") -> np.ndarray:
    """Uniform actions of the form's action space (``actions.space``): float32 in [-1, 1] of
    ``actions.shape(form, batch)``, or int32 indices 0..COUNT-1 for "lines"."""
    shape = actions.shape(form, batch)
    if form == "lines":
        return np.asarray(jax.random.randint(key, shape, 0, actions.size(form), jnp.int32))
    return np.asarray(jax.random.uniform(key, shape, jnp.float32, actions.LOW, actions.HIGH))


def _tree_equal(a, b) -> bool:
    la, lb = jax.tree_util.tree_leaves(a), jax.tree_util.tree_leaves(b)
    return len(la) == len(lb) and all(np.array_equal(np.asarray(x), np.asarray(y)) for x, y in zip(la, lb))


def _index(tree, i):
    return jax.tree_util.tree_map(lambda x: x[i], tree)


def _copy(obs):
    return jax.tree_util.tree_map(lambda x: np.array(x, copy=True), obs)


def _same_record(a, b) -> bool:
    if len(a) != len(b):
        return False
    return all(_tree_equal(x, y) if not isinstance(x, (str, type(None))) else x == y for x, y in zip(a, b))


def _describe(record) -> str:
    if isinstance(record[0], str):
        return "a reset"
    _, reward, terminated, truncated, call = record
    return f"reward {reward}, terminated {terminated}, truncated {truncated}, call {call!r}"


__all__ = ["api_test", "check_functional", "check_gymnasium", "check_state", "check_transition", "STATE_FIELDS",
           "state_fields"]
