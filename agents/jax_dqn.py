"""Q-learning over the "lines" form's candidates in plain JAX and optax: a neural contextual bandit
for one-shot ("shot" mode) episodes, the form's recommended recipe (docs/agents.md section 6).

A shot's episode ends with the shot, so its value is its reward: the network learns Q(s, a), the
expected official reward of candidate a in the position s, by regression on the rewards of the
candidates it played (discount 0), and plays the candidate it rates highest. The Q-network is the
categorical policy's candidate scorer (``agents.jax_policy``: one MLP over each candidate's
features, masked candidates never chosen), so the trained policy is a ``JaxPolicyAgent`` of the
"lines" form like the PPO's; its value head learns the reward of the played shot from the flat
observation (a reading of the position's worth under the policy; not used to act). Why this rather
than PPO on the form: an update costs the gradient of one candidate per sample instead of all 132
over several epochs, so the environment's step (finding the lines) sets the pace, and every shot
teaches the rating of what it played (measured in docs/agents.md section 6).

One update: every one of ``n_envs`` environments plays one shot (epsilon-greedy: with probability
epsilon a valid candidate at random, else the best rated; epsilon falls linearly from
``eps_start`` to ``eps_end`` over the first ``explore_fraction`` of the updates) and, with
``plays`` above 1, ``plays - 1`` more candidates from the same position (vine sampling), the
played candidates' features and targets go into a ring buffer of ``buffer`` samples, and
``gradient_steps`` Adam steps on minibatches of ``batch_size`` drawn from it follow (none before
``learning_starts`` samples). ``QConfig`` says what each setting changes.

The positions it learns from: a "shot" environment's drawn layouts; an "inning" environment's (the
drawn layout, then each leave of the policy's caroms until a miss); or a "game" environment
without a built-in opponent (``opponent="two_player"``): self-play, one policy in both seats,
every step a shot by the player to play, rated by his reward (with ``zero_sum``, his points minus
those he hands the opponent), from the break to the end of the game.

    dqn = CandidateQ(billiards_env.make_functional("three_cushion", action="lines"), QConfig(total_updates=4000))
    state = dqn.init(seed=0)
    state, metrics = dqn.update(state)
    agent = dqn.agent(state)                   # agents.JaxPolicyAgent, a planner
"""
from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from physics import devices
from physics.simulate import DEFAULT_LANES
from agents.jax_policy import JaxPolicyAgent, init_network, logits, mlp, value
from agents.nets import mlp_apply
from agents.jax_ppo import SCHEDULES, check_counts, learning_rate
from billiards_env import lines as env_lines
from billiards_env.functional import FunctionalEnv
from billiards_env.modes import shooter_reward
from billiards_env.observation import OBS_SIZE
from billiards_env.runner import batch_play, batch_step


LEAVES = ("best", "value", "greedy")  # what rates a leave when gamma > 0: its best candidate, or the value head
LOSSES = ("mse", "bce")  # the candidate scorer's loss: squared error, or logistic (rewards 0 or 1)
MODES = ("shot", "inning", "game")  # the environment modes it learns from (discount 0 in each)


