"""Train a PPO, SAC or DQN agent on a discipline's "shot" mode and compare it with the random player.

One episode is one shot from a random legal layout (or, with ``--start-probability``, the
discipline's starting position), played with the standard execution noise (``--noise``; 0 plays
the policy's strokes exactly): the defaults of evaluation and of the environments too
(``billiards_env.params.DEFAULT_NOISE``); the reward is the official points of the shot for the shooter
(``--zero-sum``: minus the points it hands the opponent, e.g. a Hungarian foul). Two backends:

* ``--backend jax`` (default, the faster): PPO in plain JAX (``agents.jax_ppo``), every update
  (rollout on the physics lane pool, GAE, the epochs) one compiled call with nothing copied to the
  host; the policy is saved as ``.npz`` + ``.json`` (``agents.JaxPolicyAgent``). PPO, or on the
  ``lines`` form ``--algo dqn`` (``agents.jax_dqn``: Q-learning over the candidates), on the
  official reward (no ``--shaping``).
* ``--backend sb3``: Stable-Baselines3 PPO or SAC (torch) on the batched JAX environments
  (``billiards_env.sb3.BilliardsVecEnv``); saved as ``.zip`` + ``.json`` (``agents.LearnedAgent``).
  The default when an option only it has is given (``--algo sac``, ``--shaping``, ``--staged``,
  ``--threads``).

``--action`` picks the policy's action form (``billiards_env.actions``): ``strike`` (the default,
the raw 9-component strike), ``contact`` (aimed at a chosen ball) or ``lines`` (one of 132
candidate strikes of the geometry). The saved model records it and plays it as a planner.

Both use the same settings, progress bar, evaluation and output files. Every ``--eval-every``
timesteps the deterministic policy (the planner that evaluation commands load) plays one shot
from each of ``--eval-layouts`` fixed random
layouts: success rate (the shot scored) with its 95 % Wilson interval and the mean official
reward. At the end, the trained policy and the random player (``agents.RandomAgent``) play the
same ``--final-layouts`` fresh random layouts.

The defaults, and why (one-shot episodes are a contextual bandit), are in docs/training.md.

Reward shaping is off by default. ``--shaping carom`` adds to the training reward only
``--shaping-weight`` times a carom hint (``carom_progress``: 0 without a carom, else growing with
the cue ball's cushions before it up to the number the discipline asks for), a denser signal than
the scored shots alone for the disciplines where a carom needs cushions. Evaluation always reports
the official points and the shots that scored.

Writes under ``--out`` (default ``results/train/<discipline>_<algo>``, ``..._jax`` for the jax
backend): the model ``<discipline>_<algo>.zip`` (jax: ``<discipline>_<algo>_jax.npz``) and its
sidecar ``.json`` (``agents.LearnedAgent.load``, ``agents.JaxPolicyAgent.load``), the learning
curve ``curve.csv`` and ``curve.png`` (rewritten at every periodic evaluation), and
``summary.json``. ``--export PATH`` saves the model there too. The policy saved is, by default
(``--keep best``), the one with the best periodic evaluation (its mean official reward: the
deterministic policy's success moves by a few points from one update to the next); the final
comparison is on other, fresh layouts, so it is not biased by that choice.

Every column of ``curve.csv`` and every key of ``summary.json`` is described in docs/training.md.

The jax backend needs optax, the sb3 backend Stable-Baselines3 and torch: ``pip install -e
".[all]"`` installs both (the command stops with that line when one is missing).

    python -m experiments.train --discipline three_cushion --algo ppo --timesteps 500000
    python -m experiments.train --backend sb3 --discipline three_cushion --timesteps 500000
    python -m experiments.train --discipline hungarian_1000 --zero-sum --timesteps 20000   # quick
"""
from __future__ import annotations

import argparse
import copy
import json
import os
import sys
import time
from typing import Any, Callable, NamedTuple

import jax
import numpy as np
from tqdm import tqdm

import rules
from agents import ExecutionNoise, RandomAgent, execute, net_points, random_states, shooter_points
from agents.learned import LearnedAgent
from billiards_env.actions import FORMS
from billiards_env.params import DEFAULT_NOISE, DEFAULT_START_PROBABILITY
from agents.stats import mean_ci, wilson
from experiments.common import NOISE_HELP, add_discipline_argument, begin, machine_info, need, noise_arg, write_csv
from physics.simulate import DEFAULT_LANES

BACKENDS = ("jax", "sb3")

