"""Making the success models (``agents.success``) and shipping them as a discipline's policy
(``agents.policy``): three-cushion by default, the Hungarian game with ``--discipline
hungarian_1000`` (its "net_points" target, ``--head classes`` for an outcome-class head).

Six stages, each reading the previous one's files under ``--out`` (``room`` reads the shipped models):

* ``generate``: random legal layouts (``agents.states.random_states``) of ``--discipline`` on its
  own table, ``--candidates`` strikes each from the search's proposal (``agents.success.proposal``)
  or, with ``--grid``, the grid of variations of the best lines (``agents.success.line_grid``;
  ``--aims``: each of its strikes at one of these aim offsets, drawn, ``agents.success.aim_jitter``,
  for a model that ranks the grid at every offset, ``agents.success.aimed``); every strike played
  ``--trials`` times under ``--noise`` (the pin simulated as the search does,
  ``agents.search.play_candidates``) and judged by the referee -> ``data.npz`` (layouts, strikes,
  the label, best lines). The label depends on the discipline's target kind
  (``agents.policy.target_for``): "score", whether the strike scored, or with several plays the
  fraction that did; "net_points" (Hungarian), the mean net points of its plays over 100.
* ``train``: (A) the success model, an MLP fitted by binary cross-entropy to the (hard or soft)
  "score" labels, or by mean squared error to the "net_points" ones (``--standardize``: on
  standardised inputs, folded into the first layer; ``--data`` may name several folders made
  alike); with ``--head classes`` a "net_points" model is a softmax over the shot's possible net
  points (``OUTCOMES``) fitted by cross-entropy to the fraction of plays in each, and rates a
  strike by the expectation (the data keeps every play's points since this head exists); (B) a
  cloned search: for each layout the search's choice among its candidates (the geometric line
  with most scoring perturbations, corrected by their median offset), learned as a softmax over
  the layout's lines plus the correction -> ``nets.pkl``.
* ``merge``: the success models of several runs (``--members``, of one kind) averaged into one
  (``agents.nets.ensemble``), validated with each member on the first one's held-out layouts
  -> ``nets.pkl``, which ``ship`` reads as a trained run's.
* ``evaluate``: one shot from each of ``--layouts`` fresh layouts for random, geometric, the
  success model's player (``SuccessAgent``), the cloned player (``ClonedAgent``) and optionally
  the search on the first ``--search`` of them; success rates with 95 % Wilson intervals, mean
  net points with 95 % intervals and milliseconds per decision ->
  ``evaluate_noise<scale>_x<samples>.json``.
* ``room``: how much better a choice the shipped policy's own strikes allow (``choice_room``):
  on ``--layouts`` fresh layouts every strike it ranks is played ``--trials`` times under
  ``--noise``; among its K best-rated strikes the one with the best mean over half of the plays
  is valued on the other half -> ``room_noise<scale>.json``. K = 1 is the policy's own choice,
  and the row over all strikes is what a perfect ranking of them could reach at least.
* ``ship``: the grid success model as the discipline's policy (``agents.policy``, the agent spec
  ``policy`` of ``experiments.evaluate``), with a sidecar naming the discipline, the target kind,
  the data and the commands (``--plays-for``, ``--note``, ``--noise-draws``: the noise draws the
  policy averages each rating over, ``agents.policy.check_noise_draws``; see ``--help``).

Deterministic per ``--seed``. For example (the shipped exact three-cushion model was trained
on two such data folders, seeds 3 and 13):

    python -m experiments.success_model generate --grid --no-rolling --layouts 16384 --seed 3 --out results/f16a
    python -m experiments.success_model train --features 4 --epochs 8 --no-rolling --data results/f16a \\
        --out results/e32v4
    python -m experiments.success_model evaluate --grid --no-rolling --layouts 200 --noise 1 --out results/e32v4
    python -m experiments.success_model ship --out results/e32v4    # -> agents/models/three_cushion.*

The commands that made each shipped model are in its sidecar (``commands``) and in docs/agents.md
section 3 (three-cushion: 3.6; the Hungarian game: 3.4 exact, 3.5 under noise; the ``room`` and
proposal runs: 3.1, 3.2), with every model tried and its figures.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import pickle
import shlex
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np
from tqdm.auto import tqdm

from agents import (
    ExecutionNoise, GeometricAgent, RandomAgent, SearchAgent, execute, net_points, random_states, shooter_points,
)
from agents.base import index_tree
from aiming.frame import frame
from agents.nets import ensemble, mlp_apply, mlp_init
from agents.policy import PolicyAgent, save_model, target_for
from agents.search import SearchConfig, best_lines, play_candidates
from agents.store import MODELS_DIR
from agents.success import (
    AIMS, FEATURE_VERSIONS, NET_UNIT, ClonedAgent, SuccessAgent, aim_jitter, check_aims, check_features, check_outcomes,
    line_correction, line_grid, line_inputs, line_shots, net_rating, pair_features, proposal, ratings, seeded_line,
)
from agents.stats import mean_ci, wilson
from billiards_env import setup
from experiments.common import NOISE_HELP, begin, machine_info, need, noise_arg
from physics.execution import shot_array, shot_from_array

# the networks train with optax (the jax extra); experiments.leave_value imports fit from here
optax = need("optax", what="experiments.success_model and experiments.leave_value")

CHUNK = 64  # layouts simulated per call (one compiled simulation)
SEEDS = 12  # geometric lines perturbed by the proposal


def setting(discipline: str = "three_cushion"):
    """(physics params, rules) of the discipline, on its own table (the Hungarian game's 1:2 one)."""
    ruleset, params = setup(discipline)
    return params, ruleset


def data_config(candidates: int, noise: float = 0.0) -> SearchConfig:
    """The proposal's settings; ``noise``: the execution-noise scale each strike is simulated with."""
    return SearchConfig(candidates=candidates, seeds=SEEDS, refine_parents=0, noise=noise)


# --- generate ---------------------------------------------------------------------------------

def scored_label(values) -> jax.Array:
    """(S, N) the label of each strike from its values (S, N, T) over T plays: whether it scored
    (T = 1, bool), or the fraction of plays that scored (T > 1, a soft label in [0, 1] that
    prefers strikes whose scoring region is wide under the execution noise)."""
    hits = values > 0
    return hits[..., 0] if values.shape[-1] == 1 else jnp.mean(hits, -1, dtype=jnp.float32)


def net_label(values) -> jax.Array:
    """(S, N) float32: the mean net points of each strike over its T plays (values (S, N, T), the
    search's judgement: the shooter's points minus what a foul hands the opponent, docs/rules.md
    H-9.7), in units of ``NET_UNIT``: the regression target of a "net_points" model."""
    return jnp.mean(jnp.asarray(values, jnp.float32), -1) / NET_UNIT


def strike_label(values, target: str) -> jax.Array:
    """(S, N) the label of the target kind (``agents.success.TARGETS``) from the values (S, N, T)."""
    return scored_label(values) if target == "score" else net_label(values)


def generate(args):
    params, ruleset = setting(args.discipline)
    target = target_for(args.discipline)
    cfg = data_config(args.candidates, args.noise)
    key = jax.random.PRNGKey(args.seed)
    parts = []
    for c in tqdm(range(-(-args.layouts // CHUNK)), desc="layouts (x64)"):
        k = jax.random.fold_in(key, c)
        states = random_states(ruleset, jax.random.fold_in(k, 0), params, CHUNK)
        if args.grid:
            best = best_lines(ruleset, states, params, cfg.seeds, args.rolling)
            shots = line_grid(best, params)
            if args.aims != AIMS:  # one aim offset per strike, drawn: the policy ranks every offset
                shots = aim_jitter(shots, args.aims, jax.random.fold_in(k, 3))
        else:
            shots, best = proposal(ruleset, states, params, jax.random.split(jax.random.fold_in(k, 1), CHUNK), cfg)
        # With noise, the strikes of one layout share one noise draw (the search's fair comparison).
        values = play_candidates(ruleset, states, params, shots, jax.random.split(jax.random.fold_in(k, 2), CHUNK),
                                 args.trials, cfg)
        parts.append(dict(positions=states.positions, cue=states.cue_ball, shots=shot_array(shots),
                          scored=strike_label(values, target), best=jnp.stack(best, -1),
                          values=jnp.asarray(values, jnp.int16)))  # every play's points: outcome classes
    data = {name: np.concatenate([np.asarray(p[name]) for p in parts])[:args.layouts] for name in parts[0]}
    data["grid"] = np.asarray(args.grid)
    os.makedirs(args.out, exist_ok=True)
    np.savez_compressed(os.path.join(args.out, "data.npz"), **data)
    _write_json(args.out, "generate.json", dict(command=args.command, layouts=args.layouts, trials=args.trials,
                                                noise=args.noise, rolling=args.rolling, aims=list(args.aims),
                                                strikes=int(data["scored"].size), discipline=args.discipline,
                                                target=target))
    mean = data["scored"].mean()
    print(f"{data['scored'].size} strikes ({args.trials} plays each) on {args.layouts} layouts, "
          + (f"{mean:.3%} scored" if target == "score" else f"{mean * NET_UNIT:.2f} net points on average"))


# --- train ------------------------------------------------------------------------------------

def _lines(b):
    """The best lines (score, phi, V0, b) of an array (..., k, 4)."""
    return tuple(b[..., i] for i in range(4))


def success_dataset(data, params, features: int = 1):
    """(X, y): the inputs of version ``features`` (``agents.success.FEATURE_VERSIONS``) of every
    (layout, strike) pair and its label (whether it scored, the fraction of plays that did, or its
    mean net points over ``NET_UNIT``)."""
    feats = jax.jit(jax.vmap(jax.vmap(lambda p, c, s, b: pair_features(p, c, s, _lines(b), params, features),
                                      (None, None, 0, None))))
    X = np.concatenate([np.asarray(feats(data["positions"][i:i + 256], data["cue"][i:i + 256],
                                         shot_from_array(data["shots"][i:i + 256]), data["best"][i:i + 256]),
                                   np.float32)  # the networks compute in float32; half the memory
                        for i in range(0, len(data["cue"]), 256)])
    return X.reshape(-1, X.shape[-1]), data["scored"].reshape(-1).astype(np.float32)


def clone_dataset(data, params, cfg):
    """(inputs (L, k, 18), usable (L, k), target line (L,), correction (L, 4)) for the layouts
    where a seeded strike scored: the line with most scoring strikes and their median correction."""
    line = np.asarray(seeded_line(cfg))
    inputs = jax.jit(jax.vmap(lambda p, c, b: line_inputs(p, c, _lines(b), params)))
    corr = jax.jit(jax.vmap(lambda p, c, ls, s: line_correction(shot_from_array(ls), shot_from_array(s),
                                                                frame(p, c, params))))
    rows = []
    for i in range(len(data["cue"])):
        usable = data["best"][i, :, 0] > 0  # lines without a seed play random strikes instead
        hits = data["scored"][i] & (line >= 0) & usable[np.maximum(line, 0)]
        if not hits.any():
            continue
        counts = np.bincount(line[hits], minlength=cfg.seeds)
        j = int(np.argmax(counts))
        chosen = np.nonzero(hits & (line == j))[0]
        rows.append((i, j, chosen))
    idx = np.array([r[0] for r in rows])
    X = np.asarray(inputs(data["positions"][idx], data["cue"][idx], data["best"][idx]))
    usable = data["best"][idx][..., 0] > 0
    targets = np.array([r[1] for r in rows])
    deltas = []
    for i, j, chosen in rows:
        ls = np.broadcast_to(np.asarray(shot_array(line_shots(_lines(data["best"][i, j])))), (len(chosen), 5))
        d = corr(np.broadcast_to(data["positions"][i], (len(chosen), 3, 2)), np.full(len(chosen), data["cue"][i]),
                 ls, data["shots"][i, chosen])
        deltas.append(np.median(np.asarray(d), 0))
    return X, usable, targets, np.stack(deltas).astype(np.float32)


def fit(net, loss_fn, arrays, epochs, batch, lr, seed, desc, progress: bool = True):
    """Adam on mini-batches of the rows of ``arrays``; cosine-decayed learning rate."""
    n = len(arrays[0])
    batch = min(batch, n)
    steps = epochs * max(1, n // batch)
    opt = optax.adamw(optax.cosine_decay_schedule(lr, steps), weight_decay=1e-4)
    state = opt.init(net)

    @jax.jit
    def step(net, state, *b):
        loss, g = jax.value_and_grad(loss_fn)(net, *b)
        updates, state = opt.update(g, state, net)
        return optax.apply_updates(net, updates), state, loss

    rng = np.random.default_rng(seed)
    bar = tqdm(range(epochs), desc=desc, disable=not progress)
    for _ in bar:
        order = rng.permutation(n)
        losses = []
        for s in range(0, n - batch + 1, batch):
            rows = order[s:s + batch]
            net, state, loss = step(net, state, *(a[rows] for a in arrays))
            losses.append(float(loss))
        bar.set_postfix(loss=f"{np.mean(losses):.4f}")
    return net


def relines(ruleset, data, params, rolling: bool):
    """(L, k, 4) the data's best lines found again with or without the rolling model: the strikes
    and their labels stay valid, only the lines the features refer to change."""
    found = []
    for i in range(0, len(data["cue"]), CHUNK):
        states = random_states(ruleset, jax.random.PRNGKey(0), params, len(data["cue"][i:i + CHUNK]))
        states = dataclasses.replace(states, positions=jnp.asarray(data["positions"][i:i + CHUNK]),
                                     cue_ball=jnp.asarray(data["cue"][i:i + CHUNK], states.cue_ball.dtype))
        found.append(np.asarray(jnp.stack(best_lines(ruleset, states, params, SEEDS, rolling), -1)))
    return np.concatenate(found)


def made_for(made: dict) -> tuple[str, str]:
    """(discipline, target kind) of a generate.json (files from before the Hungarian game: three-cushion)."""
    return made.get("discipline", "three_cushion"), made.get("target", "score")


def losses(target: str, head: str = "mean"):
    """The training loss of a target kind: binary cross-entropy on the logit for "score" (hard or
    soft labels), mean squared error for "net_points" (the mean of noisy plays is its minimiser),
    or with ``head`` "classes" the cross-entropy of the softmax over ``OUTCOMES`` against the
    fraction of plays in each class (``outcome_fractions``)."""
    def bce(net, x, t):
        return jnp.mean(optax.sigmoid_binary_cross_entropy(mlp_apply(net, x)[:, 0], t))

    def mse(net, x, t):
        return jnp.mean((mlp_apply(net, x)[:, 0] - t) ** 2)

    def ce(net, x, p):
        return jnp.mean(optax.softmax_cross_entropy(mlp_apply(net, x), p))

    return ce if head == "classes" else bce if target == "score" else mse


OUTCOMES = (-100, -50, -10, 0, 10, 50, 100)
"""The classes of a Hungarian outcome-class head: a shot's net points (docs/rules.md H-9.2 to
H-9.7: a carom 10, the pin 50, both 100, a foul hands the opponent what it made; -10 for the
mode-3 miss, H-9.10). Plays worth anything else (balls jumped on a foul, H-9.8) count in the
nearest class; ``outcome_fractions`` says how many did."""


def outcome_fractions(data, trials: int) -> tuple[np.ndarray, float]:
    """((L, N, K) float32 the fraction of each strike's plays in each class of ``OUTCOMES``, the
    share of plays whose net points were not a class value). The plays are the data's ``values``
    (each play's net points, kept since outcome classes were added) or, for data of ``trials`` = 1
    play per strike, the label itself (its net points over ``NET_UNIT``)."""
    if "values" in data:
        values = np.asarray(data["values"], np.float64)
    elif trials == 1:
        values = np.round(np.asarray(data["scored"], np.float64) * NET_UNIT)[..., None]
    else:
        raise ValueError("--head classes needs each play's points: this data holds only the mean of several plays "
                         "(made before outcome classes); generate it again")
    classes = np.asarray(OUTCOMES, np.float64)
    nearest = np.abs(values[..., None] - classes).argmin(-1)
    fractions = np.stack([(nearest == c).mean(-1) for c in range(len(classes))], -1).astype(np.float32)
    return fractions, float(np.mean(classes[nearest] != values))


def fold_scaling(net, mean, std, inverse: bool = False):
    """``net`` with the input standardisation x -> (x - mean) / std folded into its first layer:
    a net on standardised inputs becomes the same function of the raw ones (``inverse``: the
    reverse). The Hungarian line scores reach 50 points while the other features stay near 1."""
    (W, b), rest = net[0], list(net[1:])
    mean, std = jnp.asarray(mean, W.dtype), jnp.asarray(std, W.dtype)
    if inverse:
        return [(W * std[:, None], b + mean @ W)] + rest
    return [(W / std[:, None], b - (mean / std) @ W)] + rest


def sources(data, default: str) -> list[str]:
    """The data folders a run read: ``--data`` (one folder, or several; train.json files from
    before several were allowed hold one), else ``default``."""
    return [data] if isinstance(data, str) else list(data or [default])


def load_data(folders: list[str]):
    """(data, generate.json of the first folder): the layouts of every folder in turn; ValueError
    unless they were made alike (discipline, target, proposal, lines)."""
    made = [_read_json(f, "generate.json") for f in folders]
    kinds = {(made_for(m), m.get("rolling", True), m.get("trials", 1), tuple(m.get("aims", AIMS))) for m in made}
    parts = [dict(np.load(os.path.join(f, "data.npz"))) for f in folders]
    if len(kinds) > 1 or len({bool(p.get("grid", False)) for p in parts}) > 1:
        raise ValueError(f"--data: the folders {folders} hold data of different kinds; train on one kind at a time")
    common = [k for k in parts[0] if all(k in p for p in parts)]  # each play's values: only in newer data
    return {k: np.concatenate([p[k] for p in parts]) if k != "grid" else parts[0][k] for k in common}, made[0]


def split(data) -> tuple[dict, dict]:
    """(training part, validation part) of ``data``: the last 10 % of its layouts are held out."""
    L = len(data["cue"])
    held = int(L * 0.1)
    return {k: v[:L - held] for k, v in data.items()}, {k: v[L - held:] for k, v in data.items()}


def first_choice(net, X, labels, target: str, outcomes=None) -> tuple[float, float]:
    """(the mean label of the strike ``net`` rates highest in each layout, the mean of each
    layout's best label): ``X`` the features of every (layout, strike) pair, ``labels`` (layouts,
    strikes) (``net_rating``: ``target``, ``outcomes``)."""
    layouts = labels.shape[0]
    rating = np.asarray(net_rating(mlp_apply(net, X), target, outcomes)).reshape(layouts, -1)
    top = labels[np.arange(layouts), rating.argmax(1)]
    best = labels.any(1) if target == "score" else labels.max(1)
    return float(top.mean()), float(best.mean())


def train(args):
    folders = sources(args.data, args.out)
    data, made = load_data(folders)
    discipline, target = made_for(made)
    if args.head == "classes" and target != "net_points":
        raise ValueError(f"--head classes is for models of net points (the Hungarian game); this data's target is "
                         f"{target!r}")
    params, ruleset = setting(discipline)
    grid = bool(data.pop("grid", False))
    if args.rolling != made.get("rolling", True):
        data["best"] = relines(ruleset, data, params, args.rolling)
    train_part, val_part = split(data)
    L, held = len(data["cue"]), len(val_part["cue"])
    report = {}

    # (A) the success model
    t0 = time.perf_counter()
    outcomes = check_outcomes(OUTCOMES, target) if args.head == "classes" else None
    features = check_features(args.features)
    X, y = success_dataset(train_part, params, features)
    Xv, yv = success_dataset(val_part, params, features)
    off_class = None
    if outcomes is not None:  # the label: the fraction of the strike's plays in each outcome class
        fractions, off_class = outcome_fractions(data, made.get("trials", 1))
        y, yv = (f.reshape(-1, len(OUTCOMES)) for f in (fractions[:L - held], fractions[L - held:]))
    width = 1 if outcomes is None else len(outcomes)
    net_a = mlp_init(jax.random.PRNGKey(args.seed), [X.shape[1]] + [args.width] * args.depth + [width])
    if args.init:  # fine-tune another run's success model (e.g. an exact one on soft labels)
        net_a = _read_nets(args.init)["success"]
        start = _read_json(args.init, "train.json")["A"]
        if start.get("head", "mean") != args.head:
            raise ValueError(f"--init {args.init}: that model has a {start.get('head', 'mean')!r} head, "
                             f"this run trains a {args.head!r} one (--head)")
        if start.get("features", 1) != features:
            raise ValueError(f"--init {args.init}: that model takes inputs of version {start.get('features', 1)}, "
                             f"this run fits version {features} (--features)")
    loss = losses(target, args.head)
    if args.standardize:  # trained on standardised inputs, saved as a net on the raw ones
        mean, std = X.mean(0), X.std(0) + 1e-6
        net_a = fold_scaling(fit(fold_scaling(net_a, mean, std, inverse=True), loss, ((X - mean) / std, y),
                                 args.epochs, 1024, args.lr, args.seed, "success model"), mean, std)
    else:
        net_a = fit(net_a, loss, (X, y), args.epochs, 1024, args.lr, args.seed, "success model")
    top, oracle = first_choice(net_a, Xv, val_part["scored"], target, outcomes)
    report["A"] = dict(command=args.command, data=folders[0] if len(folders) == 1 else folders,
                       discipline=discipline, target=target, rolling=args.rolling, init=args.init,
                       standardize=args.standardize, samples=int(X.shape[0]),
                       positives=float(np.mean(train_part["scored"])),
                       seconds=time.perf_counter() - t0, val_loss=float(loss(net_a, Xv, yv)),
                       val_top1_scored=top, val_any_scored=oracle, head=args.head, features=features,
                       aims=list(made.get("aims", AIMS)),
                       **({} if outcomes is None else dict(outcomes=list(outcomes), off_class=off_class)))
    print("A:", report["A"], flush=True)

    if grid:  # the cloned search learns from the search's proposal only
        _save(args.out, report, success=net_a)
        return
    # (B) the cloned search
    t0 = time.perf_counter()
    cfg = data_config(data["shots"].shape[1])
    Xb, usable, target, delta = clone_dataset(train_part, params, cfg)
    net_b = mlp_init(jax.random.PRNGKey(args.seed + 1), [Xb.shape[-1], args.width, args.width, args.width, 5])

    def clone_loss(net, x, ok, t, d):
        out = mlp_apply(net, x)  # (B, k, 5)
        logits = jnp.where(ok, out[..., 0], -30.0)
        ce = optax.softmax_cross_entropy_with_integer_labels(logits, t)
        pred = jnp.take_along_axis(out[..., 1:], t[:, None, None], 1)[:, 0]
        return jnp.mean(ce) + jnp.mean(jnp.sum((pred - d) ** 2, -1))

    net_b = fit(net_b, clone_loss, (Xb, usable, target, delta), args.clone_epochs, 256, 1e-3, args.seed,
                "cloned search")
    report["B"] = dict(layouts=int(len(target)), seconds=time.perf_counter() - t0,
                       train_loss=float(clone_loss(net_b, Xb, usable, target, delta)))
    print("B:", report["B"], flush=True)
    _save(args.out, report, success=net_a, cloned=net_b)


def _save(out, report, **nets):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "nets.pkl"), "wb") as fh:
        pickle.dump({k: jax.device_get(v) for k, v in nets.items()}, fh)
    _write_json(out, "train.json", report)


def _read_nets(out) -> dict:
    """The networks a run saved under ``out`` (``_save``: "success", and "cloned" without --grid)."""
    with open(os.path.join(out, "nets.pkl"), "rb") as fh:
        return pickle.load(fh)


def _write_json(out, name, content):
    with open(os.path.join(out, name), "w") as fh:
        json.dump(content, fh, indent=1)


def _read_json(out, name):
    with open(os.path.join(out, name)) as fh:
        return json.load(fh)


# --- evaluate ---------------------------------------------------------------------------------

def decide(agent, ruleset, states, params, keys, chunk):
    """(shots, seconds per layout): planned in chunks of ``chunk`` layouts after a warm-up chunk."""
    n = int(states.positions.shape[0])
    jax.block_until_ready(agent.plan_batch(ruleset, index_tree(states, slice(0, chunk)), params, keys[:chunk]))
    t0 = time.perf_counter()
    parts = [jax.block_until_ready(agent.plan_batch(ruleset, index_tree(states, slice(s, s + chunk)), params,
                                                    keys[s:s + chunk]))
             for s in tqdm(range(0, n, chunk), desc=agent.name, leave=False)]
    shots = jax.tree_util.tree_map(lambda *xs: jnp.concatenate(xs), *parts)
    return shots, (time.perf_counter() - t0) / n


def evaluate(args):
    params, ruleset = setting(args.discipline)
    target = target_for(args.discipline)
    nets = _read_nets(args.out)
    trained = _read_json(args.out, "train.json")["A"]
    outcomes = trained.get("outcomes")  # an outcome-class head's class values
    features = trained.get("features", 1)  # the version of its inputs
    n = -(-args.layouts // 8) * 8
    key = jax.random.PRNGKey(10_000 + args.seed)  # layouts never seen in training
    states = random_states(ruleset, jax.random.fold_in(key, 1), params, n)
    keys = jax.random.split(jax.random.fold_in(key, 2), n)
    agents = [(RandomAgent(), n), (GeometricAgent(), n)]
    if "cloned" in nets:
        agents.append((ClonedAgent(nets["cloned"], seeds=SEEDS), n))
    if args.grid:
        agents.append((SuccessAgent(nets["success"], seeds=SEEDS, grid=True, noise=args.noise, samples=args.samples,
                                    rolling=args.rolling, target=target, outcomes=outcomes, features=features,
                                    aims=trained.get("aims", AIMS)), 8))
    else:
        agents += [(SuccessAgent(nets["success"], candidates=c, seeds=SEEDS, target=target, outcomes=outcomes,
                                 features=features), 8) for c in args.rank]
    if args.search:
        agents.append((SearchAgent(), 8))
    rows = []
    for agent, chunk in agents:
        if isinstance(agent, SearchAgent):  # the search on the first layouts only (it simulates)
            n = args.search
            states, keys = index_tree(states, slice(0, n)), keys[:n]
        shots, seconds = decide(agent, ruleset, states, params, keys, chunk)
        _, _, outcomes, _ = execute(ruleset, states, shots, params, key=jax.random.fold_in(key, 3),
                                    noise=ExecutionNoise(args.noise), pad_to=n)
        mine = np.asarray(shooter_points(outcomes, states.current_player))
        net = np.asarray(net_points(outcomes, states.current_player))
        k = int((mine > 0).sum())
        low, high = wilson(k, n)
        net_mean, net_low, net_high = mean_ci(net)
        name = agent.name
        if isinstance(agent, SuccessAgent):
            name = f"success-grid-x{agent.samples}" if agent.grid else f"success-{agent.config.candidates}"
        rows.append(dict(agent=name, shots=n, successes=k, rate=k / n, ci_low=low, ci_high=high,
                         net_points=float(net_mean), net_low=float(net_low), net_high=float(net_high),
                         seconds_per_layout=seconds, batch=chunk, noise=args.noise))
        points = f"  net points {net_mean:.1f} [{net_low:.1f}, {net_high:.1f}]" if target == "net_points" else ""
        print(f"{name:12s} {k}/{n} = {k / n:.3f} [{low:.3f}, {high:.3f}]{points}  {seconds * 1e3:.1f} ms per layout "
              f"(batches of {chunk})", flush=True)
    with open(os.path.join(args.out, f"evaluate_noise{args.noise:g}_x{args.samples}.json"), "w") as fh:
        json.dump(dict(rows=rows, discipline=args.discipline, machine=machine_info()), fh, indent=1)


# --- room -------------------------------------------------------------------------------------

ROOM_KS = (1, 2, 4, 8, 16, 32)  # the model's best-rated strikes a better choice is allowed among


def check_plays(plays: int) -> None:
    """ValueError unless ``plays`` can be split in two halves, one to choose by and one to value on."""
    if plays < 2 or plays % 2:
        raise ValueError(f"room: each strike needs an even number of plays (--trials), 2 or more, to choose by "
                         f"half of them and value the choice on the other half; got {plays}")


def choice_room(rating, values, ks=ROOM_KS) -> list[dict]:
    """How much a better choice among a model's K best-rated strikes is worth, for each K of ``ks``
    and for all N: the model's rating (L, N) of each strike, the values (L, N, T) of its T plays
    (T even). The choice is the strike with the best mean over half of its plays (ties to the
    higher rated), valued on the other half, both halves in turn and averaged: valued on plays it
    was not chosen by, the best of noisy means is not inflated. K = 1 is the model's own choice.
    Rows: k, the mean worth per layout and its 95 % half-width, and the mean of the best mean over
    all T plays among the K (an upper bound that the best of noisy means overstates)."""
    rating, values = np.asarray(rating), np.asarray(values, np.float64)
    L, N, T = values.shape
    check_plays(T)
    order = np.argsort(-rating, 1, kind="stable")
    first, second = values[..., :T // 2].mean(-1), values[..., T // 2:].mean(-1)
    rows, layouts = [], np.arange(L)
    for k in sorted({min(int(k), N) for k in ks} | {N}):
        a, b = np.take_along_axis(first, order[:, :k], 1), np.take_along_axis(second, order[:, :k], 1)
        worth = 0.5 * (b[layouts, a.argmax(1)] + a[layouts, b.argmax(1)])
        half = 1.96 * worth.std(ddof=1) / np.sqrt(L) if L > 1 else float("nan")
        best = np.take_along_axis(values.mean(-1), order[:, :k], 1).max(1).mean()
        rows.append(dict(k=k, worth=float(worth.mean()), half_width=float(half), best_of_means=float(best)))
    return rows


def room(args):
    """The room the shipped policy's strikes leave (``choice_room``): on ``--layouts`` fresh
    layouts, every strike the policy ranks played ``--trials`` times under ``--noise`` and valued
    as the search values a play (its points, less what a foul hands the opponent)."""
    check_plays(args.trials)
    params, ruleset = setting(args.discipline)
    agent = PolicyAgent.for_discipline(args.discipline, args.noise, args.models)
    key = jax.random.PRNGKey(20_000 + args.seed)  # neither training nor evaluate layouts
    R, V = [], []
    for c in tqdm(range(-(-args.layouts // CHUNK)), desc="layouts (x64)"):
        k = jax.random.fold_in(key, c)
        states = random_states(ruleset, jax.random.fold_in(k, 0), params, CHUNK)
        shots, best = agent.candidates(ruleset, states, params, jax.random.split(jax.random.fold_in(k, 1), CHUNK))
        R.append(np.asarray(ratings(agent.net, states, shots, best, params, None, agent.target, agent.outcomes,
                                    agent.features)))
        cfg = data_config(int(shots.V0.shape[1]), args.noise)
        V.append(np.asarray(play_candidates(ruleset, states, params, shots,
                                            jax.random.split(jax.random.fold_in(k, 2), CHUNK), args.trials, cfg)))
    rows = choice_room(np.concatenate(R)[:args.layouts], np.concatenate(V)[:args.layouts])
    unit = "success per shot" if agent.target == "score" else "net points per shot"
    n, many = args.trials // 2, args.trials > 2
    print(f"{args.discipline}, the shipped policy for noise {args.noise:g}: {unit} of the choice among its K "
          f"best-rated strikes by {n} play{'s' * many}, valued on {n} other{'s' * many} ({args.layouts} layouts)")
    for row in rows:
        print(f"  K = {row['k']:4d}   {row['worth']:8.3f} +- {row['half_width']:.3f}   (best of the means of all "
              f"plays: {row['best_of_means']:.3f})")
    os.makedirs(args.out, exist_ok=True)
    _write_json(args.out, f"room_noise{args.noise:g}.json",
                dict(command=args.command, discipline=args.discipline, noise=args.noise, layouts=args.layouts,
                     plays=args.trials, unit=unit, rows=rows, model=agent.meta.get("commands"),
                     machine=machine_info()))


# --- merge ------------------------------------------------------------------------------------

def merge(args):
    """One success model under ``--out`` whose output is the mean of those under ``--members``
    (``agents.nets.ensemble``): runs of one discipline, target, head and kind of lines, trained
    on other data or from other seeds, whose errors partly cancel. Validated, with each member, on
    the layouts held out of the first member's data."""
    members = args.members or []
    if len(members) < 2:
        raise ValueError(f"merge: --members needs two run folders or more, got {members}")
    runs = [_read_json(m, "train.json")["A"] for m in members]
    kinds = {(r["discipline"], r["target"], r.get("head", "mean"), tuple(r.get("outcomes") or ()), r["rolling"],
              r.get("features", 1), tuple(r.get("aims", AIMS))) for r in runs}
    if len(kinds) > 1:
        raise ValueError(f"merge: the members {members} differ in (discipline, target, head, outcomes, rolling, "
                         f"input version, aims): {sorted(kinds)}; only models of one kind can be averaged")
    nets = [_read_nets(m)["success"] for m in members]
    net = ensemble(nets)
    first = runs[0]
    data, made = load_data(sources(first.get("data"), members[0]))
    data.pop("grid", None)
    params, ruleset = setting(first["discipline"])
    if first["rolling"] != made.get("rolling", True):
        data["best"] = relines(ruleset, data, params, first["rolling"])
    _, val_part = split(data)
    features = first.get("features", 1)
    Xv, _ = success_dataset(val_part, params, features)
    outcomes = check_outcomes(first.get("outcomes"), first["target"])

    def check(n):
        return first_choice(n, Xv, val_part["scored"], first["target"], outcomes)

    top, best = check(net)
    report = dict(command=args.command, members=list(members), discipline=first["discipline"],
                  target=first["target"], rolling=first["rolling"], head=first.get("head", "mean"), features=features,
                  aims=list(first.get("aims", AIMS)),
                  val_top1_scored=top, val_any_scored=best, members_val_top1_scored=[check(n)[0] for n in nets],
                  **({} if outcomes is None else dict(outcomes=list(outcomes))))
    print("merged:", report, flush=True)
    _save(args.out, {"A": report}, success=net)


# --- ship -------------------------------------------------------------------------------------

def history(out) -> list[tuple[list[str], list[dict], dict]]:
    """[(data folders, their generate.json, train.json "A")] of the run under ``out``, the runs it
    started from (``--init``) or averaged (``merge``: no data of its own) first."""
    trained = _read_json(out, "train.json")["A"]
    if trained.get("members"):
        return [run for member in trained["members"] for run in history(member)] + [([], [], trained)]
    earlier = history(trained["init"]) if trained.get("init") else []
    folders = sources(trained.get("data"), out)
    return earlier + [(folders, [_read_json(f, "generate.json") for f in folders], trained)]


def ship(args):
    """The success model under ``--out`` as the discipline's shipped policy (``agents.policy``), its
    sidecar naming the training data and the commands that produced it."""
    net = _read_nets(args.out)["success"]
    runs = history(args.out)
    trained = runs[-1][2]
    used = {}  # each data folder once (the members of an ensemble may share some)
    for folders, made_run, _ in runs:
        used.update(zip(folders, made_run))
    for folder in used:
        with np.load(os.path.join(folder, "data.npz")) as data:
            if not bool(data["grid"]):
                raise ValueError(f"the policy ranks the line grid; the data under {folder} was not made with --grid")
    made = [m for _, made_run, _ in runs for m in made_run][-1]  # the last data a member was fitted to
    discipline, target = made_for(made)
    data = [dict(layouts=m["layouts"], strikes=m["strikes"], plays_per_strike=m["trials"], noise=m["noise"])
            for m in used.values()]
    commands = list(dict.fromkeys(c for _, made_run, t in runs for c in [m["command"] for m in made_run]
                                  + [t["command"]])) + [args.command]
    noise = made["noise"] if args.plays_for is None else args.plays_for
    paths = save_model(net, discipline, args.models, trained.get("rolling", made["rolling"]), noise, target=target,
                       outcomes=trained.get("outcomes"), features=trained.get("features", 1),
                       aims=trained.get("aims", made.get("aims", AIMS)),
                       noise_draws=args.noise_draws,
                       training=dict(layouts=sum(d["layouts"] for d in data), data=data,
                                     validation_top1=trained["val_top1_scored"]), commands=commands,
                       **({"note": args.note} if args.note else {}))
    print("wrote", *paths)


def aims_arg(text: str) -> tuple[float, ...]:
    """``--aims``: comma-separated aim offsets in degrees (``agents.success.check_aims``)."""
    try:
        return check_aims([float(v) for v in text.split(",")])
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def main(argv=None):
    begin()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("stage", choices=("generate", "train", "merge", "evaluate", "room", "ship"))
    ap.add_argument("--out", default="results/success_model")
    ap.add_argument("--discipline", default="three_cushion", choices=("three_cushion", "hungarian_1000"),
                    help="generate, evaluate, room: the game (train and ship read it from the data's generate.json)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--layouts", type=int, default=4096,
                    help="generate: training layouts; evaluate, room: fresh ones")
    ap.add_argument("--candidates", type=int, default=64, help="generate: strikes per layout")
    ap.add_argument("--rank", type=int, nargs="+", default=[64, 256, 1024],
                    help="evaluate: numbers of proposed strikes the success model ranks")
    ap.add_argument("--grid", action="store_true",
                    help="generate, evaluate: the grid of line variations (agents.success.line_grid) as proposal")
    ap.add_argument("--aims", type=aims_arg, default=AIMS, metavar="DEG,DEG,...",
                    help="generate (--grid): aim offsets in degrees, 0 among them; each grid strike is played at one "
                         "of them drawn at random, and the shipped model ranks the grid at every one "
                         "(agents.success.aimed; default: 0, the lines' own aims)")
    ap.add_argument("--trials", type=int, default=1,
                    help="generate: plays of each strike (under --noise), more than 1 gives soft labels; room: "
                         "plays of each strike, an even number")
    ap.add_argument("--noise", type=noise_arg, default=0.0, help="generate, evaluate, room: " + NOISE_HELP)
    ap.add_argument("--no-rolling", dest="rolling", action="store_false",
                    help="generate, evaluate (--grid): lines without the rolling model of the cue ball's path "
                         "(agents.geometric.lines_batch; about half the time to decide)")
    ap.add_argument("--samples", type=int, default=0,
                    help="evaluate: noise draws the grid player averages its model over (under --noise)")
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--features", type=int, choices=sorted(FEATURE_VERSIONS), default=1,
                    help="train: the version of the success model's inputs (agents.success.FEATURE_VERSIONS): 1, "
                         "layout, strike and line-relative features; 2, those and what the hit makes of the strike "
                         "(agents.success.hit_features); 3, those lines also after their first cushion (the shipped "
                         "Hungarian models); 4, those and the cue ball's path through several cushions "
                         "(agents.success.path_features; the shipped three-cushion models)")
    ap.add_argument("--head", choices=("mean", "classes"), default="mean",
                    help="train (net points models): 'mean', one output fitted to the plays' mean net points by "
                         "squared error; 'classes', a softmax over the outcomes (OUTCOMES) fitted to the fraction "
                         "of plays in each by cross-entropy, the rating its expectation")
    ap.add_argument("--data", metavar="DIR", nargs="+",
                    help="train: the data under DIR, or under several DIRs made alike, in turn (default: --out)")
    ap.add_argument("--init", metavar="DIR", help="train: start from the success model under DIR")
    ap.add_argument("--members", metavar="DIR", nargs="+",
                    help="merge: the runs whose success models are averaged into one (agents.nets.ensemble)")
    ap.add_argument("--depth", type=int, default=3, help="train: hidden layers of the success model")
    ap.add_argument("--standardize", action="store_true",
                    help="train: fit the success model on standardised inputs (folded into its first layer)")
    ap.add_argument("--lr", type=float, default=2e-3, help="train: the success model's peak learning rate")
    ap.add_argument("--models", default=MODELS_DIR, help="ship, room: the folder of the shipped models")
    ap.add_argument("--plays-for", type=float, metavar="SCALE",
                    help="ship: the execution noise the model is shipped for (default: its data's noise)")
    ap.add_argument("--noise-draws", type=int, default=0, metavar="N",
                    help="ship: average each strike's rating over N fixed draws of the noise the model plays for "
                         "(--plays-for) at decision time (agents.success.noise_draws: antithetic pairs, N even, "
                         "2-64; 0, the default: the strike as it is)")
    ap.add_argument("--note", help="ship: a remark for the sidecar (e.g. how a model for exact play was made)")
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--clone-epochs", type=int, default=60)
    ap.add_argument("--search", type=int, default=0, metavar="N",
                    help="evaluate: the search agent too, on the first N layouts (a multiple of 8; slow)")
    args = ap.parse_args(argv)
    # Rates divide by the layouts; a strike's label averages its plays: 0 of either divides by zero.
    if args.layouts < 1 or args.trials < 1:
        ap.error(f"--layouts and --trials must be at least 1, got {args.layouts} and {args.trials}")
    if args.search < 0:
        ap.error(f"--search must be at least 0 (0: no search), got {args.search}")
    args.command = "python -m experiments.success_model " + shlex.join(sys.argv[1:] if argv is None else argv)
    dict(generate=generate, train=train, merge=merge, evaluate=evaluate, room=room, ship=ship)[args.stage](args)


if __name__ == "__main__":
    main()