@dataclasses.dataclass(frozen=True)
class QConfig:
    """The Q-learner's settings (the module docstring has the loop).

    ``lr_schedule``: the learning rate stays at ``lr`` or falls linearly to 0 over the run's
    gradient steps (a bandit's regression settles once its data stop changing). ``reward_scale``:
    the target is the reward times it (1 in the carom games, 1/100 in the Hungarian game, whose
    shots are worth up to 100 points: H-9.4). ``loss``: "mse", a regression of the target; or
    "bce", a logistic one (the scorer's output is the log-odds that the shot scores), for rewards
    of 0 or 1 (the carom games' shots): the gradient weighs a shot by how wrong its chance was.
    ``gamma``: above 0, a shot's target adds ``gamma`` times the best rating of the position it
    leaves when the same player shoots next (in "inning" mode with ``gamma`` 1, the points of the
    rest of the inning: position play), rated by the acting network when the sample is stored (a
    fixed target, stale by the buffer's age, which saves keeping every sample's next candidates).
    ``leave``: what rates the leave: "best", the best rating of its candidates (its lines found
    by the step); or "value", the value head's reading of its flat observation (the points the
    position is worth, itself learnt towards the same targets: TD(0)), which needs no lines and so
    rates the leaves of the extra ``plays`` too; or "greedy", the value head learnt from the
    epsilon-greedy plays only. With ``plays`` above 1, "value" learns the mean of every play's
    target, most of them the position's lesser candidates, so it reads a leave at a fraction of
    what the policy makes of it; "greedy" learns what the policy itself makes of a position.
    ``plays``: candidates played from each position an update (vine sampling, as TRPO's "vine"
    rollouts restore the simulator's state): the epsilon-greedy one that moves the environment on,
    and the ``plays - 1`` best rated of the others, each with probability epsilon a valid one at
    random instead, played from the same position under their own noise and stored beside it.
    Finding a position's lines costs about ten shots' physics, so each position then teaches
    ``plays`` ratings for little more than the cost of one; ``n_envs * plays`` shots an update.
    All measured in docs/agents.md section 6.
    """

    n_envs: int = 256
    gradient_steps: int = 8
    batch_size: int = 512
    buffer: int = 262_144
    learning_starts: int = 4096
    lr: float = 1e-3
    lr_schedule: str = "constant"
    total_updates: int = 1
    eps_start: float = 1.0
    eps_end: float = 0.05
    explore_fraction: float = 0.2
    reward_scale: float = 1.0
    hidden: tuple[int, ...] = (128, 128)
    max_grad_norm: float = 1.0
    loss: str = "mse"
    gamma: float = 0.0
    leave: str = "best"
    plays: int = 1
    lanes: int = DEFAULT_LANES

    def __post_init__(self):
        check_counts(self, ("n_envs", "gradient_steps", "batch_size", "buffer", "total_updates", "plays", "lanes"))
        if self.buffer < self.n_envs * self.plays:
            raise ValueError(f"QConfig.buffer must hold at least one update's n_envs * plays = "
                             f"{self.n_envs * self.plays} samples, got {self.buffer}")
        if self.leave not in LEAVES:
            raise ValueError(f"QConfig.leave must be one of {', '.join(LEAVES)}, got {self.leave!r}")
        if self.plays > env_lines.COUNT or (self.plays > 1 and self.gamma > 0 and self.leave == "best"):
            raise ValueError(f"QConfig.plays must be at most the {env_lines.COUNT} candidates, and 1 with gamma > 0 "
                             f"and leave \"best\" (the extra plays' leaves are not viewed), got plays={self.plays}, "
                             f"gamma={self.gamma}")
        if not (0.0 <= self.eps_end <= self.eps_start <= 1.0) or not (0.0 < self.explore_fraction <= 1.0):
            raise ValueError(f"QConfig needs 0 <= eps_end <= eps_start <= 1 and 0 < explore_fraction <= 1, got "
                             f"{self.eps_end}, {self.eps_start}, {self.explore_fraction}")
        if self.lr_schedule not in SCHEDULES:
            raise ValueError(f"QConfig.lr_schedule must be one of {', '.join(SCHEDULES)}, got {self.lr_schedule!r}")
        if self.loss not in LOSSES:
            raise ValueError(f"QConfig.loss must be one of {', '.join(LOSSES)}, got {self.loss!r}")
        if not 0.0 <= self.gamma <= 1.0 or (self.gamma > 0 and self.loss != "mse"):
            raise ValueError(f"QConfig.gamma must be in [0, 1], and 0 with the logistic loss (its targets are "
                             f"chances), got gamma={self.gamma}, loss={self.loss!r}")
        if not self.hidden or any(int(h) < 1 for h in self.hidden):
            raise ValueError(f"QConfig.hidden must be positive layer sizes, got {self.hidden!r}")


