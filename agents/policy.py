"""The shipped shot policies: a trained success model per discipline, played without simulating.

``PolicyAgent.for_discipline(name, noise)`` loads ``agents/models/<name>.npz`` (the MLP's layers,
for exact play) or, under execution noise, the model trained for the nearest noise scale
(``<name>_noise1.npz``; files named and found by ``agents.store``), with its sidecar (``.json``:
format, version, the feature version of ``agents.success``, the discipline, the target kind, the
noise it plays for, the proposal it ranks, the training data and the commands that produced it,
and optionally ``noise_draws``: that many fixed draws of the noise each strike's rating is
averaged over), and plays the line-grid strike the model rates highest
(``agents.success.SuccessAgent`` with ``grid=True``): the best geometric lines, a fixed grid of
their variations and one forward pass of the network, no physics. A file whose feature version,
discipline, target kind or proposal differs from this build's is refused with a ValueError
saying what differs. ``save_model`` and ``load_model`` write and read these files.

Target kinds (``target_for``): three-cushion's models estimate P(the strike scores) (trained on
the fraction of noisy plays that scored); the Hungarian game's estimate the strike's expected
net points over 100 (a pin is worth five caroms and a foul hands the opponent points,
docs/rules.md H-9), and the policy plays the strike worth the most. The shipped Hungarian models
have an outcome-class head (a softmax over the values a shot can be worth, named by the
sidecar's ``outcomes``, rated by its expectation: ``agents.success.net_rating``). Sidecars
written before the target kind existed are read as "score".

Shipped models (made by ``experiments.success_model``; docs/agents.md section 3 has the commands and figures):
three_cushion (exact play: 70.2 % of ``experiments.evaluate``'s 600 layouts of seeds 0-2 scored),
three_cushion_noise1 (34.7 % of its 1,000 layouts of seeds 0-4 under the standard noise, 0.61
points per inning over 500 innings; both on the match table's calibrated physics and on inputs
of version 4, the cue ball's path through three cushions, docs/agents.md section 3.6), hungarian_1000 (exact
play: 33.8 net points per shot over ``experiments.evaluate``'s 2,000 layouts of seeds 0-9) and
hungarian_1000_noise1 (31.4 net points per shot under the standard noise over the 1,000 layouts of
seeds 0-4, 32.05 on seed 0's 200, the geometric agent 12.75 there; 4.4 ms per decision; it ranks
the grid at seven aims, docs/agents.md section 3.5), both on
inputs of version 3 (``agents.success.hit_features`` with its first cushions).

    agent = PolicyAgent.for_discipline("three_cushion")
    shots = agent.plan_batch(rules, states, params, keys)
"""
from __future__ import annotations

import json
import os

import numpy as np

import rules
from agents.nets import read_layers, save_layers
from agents.store import MODELS_DIR, model_paths, nearest_scale, noise_variants, read_sidecar, shipped_disciplines
from agents.success import (
    AIMS, FEATURE_VERSIONS, GRID, SuccessAgent, check_aims, check_features, check_outcomes, check_target,
)

SIDECAR_FORMAT = "carom-billiards success model"
SIDECAR_VERSION = 1
SEEDS = 12  # best geometric lines the grid varies (the proposal the shipped models were trained on)


def proposal_entry(rolling: bool, seeds: int = SEEDS, aims=AIMS) -> dict:
    """The sidecar's description of the strikes a model ranks (compared on load): the grid of
    ``seeds`` best lines, found with or without the rolling model (``agents.geometric.lines_batch``),
    each strike at the aim offsets ``aims`` (``agents.success.aimed``; written only when it is more
    than the lines' own aim, so the sidecars from before it read as they were)."""
    entry = dict(kind="line_grid", seeds=seeds, grid=[list(g) for g in GRID], rolling=bool(rolling))
    aims = check_aims(aims)
    if aims != AIMS:
        entry["aims"] = list(aims)
    return entry


def target_for(discipline: str) -> str:
    """The target kind (``agents.success.TARGETS``) a discipline's model estimates: "net_points"
    for the Hungarian family (a pin is worth five caroms and fouls give the opponent points,
    docs/rules.md H-9), "score" for the carom games (a carom or nothing). ValueError for an
    unknown discipline."""
    return "net_points" if rules.disciplines.get(discipline).family == "hungarian" else "score"


def check_noise_draws(draws, noise: float) -> int:
    """``draws`` as an int if it is a number of noise draws a model of execution noise ``noise`` can
    be averaged over at decision time (``agents.success.noise_draws``): 0 (the strike as it is), or
    an even number from 2 to 64 (antithetic pairs) where ``noise`` > 0; ValueError otherwise."""
    ok = isinstance(draws, (int, np.integer)) and not isinstance(draws, bool) and (
        draws == 0 or (noise > 0 and 2 <= draws <= 64 and draws % 2 == 0))
    if not ok:
        raise ValueError(f"noise_draws must be 0, or an even number from 2 to 64 for a model of execution noise "
                         f"(this one plays for noise {noise:g}); got {draws!r}")
    return int(draws)


