"""Training a discipline's leave value (``agents.leave``) by fitted value iteration.

Two stages, the first cached under ``--out``:

* data (``data.npz``): game states of the discipline, random legal layouts
  (``agents.states.random_states_for``) and, from the second chunk on, up to half of each chunk
  taken from the layouts that earlier chunks' best candidates left when the shooter played on
  (mid-run layouts, with the run's counters: they are the layouts the value is asked about). For
  each state the search's own proposal (``SearchAgent.propose``: perturbed geometric lines and
  random strikes, ``--candidates``; with ``--screen N``, the ``--candidates`` that the exact screen
  keeps of N proposed, as the search under noise plays them, ``agents.search.screened``) is played
  ``--trials`` times under the execution noise ``--noise`` (``agents.search.simulate_candidates``)
  and judged by the referee. Kept per state: its features, and for the ``--top`` candidates with
  the most points, per play, the net points, whether the shooter plays on, and the features of
  the layout left.
* fit: V_0 = 0, and V_k+1 is an MLP fitted (mean squared error, Adam) to the targets
  y_k(s) = max over candidates c of mean over plays of [points + plays_on * V_k(layout left)],
  ``--iterations`` times, each fit starting from the last. The max over noisy means is taken
  with the double estimator (the candidate chosen on one half of the plays is valued on the
  other half, both ways, averaged), which keeps the max of noisy means from inflating the
  values. A tenth of the states is held out. Per iteration: the mean target, the training and
  held-out errors -> ``fit.json``, ``curve.png``, the layers in ``net.npz``.

``--ship`` writes the fitted value as the discipline's shipped one (``agents/models``), with a
sidecar naming the data, the command and the figures.

    python -m experiments.leave_value --discipline balkline_47_2 --states 16384 --seed 5 \\
        --out results/leave/balkline_47_2 --ship

Deterministic per ``--seed``.
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import shlex
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

import rules
from agents.base import index_tree
from agents.states import random_states_for
from agents.leave import FEATURES, features_batch, save_value
from agents.nets import mlp_apply, mlp_init
from agents.play import net_points
from agents.search import SearchAgent, SearchConfig, screened, simulate_candidates
from agents.store import MODELS_DIR
from agents.arena import SEARCH_SHOTS, to_host
from billiards_env import setup
from experiments.common import NOISE_HELP, add_discipline_argument, begin, machine_info, noise_arg
from experiments.success_model import fit as fit_net

SIZES = (FEATURES, 128, 128, 1)


def data_config(candidates: int, trials: int, noise: float, screen: int = 0) -> SearchConfig:
    """The search settings whose proposal and plays make the data (round 1 only; with ``screen``,
    the candidates are the ones the exact screen keeps of that many proposed, as the search's)."""
    return SearchConfig(candidates=candidates, trials=trials, noise=noise, refine_parents=0, screen=screen)


@functools.partial(jax.jit, static_argnames=("shape", "top"))
def _summarise(ruleset, rep, results, params, shape, top: int):
    """The referee's verdicts on S x C x T plays, kept for the ``top`` candidates with the most
    points: (points, plays_on (S, top, T), features of the layouts left (S, top, T, F)), and for
    each state one layout its best candidate left with the shooter to play on (``has``)."""
    S, C, T = shape
    nxt, out = rules.referee_batch(ruleset, rep, results, params)
    shooter = rep.current_player
    points = net_points(out, shooter).astype(jnp.float32).reshape(S, C, T)
    on = ((nxt.current_player == shooter) & ~out.game_over).reshape(S, C, T)
    feats = features_batch(ruleset, nxt, params).reshape(S, C, T, FEATURES)
    _, best = jax.lax.top_k(jnp.mean(points, -1), top)  # (S, top)
    take = lambda x: jnp.take_along_axis(x, best.reshape((S, top) + (1,) * (x.ndim - 2)), 1)  # noqa: E731
    first = best[:, 0]
    on_first = jnp.take_along_axis(on, first[:, None, None], 1)[:, 0]  # (S, T)
    row = (jnp.arange(S) * C + first) * T + jnp.argmax(on_first, -1)
    left = jax.tree_util.tree_map(lambda x: x[row], nxt)
    return take(points), take(on), take(feats), left, jnp.any(on_first, -1)


def generate(game, params, n_states: int, cfg: SearchConfig, top: int, seed: int, progress: bool = True):
    """The data (see the module docstring) as a dict of NumPy arrays."""
    per_call = max(1, SEARCH_SHOTS // (cfg.candidates * cfg.trials))
    agent = SearchAgent(cfg)
    key = jax.random.PRNGKey(seed)
    pool: list = []  # host states left by best candidates, to be valued in later chunks
    parts: dict[str, list] = {k: [] for k in ("x", "points", "on", "next")}
    calls = -(-n_states // per_call)
    for c in tqdm(range(calls), desc=f"states (x{per_call})", disable=not progress):
        k_layout, k_prop, k_play = jax.random.split(jax.random.fold_in(key, c), 3)
        states = random_states_for(game, jax.random.split(k_layout, per_call), params)
        n_left = min(len(pool), per_call // 2)
        if n_left:
            picked = [pool.pop() for _ in range(n_left)]
            left = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *picked)
            states = jax.tree_util.tree_map(lambda r, x, n=n_left: jnp.concatenate([jnp.asarray(x), r[n:]]),
                                            states, left)
        shots = agent.propose(game, states, params, jax.random.split(k_prop, per_call))
        if cfg.screen:  # the candidates the search itself plays under noise (agents.search.screened)
            shots = screened(game, states, params, shots, cfg)
        rep, results = simulate_candidates(game, states, params, shots, jax.random.split(k_play, per_call),
                                           cfg.trials, cfg)
        points, on, feats, left, has = _summarise(game, rep, results, params,
                                                  (per_call, cfg.candidates, cfg.trials), top)
        parts["x"].append(np.asarray(features_batch(game, states, params)))
        parts["points"].append(np.asarray(points))
        parts["on"].append(np.asarray(on))
        parts["next"].append(np.asarray(feats, np.float32))
        left, has = to_host(left), np.asarray(has)
        pool = [index_tree(left, i) for i in np.nonzero(has)[0]] + pool
    return {k: np.concatenate(v)[:n_states] for k, v in parts.items()}


@jax.jit
def _targets(net, points, on, nxt):
    """(N,) y = the double-estimated max over candidates of points + plays_on * V(left)."""
    q = points + jnp.where(on, mlp_apply(net, nxt)[..., 0], 0.0)
    h = q.shape[-1] // 2
    a, b = jnp.mean(q[..., :h], -1), jnp.mean(q[..., h:], -1)  # (N, K)
    pick = lambda values, by: jnp.take_along_axis(values, jnp.argmax(by, -1)[:, None], -1)[:, 0]  # noqa: E731
    return 0.5 * (pick(b, a) + pick(a, b))


def targets(net, data, chunk: int = 1024) -> np.ndarray:
    """``_targets`` over all states, ``chunk`` states a call (one compiled shape; the last padded)."""
    n = len(data["x"])
    out = []
    for lo in range(0, n, chunk):
        rows = np.arange(lo, lo + chunk).clip(max=n - 1)
        out.append(np.asarray(_targets(net, data["points"][rows], data["on"][rows], data["next"][rows])))
    return np.concatenate(out)[:n]


def value_iteration(data, iterations: int, epochs: int, lr: float, seed: int, progress: bool = True):
    """(net, history): fitted value iteration (module docstring); history per iteration: the
    mean target, the training and held-out mean squared errors."""
    n = len(data["x"])
    rng = np.random.default_rng(seed)
    held = np.zeros(n, bool)
    held[rng.choice(n, size=max(1, n // 10), replace=False)] = True
    net = mlp_init(jax.random.PRNGKey(seed), SIZES)
    zero = [(W * 0.0, b * 0.0) for W, b in net]  # V_0 = 0
    x = jnp.asarray(data["x"])

    def loss(net, xb, yb):
        return jnp.mean((mlp_apply(net, xb)[:, 0] - yb) ** 2)

    history = []
    current = zero
    for k in range(iterations):
        y = targets(current, data)
        net = fit_net(net, loss, (x[~held], jnp.asarray(y[~held])), epochs, 256, lr, seed + k,
                      f"iteration {k + 1}/{iterations}", progress)
        pred = np.asarray(mlp_apply(net, x)[:, 0])
        history.append(dict(iteration=k + 1, mean_target=float(y.mean()), mean_value=float(pred.mean()),
                            train_mse=float(np.mean((pred - y)[~held] ** 2)),
                            heldout_mse=float(np.mean((pred - y)[held] ** 2)),
                            heldout_target_var=float(np.var(y[held]))))
        current = net
    return net, history


def plot(path, history, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    it = [h["iteration"] for h in history]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.plot(it, [h["mean_target"] for h in history], "o-", label="mean target y_k")
    a1.plot(it, [h["mean_value"] for h in history], "s--", label="mean V_k+1")
    a1.set_xlabel("iteration")
    a1.set_ylabel("points of the rest of the inning")
    a1.legend()
    a2.plot(it, [h["train_mse"] for h in history], "o-", label="training")
    a2.plot(it, [h["heldout_mse"] for h in history], "s-", label="held out")
    a2.plot(it, [h["heldout_target_var"] for h in history], ":", label="held-out target variance")
    a2.set_xlabel("iteration")
    a2.set_ylabel("mean squared error")
    a2.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def build_parser():
    parser = argparse.ArgumentParser(prog="python -m experiments.leave_value", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    add_discipline_argument(parser)
    parser.add_argument("--states", type=int, default=4096, help="game states valued")
    parser.add_argument("--candidates", type=int, default=128, help="strikes of the search's proposal per state")
    parser.add_argument("--trials", type=int, default=8, help="noisy plays per strike (even: the double estimator)")
    parser.add_argument("--screen", type=int, default=0,
                        help="strikes proposed and screened as aimed, of which the --candidates kept are played "
                             "(0: the proposal is played; the search under noise screens 4096)")
    parser.add_argument("--top", type=int, default=16, help="candidates kept per state (most points first)")
    parser.add_argument("--noise", type=noise_arg, default=1.0, help=NOISE_HELP + " (default 1)")
    parser.add_argument("--iterations", type=int, default=12, help="fitted value iterations")
    parser.add_argument("--epochs", type=int, default=20, help="epochs per iteration")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fresh", action="store_true", help="make the data again even if data.npz exists")
    parser.add_argument("--ship", action="store_true", help="write the value as the discipline's shipped one")
    parser.add_argument("--out", default="results/leave_value")
    parser.add_argument("--no-progress", action="store_true")
    return parser


def main(argv=None):
    begin()
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.trials < 2 or args.trials % 2:
        raise SystemExit(f"--trials must be even and at least 2 (the double estimator), got {args.trials}")
    if not 1 <= args.top <= args.candidates:
        raise SystemExit(f"--top must be in [1, --candidates], got {args.top}")
    if args.noise <= 0:
        raise SystemExit("--noise must be > 0: the value is learned from noisy plays")
    if args.states < 1 or args.iterations < 1 or args.candidates < 1:
        parser.error(f"--states, --iterations and --candidates must be at least 1, got {args.states}, "
                     f"{args.iterations} and {args.candidates}")
    progress = not args.no_progress
    ruleset, params = setup(args.discipline)
    if args.screen and args.screen < args.candidates:
        raise SystemExit(f"--screen must be 0 or at least --candidates ({args.candidates}), got {args.screen}")
    cfg = data_config(args.candidates, args.trials, args.noise, args.screen)
    os.makedirs(args.out, exist_ok=True)
    data_path = os.path.join(args.out, "data.npz")
    t0 = time.perf_counter()
    if args.fresh or not os.path.isfile(data_path):
        data = generate(ruleset, params, args.states, cfg, args.top, args.seed, progress)
        np.savez_compressed(data_path, **data)
    with np.load(data_path) as f:
        data = {k: f[k] for k in f.files}
    t_data = time.perf_counter() - t0
    net, history = value_iteration(data, args.iterations, args.epochs, args.lr, args.seed, progress)
    np.savez(os.path.join(args.out, "net.npz"), **{f"{i}/{n}": np.asarray(a) for i, layer in enumerate(net)
                                                  for n, a in zip("Wb", layer)})
    command = "python -m experiments.leave_value " + " ".join(shlex.quote(a) for a in (argv or sys.argv[1:]))
    report = dict(discipline=args.discipline, states=len(data["x"]), data_config=cfg.describe(), top=args.top,
                  noise=args.noise, iterations=args.iterations, epochs=args.epochs, seed=args.seed,
                  data_seconds=t_data, history=history, command=command, machine=machine_info())
    with open(os.path.join(args.out, "fit.json"), "w", encoding="utf-8") as f:
        json.dump(report, f, indent=1)
    plot(os.path.join(args.out, "curve.png"), history, f"leave value, {args.discipline}")
    last = history[-1]
    print(f"{args.discipline}: {len(data['x'])} states, mean V {last['mean_value']:.3f} points; held-out MSE "
          f"{last['heldout_mse']:.3f} (target variance {last['heldout_target_var']:.3f})")
    if args.ship:
        paths = save_value(net, args.discipline, MODELS_DIR, args.noise, command=command, data=dict(
            states=len(data["x"]), config=cfg.describe(), top=args.top, seed=args.seed), figures=last)
        print("shipped:", ", ".join(paths))


if __name__ == "__main__":
    main()
