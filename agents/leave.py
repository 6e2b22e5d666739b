"""Leave value V(state): the points the player to shoot can expect from the rest of his inning.

Position play is choosing, among shots that score, the one that leaves the next shot easy. The
search (``agents.search``) judges every simulated trial by the points it earns; with a leave
value it adds V of the layout the trial leaves whenever the shooter plays on (his turn goes on and
the game is not over), so that of two shots that score alike it prefers the better leave. Read
from the other side, the same V is the opponent's prospect from the layout a miss hands him: the
search's defensive play (``SearchConfig.safety``) takes it off such trials.

V is an MLP (``agents.nets``) of ``state_features``: the layout in the canonical frame the
success model sees too (``aiming.frame``: the table's mirror symmetries, the object balls
ordered by distance to the cue ball; the fields and anchors of balkline and straight rail are
symmetric too, docs/rules.md C-11.1, C-12.2) and the run's counters the restrictions read (the
pure caroms, H-6.3; the field and anchor being counted and their caroms over the limit, C-11.2,
C-12.3, C-12.4). A Hungarian pin is not seen. It is learned per discipline by fitted value
iteration over the search's own simulated candidates (``experiments.leave_value``) and shipped as
``agents/models/<discipline>_leave.npz`` with a JSON sidecar (format, version, feature version,
discipline, the noise it plays for, layer sizes, the training command and figures).

    leave = LeaveValue.for_discipline("balkline_47_2", noise=1.0)
    agent = SearchAgent.for_noise(1.0, leave=leave)
    v = leave.values(rules, states, params)        # (S,) expected points of the inning
"""
from __future__ import annotations

import json
import os

import jax
import jax.numpy as jnp

from physics.params import Params
from agents import store
from aiming.frame import frame, layout_features
from agents.nets import mlp_apply, read_layers, save_layers
from agents.store import MODELS_DIR, nearest_scale, noise_variants, read_sidecar
from rules import GameState, Rules

FEATURES_VERSION = 1
"""The version of ``state_features``: raised whenever a feature's meaning, order or scale
changes, so that a model trained on other inputs is refused."""
FEATURES = 17
SIDECAR_FORMAT = "carom-billiards leave value"
SIDECAR_VERSION = 1


def state_features(ruleset: Rules, state: GameState, params: Params) -> jax.Array:
    """(FEATURES,) float32: the canonical layout of the player to shoot (12, ``layout_features``)
    and the run's counters: pure caroms / 2 (H-6.3), a field being counted and its caroms / the
    field limit (C-11.2, C-12.3), an anchor being counted and its caroms / the limit (C-12.3 c)."""
    layout = layout_features(frame(state.positions, state.cue_ball, params))
    f = lambda x: jnp.asarray(x, jnp.float32)  # noqa: E731
    limit = jnp.maximum(f(ruleset.field_limit), 1.0)
    counters = jnp.stack([f(state.pure_caroms) / 2.0, f(state.field_zone >= 0), f(state.field_count) / limit,
                          f(state.anchor_zone >= 0), f(state.anchor_count) / limit])
    return jnp.concatenate([f(layout), counters])


def features_batch(ruleset: Rules, states: GameState, params: Params) -> jax.Array:
    """(B, FEATURES) ``state_features`` of a batch of states (leaves (B, ...))."""
    return jax.vmap(lambda s: state_features(ruleset, s, params))(states)


def values_of(net, ruleset: Rules, states: GameState, params: Params) -> jax.Array:
    """(B,) V of each state of a batch (traceable: the search calls it inside its judge)."""
    return mlp_apply(net, features_batch(ruleset, states, params))[:, 0]


@jax.jit
def _values(net, ruleset, states, params):
    return values_of(net, ruleset, states, params)