ALGOS = ("ppo", "sac", "dqn")
SHAPINGS = ("none", "carom")
EVAL_BATCH = 500  # evaluation shots are played in padded batches of this size (one compilation)
# Per algorithm (and form): n_envs, learning rate, minibatch size, ... (docs/training.md).
COMMON = dict(n_steps=8, epochs=10, lr_schedule="linear", net="64,64", gradient_steps=8, buffer=200_000, plays=1)
DEFAULTS = {"ppo": dict(COMMON, n_envs=512, lr=1e-3, batch_size=512),
            "sac": dict(COMMON, n_envs=64, lr=3e-4, batch_size=256),
            "dqn": dict(COMMON, n_envs=256, lr=1e-3, batch_size=1024, net="256,256,256", gradient_steps=16,
                        buffer=1_000_000, plays=16),
            ("ppo", "lines"): dict(n_envs=256, n_steps=4, batch_size=256, epochs=8, lr=3e-4, lr_schedule="constant",
                                   net="128,128")}
"""The defaults of each algorithm, and of PPO on the "lines" form (a categorical policy over 132
candidates, whose steps cost more than its updates); docs/training.md says why."""


# -- the environment ------------------------------------------------------------------------------


def make_venv(args):
    """The training VecEnv: official rewards, or with the opt-in shaping of ``--shaping``."""
    from billiards_env.gym_env import host
    from billiards_env.sb3 import BilliardsVecEnv

    class ShapedVecEnv(BilliardsVecEnv):
        """``BilliardsVecEnv`` with the opt-in carom hint added to the official reward (which the
        adapter keeps in ``official_rewards``)."""

        shaping_weight = 0.0

        def shape_reward(self, official, stepped):
            if not self.shaping_weight:
                return official
            carom, cushions = host((stepped.outcome.carom, stepped.outcome.cushions))
            return official + np.float32(self.shaping_weight) * carom_progress(carom, cushions, self.params)

    venv = ShapedVecEnv(args.discipline, num_envs=args.n_envs, mode="shot", seed=args.seed, lanes=args.lanes,
                        fused=not args.staged, action=args.action, **env_values(args))
    venv.shaping_weight = args.shaping_weight if args.shaping == "carom" else 0.0
    return venv


def carom_progress(carom, cushions, env_params) -> np.ndarray:
    """The opt-in shaping hint, in [0, 1]: 0 without a carom; with one, (1 + the cue ball's
    cushions before it, at most the number required) / (1 + that number): a direct carom earns
    1/4 of the hint in three-cushion, a carom after three cushions all of it."""
    required = float(env_params.rules.cushions_required)
    done = np.minimum(np.asarray(cushions, np.float32), required)
    return (np.asarray(carom, np.float32) * (1.0 + done) / (1.0 + required)).astype(np.float32)


def env_values(args) -> dict:
    """The ``EnvParams`` values of training (written into the model's sidecar)."""
    return dict(noise=args.noise, zero_sum=args.zero_sum, start_probability=args.start_probability)


def make_model(args, venv):
    import torch
    from stable_baselines3 import PPO, SAC
    from stable_baselines3.common.logger import Logger
    from stable_baselines3.common.utils import LinearSchedule

    lr = LinearSchedule(args.lr, 0.0, 1.0) if args.lr_schedule == "linear" else args.lr

    net = list(net_sizes(args))
    if args.algo == "ppo":
        model = PPO("MlpPolicy", venv, n_steps=args.n_steps, batch_size=args.batch_size, n_epochs=args.epochs,
                    learning_rate=lr, gamma=0.99, gae_lambda=0.95, ent_coef=args.ent_coef, clip_range=0.2,
                    seed=args.seed, device="cpu",
                    policy_kwargs=dict(net_arch=net, log_std_init=0.0, activation_fn=torch.nn.Tanh))
    else:
        model = SAC("MlpPolicy", venv, learning_rate=lr, buffer_size=args.buffer, learning_starts=args.learning_starts,
                    batch_size=args.batch_size, train_freq=1, gradient_steps=args.gradient_steps, seed=args.seed,
                    device="cpu", policy_kwargs=dict(net_arch=net))
    # the run's tracker writes the learning curve; the library's default logger would only leave an
    # empty log folder in the system's temporary folder at every run
    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


# -- evaluation -----------------------------------------------------------------------------------


class Evaluation:
    """One shot from each of a fixed set of random layouts, played by a planner: success (the
    shot scored) and the official reward (the env's: the shooter's points, minus the points
    handed to the opponent with ``zero_sum``)."""

    def __init__(self, env_params, n: int, key, noise: float, zero_sum: bool):
        self.game = env_params.rules
        self.params = env_params.physics
        self.states = random_states(self.game, key, self.params, n)
        self.n = n
        self.noise = ExecutionNoise(noise)
        self.zero_sum = zero_sum
        self.plan_key, self.noise_key = jax.random.split(jax.random.fold_in(key, 1))

    def run(self, planner) -> dict:
        keys = jax.random.split(self.plan_key, self.n)
        shots = planner.plan_batch(self.game, self.states, self.params, keys)
        _, _, outcomes, _ = execute(self.game, self.states, shots, self.params, key=self.noise_key,
                                    noise=self.noise, pad_to=EVAL_BATCH)
        shooter = self.states.current_player
        points = np.asarray(shooter_points(outcomes, shooter))
        rewards = np.asarray(net_points(outcomes, shooter) if self.zero_sum else shooter_points(outcomes, shooter))
        fouls = np.asarray(outcomes.foul)
        k = int((points > 0).sum())
        low, high = wilson(k, self.n)
        mean, mean_low, mean_high = mean_ci(rewards)
        return dict(layouts=self.n, successes=k, success_rate=k / self.n, ci_low=low, ci_high=high,
                    mean_reward=mean, reward_ci_low=mean_low, reward_ci_high=mean_high,
                    foul_rate=float(fouls.mean()))


