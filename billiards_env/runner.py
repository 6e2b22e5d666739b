"""Compiled drivers of a ``FunctionalEnv`` for the adapters: one environment or a batch, fused or
staged, with the batch's automatic reset.

* fused (default): a step is one compiled call (the batch: step, then reset of the finished
  environments, in the same call).
* staged: each stage is compiled on its own (``functional.make_ops``), and the physics stage is
  shared by every mode and opponent. The built-in opponent's loop then runs in Python, one
  compiled call per opponent shot.

Either way the six carom disciplines share their compiled code: a ``Config`` names the rule
family, not the discipline, whose columns are leaves of the params.

Both give the same results. The fused batch is split over the devices (``physics.devices``): each
device steps its block of environments. Compiled functions are cached per (Config, shape), so many adapter
objects over the same discipline share them.
"""
from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp

from physics import devices
from physics.pytree import replace, strong_types
from billiards_env.functional import DEFAULT_LANES, Config, initial_state, make_ops, observe_for, transition


def _select(mask, a, b):
    return jax.tree_util.tree_map(
        lambda x, y: jnp.where(mask.reshape(mask.shape + (1,) * (x.ndim - mask.ndim)), x, y), a, b)


def _init_config(cfg: Config) -> Config:
    """The Config ``init`` compiles for: the strike form's (shared by the strike and contact forms,
    whose first observation is the same), or the cfg itself for the "lines" form, whose first
    observation carries the candidates (``functional.observe_for``)."""
    return cfg if cfg.action == "lines" else dataclasses.replace(cfg, action="strike")


@functools.lru_cache(maxsize=None)
def _init_single(cfg: Config):
    return jax.jit(functools.partial(initial_state, cfg))


@functools.lru_cache(maxsize=None)
def _init_batch(cfg: Config, batch: int):
    def init(key, params):
        return jax.vmap(initial_state, in_axes=(None, 0, None))(cfg, jax.random.split(key, batch), params)

    return jax.jit(init)


@functools.lru_cache(maxsize=None)
def _fused_single(cfg: Config):
    ops = make_ops(cfg, batched=False, staged=False)
    return jax.jit(lambda s, a, k, p: transition(cfg, s, a, k, p, ops))


def _reset_finished(cfg, stepped, key, params):
    batch = stepped.step_count.shape[0]
    fresh = jax.vmap(initial_state, in_axes=(None, 0, None))(cfg, jax.random.split(key, batch), params)
    return _select(stepped.done, fresh, stepped)


def _view_after_reset(cfg: Config, following, params):
    """``following`` (a batch whose lines observations are blank) with each environment's lines
    found for the position it plays next: once per step, whether the episode goes on ("inning",
    "game") or was reset."""
    obs, candidates = jax.vmap(lambda g, n: observe_for(cfg, g, params, n))(following.game, following.step_count)
    return replace(following, observation=obs, candidates=candidates)


def _stepped(cfg: Config, lanes: int):
    """The batched transition with a key per environment and no reset, split over the devices."""
    ops = make_ops(cfg, batched=True, staged=False, lanes=lanes)
    return devices.split_batch(lambda s, a, k, p: transition(cfg, s, a, k, p, ops)[0], (True, True, True, False))


def batch_play(cfg: Config, lanes: int = DEFAULT_LANES):
    """The pure batched step that only plays: ``play(states, actions, keys, params) -> State as
    the step left it``, keys (B, 2), no reset and no lines found for the positions left. For a
    learner that reads the outcomes of extra plays from positions it restored
    (``agents.jax_dqn``'s ``plays``), where finding the leaves' lines would cost ten times the
    shot."""
    return _stepped(dataclasses.replace(cfg, final_view=False), lanes)