class QState(NamedTuple):
    """Everything the Q-learner carries from one update to the next."""

    net: Any
    opt_state: Any
    env_state: Any  # billiards_env.State, leaves (n_envs, ...)
    key: jax.Array
    updates: jax.Array  # () int32
    replay: dict  # "features" (buffer, FEATURES), "obs" (buffer, OBS_SIZE), "target" (buffer,)
    filled: jax.Array  # () int32, samples in the buffer


def epsilon(config: QConfig, updates):
    """The exploration rate after ``updates`` updates: linear from eps_start to eps_end."""
    span = max(1.0, config.explore_fraction * config.total_updates)
    frac = jnp.clip(jnp.asarray(updates, jnp.float32) / span, 0.0, 1.0)
    return config.eps_start + frac * (config.eps_end - config.eps_start)


def _at_random(obs):
    """(n, COUNT) logits of a uniform draw among each position's valid candidates (among all of
    them when none is valid)."""
    _, mask = env_lines.split(obs)
    valid = mask > 0.5
    return jnp.where(valid | ~jnp.any(valid, -1, keepdims=True), 0.0, -jnp.inf)


def choose(net, obs, key, eps):
    """Epsilon-greedy candidates (n,) for "lines" observations (n, size): the best rated, or with
    probability ``eps`` a valid one (any, when none is valid) at random."""
    k_pick, k_coin = jax.random.split(key)
    rand = jax.random.categorical(k_pick, _at_random(obs))
    greedy = jnp.argmax(logits(net, obs), -1)
    explore = jax.random.uniform(k_coin, greedy.shape) < eps
    return jnp.where(explore, rand, greedy).astype(jnp.int32)


def others(net, obs, key, eps, first, count: int):
    """(n, count) more candidates to play beside ``first`` (n,) from the same positions: the
    ``count`` best rated but ``first``, each with probability ``eps`` a valid one (any, when none
    is valid) at random instead (``QConfig.plays``)."""
    k_pick, k_coin = jax.random.split(key)
    rated = logits(net, obs)
    _, top = jax.lax.top_k(rated.at[jnp.arange(first.shape[0]), first].set(-jnp.inf), count)
    rand = jax.random.categorical(k_pick, _at_random(obs)[:, None, :], shape=top.shape)
    explore = jax.random.uniform(k_coin, top.shape) < eps
    return jnp.where(explore, rand, top).astype(jnp.int32)