class LeaveValue:
    """A discipline's leave value: its MLP's layers and the sidecar that describes them."""

    def __init__(self, net, discipline: str, meta: dict | None = None):
        self.net = [(jnp.asarray(W), jnp.asarray(b)) for W, b in net]
        self.discipline = discipline
        self.meta = dict(meta or {})

    def values(self, ruleset: Rules, states: GameState, params: Params) -> jax.Array:
        """(B,) the expected points of the rest of the inning from each state (leaves (B, ...))."""
        return _values(self.net, ruleset, states, params)

    @classmethod
    def for_discipline(cls, discipline: str, noise: float = 0.0, folder: str = MODELS_DIR) -> LeaveValue:
        """The discipline's shipped leave value for the execution noise nearest ``noise``."""
        net, meta = load_value(discipline, folder, noise)
        return cls(net, discipline, meta)

    def __repr__(self):
        return f"LeaveValue({self.discipline!r}, plays_for={self.meta.get('plays_for')})"


SUFFIX = "_leave"  # a leave value's files: ``agents.store.model_paths`` of "<discipline>_leave"


def model_paths(discipline: str, folder: str = MODELS_DIR, noise: float = 0.0) -> tuple[str, str]:
    """(the layers' .npz, the .json sidecar): ``<discipline>_leave`` for exact play,
    ``<discipline>_leave_noise<scale>`` under execution noise."""
    return store.model_paths(discipline + SUFFIX, folder, noise)


def shipped(folder: str = MODELS_DIR) -> dict[str, tuple[float, ...]]:
    """{discipline: the noise scales it has a leave value for}, both files present."""
    names = os.listdir(folder) if os.path.isdir(folder) else ()
    disciplines = sorted({f.partition(SUFFIX)[0] for f in names if SUFFIX in f and f.endswith(".json")})
    found = {d: noise_variants(d + SUFFIX, folder) for d in disciplines}
    return {d: scales for d, scales in found.items() if scales}


def save_value(net, discipline: str, folder: str, noise: float = 0.0, **meta) -> tuple[str, str]:
    """Write the layers ([(W, b), ...]) and the sidecar (``meta``: data, command, figures)."""
    npz_path, json_path = model_paths(discipline, folder, noise)
    os.makedirs(folder, exist_ok=True)
    sizes = save_layers(net, npz_path)
    sidecar = dict(format=SIDECAR_FORMAT, version=SIDECAR_VERSION, features=FEATURES_VERSION, inputs=FEATURES,
                   discipline=discipline, plays_for=float(noise), sizes=sizes, **meta)
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(sidecar, f, indent=1)
    return npz_path, json_path


def load_value(discipline: str, folder: str = MODELS_DIR, noise: float = 0.0):
    """(net, sidecar) of the discipline's leave value for the noise nearest ``noise``; ValueError
    naming the disciplines that have one if this one has none, or saying what of the files does
    not match this build."""
    scales = shipped(folder).get(discipline, ())
    if not scales:
        have = ", ".join(sorted(shipped(folder))) or "none"
        raise ValueError(f"discipline {discipline!r} has no shipped leave value; disciplines with one: {have}")
    scale = nearest_scale(scales, noise)
    npz_path, json_path = model_paths(discipline, folder, scale)
    meta = read_sidecar("leave value", (npz_path, "layers", "a model is a .npz"), json_path, SIDECAR_FORMAT,
                        SIDECAR_VERSION)
    expected = dict(features=FEATURES_VERSION, inputs=FEATURES, discipline=discipline, plays_for=scale)
    for key, value in expected.items():
        if meta.get(key) != value:
            raise ValueError(f"{json_path}: {key} is {meta.get(key)!r}, this build needs {value!r} "
                             f"(retrain with experiments.leave_value)")
    return read_layers(npz_path, meta.get("sizes")), meta


__all__ = ["LeaveValue", "state_features", "features_batch", "values_of", "save_value", "load_value", "shipped",
           "model_paths", "FEATURES", "FEATURES_VERSION"]
