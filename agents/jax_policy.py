"""``JaxPolicyAgent``: a policy trained by the JAX PPO (``agents.jax_ppo``) as a planner, and its
network and checkpoint format.

The network is a plain-JAX MLP: a list of (weights, bias) layers with tanh between them, one for
the policy's mean action and one for the value, and a state-independent log standard deviation.
Plain arrays rather than flax modules: the whole model is a dict of a few arrays, saved as they
are (``.npz``) and read back with NumPy alone, the training loop differentiates it with
``jax.grad`` directly, and nothing beyond JAX is needed to play it.

Action squashing, "clip": the policy is a Gaussian over R^n (n the action form's size,
``billiards_env.actions.size``: 9 for "strike", 10 for "contact") whose sample is clipped into the
action box [-1, 1]^n when played; log-probabilities are those of the unclipped sample (as
Stable-Baselines3 does for its clipped Gaussian), so the PPO ratio is exact for the sample the
learner drew. Deterministic play clips the mean.

The "lines" form's policy is categorical instead (``init_network(..., form="lines")``): one MLP
scores each candidate strike from its features (``billiards_env.lines``: a pointer head, the same
weights for every candidate), masked candidates get no probability, and deterministic play takes
the best-scored candidate; the value reads the observation's first ``OBS_SIZE`` entries. Its
checkpoint has no ``log_std`` and records ``action_squashing`` "categorical".

A checkpoint is two files side by side: ``name.npz`` (the arrays, keys ``pi/0/w``, ``pi/0/b``, ...,
``vf/...``, ``log_std``) and ``name.json`` (the sidecar: discipline, mode, observation contract
as in ``agents.learned``, the action form, network sizes, activation, squashing, environment
settings). A "contact"-form policy plans by mapping each action to its strike from the state
(``agents.learned.shots_of``). A
checkpoint of another observation version is refused with both layouts in the message.

    agent = JaxPolicyAgent.load("results/train/three_cushion_jax/three_cushion_jax")   # ".npz" optional
    shots = agent.plan_batch(rules, states, params, keys)      # traceable: also a built-in opponent
"""
from __future__ import annotations

import functools
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

import physics
from physics.params import Params
from rules import GameState, Rules
from agents.learned import (
    PolicyPlanner, _check_action, _check_observation, _jsonable, _observe_batch, action_form_of, check_observations,
    env_params_of, form_record, line_table_of, observe_lines, pick, shots_of,
)
from agents.store import read_sidecar
from billiards_env import actions as env_actions
from billiards_env import lines as env_lines
from billiards_env import observation as env_observation
from billiards_env.observation import OBS_SIZE

SIDECAR_FORMAT = "carom-billiards jax policy"
SIDECAR_VERSION = 1
ACTIVATION = "tanh"
SQUASHING = "clip"
CATEGORICAL = "categorical"  # the "lines" form's squashing: a softmax over the candidates
MASKED = -1e9  # the logit of a masked candidate
HIDDEN = (64, 64)


# -- the network ----------------------------------------------------------------------------------


def init_mlp(key: jax.Array, sizes: tuple[int, ...], out_gain: float) -> list[dict]:
    """Layers of sizes[0] -> ... -> sizes[-1]: orthogonal weights (gain sqrt 2 on hidden layers,
    ``out_gain`` on the last, the usual PPO initialisation), zero biases."""
    keys = jax.random.split(key, len(sizes) - 1)
    layers = []
    for i, (k, n_in, n_out) in enumerate(zip(keys, sizes[:-1], sizes[1:])):
        gain = out_gain if i == len(sizes) - 2 else float(np.sqrt(2.0))
        w = jax.nn.initializers.orthogonal(gain)(k, (n_in, n_out), jnp.float32)
        layers.append({"w": w, "b": jnp.zeros((n_out,), jnp.float32)})
    return layers


