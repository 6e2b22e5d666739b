"""PPO in plain JAX and optax: one update (a rollout over a batch of environments, GAE, and the
clipped-objective epochs over minibatches) is one compiled function, and ``PPO.run`` scans any
number of updates in one call. Nothing leaves the device between updates.

    ppo = PPO(billiards_env.make_functional("three_cushion"), PPOConfig(total_updates=488))
    state = ppo.init(seed=0)
    state, metrics = ppo.run(state, 10)          # 10 updates, metrics stacked (10,)
    agent = ppo.agent(state)                     # agents.JaxPolicyAgent, a planner

The settings mirror ``experiments.train``'s Stable-Baselines3 PPO (see its docstring for why):
512 environments x 8 steps, minibatches of 512, 10 epochs, Adam at 1e-3 falling linearly to 0
(per optimiser step, over ``total_updates``), clip range 0.2, value coefficient 0.5, no entropy
bonus, gradient norm clipped at 0.5, advantages normalised per minibatch, separate tanh MLPs of
64 x 64 for the policy and the value, a state-independent log std starting at 0. The Gaussian's
sample is clipped into the action box when played and its log-probability is the unclipped one
(``agents.jax_policy``: "clip" squashing). A truncated episode's last reward is bootstrapped with
the value of its final observation (as Stable-Baselines3 does); "shot" episodes always terminate.

The policy's action is the environment's form (``make_functional(..., action=form)``): its
network has ``billiards_env.actions.size(form)`` outputs, its Gaussian as many components, and the
trained planner records the form. On the "lines" form the policy is categorical over the
candidates (``agents.jax_policy.logits``: one scorer for every candidate), its entropy that of the
softmax.

The environments step on the physics lane pool (``billiards_env.runner.batch_step``, split over
the devices by ``physics.devices``); ``env_step="vmap"`` steps them with a ``vmap`` of
``FunctionalEnv.step_autoreset`` instead, for comparison (slower: every shot of a batch then
runs as long as the longest). Training is deterministic for a seed.
"""
from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from physics import devices
from physics.simulate import DEFAULT_LANES
from agents.jax_policy import JaxPolicyAgent, init_network, logits, mean_action, value
from billiards_env import actions as env_actions
from billiards_env.functional import FunctionalEnv
from billiards_env.modes import shooter_reward
from billiards_env.runner import batch_step

ENV_STEPS = ("pool", "vmap")
SCHEDULES = ("linear", "constant")


def learning_rate(lr: float, schedule: str, steps: int):
    """Adam's learning rate: ``lr`` throughout ("constant"), or falling linearly from it to 0 over
    ``steps`` optimizer steps ("linear"); the trainers share it."""
    return optax.linear_schedule(lr, 0.0, steps) if schedule == "linear" else lr