class Tracker:
    """What both backends do while training: the tqdm progress bar, the periodic evaluation (a row
    of ``curve.csv`` each), the running official training reward, the best policy so far and the
    wall-time limit."""

    def __init__(self, args, evaluation: Evaluation, start_time: float, title: str = ""):
        self.args = args
        self.evaluation = evaluation
        self.start_time = start_time
        self.title = title
        # the random player on the same layouts, once per run: the level each row is compared with
        self.random = evaluation.run(RandomAgent())
        self.rows: list = []
        self.recent: list = []  # official training rewards since the last evaluation
        self.eval_seconds = 0.0
        self.next_eval = 0
        self.best: tuple | None = None  # (mean official reward, timesteps, policy snapshot) of the best evaluation
        self.bar = tqdm(total=args.timesteps, unit="step", dynamic_ncols=True, smoothing=0.05)

    def due(self, timesteps: int) -> bool:
        return self.args.eval_every > 0 and timesteps >= self.next_eval

    def evaluate(self, timesteps: int, planner, snapshot) -> None:
        """Evaluate ``planner`` (the policy after ``timesteps`` shots); ``snapshot()`` copies its
        weights, kept if this is the best evaluation so far."""
        t0 = time.perf_counter()
        row = self.evaluation.run(planner)
        self.eval_seconds += time.perf_counter() - t0
        train = float(np.mean(self.recent)) if self.recent else None  # none before the first rollout
        row = dict(timesteps=int(timesteps), seconds=round(time.perf_counter() - self.start_time, 1),
                   train_reward=train, **row, random_success_rate=self.random["success_rate"],
                   random_mean_reward=self.random["mean_reward"])
        self.rows.append(row)
        if self.best is None or row["mean_reward"] > self.best[0]:
            self.best = (row["mean_reward"], row["timesteps"], snapshot())
        self.recent = []
        self.bar.set_postfix(success=f"{row['success_rate']:.3f}", reward=f"{row['mean_reward']:.2f}")
        tqdm.write(f"{row['timesteps']:>9d} steps, {row['seconds']:7.0f} s: "
                   f"success {row['successes']}/{row['layouts']}"
                   f" = {row['success_rate']:.3f} [{row['ci_low']:.3f}, {row['ci_high']:.3f}], "
                   f"mean reward {row['mean_reward']:.3f}, fouls {row['foul_rate']:.3f}, "
                   "training reward " + ("- (no rollout yet)" if train is None else f"{train:.3f}"))
        self.write()
        while self.args.eval_every > 0 and self.next_eval <= timesteps:  # 0: no periodic evaluation to schedule
            self.next_eval += self.args.eval_every

    def write(self) -> None:
        """``curve.csv`` and ``curve.png`` of the rows so far, the random player's level beside them."""
        write_csv(os.path.join(self.args.out, "curve.csv"), self.rows)
        plot_curve(os.path.join(self.args.out, "curve.png"), self.rows, self.random, self.title)

    def progress(self, timesteps: int) -> bool:
        """Move the bar to ``timesteps``; False once the wall-time limit has passed."""
        self.bar.update(timesteps - self.bar.n)
        limit = self.args.max_minutes
        return limit is None or time.perf_counter() - self.start_time < limit * 60

    def selected(self, timesteps: int):
        """(timesteps of the policy to keep, its snapshot or None for the last one) under ``--keep``."""
        if self.args.keep == "best" and self.best is not None:
            return self.best[1], self.best[2]
        return timesteps, None


def make_callback(args, tracker: Tracker, agent_of):
    from stable_baselines3.common.callbacks import BaseCallback

    class Progress(BaseCallback):
        """The tracker driven by SB3 (training stops at the first update after the time limit)."""

        def snapshot(self):
            return copy.deepcopy(self.model.policy.state_dict())

        def evaluate(self):
            tracker.evaluate(self.num_timesteps, agent_of(self.model), self.snapshot)

        def _on_training_start(self):
            if args.eval_every > 0:
                self.evaluate()  # the untrained policy

        def _on_rollout_start(self):
            # after the policy update that ended the last rollout (PPO), so a row is the policy as saved
            if tracker.due(self.num_timesteps):
                self.evaluate()

        def _on_step(self) -> bool:
            official = getattr(self.training_env, "official_rewards", None)
            if official is not None:
                tracker.recent.append(float(np.mean(official)))
            return tracker.progress(self.num_timesteps)

        def _on_training_end(self):
            tracker.bar.close()

    return Progress()