def mlp(layers: list[dict], x: jax.Array) -> jax.Array:
    """tanh between layers, linear output."""
    for layer in layers[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def init_network(key: jax.Array, hidden: tuple[int, ...] = HIDDEN, log_std_init: float = 0.0,
                 n_actions: int = env_actions.N_ACTIONS, form: str = "strike") -> dict:
    """A new policy-and-value network for the flat observation and the ``n_actions``-dim action
    (9, the strike form's, by default; ``billiards_env.actions.size(form)``); for the "lines"
    form a candidate scorer (``env_lines.FEATURES`` inputs, one output) and no ``log_std``."""
    k_pi, k_vf = jax.random.split(key)
    n = n_actions
    if form == "lines":
        return {"pi": init_mlp(k_pi, (env_lines.FEATURES, *hidden, 1), 0.01),
                "vf": init_mlp(k_vf, (OBS_SIZE, *hidden, 1), 1.0)}
    return {"pi": init_mlp(k_pi, (OBS_SIZE, *hidden, n), 0.01), "vf": init_mlp(k_vf, (OBS_SIZE, *hidden, 1), 1.0),
            "log_std": jnp.full((n,), log_std_init, jnp.float32)}


def mean_action(net: dict, obs: jax.Array) -> jax.Array:
    """The Gaussian's mean, before clipping (..., n_actions)."""
    return mlp(net["pi"], obs)


def value(net: dict, obs: jax.Array) -> jax.Array:
    """The value estimate (...), from the observation's first ``OBS_SIZE`` entries."""
    return mlp(net["vf"], obs[..., :OBS_SIZE])[..., 0]


def is_categorical(net: dict) -> bool:
    """The network is a "lines" candidate scorer (no ``log_std``)."""
    return "log_std" not in net


def logits(net: dict, obs: jax.Array) -> jax.Array:
    """(..., COUNT) the candidate scorer's logits of "lines" observations; masked candidates get
    ``MASKED`` (all of them scored when the mask is empty)."""
    feats, mask = env_lines.split(obs)
    scores = mlp(net["pi"], feats)[..., 0]
    valid = mask > 0.5
    return jnp.where(valid | ~jnp.any(valid, -1, keepdims=True), scores, MASKED)


def play_action(net: dict, obs: jax.Array) -> jax.Array:
    """The deterministic action: the mean clipped into the action box, or the best candidate."""
    if is_categorical(net):
        return jnp.argmax(logits(net, obs), -1).astype(jnp.int32)
    return jnp.clip(mean_action(net, obs), env_actions.LOW, env_actions.HIGH)


def hidden_sizes(net: dict) -> tuple[int, ...]:
    return tuple(int(layer["w"].shape[1]) for layer in net["pi"][:-1])


def to_arrays(net: dict) -> dict[str, np.ndarray]:
    """The network as flat named NumPy arrays (``pi/0/w``, ...), for ``np.savez``."""
    out = {} if is_categorical(net) else {"log_std": np.asarray(net["log_std"])}
    for part in ("pi", "vf"):
        for i, layer in enumerate(net[part]):
            out[f"{part}/{i}/w"] = np.asarray(layer["w"])
            out[f"{part}/{i}/b"] = np.asarray(layer["b"])
    return out


def n_actions_of(net: dict) -> int:
    """The network's action size (its policy's outputs; the candidates for a "lines" scorer)."""
    return env_lines.COUNT if is_categorical(net) else int(np.shape(net["log_std"])[0])


def from_arrays(arrays, hidden: tuple[int, ...], n_actions: int = env_actions.N_ACTIONS,
                form: str = "strike") -> dict:
    """The network of ``to_arrays``' output with ``hidden`` layers and ``n_actions`` outputs (a
    candidate scorer for ``form`` "lines"); ValueError when an array is missing or of the wrong shape."""
    n = n_actions
    lines = form == "lines"
    net: dict = {"pi": [], "vf": []} if lines else {"log_std": None, "pi": [], "vf": []}
    expected: dict[str, tuple[int, ...]] = {} if lines else {"log_std": (n,)}
    for part, out in (("pi", n), ("vf", 1)):
        sizes = (env_lines.FEATURES, *hidden, 1) if lines and part == "pi" else (OBS_SIZE, *hidden, out)
        for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
            expected[f"{part}/{i}/w"] = (n_in, n_out)
            expected[f"{part}/{i}/b"] = (n_out,)
    for name, shape in expected.items():
        if name not in arrays or tuple(np.shape(arrays[name])) != shape:
            got = tuple(np.shape(arrays[name])) if name in arrays else "missing"
            raise ValueError(f"checkpoint array {name} must have shape {shape} (hidden {list(hidden)}), got {got}")
    if not lines:
        net["log_std"] = jnp.asarray(arrays["log_std"], jnp.float32)
    for part in ("pi", "vf"):
        net[part] = [{"w": jnp.asarray(arrays[f"{part}/{i}/w"], jnp.float32),
                      "b": jnp.asarray(arrays[f"{part}/{i}/b"], jnp.float32)} for i in range(len(hidden) + 1)]
    return net


# -- the planner ----------------------------------------------------------------------------------


def checkpoint_paths(path: str | os.PathLike[str]) -> tuple[str, str]:
    """(the arrays' .npz, the .json sidecar) for a path given with or without ".npz"."""
    path = os.fspath(path)
    stem = path[:-4] if path.endswith(".npz") else path
    return stem + ".npz", stem + ".json"


@functools.partial(jax.jit, static_argnames="form")
def _play(net, ruleset, states, env_params, form="strike"):
    return shots_of(play_action(net, _observe_batch(ruleset, states, env_params)), states, env_params, form)


@functools.partial(jax.jit, static_argnames="line_table")
def _play_lines(net, ruleset, states, env_params, line_table):
    """The "lines" policy's strikes: each state's candidates (``observe_lines``), the best scored."""
    obs, candidates = observe_lines(ruleset, states, env_params, line_table)
    return pick(candidates, play_action(net, obs))


class JaxPolicyAgent(PolicyPlanner):
    """A network of ``init_network``'s form and what it was trained on.

    Arguments: net (the arrays), discipline, env: the environment settings of training (as
    ``agents.LearnedAgent``: ``rule_options``, ``physics_options``, ``values``, ``action``: the
    action form, "strike" by default); info: anything else for the sidecar (training settings,
    results); action_form: the form, when not in ``env`` (the sidecar's ``action_form`` on load).
    The network's outputs must be the form's action size.
    """

    name = "jax_policy"

    def __init__(self, net: dict, discipline: str, env: dict | None = None, info: dict | None = None,
                 action_form: str | None = None):
        env = {"mode": "shot", "obs_format": "flat", "rule_options": {}, "physics_options": {}, "values": {},
               **(env or {})}
        if env["mode"] != "shot" or env["obs_format"] != "flat":
            raise ValueError(f"a JaxPolicyAgent plays policies trained on the flat observation of \"shot\" mode, "
                             f"not mode={env['mode']!r}, obs_format={env['obs_format']!r}")
        self.action_form = env_actions.check_form(env.get("action", "strike") if action_form is None else action_form)
        n = env_actions.size(self.action_form)
        if n_actions_of(net) != n:
            raise ValueError(f"the network gives {n_actions_of(net)} action components; the {self.action_form!r} "
                             f"form has {n}")
        self.net = jax.tree_util.tree_map(jnp.asarray, net)
        self.discipline = discipline
        self.env = env
        self.info = dict(info or {})
        self.env_params = env_params_of(discipline, env)
        self.line_table = line_table_of(self.env_params, self.action_form)

    @property
    def squashing(self) -> str:
        """How the network's output becomes an action: "clip" (Gaussian) or "categorical" ("lines")."""
        return CATEGORICAL if self.action_form == "lines" else SQUASHING

    # -- files ---------------------------------------------------------------------------------

    def sidecar(self) -> dict:
        return dict(format=SIDECAR_FORMAT, version=SIDECAR_VERSION, discipline=self.discipline, mode="shot",
                    observation_size=env_observation.size(self.action_form),
                    observation=env_observation.layout(self.action_form),
                    n_actions=env_actions.size(self.action_form),
                    action=env_actions.ACTION_VERSION, **form_record(self.action_form),
                    network=dict(hidden=list(hidden_sizes(self.net)), activation=ACTIVATION,
                                 action_squashing=self.squashing,
                                 log_std=None if self.action_form == "lines" else "state-independent"),
                    env=self.env, info=self.info)

    def save(self, path: str | os.PathLike[str]) -> tuple[str, str]:
        """Write the arrays (.npz) and the sidecar (.json); returns both paths."""
        npz_path, json_path = checkpoint_paths(path)
        os.makedirs(os.path.dirname(os.path.abspath(npz_path)), exist_ok=True)
        arrays: dict = to_arrays(self.net)
        with open(npz_path, "wb") as f:
            np.savez(f, **arrays)
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(self.sidecar(), f, indent=2, default=_jsonable)
            f.write("\n")
        return npz_path, json_path

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "JaxPolicyAgent":
        """The agent saved at ``path`` (.npz with or without the suffix, its .json beside it).
        ValueError when a file is missing or malformed, or the observation differs."""
        npz_path, json_path = checkpoint_paths(path)
        meta = read_sidecar("JAX policy", (npz_path, "arrays", "a saved policy is a .npz"), json_path,
                            SIDECAR_FORMAT, SIDECAR_VERSION)
        if not isinstance(meta.get("discipline"), str) or not isinstance(meta.get("env", {}), dict):
            raise ValueError(f"{json_path}: sidecar lacks a discipline or a valid env entry")
        form = action_form_of(meta, json_path)
        _check_observation(meta.get("observation"), json_path, form)
        _check_action(meta.get("action"), json_path)
        network = meta.get("network") or {}
        squashing = CATEGORICAL if form == "lines" else SQUASHING
        if network.get("activation") != ACTIVATION or network.get("action_squashing") != squashing:
            raise ValueError(f"{json_path}: network {network!r}; this code plays activation {ACTIVATION!r} with "
                             f"action_squashing {squashing!r} for {form!r} actions")
        try:
            with np.load(npz_path) as arrays:
                net = from_arrays(dict(arrays), tuple(int(h) for h in network.get("hidden", ())),
                                  env_actions.size(form), form)
        except (OSError, ValueError) as error:
            raise ValueError(f"cannot read the JAX policy {npz_path}: {error}") from None
        return cls(net, meta["discipline"], meta.get("env"), meta.get("info"), action_form=form)

    # -- playing -------------------------------------------------------------------------------

    def act(self, observations: ArrayLike) -> np.ndarray:
        """Deterministic actions in [-1, 1]^9 (^10 for the "contact" form, ``action_form``) for flat
        observations, (OBS_SIZE,) or (N, OBS_SIZE)."""
        return np.asarray(play_action(self.net, jnp.asarray(check_observations(observations, self.action_form))))

    def plan_batch(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        """The strikes of the deterministic policy; pure JAX (traceable), so the agent also plays as
        an environment's built-in opponent (``as_policy``)."""
        self._check_rules(ruleset)
        if self.action_form == "lines":
            return _play_lines(self.net, ruleset, states, self._env_params(params), self.line_table)
        return _play(self.net, ruleset, states, self._env_params(params), form=self.action_form)

    def __repr__(self):
        form = "" if self.action_form == "strike" else f", action={self.action_form!r}"
        return f"JaxPolicyAgent({self.discipline!r}, hidden={list(hidden_sizes(self.net))}{form})"


__all__ = ["JaxPolicyAgent", "init_network", "mean_action", "value", "play_action", "checkpoint_paths"]