def save_model(net, discipline: str, folder: str, rolling: bool, noise: float = 0.0, target: str = "score",
               outcomes=None, features: int = 1, aims=AIMS, noise_draws: int = 0, **meta) -> tuple[str, str]:
    """Write ``net`` ([(W, b), ...]) ranking the grid of lines found with or without ``rolling``,
    for play under execution noise of scale ``noise``, its output of the kind ``target``
    (``agents.success.TARGETS``; ``outcomes``: the class values of an outcome-class head,
    ``agents.success.net_rating``), its input of version ``features``
    (``agents.success.FEATURE_VERSIONS``), the grid's aim offsets ``aims``, the noise draws each strike's
    rating is averaged over at decision time (``check_noise_draws``; written only when there are
    some), and its sidecar (``meta``: training data, commands, figures)."""
    draws = check_noise_draws(noise_draws, noise)  # before anything is written
    npz_path, json_path = model_paths(discipline, folder, noise)
    os.makedirs(folder, exist_ok=True)
    sizes = save_layers(net, npz_path)
    features = check_features(features)
    sidecar = dict(format=SIDECAR_FORMAT, version=SIDECAR_VERSION, features=features,
                   inputs=FEATURE_VERSIONS[features], discipline=discipline, target=check_target(target),
                   plays_for=float(noise), proposal=proposal_entry(rolling, aims=aims), sizes=sizes, **meta)
    if draws:
        sidecar["noise_draws"] = draws
    outcomes = check_outcomes(outcomes, target)
    if outcomes is not None:  # only written for a class head: the sidecars of mean heads stay as they were
        sidecar["outcomes"] = list(outcomes)
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(sidecar, f, indent=1)
    return npz_path, json_path


def load_model(discipline: str, folder: str = MODELS_DIR, noise: float = 0.0):
    """(net, sidecar) of a discipline's model for the execution noise nearest ``noise`` among
    those it has; ValueError if it has none (naming the disciplines that have one) or if the
    sidecar does not match this build."""
    scales = noise_variants(discipline, folder)
    if 0.0 not in scales:
        have = ", ".join(shipped_disciplines(folder)) or "none"
        raise ValueError(f"discipline {discipline!r} has no shipped policy model; disciplines with one: {have}")
    scale = nearest_scale(scales, noise)
    npz_path, json_path = model_paths(discipline, folder, scale)
    meta = read_sidecar("success model", (npz_path, "layers", "a model is a .npz"), json_path, SIDECAR_FORMAT,
                        SIDECAR_VERSION)
    found = meta.get("proposal")
    proposal: dict = found if isinstance(found, dict) else {}
    rolling = proposal.get("rolling")
    try:
        aims = check_aims(proposal.get("aims", AIMS))
    except (TypeError, ValueError) as e:
        raise ValueError(f"{json_path}: proposal aims: {e}") from None
    meta.setdefault("target", "score")  # the sidecars from before the Hungarian model: success models
    features = meta.get("features")
    if features not in FEATURE_VERSIONS:
        raise ValueError(f"{json_path}: features is {features!r}, this build reads input versions "
                         f"{sorted(FEATURE_VERSIONS)} (retrain with experiments.success_model)")
    expected = dict(inputs=FEATURE_VERSIONS[features], discipline=discipline, target=target_for(discipline),
                    plays_for=scale, proposal=proposal_entry(rolling if isinstance(rolling, bool) else True, aims=aims))
    for key, value in expected.items():
        if meta.get(key) != value:
            raise ValueError(f"{json_path}: {key} is {meta.get(key)!r}, this build needs {value!r} "
                             f"(retrain with experiments.success_model)")
    try:
        check_outcomes(meta.get("outcomes"), meta["target"])
        check_noise_draws(meta.get("noise_draws", 0), scale)
    except ValueError as e:
        raise ValueError(f"{json_path}: {e}") from None
    return read_layers(npz_path, meta.get("sizes")), meta


class PolicyAgent(SuccessAgent):
    """The shipped success model of a discipline, ranking the line grid (no simulation)."""

    name = "policy"

    def __init__(self, net, discipline: str, meta: dict):
        super().__init__(net, seeds=SEEDS, grid=True, rolling=meta["proposal"]["rolling"], target=meta["target"],
                         outcomes=meta.get("outcomes"), features=meta.get("features", 1),
                         aims=meta["proposal"].get("aims", AIMS), noise=meta["plays_for"],
                         samples=meta.get("noise_draws", 0))
        self.discipline = discipline
        self.meta = meta

    @classmethod
    def for_discipline(cls, discipline: str, noise: float = 0.0, folder: str = MODELS_DIR) -> "PolicyAgent":
        """The discipline's shipped model for the execution noise nearest ``noise``."""
        net, meta = load_model(discipline, folder, noise)
        return cls(net, discipline, meta)


__all__ = ["PolicyAgent", "check_noise_draws", "load_model", "save_model", "target_for"]