class CandidateQ:
    """The Q-learner on a "lines" ``FunctionalEnv`` in "shot", "inning" or two-player "game" mode
    with ``env_params`` (default: the env's ``default_params``); ``init``, ``update`` as
    ``agents.jax_ppo.PPO``'s."""

    def __init__(self, env: FunctionalEnv, config: QConfig | None = None, env_params=None):
        if env.action_form != "lines" or env.mode not in MODES or (env.mode == "game" and env.policy is not None):
            raise ValueError(f"CandidateQ learns the \"lines\" form in \"shot\" or \"inning\" mode, or in \"game\" "
                             f"mode by self-play (opponent \"two_player\"), not action={env.action_form!r}, "
                             f"mode={env.mode!r}" + (" against a built-in opponent" if env.mode == "game" else ""))
        self.env = env
        self.config = c = config or QConfig()
        self.env_params = env.default_params if env_params is None else env_params
        steps = c.total_updates * c.gradient_steps  # an upper bound: none are taken before learning_starts
        self.optimizer = optax.chain(optax.clip_by_global_norm(c.max_grad_norm),
                                     optax.adam(learning_rate(c.lr, c.lr_schedule, steps)))
        self._step = batch_step(env.config, c.lanes, autoreset=True, final_view=False)
        self._play = batch_play(env.config, c.lanes)
        self._init_jit = jax.jit(self._init)
        self._update_jit = jax.jit(self._update)

    def init(self, seed: int) -> QState:
        return self._init_jit(seed, self.env_params)

    def update(self, state: QState):
        """One update: (next QState, metrics: dict of () arrays)."""
        return self._update_jit(state, self.env_params)

    @property
    def shots_per_update(self) -> int:
        return self.config.n_envs * self.config.plays

    def agent(self, state: QState, env: dict | None = None, info: dict | None = None) -> JaxPolicyAgent:
        """The greedy policy as a planner (env: the environment settings for its sidecar)."""
        return JaxPolicyAgent(jax.device_get(state.net), self.env.discipline, env, info, action_form="lines")

    def _init(self, seed, params) -> QState:
        c = self.config
        k_net, k_env, key = jax.random.split(jax.random.PRNGKey(seed), 3)
        net = init_network(k_net, tuple(c.hidden), form="lines")
        env_state = self.env.init_batch(jax.random.split(k_env, c.n_envs), params)
        replay = {"features": jnp.zeros((c.buffer, env_lines.FEATURES), jnp.float32),
                  "obs": jnp.zeros((c.buffer, OBS_SIZE), jnp.float32), "target": jnp.zeros((c.buffer,), jnp.float32)}
        if c.leave == "greedy":  # 1 where the sample is the epsilon-greedy play: the value head's rows
            replay["chosen"] = jnp.zeros((c.buffer,), jnp.float32)
        zero = jnp.zeros((), jnp.int32)
        return QState(net, self.optimizer.init(net), devices.constrain_batch(env_state), key, zero, replay, zero)

    def _loss(self, net, mb):
        q = mlp(net["pi"], mb["features"])[..., 0]
        v = value(net, mb["obs"])
        if self.config.loss == "bce":  # q: the log-odds of a carom; the target 0 or 1
            q_loss = jnp.mean(optax.sigmoid_binary_cross_entropy(q, jnp.clip(mb["target"], 0.0, 1.0)))
        else:
            q_loss = jnp.mean((q - mb["target"]) ** 2)
        if "chosen" in mb:
            v_loss = jnp.sum(mb["chosen"] * (v - mb["target"]) ** 2) / jnp.maximum(jnp.sum(mb["chosen"]), 1.0)
        else:
            v_loss = jnp.mean((v - mb["target"]) ** 2)
        return q_loss + v_loss, dict(q_loss=q_loss, value_loss=v_loss)

    def imitate(self, state: QState, teacher, steps: int, lr: float = 1e-3) -> tuple[QState, float]:
        """``state`` with the candidate scorer fitted, by ``steps`` Adam steps of squared error, to
        ``teacher``'s ratings (``agents.nets`` layers over the same candidate features, e.g. a
        success model's log-odds of a carom) of every valid candidate of ``n_envs`` fresh
        positions a step: a policy that starts as the teacher ranks, for reinforcement fine-tuning.
        The optimizer starts afresh; returns (state, the last step's loss)."""
        if steps < 1:
            raise ValueError(f"imitate needs at least 1 step, got {steps}")
        fit = optax.adam(lr)
        step = jax.jit(functools.partial(self._imitate_step, fit, teacher))
        net, opt, key, loss = state.net, fit.init(state.net["pi"]), state.key, jnp.zeros(())
        for _ in range(steps):
            key, k_pos = jax.random.split(key)
            net, opt, loss = step(net, opt, k_pos, self.env_params)
        return state._replace(net=net, opt_state=self.optimizer.init(net), key=key), float(loss)

    def _imitate_step(self, fit, teacher, net, opt, key, params):
        positions = self.env.init_batch(jax.random.split(key, self.config.n_envs), params)
        feats, mask = env_lines.split(positions.observation)
        want = mlp_apply(teacher, feats)[..., 0]
        valid = (mask > 0.5).astype(jnp.float32)

        def loss(pi):
            err = (mlp(pi, feats)[..., 0] - want) ** 2
            return jnp.sum(err * valid) / jnp.maximum(jnp.sum(valid), 1.0)

        value_, grads = jax.value_and_grad(loss)(net["pi"])
        updates, opt = fit.update(grads, opt, net["pi"])
        return dict(net, pi=optax.apply_updates(net["pi"], updates)), opt, value_

    def _leave(self, net, before, after, seen):
        """The worth of each position ``after`` leaves where the shooter plays on from it (else 0):
        the best rating of its candidates in ``seen`` (its observation, lines found), or the
        value head's reading of its flat part (``QConfig.leave``)."""
        goes_on = ~after.done & (after.current_player == before.current_player)
        if self.config.leave != "best":
            worth = value(net, after.observation[:, :OBS_SIZE])
        else:
            worth = jnp.max(logits(net, seen), -1)
        return jnp.where(goes_on, worth, 0.0)

    def _update(self, state: QState, params):
        """One update: a shot per environment, then the gradient steps: (QState, metrics)."""
        c = self.config
        if c.plays > 1:
            key, k_act, k_env, k_fit, k_more, k_play = jax.random.split(state.key, 6)
        else:  # the draws of one play a position as they were before vine sampling
            key, k_act, k_env, k_fit = jax.random.split(state.key, 4)
        obs = state.env_state.observation
        eps = epsilon(c, state.updates)
        action = choose(state.net, obs, k_act, eps)
        following, stepped = self._step(state.env_state, action, k_env, params)
        official = shooter_reward(state.env_state, stepped)
        feats, _ = env_lines.split(obs)
        played = jnp.take_along_axis(feats, action[:, None, None], 1)[:, 0]
        target = official * c.reward_scale
        if c.gamma > 0:  # the leave's worth where the shooter plays on from it (not after a reset)
            target = target + c.gamma * self._leave(state.net, state.env_state, stepped, following.observation)
        new = {"features": played, "obs": obs[:, :OBS_SIZE], "target": target}
        if c.leave == "greedy":
            new["chosen"] = jnp.ones_like(target)
        if c.plays > 1:  # the same positions again, the others' outcomes only
            more = others(state.net, obs, k_more, eps, action, c.plays - 1).reshape(-1)
            again = jax.tree_util.tree_map(lambda x: jnp.repeat(x, c.plays - 1, 0), state.env_state)
            outcome = self._play(again, more, jax.random.split(k_play, more.shape[0]), params)
            rows = jnp.repeat(jnp.arange(c.n_envs), c.plays - 1)
            extra = {"features": feats[rows, more], "obs": obs[rows, :OBS_SIZE],
                     "target": shooter_reward(again, outcome) * c.reward_scale}
            if c.gamma > 0:
                extra["target"] += c.gamma * self._leave(state.net, again, outcome, outcome.observation)
            if c.leave == "greedy":
                extra["chosen"] = jnp.zeros_like(extra["target"])
            new = {name: jnp.concatenate([new[name], extra[name]]) for name in new}
        size = c.n_envs * c.plays
        at = (state.filled % c.buffer + jnp.arange(size)) % c.buffer
        replay = {name: state.replay[name].at[at].set(new[name].astype(jnp.float32)) for name in new}
        filled = state.filled + size  # samples ever stored; the buffer holds min(filled, buffer)
        held = jnp.minimum(filled, c.buffer)
        learn = filled >= c.learning_starts

        def fit(carry, k):
            net, opt_state = carry
            rows = jax.random.randint(k, (c.batch_size,), 0, held)
            mb = {name: x[rows] for name, x in replay.items()}
            grads, stats = jax.grad(self._loss, has_aux=True)(net, mb)
            updates, new_opt = self.optimizer.update(grads, opt_state, net)
            new_net = optax.apply_updates(net, updates)
            keep = lambda a, b: jax.tree_util.tree_map(lambda x, y: jnp.where(learn, x, y), a, b)  # noqa: E731
            return (keep(new_net, net), keep(new_opt, opt_state)), stats

        (net, opt_state), stats = jax.lax.scan(fit, (state.net, state.opt_state),
                                               jax.random.split(k_fit, c.gradient_steps))
        metrics = {name: jnp.mean(v) for name, v in stats.items()}
        metrics.update(reward=jnp.mean(official), epsilon=eps, episodes=jnp.sum(stepped.done.astype(jnp.int32)))
        return QState(net, opt_state, devices.constrain_batch(following), key, state.updates + 1, replay,
                      filled), metrics


__all__ = ["LEAVES", "LOSSES", "MODES", "CandidateQ", "QConfig", "QState", "choose", "epsilon", "others"]