# -- output ---------------------------------------------------------------------------------------


def plot_curve(path, rows, random_row, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = np.array([r["timesteps"] for r in rows], float)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4))
    ax = axes[0]
    ax.plot(t, [r["success_rate"] for r in rows], "o-", color="#c0504d", ms=3, label="trained policy (deterministic)")
    ax.fill_between(t, [r["ci_low"] for r in rows], [r["ci_high"] for r in rows], color="#c0504d", alpha=0.2)
    if random_row is not None:
        ax.axhline(random_row["success_rate"], color="#7f7f7f", label="random player (same layouts)")
        ax.axhspan(random_row["ci_low"], random_row["ci_high"], color="#7f7f7f", alpha=0.2)
    ax.set_xlabel("training timesteps (shots)")
    ax.set_ylabel("success rate (95 % Wilson interval)")
    ax.set_ylim(bottom=0)
    ax.legend(fontsize=8)
    ax.set_title(f"{title}: shots that scored")
    ax = axes[1]
    ax.plot(t, [r["mean_reward"] for r in rows], "o-", color="#4f81bd", ms=3, label="evaluation (official points)")
    train = [np.nan if r["train_reward"] is None else r["train_reward"] for r in rows]
    ax.plot(t, train, ".-", color="#9bbb59", ms=3, label="training rollouts (official points)")
    if random_row is not None:
        ax.axhline(random_row["mean_reward"], color="#7f7f7f", label="random player (same layouts)")
    ax.set_xlabel("training timesteps (shots)")
    ax.set_ylabel("mean reward per shot")
    ax.legend(fontsize=8)
    ax.set_title(f"{title}: official reward")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# -- main -----------------------------------------------------------------------------------------


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    add_discipline_argument(parser)
    parser.add_argument("--algo", default="ppo", choices=ALGOS)
    parser.add_argument("--backend", choices=BACKENDS,
                        help="jax: PPO in plain JAX, every update one compiled call (the faster, the default); "
                             "sb3: Stable-Baselines3 (PPO or SAC) on the SB3 adapter (the default when an option "
                             "only it has is given: --algo sac, --shaping, --staged, --threads)")
    parser.add_argument("--action", default="strike", choices=FORMS,
                        help="the action form the policy gives (billiards_env.actions): strike, the raw 9-component "
                             "strike, or contact, 10 components aimed at a chosen ball (target, thickness, ...)")
    parser.add_argument("--timesteps", type=int, default=500_000, help="training shots")
    parser.add_argument("--max-minutes", type=float, help="stop training after this wall time (minutes)")
    parser.add_argument("--n-envs", type=int, help="environments per batched step (ppo 512, on lines 256; sac 64)")
    parser.add_argument("--n-steps", type=int, help="PPO: steps per environment per update (8, on lines 4)")
    parser.add_argument("--batch-size", type=int, help="minibatch size (ppo 512, on lines 256; sac 256)")
    parser.add_argument("--epochs", type=int, help="PPO: epochs per update (10, on lines 8)")
    parser.add_argument("--lr", type=float, help="learning rate (ppo 1e-3, on lines 3e-4; sac 3e-4)")
    parser.add_argument("--lr-schedule", choices=("linear", "constant"),
                        help="linear (the default; PPO on lines: constant): the learning rate falls to 0 at "
                             "--timesteps")
    parser.add_argument("--ent-coef", type=float, default=0.0, help="PPO: entropy bonus coefficient")
    parser.add_argument("--net", help="hidden layer sizes of the policy and value networks (64,64; the candidate "
                                      "scorer's on lines: PPO 128,128, DQN 256,256)")
    parser.add_argument("--gradient-steps", type=int, help="SAC, DQN: gradient steps per batched step (8; dqn 16)")
    parser.add_argument("--buffer", type=int, help="SAC, DQN: replay buffer size (200,000; dqn 1,000,000)")
    parser.add_argument("--learning-starts", type=int, default=2048, help="SAC, DQN: shots before the first update")
    parser.add_argument("--explore-fraction", type=float, default=0.2,
                        help="DQN: share of the run over which epsilon falls from 1 to 0.05")
    parser.add_argument("--mode", default="shot", choices=("shot", "inning", "game"),
                        help="DQN: the positions it learns from: shot (drawn layouts), inning (drawn layouts, "
                             "then the leaves of its caroms until a miss) or game (self-play from the break, one "
                             "policy in both seats; with --zero-sum); each shot is rated by its own reward "
                             "(discount 0)")
    parser.add_argument("--gamma", type=float, default=0.0,
                        help="DQN: the discount of the leave's rating added to a carom's target when the shooter "
                             "plays on (0: each shot for itself; 1 in --mode inning: the points of the rest of the "
                             "inning)")
    parser.add_argument("--leave", default="best", choices=("best", "value", "greedy"),
                        help="DQN, with --gamma: what rates a leave: best (the best rating of its candidates), "
                             "value (the value head's reading of the position, which needs no lines: any --plays; "
                             "learnt from every play) or greedy (the value head learnt from the greedy plays only: "
                             "what the policy itself makes of a position)")
    parser.add_argument("--loss", default="mse", choices=("mse", "bce"),
                        help="DQN: the scorer's loss: mse (the reward's regression) or bce (the log-odds of a "
                             "carom; the carom games, whose shots score 0 or 1)")
    parser.add_argument("--plays", type=int,
                        help="DQN: candidates played from each position (16; vine sampling: the position restored "
                             "for each; the greedy one moves on, the others are the next best rated), so that "
                             "finding a position's lines teaches that many ratings")
    parser.add_argument("--init-from-policy", action="store_true",
                        help="DQN with --loss bce: start the candidate scorer as the discipline's shipped success "
                             "model rates (fitted to its log-odds, --init-steps), then fine-tune it by reinforcement "
                             "(not from scratch: its weights come from supervised labels)")
    parser.add_argument("--init-steps", type=int, default=400,
                        help="--init-from-policy: Adam steps fitting the scorer to the model, each on --n-envs "
                             "fresh positions' candidates")
    parser.add_argument("--noise", type=noise_arg, default=DEFAULT_NOISE, help=NOISE_HELP + " (default 1)")
    parser.add_argument("--zero-sum", action="store_true", help="reward minus the points handed to the opponent")
    parser.add_argument("--start-probability", type=float, default=DEFAULT_START_PROBABILITY,
                        help="share of training episodes from the starting position (evaluation: random layouts)")
    parser.add_argument("--shaping", default="none", choices=SHAPINGS, help="opt-in reward shaping (training only)")
    parser.add_argument("--shaping-weight", type=float, default=0.3, help="weight of the carom hint")
    parser.add_argument("--eval-every", type=int, default=50_000,
                        help="timesteps between evaluations (0: none during training, one of the policy at its end)")
    parser.add_argument("--eval-layouts", type=int, default=1000,
                        help="fixed random layouts of the periodic evaluation")
    parser.add_argument("--keep", default="best", choices=("best", "last"),
                        help="the policy saved: best periodic evaluation (mean official reward) or the last")
    parser.add_argument("--final-layouts", type=int, default=2000, help="fresh random layouts of the final comparison")
    parser.add_argument("--lanes", type=int, default=DEFAULT_LANES, help="physics lanes of the batched step")
    parser.add_argument("--staged", action="store_true",
                        help="compile the environment stage by stage (less compile time, slower steps)")
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--distributed", action="store_true",
                        help="several hosts: call jax.distributed.initialize() first (README, 'Several devices')")
    parser.add_argument("--coordinator", help="several hosts: the coordinator's address host:port (implies "
                        "--distributed, with --num-processes and --process-id)")
    parser.add_argument("--num-processes", type=int, help="several hosts: how many processes in all")
    parser.add_argument("--process-id", type=int, help="several hosts: this process's id, 0 on the coordinator")
    parser.add_argument("--out", help="results folder (default results/train/<discipline>_<algo>)")
    parser.add_argument("--export", help="also save the model here (a .zip path; its .json beside it)")
    args = parser.parse_args(argv)
    args.argv = list(sys.argv[1:] if argv is None else argv)  # the command line, for the sidecar
    check_counts(parser, args)
    if args.algo == "dqn" and (args.action != "lines" or args.backend == "sb3"):
        parser.error("--algo dqn learns the lines form on the jax backend: give --action lines (and no --backend sb3)")
    if args.algo != "dqn" and (args.mode != "shot" or args.loss != "mse" or args.gamma != 0
                               or args.plays not in (None, 1) or args.leave != "best"):
        parser.error("--mode, --loss, --gamma, --leave and --plays are the DQN's (--algo dqn); the other learners "
                     "train on \"shot\" episodes")
    if not 0 <= args.gamma <= 1 or (args.gamma > 0 and args.loss != "mse"):
        parser.error(f"--gamma must be in [0, 1] and 0 with --loss bce, got {args.gamma}")
    if args.init_from_policy and (args.algo != "dqn" or args.loss != "bce"):
        parser.error("--init-from-policy fits the DQN's scorer (--algo dqn --action lines) to a success model's "
                     "log-odds of a carom: give --loss bce")
    if args.init_from_policy:
        try:
            teacher_of(args)
        except ValueError as error:
            parser.error(str(error))
    if args.loss == "bce" and rules.disciplines.get(args.discipline).family == "hungarian":
        parser.error("--loss bce needs shots that score 0 or 1 (the carom games); the Hungarian game's score "
                     "10, 50 or 100 and fouls cost points (H-9.4): use --loss mse")
    sb3_only = [flag for flag, given in (("--algo sac", args.algo == "sac"), ("--shaping", args.shaping != "none"),
                                         ("--staged", args.staged), ("--threads", args.threads != 1)) if given]
    if args.backend is None:
        args.backend = "sb3" if sb3_only else "jax"
    if args.backend == "jax" and sb3_only:
        parser.error(f"{', '.join(sb3_only)}: for --backend sb3 only (the jax backend trains PPO or DQN on the "
                     "official reward, without torch)")
    recipe = dict(DEFAULTS[args.algo], **DEFAULTS.get((args.algo, args.action), {}))
    for name, value in recipe.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    if args.gamma > 0 and args.plays > 1 and args.leave == "best":
        parser.error(f"--gamma {args.gamma} with --plays {args.plays} needs --leave value or greedy (or --plays 1): "
                     "the extra plays' leaves have no lines to rate")
    if args.out is None:
        suffix = "_jax" if args.backend == "jax" else ""
        args.out = os.path.join("results", "train", f"{args.discipline}_{args.algo}{suffix}")
    return args


