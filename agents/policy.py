"""The shipped shot policies: a trained success model per discipline, played without simulating.

``PolicyAgent.for_discipline(name)`` loads ``agents/models/<name>.npz`` (the MLP's layers) with
its sidecar ``<name>.json`` (format, version, the feature version of ``agents.success``, the
discipline, the proposal it ranks, the training data and the commands that produced it) and
plays the line-grid strike the model rates most likely to score (``agents.success.SuccessAgent``
with ``grid=True``): the best geometric lines, a fixed grid of their variations and one forward
pass of the network, no physics. A file whose feature version, discipline or proposal differs
from this build's is refused with a ValueError saying what differs.

    agent = PolicyAgent.for_discipline("three_cushion")
    shots = agent.plan_batch(rules, states, params, keys)
"""
from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from agents.learned import read_sidecar
from agents.success import FEATURES, FEATURES_VERSION, GRID, SuccessAgent

SIDECAR_FORMAT = "carom-billiards success model"
SIDECAR_VERSION = 1
MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
SEEDS = 12  # best geometric lines the grid varies (the proposal the shipped models were trained on)


def proposal_entry(seeds: int = SEEDS) -> dict:
    """The sidecar's description of the strikes a model ranks (compared on load)."""
    return dict(kind="line_grid", seeds=seeds, grid=[list(g) for g in GRID])


def model_paths(discipline: str, folder: str = MODELS_DIR) -> tuple[str, str]:
    """(the layers' .npz, the .json sidecar) of a discipline's model in ``folder``."""
    return os.path.join(folder, f"{discipline}.npz"), os.path.join(folder, f"{discipline}.json")


def shipped_disciplines(folder: str = MODELS_DIR) -> tuple[str, ...]:
    """The disciplines with a model (both files) in ``folder``, sorted."""
    if not os.path.isdir(folder):
        return ()
    names = (f[:-5] for f in os.listdir(folder) if f.endswith(".json"))
    return tuple(sorted(n for n in names if os.path.isfile(model_paths(n, folder)[0])))


def save_model(net, discipline: str, folder: str, **meta) -> tuple[str, str]:
    """Write ``net`` ([(W, b), ...]) and its sidecar (``meta``: training data, commands, figures)."""
    npz_path, json_path = model_paths(discipline, folder)
    os.makedirs(folder, exist_ok=True)
    arrays: dict[str, Any] = {f"{i}/{name}": np.asarray(a, np.float32)
                              for i, layer in enumerate(net) for name, a in zip("Wb", layer)}
    with open(npz_path, "wb") as f:
        np.savez(f, **arrays)
    sidecar = dict(format=SIDECAR_FORMAT, version=SIDECAR_VERSION, features=FEATURES_VERSION, inputs=FEATURES,
                   discipline=discipline, proposal=proposal_entry(),
                   sizes=[int(np.shape(net[0][0])[0])] + [int(np.shape(W)[1]) for W, _ in net], **meta)
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(sidecar, f, indent=1)
    return npz_path, json_path


def load_model(discipline: str, folder: str = MODELS_DIR):
    """(net, sidecar) of a discipline's model; ValueError if there is none (naming the
    disciplines that have one) or if its sidecar does not match this build."""
    npz_path, json_path = model_paths(discipline, folder)
    if not (os.path.isfile(npz_path) and os.path.isfile(json_path)):
        have = ", ".join(shipped_disciplines(folder)) or "none"
        raise ValueError(f"discipline {discipline!r} has no shipped policy model; disciplines with one: {have}")
    meta = read_sidecar("success model", (npz_path, "layers", "a model is a .npz"), json_path, SIDECAR_FORMAT,
                        SIDECAR_VERSION)
    expected = dict(features=FEATURES_VERSION, inputs=FEATURES, discipline=discipline, proposal=proposal_entry())
    for key, value in expected.items():
        if meta.get(key) != value:
            raise ValueError(f"{json_path}: {key} is {meta.get(key)!r}, this build needs {value!r} "
                             f"(retrain with experiments.success_model)")
    with np.load(npz_path) as arrays:
        layers = len(meta["sizes"]) - 1
        net = [(arrays[f"{i}/W"], arrays[f"{i}/b"]) for i in range(layers)]
    shapes = [tuple(np.shape(W)) for W, _ in net]
    if shapes != list(zip(meta["sizes"][:-1], meta["sizes"][1:])):
        raise ValueError(f"{npz_path}: layer shapes {shapes} do not match the sidecar's sizes {meta['sizes']}")
    return net, meta


class PolicyAgent(SuccessAgent):
    """The shipped success model of a discipline, ranking the line grid (no simulation)."""

    name = "policy"

    def __init__(self, net, discipline: str, meta: dict | None = None):
        super().__init__(net, seeds=SEEDS, grid=True)
        self.discipline = discipline
        self.meta = meta or {}

    @classmethod
    def for_discipline(cls, discipline: str, folder: str = MODELS_DIR) -> "PolicyAgent":
        net, meta = load_model(discipline, folder)
        return cls(net, discipline, meta)


__all__ = ["PolicyAgent", "load_model", "save_model", "shipped_disciplines", "model_paths"]