def batch_step(cfg: Config, lanes: int = DEFAULT_LANES, autoreset: bool = True, final_view: bool = True):
    """The pure batched step with the batch's automatic reset, for callers that trace it inside
    their own ``jit`` (``agents.jax_ppo``): ``step(states, actions, key, params) -> (State after
    the reset of finished environments, State as the step left it)``, ``key`` one key. The
    physics runs on the lane pool, split over the devices (``physics.devices.split_batch``);
    each environment's key is drawn from ``key`` before the split, so the results do not depend
    on the device count. ``final_view`` False (with ``autoreset``): the lines of the positions
    played next are found once, after the reset, and the States as the step left them carry none
    (``functional.Config.final_view``: none found for a finished episode's final position)."""
    fresh_cfg = cfg
    defer = not final_view and autoreset and cfg.action == "lines"
    cfg = dataclasses.replace(cfg, final_view=final_view or not defer)
    if defer:
        fresh_cfg = cfg
    stepped_of = _stepped(cfg, lanes)

    def step(states, actions, key, params):
        k_step, k_reset = jax.random.split(key)
        stepped = stepped_of(states, actions, jax.random.split(k_step, actions.shape[0]), params)
        following = _reset_finished(fresh_cfg, stepped, k_reset, params) if autoreset else stepped
        if defer:
            following = _view_after_reset(dataclasses.replace(cfg, final_view=True), following, params)
        return following, stepped

    return step


@functools.lru_cache(maxsize=None)
def _fused_batch(cfg: Config, lanes: int, autoreset: bool):
    return jax.jit(batch_step(cfg, lanes, autoreset))


@functools.lru_cache(maxsize=None)
def _split(batch: int):
    def split(key):
        k_step, k_reset = jax.random.split(key)
        return jax.random.split(k_step, batch), k_reset

    return jax.jit(split)


@functools.lru_cache(maxsize=None)
def _fused_rows(cfg: Config, lanes: int):
    ops = make_ops(cfg, batched=True, staged=False, lanes=lanes)
    return jax.jit(lambda s, a, k, p: transition(cfg, s, a, k, p, ops))


def _strong(params):
    """The params without weak types (``physics.pytree.strong_types``): one compiled step serves
    params built from Python numbers and from arrays alike."""
    return strong_types(params, params.physics.dtype)


@jax.jit
def _select_jit(mask, a, b):
    return _select(mask, a, b)


class Runner:
    """Steps one environment (``num_envs=None``) or a batch of them.

    ``reset(key, params) -> State``; ``step(state, action, key, params)`` returns, for one
    environment, (State, ShotResult of the acting player's shot); for a batch, (State after the
    automatic reset of finished environments, State as the step left it). The batch's action is
    (num_envs, 9) ((num_envs, 10) for the "contact" form, (num_envs,) indices for "lines") and its
    key a single key; ``step_rows``
    takes a key per environment instead.
    """

    def __init__(self, env, num_envs: int | None = None, fused: bool = True, lanes: int = DEFAULT_LANES,
                 autoreset: bool = True):
        self.env = env
        self.cfg = env.config
        self.num_envs = num_envs
        self.fused = fused
        self.lanes = int(lanes)
        self.autoreset = autoreset

    def reset(self, key, params):
        params = _strong(params)
        cfg = _init_config(self.cfg)  # shared by the forms whose first observation is the same
        if self.num_envs is None:
            return _init_single(cfg)(key, params)
        return _init_batch(cfg, self.num_envs)(key, params)

    def step(self, state, action, key, params):
        cfg = self.cfg
        params = _strong(params)
        if self.num_envs is None:
            if self.fused:
                return _fused_single(cfg)(state, action, key, params)
            return transition(cfg, state, action, key, params, make_ops(cfg, batched=False, staged=True))
        if self.fused:
            return _fused_batch(cfg, self.lanes, self.autoreset)(state, action, key, params)
        keys, k_reset = _split(self.num_envs)(key)
        stepped, _ = self.step_rows(state, action, keys, params)
        if not self.autoreset:
            return stepped, stepped
        fresh = _init_batch(_init_config(cfg), self.num_envs)(k_reset, params)
        return _select_jit(stepped.done, fresh, stepped), stepped

    def step_rows(self, state, action, keys, params):
        """A batch step with one key per environment, keys (B, 2), and no reset: (State as the
        step left it, ShotResult of each acting player's shot). Who holds the keys decides the
        draws, e.g. the same noise for the same row whatever else runs (common random numbers)."""
        params = _strong(params)
        if self.fused:
            return _fused_rows(self.cfg, self.lanes)(state, action, keys, params)
        return transition(self.cfg, state, action, keys, params, make_ops(self.cfg, batched=True, staged=True,
                                                                           lanes=self.lanes))