# Options that count something and must be at least this (None: not given, a default fills it in).
AT_LEAST = {"timesteps": 1, "n_envs": 1, "n_steps": 1, "batch_size": 1, "epochs": 1, "eval_every": 0,
            "eval_layouts": 1, "final_layouts": 1, "lanes": 1, "threads": 1, "plays": 1,
            "init_steps": 1}


def check_counts(parser, args) -> None:
    """parser.error for a count below what it allows: each divides the run (updates of n_envs x
    n_steps shots, rates over the layouts, the physics' lanes) or steps a loop, so 0 would stop it
    with a division by zero, or loop for ever (``--eval-every``: 0 is none)."""
    for name, low in AT_LEAST.items():
        value = getattr(args, name)
        if value is not None and value < low:
            parser.error(f"--{name.replace('_', '-')} must be at least {low}"
                         + (" (0: no periodic evaluation)" if name == "eval_every" else "") + f", got {value}")


class Trained(NamedTuple):
    """What a backend's training hands to the shared report."""

    agent: Any  # the planner saved (LearnedAgent or JaxPolicyAgent)
    load: Callable  # path -> the planner, read back from its files
    env_params: Any
    tracker: Tracker
    timesteps: int
    selected: int
    setup_seconds: float
    train_seconds: float
    extra_timings: dict