def check_counts(config, names) -> None:
    """ValueError naming the first of ``names`` whose value in ``config`` is not a positive integer
    (the trainers' settings that count environments, steps, samples or lanes)."""
    for name in names:
        v = getattr(config, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{type(config).__name__}.{name} must be a positive integer, got {v!r}")


@dataclasses.dataclass(frozen=True)
class PPOConfig:
    """PPO's settings (see the module docstring for the defaults). total_updates: the updates
    the linear learning-rate schedule spans (it reaches 0 at the end)."""

    n_envs: int = 512
    n_steps: int = 8
    minibatch_size: int = 512
    epochs: int = 10
    lr: float = 1e-3
    lr_schedule: str = "linear"
    total_updates: int = 1
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    vf_coef: float = 0.5
    ent_coef: float = 0.0
    max_grad_norm: float = 0.5
    hidden: tuple[int, ...] = (64, 64)
    log_std_init: float = 0.0
    lanes: int = DEFAULT_LANES
    env_step: str = "pool"

    def __post_init__(self):
        check_counts(self, ("n_envs", "n_steps", "minibatch_size", "epochs", "total_updates", "lanes"))
        if (self.n_envs * self.n_steps) % self.minibatch_size:
            raise ValueError(f"PPOConfig.minibatch_size must divide n_envs x n_steps = {self.n_envs * self.n_steps}, "
                             f"got {self.minibatch_size}")
        if self.lr_schedule not in SCHEDULES:
            raise ValueError(f"PPOConfig.lr_schedule must be one of {', '.join(SCHEDULES)}, got {self.lr_schedule!r}")
        if self.env_step not in ENV_STEPS:
            raise ValueError(f"PPOConfig.env_step must be one of {', '.join(ENV_STEPS)}, got {self.env_step!r}")
        if not self.hidden or any(int(h) < 1 for h in self.hidden):
            raise ValueError(f"PPOConfig.hidden must be positive layer sizes, got {self.hidden!r}")

    @property
    def minibatches(self) -> int:
        return self.n_envs * self.n_steps // self.minibatch_size


class TrainState(NamedTuple):
    """Everything training carries from one update to the next."""

    net: Any
    opt_state: Any
    env_state: Any  # billiards_env.State, leaves (n_envs, ...)
    key: jax.Array
    updates: jax.Array  # () int32


class Transition(NamedTuple):
    obs: jax.Array
    raw_action: jax.Array  # the Gaussian's sample, before clipping
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array  # the learner's: the official reward, plus the bootstrap of a truncation
    done: jax.Array
    official: jax.Array  # the acting player's official reward (for the curves)


def log_prob(raw_action, mean, log_std):
    """Log-density of the diagonal Gaussian at the unclipped sample, summed over the action."""
    z = (raw_action - mean) * jnp.exp(-log_std)
    return jnp.sum(-0.5 * z * z - log_std - 0.5 * jnp.log(2.0 * jnp.pi), axis=-1)


def entropy(log_std):
    return jnp.sum(log_std + 0.5 * jnp.log(2.0 * jnp.pi * jnp.e))


def categorical_log_prob(index, logit):
    """Log-probability of the candidates ``index`` (...) under the softmax of ``logit`` (..., K)."""
    return jnp.take_along_axis(jax.nn.log_softmax(logit), index[..., None].astype(jnp.int32), -1)[..., 0]


def categorical_entropy(logit):
    """Mean entropy of the softmax of ``logit`` (..., K)."""
    log_p = jax.nn.log_softmax(logit)
    return jnp.mean(-jnp.sum(jnp.exp(log_p) * log_p, -1))


def gae(traj: Transition, last_value, gamma: float, lam: float):
    """(advantages, returns), (n_steps, n_envs) each: generalised advantage estimation."""

    def back(carry, t):
        adv_next, value_next = carry
        live = 1.0 - t.done.astype(jnp.float32)
        delta = t.reward + gamma * value_next * live - t.value
        adv = delta + gamma * lam * live * adv_next
        return (adv, t.value), adv

    _, adv = jax.lax.scan(back, (jnp.zeros_like(last_value), last_value), traj, reverse=True)
    return adv, adv + traj.value


class PPO:
    """PPO on a ``FunctionalEnv`` with ``env_params`` (default: the env's ``default_params``).

    ``init(seed)``, ``update(state)`` and ``run(state, n)`` are compiled once per (environment
    config, ``PPOConfig``) and shared by every ``PPO`` object with both equal; the params are an
    argument, not a constant, so other parameter values (a fixed layout, noise) reuse them.
    """

    def __init__(self, env: FunctionalEnv, config: PPOConfig | None = None, env_params=None):
        self.env = env
        self.config = config or PPOConfig()
        self.env_params = env.default_params if env_params is None else env_params
        self._compiled = _compiled(env, self.config)

    def init(self, seed: int) -> TrainState:
        return self._compiled.init(seed, self.env_params)

    def update(self, state: TrainState):
        """One update: (next TrainState, metrics: dict of () arrays)."""
        return self._compiled.update(state, self.env_params)

    def run(self, state: TrainState, n: int):
        """``n`` updates in one call: (TrainState, metrics with a leading axis n)."""
        return self._compiled.run(state, self.env_params, int(n))

    # -- results --------------------------------------------------------------------------------

    @property
    def shots_per_update(self) -> int:
        return self.config.n_envs * self.config.n_steps

    def agent(self, state: TrainState, env: dict | None = None, info: dict | None = None) -> JaxPolicyAgent:
        """The trained policy as a planner (env: the environment settings for its sidecar)."""
        return JaxPolicyAgent(jax.device_get(state.net), self.env.discipline, env, info,
                              action_form=self.env.action_form)


_COMPILED: dict = {}


def _compiled(env: FunctionalEnv, config: PPOConfig) -> "_Trainer":
    key = (env.config, config)
    if key not in _COMPILED:
        _COMPILED[key] = _Trainer(env, config)
    return _COMPILED[key]


class _Trainer:
    """The compiled functions of one (environment config, PPOConfig); the params are arguments."""

    def __init__(self, env: FunctionalEnv, config: PPOConfig):
        self.env = env
        self.config = c = config
        self.categorical = env.action_form == "lines"
        steps = c.total_updates * c.epochs * c.minibatches
        self.optimizer = optax.chain(optax.clip_by_global_norm(c.max_grad_norm),
                                     optax.adam(learning_rate(c.lr, c.lr_schedule, steps), eps=1e-5))
        self._step = self._env_step()
        self.init = jax.jit(self._init)
        self.update = jax.jit(self._update)
        self.run = jax.jit(self._run, static_argnums=2)

    def _env_step(self):
        c = self.config
        if c.env_step == "pool":
            return batch_step(self.env.config, c.lanes, autoreset=True, final_view=False)
        step_one = jax.vmap(self.env.step_autoreset, in_axes=(0, 0, 0, None))

        def step(states, action, key, params):
            return step_one(states, action, jax.random.split(key, action.shape[0]), params)

        return step

    # -- the compiled pieces ------------------------------------------------------------------

    def _init(self, seed, params) -> TrainState:
        key = jax.random.PRNGKey(seed)
        k_net, k_env, key = jax.random.split(key, 3)
        net = init_network(k_net, tuple(self.config.hidden), self.config.log_std_init,
                           env_actions.size(self.env.action_form), self.env.action_form)
        env_state = self.env.init_batch(jax.random.split(k_env, self.config.n_envs), params)
        return TrainState(net, self.optimizer.init(net), devices.constrain_batch(env_state), key,
                          jnp.zeros((), jnp.int32))

    def _rollout(self, net, env_state, key, params):
        c = self.config

        def one(carry, _):
            env_state, key = carry
            key, k_act, k_env = jax.random.split(key, 3)
            obs = env_state.observation
            if self.categorical:
                logit = logits(net, obs)
                raw = played = jax.random.categorical(k_act, logit).astype(jnp.int32)
                log_p = categorical_log_prob(raw, logit)
            else:
                mean = mean_action(net, obs)
                raw = mean + jnp.exp(net["log_std"]) * jax.random.normal(k_act, mean.shape)
                played = jnp.clip(raw, env_actions.LOW, env_actions.HIGH)
                log_p = log_prob(raw, mean, net["log_std"])
            following, stepped = self._step(env_state, played, k_env, params)
            official = shooter_reward(env_state, stepped)
            cut = stepped.truncated & ~stepped.terminated
            reward = official + c.gamma * jnp.where(cut, value(net, stepped.observation), 0.0)
            t = Transition(obs, raw, log_p, value(net, obs), reward, stepped.done, official)
            return (devices.constrain_batch(following), key), t

        (env_state, key), traj = jax.lax.scan(one, (env_state, key), None, length=c.n_steps)
        return env_state, key, traj

    def _loss(self, net, mb):
        c = self.config
        if self.categorical:
            logit = logits(net, mb["obs"])
            new_log_p, ent = categorical_log_prob(mb["raw_action"], logit), categorical_entropy(logit)
        else:
            mean = mean_action(net, mb["obs"])
            new_log_p, ent = log_prob(mb["raw_action"], mean, net["log_std"]), entropy(net["log_std"])
        ratio = jnp.exp(new_log_p - mb["log_prob"])
        adv = (mb["adv"] - mb["adv"].mean()) / (mb["adv"].std() + 1e-8)
        policy_loss = -jnp.mean(jnp.minimum(ratio * adv, jnp.clip(ratio, 1 - c.clip_range, 1 + c.clip_range) * adv))
        value_loss = jnp.mean((mb["returns"] - value(net, mb["obs"])) ** 2)
        loss = policy_loss + c.vf_coef * value_loss - c.ent_coef * ent
        stats = dict(policy_loss=policy_loss, value_loss=value_loss, entropy=ent,
                     approx_kl=jnp.mean(ratio - 1.0 - jnp.log(ratio)),
                     clip_fraction=jnp.mean((jnp.abs(ratio - 1.0) > c.clip_range).astype(jnp.float32)))
        return loss, stats

    def _update(self, state: TrainState, params):
        """One PPO update: (next TrainState, metrics of () arrays)."""
        c = self.config
        env_state, key, traj = self._rollout(state.net, state.env_state, state.key, params)
        adv, returns = gae(traj, value(state.net, env_state.observation), c.gamma, c.gae_lambda)
        n = c.n_envs * c.n_steps
        batch = dict(obs=traj.obs, raw_action=traj.raw_action, log_prob=traj.log_prob, adv=adv, returns=returns)
        batch = jax.tree_util.tree_map(lambda x: x.reshape((n,) + x.shape[2:]), batch)

        def minibatch(carry, mb):
            net, opt_state = carry
            grads, stats = jax.grad(self._loss, has_aux=True)(net, mb)
            updates, opt_state = self.optimizer.update(grads, opt_state, net)
            return (optax.apply_updates(net, updates), opt_state), stats

        def epoch(carry, k):
            order = jax.random.permutation(k, n)
            mbs = jax.tree_util.tree_map(lambda x: x[order].reshape((c.minibatches, c.minibatch_size) + x.shape[1:]),
                                         batch)
            return jax.lax.scan(minibatch, carry, mbs)

        key, k_epochs = jax.random.split(key)
        epoch_keys = jax.random.split(k_epochs, c.epochs)
        (net, opt_state), stats = jax.lax.scan(epoch, (state.net, state.opt_state), epoch_keys)
        metrics = {name: jnp.mean(v) for name, v in stats.items()}
        metrics.update(reward=jnp.mean(traj.official), episodes=jnp.sum(traj.done.astype(jnp.int32)),
                       std=jnp.zeros(()) if self.categorical else jnp.mean(jnp.exp(net["log_std"])))
        return TrainState(net, opt_state, env_state, key, state.updates + 1), metrics

    def _run(self, state: TrainState, params, n: int):
        return jax.lax.scan(lambda s, _: self._update(s, params), state, None, length=n)



__all__ = ["PPO", "PPOConfig", "TrainState", "gae", "log_prob"]