def train_sb3(args, env_settings: dict, start_time: float) -> Trained:
    """Stable-Baselines3 PPO or SAC on the SB3 adapter (``billiards_env.sb3``)."""
    import torch

    torch.set_num_threads(args.threads)
    venv = make_venv(args)
    model = make_model(args, venv)

    def agent_of(m, info=None):
        return LearnedAgent(m, args.discipline, args.algo, env_settings, info)

    tracker = Tracker(args, make_evaluation(args, venv.params, args.eval_layouts, 1), start_time, curve_title(args))
    callback = make_callback(args, tracker, agent_of)
    setup_seconds = time.perf_counter() - start_time
    train_start = time.perf_counter()
    model.learn(args.timesteps, callback=callback)
    train_seconds = time.perf_counter() - train_start
    if not tracker.rows or tracker.rows[-1]["timesteps"] != model.num_timesteps:
        callback.evaluate()
    selected, weights = tracker.selected(int(model.num_timesteps))
    if weights is not None:
        model.policy.load_state_dict(weights)
    info = dict(run_record(args), timesteps=int(model.num_timesteps), selected_timesteps=selected,
                train_seconds=round(train_seconds, 1), settings=dict(vars(args)))
    return Trained(agent_of(model, info), LearnedAgent.load, venv.params, tracker, int(model.num_timesteps), selected,
                   setup_seconds, train_seconds, {})


def ppo_config(args, updates: int):
    """The JAX PPO's settings from the command line (the same flags as the SB3 PPO)."""
    from agents.jax_ppo import PPOConfig

    return PPOConfig(n_envs=args.n_envs, n_steps=args.n_steps, minibatch_size=args.batch_size, epochs=args.epochs,
                     lr=args.lr, lr_schedule=args.lr_schedule, total_updates=updates, hidden=net_sizes(args),
                     ent_coef=args.ent_coef, lanes=args.lanes)


def q_config(args, updates: int, hungarian: bool):
    """The Q-learner's settings from the command line (rewards over 100 in the Hungarian game, H-9.4)."""
    from agents.jax_dqn import QConfig

    return QConfig(n_envs=args.n_envs, gradient_steps=args.gradient_steps, batch_size=args.batch_size,
                   buffer=args.buffer, learning_starts=args.learning_starts, lr=args.lr, lr_schedule=args.lr_schedule,
                   total_updates=updates, explore_fraction=args.explore_fraction,
                   reward_scale=0.01 if hungarian else 1.0, hidden=net_sizes(args), loss=args.loss, gamma=args.gamma,
                   leave=args.leave, plays=args.plays, lanes=args.lanes)


def train_jax(args, env_settings: dict, start_time: float) -> Trained:
    """The JAX PPO (``agents.jax_ppo``) or Q-learner (``agents.jax_dqn``): every update one
    compiled call, no host copies between."""
    from agents.jax_policy import JaxPolicyAgent
    from agents.jax_ppo import PPO
    from billiards_env import make_functional

    opponent = "two_player" if args.mode == "game" else "random"  # game: self-play, both seats the learner
    env = make_functional(args.discipline, args.mode, opponent, action=args.action, **env_values(args))
    shots = args.n_envs * (args.plays if args.algo == "dqn" else args.n_steps)
    updates = max(1, -(-args.timesteps // shots))
    if args.algo == "dqn":
        from agents.jax_dqn import CandidateQ
        learner = CandidateQ(env, q_config(args, updates, env.default_params.rules.is_hungarian))
    else:
        learner = PPO(env, ppo_config(args, updates))
    tracker = Tracker(args, make_evaluation(args, learner.env_params, args.eval_layouts, 1), start_time,
                      curve_title(args))
    state = learner.init(args.seed)
    if args.init_from_policy:
        state, loss = learner.imitate(state, teacher_of(args), args.init_steps)
        print(f"the scorer fitted to the success model's log-odds in {args.init_steps} steps: squared error {loss:.4f}")
    setup_seconds = time.perf_counter() - start_time
    train_start = time.perf_counter()

    def evaluate(timesteps):
        tracker.evaluate(timesteps, learner.agent(state, env_settings), lambda: jax.device_get(state.net))

    if args.eval_every > 0:
        evaluate(0)
    done, seconds = 0, []
    for _ in range(updates):
        t0 = time.perf_counter()
        state, metrics = learner.update(state)
        tracker.recent.append(float(metrics["reward"]))  # waits for the update: the time is the update's
        seconds.append(time.perf_counter() - t0)
        done += shots
        if tracker.due(done):
            evaluate(done)
        if not tracker.progress(done):
            break
    train_seconds = time.perf_counter() - train_start
    tracker.bar.close()
    if not tracker.rows or tracker.rows[-1]["timesteps"] != done:
        evaluate(done)
    selected, net = tracker.selected(done)
    info = dict(run_record(args), timesteps=done, selected_timesteps=selected, train_seconds=round(train_seconds, 1),
                settings=dict(vars(args)))
    agent = JaxPolicyAgent(jax.device_get(state.net) if net is None else net, args.discipline, env_settings, info)
    return Trained(agent, JaxPolicyAgent.load, learner.env_params, tracker, done, selected, setup_seconds,
                   train_seconds, update_timings(seconds, shots))


def teacher_of(args) -> list:
    """The layers of the discipline's shipped success model for the training noise, when it rates
    the "lines" form's candidates from their own features: a "score" model on the same inputs
    and grid (``billiards_env.lines``); ValueError saying what differs otherwise."""
    from agents.policy import load_model
    from billiards_env import lines

    net, meta = load_model(args.discipline, noise=args.noise)
    proposal = meta.get("proposal", {})
    found = dict(target=meta.get("target"), features=meta.get("features"), seeds=proposal.get("seeds"),
                 rolling=proposal.get("rolling"), aims=proposal.get("aims"))
    want = dict(target="score", features=lines.VERSION, seeds=lines.SEEDS, rolling=lines.ROLLING, aims=None)
    if found != want:
        raise ValueError(f"--init-from-policy: the {args.discipline} success model has {found}; the lines form's "
                         f"candidates need {want}")
    return net


def run_record(args) -> dict:
    """What a sidecar says of its training run: the algorithm, the backend and the command."""
    command = " ".join(["python -m experiments.train"] + args.argv)
    return dict(algorithm=args.algo, backend=args.backend, command=command)


def update_timings(seconds: list, shots: int) -> dict:
    """The first update's time (it compiles) and the shots per second of the others."""
    rest = sum(seconds[1:])
    return dict(first_update_s=round(seconds[0], 1) if seconds else None,
                compiled_shots_per_s=round(shots * (len(seconds) - 1) / rest, 1) if rest > 0 else None)


def curve_title(args) -> str:
    form = "" if args.action == "strike" else f", {args.action} actions"
    return f"{args.discipline}, {args.algo.upper()}" + (" (JAX)" if args.backend == "jax" else " (SB3)") + form


# The optional packages each backend imports (pyproject's extras: jax, rl; "all" has both).
BACKEND_PACKAGES = {"jax": ("optax",), "sb3": ("torch", "stable_baselines3")}


def check_backend(args) -> None:
    """Stop with the install line when a package the backend needs is missing, before any work."""
    for module in BACKEND_PACKAGES[args.backend]:
        need(module, what=f"experiments.train --backend {args.backend}")


def make_evaluation(args, env_params, layouts: int, which: int) -> Evaluation:
    """The periodic (``which`` 1) or the final (2) evaluation's fixed layouts."""
    key = jax.random.fold_in(jax.random.PRNGKey(args.seed + 1000), which)
    return Evaluation(env_params, layouts, key, args.noise, args.zero_sum)


def net_sizes(args) -> tuple[int, ...]:
    return tuple(int(x) for x in args.net.split(",") if x.strip())


def start_distributed(args) -> None:
    """``jax.distributed.initialize`` for a run over several hosts (before any other JAX call)."""
    if args.coordinator is not None:
        jax.distributed.initialize(args.coordinator, num_processes=args.num_processes, process_id=args.process_id)
    elif args.distributed:
        jax.distributed.initialize()


def main(argv=None):
    begin()
    args = parse_args(argv)
    check_backend(args)
    start_distributed(args)
    os.makedirs(args.out, exist_ok=True)
    start_time = time.perf_counter()
    env_settings = dict(mode="shot", obs_format="flat", rule_options={}, physics_options={}, values=env_values(args),
                        action=args.action)
    trained = (train_jax if args.backend == "jax" else train_sb3)(args, env_settings, start_time)
    tracker, rows = trained.tracker, trained.tracker.rows

    settings = dict(vars(args))
    name = f"{args.discipline}_{args.algo}" + ("_jax" if args.backend == "jax" else "")
    suffix = ".npz" if args.backend == "jax" else ".zip"
    model_path, sidecar_path = trained.agent.save(os.path.join(args.out, name + suffix))
    exported = list(trained.agent.save(args.export)) if args.export else []

    print(f"final comparison on {args.final_layouts} random layouts", flush=True)
    final_eval = make_evaluation(args, trained.env_params, args.final_layouts, 2)
    t0 = time.perf_counter()
    final = final_eval.run(trained.load(model_path))
    random_final = final_eval.run(RandomAgent())
    final_seconds = time.perf_counter() - t0
    random_curve = tracker.random
    for label, row in (("trained", final), ("random", random_final)):
        print(f"  {label:8s} success {row['successes']}/{row['layouts']} = {row['success_rate']:.4f} "
              f"[{row['ci_low']:.4f}, {row['ci_high']:.4f}], mean reward {row['mean_reward']:.3f} "
              f"[{row['reward_ci_low']:.3f}, {row['reward_ci_high']:.3f}], fouls {row['foul_rate']:.3f}")

    wall_shots_per_s = trained.timesteps / max(1e-9, trained.train_seconds)
    summary = dict(
        discipline=args.discipline, algorithm=args.algo, backend=args.backend, action_form=args.action,
        timesteps=trained.timesteps,
        selected_timesteps=trained.selected,
        final=dict(trained=final, random=random_final, layouts=args.final_layouts,
                   trained_beats_random=final["ci_low"] > random_final["ci_high"]),
        periodic_evaluation=dict(layouts=args.eval_layouts, last=rows[-1] if rows else None, random=random_curve),
        timings=dict(setup_s=round(trained.setup_seconds, 1), train_s=round(trained.train_seconds, 1),
                     train_evaluation_s=round(tracker.eval_seconds, 1), final_evaluation_s=round(final_seconds, 1),
                     wall_shots_per_s=round(wall_shots_per_s, 1), **trained.extra_timings,
                     total_s=round(time.perf_counter() - start_time, 1)),
        settings=settings, env=env_settings,
        reward="official points of the shot for the shooter" + (" minus the points handed to the opponent"
                                                                 if args.zero_sum else "")
        + (f"; training adds {args.shaping_weight} x the carom hint (opt-in shaping)"
           if args.shaping == "carom" else ""),
        files=dict(model=model_path, sidecar=sidecar_path, exported=exported,
                   model_bytes=os.path.getsize(model_path)),
        machine=machine_info(),
    )
    with open(os.path.join(args.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=float)
    tracker.write()
    print(f"wrote {args.out}/ ({model_path}, curve.csv, curve.png, summary.json) "
          f"in {summary['timings']['total_s']:.0f} s")
    return summary


if __name__ == "__main__":
    main()
