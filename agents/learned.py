"""``LearnedAgent``: a Stable-Baselines3 policy (PPO or SAC) trained on a discipline's "shot" mode
(``experiments.train``), as a planner.

A saved agent is two files side by side: the model (``name.zip``, SB3's own format) and a JSON
sidecar (``name.json``) that says what the model was trained on: the discipline, the algorithm
and the environment settings (rule and physics options, the action ranges, noise, ...), so that
the observation and the action mapping of training are rebuilt exactly. The sidecar also stores the
observation's contract (``billiards_env.observation.layout()``: version, groups, fingerprint), and
a model trained on another observation is refused when loaded, with both layouts in the message:

    state  --billiards_env.observation.observe-->  obs (OBS_SIZE,)  --policy (deterministic)-->
    action in [-1, 1]^9  --billiards_env.actions.to_shot-->  physics.Shot

The observation is the one the environment gives at the start of a "shot" episode (step count
0). Only the strike is taken from the action: the choices some positions offer (ball in hand,
re-spots, start side) are left at the referee's defaults, as for the other planners. A model of
the "contact" form (``action_form``, the sidecar's ``action_form``) gives (10,) actions, each
mapped to its strike from the state as the contact environment does
(``billiards_env.actions.contact_to_strike``, after the choices that keep the layout). The key is
not used: the policy is deterministic.

Stable-Baselines3 (and torch) are imported only when a model is loaded or saved, so ``import
agents`` does not need the optional ``rl`` extra.

    agent = LearnedAgent.load("docs/models/three_cushion_ppo.zip")   # or without ".zip"
    shots = agent.plan_batch(rules, states, params, keys)
    actions = agent.act(observations)                                 # for environment users
"""
from __future__ import annotations

import functools
import json
import os
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

import physics
from physics.params import Params
from rules import GameState, Rules, disciplines
from aiming import geometry
from agents.base import Planner
from agents.store import read_sidecar
from billiards_env import actions as env_actions
from billiards_env import observation as env_observation
from billiards_env import lines as env_lines
from billiards_env.observation import OBS_SIZE, observe
from billiards_env.params import default_params, replace

if TYPE_CHECKING:  # Stable-Baselines3 is an optional dependency (the rl extra)
    from stable_baselines3.common.base_class import BaseAlgorithm

ALGORITHMS = ("ppo", "sac")
SIDECAR_FORMAT = "carom-billiards learned agent"
SIDECAR_VERSION = 1
# Sidecars written before the observation was versioned carry only "observation_size". Every one
# of them was trained on this layout, the only one the environments had until then, so they are
# read as observation version 1 (and refused by any build that observes another version).
UNVERSIONED_OBSERVATION = {
    "version": 1,
    "groups": [["balls", 6], ["pin", 5], ["frozen", 7], ["choices", 5], ["score", 5], ["counters", 5], ["turn", 5]],
}


def model_paths(path: str | os.PathLike[str]) -> tuple[str, str]:
    """(the model's .zip, its .json sidecar) for a path given with or without ".zip"."""
    path = os.fspath(path)
    stem = path[:-4] if path.endswith(".zip") else path
    return stem + ".zip", stem + ".json"


def _algorithm_class(algorithm: str):
    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; valid: {', '.join(ALGORITHMS)}")
    try:
        import stable_baselines3
    except ImportError as error:  # pragma: no cover - the "rl" extra is missing
        raise ImportError('LearnedAgent needs stable-baselines3: pip install -e ".[rl]"') from error
    return {"ppo": stable_baselines3.PPO, "sac": stable_baselines3.SAC}[algorithm]


def action_form_of(meta: dict, json_path) -> str:
    """The action form a sidecar records (``"action_form"``, beside ``"action"``, the strike
    mapping's version), checked: one of ``billiards_env.actions.FORMS`` at the version this build
    plays (``actions.VERSIONS``). Sidecars written before the forms have none: "strike"."""
    form = meta.get("action_form", "strike")
    if form not in env_actions.FORMS:
        raise ValueError(f"{json_path}: unknown action form {form!r}; this build plays {', '.join(env_actions.FORMS)}")
    if form != "strike":
        version = meta.get("action_form_version")
        if version != env_actions.VERSIONS[form]:
            raise ValueError(f"{json_path}: this model was trained on {form!r} actions of version {version!r}; this "
                             f"build plays version {env_actions.VERSIONS[form]}. Retrain it (experiments.train)")
    return form


def form_record(form: str) -> dict:
    """What a sidecar stores of an action form: the form and its mapping's version."""
    return {"action_form": form, "action_form_version": env_actions.VERSIONS[env_actions.check_form(form)]}


def env_params_of(discipline: str, env: dict):
    """The ``EnvParams`` of training from the sidecar's ``env`` entry (ValueError when invalid)."""
    return default_params(discipline, rule_options=env.get("rule_options") or {},
                          physics_options=env.get("physics_options") or {}, **(env.get("values") or {}))


@jax.jit
def _observe_batch(ruleset, states, env_params):
    step_count = jnp.zeros((), jnp.int32)  # the observation at the start of a "shot" episode
    return jax.vmap(lambda s: observe(ruleset, s, env_params, step_count))(states)


@functools.partial(jax.jit, static_argnames="line_table")
def observe_lines(ruleset, states, env_params, line_table):
    """(observations (S, observation.size("lines")), candidates: ``physics.Shot`` leaves (S, COUNT)):
    the "lines" form's training observation of each state and its candidate strikes
    (``billiards_env.lines.view``). ``line_table``: ``line_table_of``'s. Traceable."""
    def one(state):
        cushions, hungarian = line_table
        view, shots = env_lines.view(cushions, hungarian, state, env_params)
        return jnp.concatenate([observe(ruleset, state, env_params, jnp.zeros((), jnp.int32)), view]), shots

    return jax.vmap(one)(states)


def line_table_of(env_params, form: str) -> tuple:
    """The static (cushions, hungarian) of the "lines" form's line table for concrete ``env_params``
    (() for the other forms)."""
    if form != "lines":
        return ()
    return geometry.line_cushions(env_params.rules), bool(env_params.rules.is_hungarian)


def pick(candidates, index):
    """The candidates' strikes at ``index`` (S,): leaves (S, COUNT) -> (S,)."""
    index = jnp.clip(jnp.asarray(index, jnp.int32), 0, env_lines.COUNT - 1)
    return jax.tree_util.tree_map(lambda x: jnp.take_along_axis(x, index[:, None], 1)[:, 0], candidates)


@functools.partial(jax.jit, static_argnames="form")
def shots_of(action_batch, states, env_params, form: str = "strike"):
    """The shots of a batch of actions of ``form`` planned from ``states`` (leaves (S, ...)), as the
    environment of that form plays them (``actions.resolve``), with the choices that leave each
    layout as it lies (``actions.kept_choices``: a planner's shot is played from the state it was
    planned from). Traceable."""
    env_actions.check_form(form)

    def shot(a, state):
        a = env_actions.sanitize(a, form)
        a = jnp.concatenate([a[:-4], env_actions.kept_choices(state, env_params).astype(a.dtype)])
        return env_actions.resolve(a, state, env_params, form)[1]

    return jax.vmap(shot)(action_batch, states)


class PolicyPlanner(Planner):
    """A planner that plays a policy of the environment's flat "shot"-mode observation: the
    training observation of each state, the policy's action (``act``), its strike. Subclasses
    give ``act`` and set ``discipline``, ``env_params`` (the ``EnvParams`` of training) and
    ``action_form`` (the form of the actions ``act`` gives, ``billiards_env.actions.FORMS``)."""

    discipline: str
    env_params: object
    action_form: str = "strike"

    def check_env(self, env) -> None:
        """ValueError unless ``env`` (any billiards environment, wrapped or not) takes the action
        form this policy gives: its actions mean something else in another form."""
        form = env_actions.form_of(env)
        if form != self.action_form:
            raise ValueError(f"this {type(self).__name__} gives {self.action_form!r}-form actions "
                             f"({env_actions.size(self.action_form)} components); the environment takes the "
                             f"{form!r} form. Make the environment with action={self.action_form!r}")

    def act(self, observations: ArrayLike) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def observe_batch(self, ruleset: Rules, states: GameState, params: Params) -> jax.Array:
        """(S, n) float32: the training observation of each state (leaves (S, ...)), n the form's
        observation size."""
        self._check_rules(ruleset)
        if self.action_form == "lines":
            return self._observe_lines(ruleset, states, params)[0]
        return _observe_batch(ruleset, states, self._env_params(params))

    def plan_batch(self, ruleset: Rules, states: GameState, params: Params, keys: jax.Array) -> physics.Shot:
        if self.action_form == "lines":
            self._check_rules(ruleset)
            obs, candidates = self._observe_lines(ruleset, states, params)
            return pick(candidates, self.act(np.asarray(obs)))
        obs = np.asarray(self.observe_batch(ruleset, states, params))
        return shots_of(self.act(obs), states, self._env_params(params), self.action_form)

    def _observe_lines(self, ruleset, states, params):
        env_params = self._env_params(params)
        return observe_lines(ruleset, states, env_params, line_table_of(self.env_params, "lines"))

    def _env_params(self, params):
        """The training ``EnvParams`` with the caller's physics (table, dtype)."""
        return self.env_params if params is None else replace(self.env_params, physics=params)

    def _check_rules(self, ruleset):
        """ValueError unless ``ruleset`` is of the discipline of training (options may differ)."""
        played = disciplines.matching(ruleset)
        if self.discipline not in played:
            raise ValueError(f"this {type(self).__name__} was trained on {self.discipline}, not on the rules of "
                             f"{' / '.join(played) or 'another discipline'}")


def check_observations(observations: ArrayLike, form: str = "strike") -> np.ndarray:
    """Flat observations of an action form as float32, (n,) or (N, n) with n its size
    (``observation.size``: OBS_SIZE but for "lines"); ValueError for another shape."""
    obs = np.asarray(observations, dtype=np.float32)
    n = env_observation.size(form)
    if obs.shape[-1:] != (n,) or obs.ndim not in (1, 2):
        raise ValueError(f"observations must have shape ({n},) or (N, {n}), got {obs.shape}")
    return obs


class LearnedAgent(PolicyPlanner):
    """A trained SB3 model and what it was trained on.

    Arguments: model (``stable_baselines3.PPO`` or ``SAC``), discipline (``rules.DISCIPLINES``),
    algorithm ("ppo" or "sac"), env: the environment settings of training, a dict with
    ``rule_options``, ``physics_options`` (dicts), ``values`` (the ``EnvParams`` values given
    to ``billiards_env.default_params``: ``noise``, ``zero_sum``, ``v_max``, ...) and ``action``
    (the action form, "strike" by default, or "contact"); info: anything else to keep in the
    sidecar (training settings, results); action_form: the form, when not in ``env`` (the
    sidecar's ``action_form`` on load).
    """

    name = "learned"

    def __init__(self, model: "BaseAlgorithm", discipline: str, algorithm: str, env: dict | None = None,
                 info: dict | None = None, action_form: str | None = None):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; valid: {', '.join(ALGORITHMS)}")
        env = {"mode": "shot", "obs_format": "flat", "rule_options": {}, "physics_options": {}, "values": {},
               **(env or {})}
        if env["mode"] != "shot" or env["obs_format"] != "flat":
            raise ValueError(f"a LearnedAgent plays models trained on the flat observation of \"shot\" mode, "
                             f"not mode={env['mode']!r}, obs_format={env['obs_format']!r}")
        self.action_form = env_actions.check_form(env.get("action", "strike") if action_form is None else action_form)
        _check_spaces(model, self.action_form)
        self.model = model
        self.discipline = discipline
        self.algorithm = algorithm
        self.env = env
        self.info = dict(info or {})
        self.env_params = env_params_of(discipline, env)

    # -- files ---------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike[str], device: str = "cpu") -> "LearnedAgent":
        """The agent saved at ``path`` (the model's .zip, with or without the suffix, and its
        .json sidecar next to it). ValueError when a file is missing or malformed."""
        zip_path, json_path = model_paths(path)
        meta = read_sidecar("learned-agent", (zip_path, "model", "a saved agent is a .zip"), json_path, SIDECAR_FORMAT,
                            SIDECAR_VERSION)
        missing = [k for k in ("discipline", "algorithm", "env") if k not in meta]
        if missing or not isinstance(meta["env"], dict):
            raise ValueError(f"{json_path}: sidecar lacks {', '.join(missing) or 'a valid env entry'}")
        _check_observation(meta.get("observation", UNVERSIONED_OBSERVATION), json_path)
        _check_action(meta.get("action"), json_path)
        form = action_form_of(meta, json_path)
        algo_cls = _algorithm_class(meta["algorithm"])
        try:
            # only the policy is used: the training schedules are not unpickled (robust across versions)
            model = algo_cls.load(zip_path, device=device, custom_objects=_PLAYING_ONLY)
        except Exception as error:  # SB3 raises many kinds on a bad zip
            raise ValueError(f"cannot load the {meta['algorithm'].upper()} model {zip_path}: "
                             f"{type(error).__name__}: {error}") from None
        try:
            return cls(model, meta["discipline"], meta["algorithm"], meta["env"], meta.get("info"), action_form=form)
        except (TypeError, AttributeError) as error:
            raise ValueError(f"{json_path}: malformed env settings: {error}") from None

    def save(self, path: str | os.PathLike[str]) -> tuple[str, str]:
        """Write the model (.zip) and its sidecar (.json); returns both paths."""
        zip_path, json_path = model_paths(path)
        os.makedirs(os.path.dirname(os.path.abspath(zip_path)), exist_ok=True)
        self.model.save(zip_path)
        with open(json_path, "w", encoding="utf-8") as f:
            json.dump(self.sidecar(), f, indent=2, default=_jsonable)
            f.write("\n")
        return zip_path, json_path

    def sidecar(self) -> dict:
        return dict(format=SIDECAR_FORMAT, version=SIDECAR_VERSION, discipline=self.discipline,
                    algorithm=self.algorithm, observation_size=OBS_SIZE, observation=env_observation.layout(),
                    action=env_actions.ACTION_VERSION, **form_record(self.action_form),
                    n_actions=env_actions.size(self.action_form), env=self.env, info=self.info)

    # -- playing -------------------------------------------------------------------------------

    def act(self, observations: ArrayLike) -> np.ndarray:
        """Actions in [-1, 1]^9 (float32; ^10 for the "contact" form, ``action_form``) for flat
        observations: (OBS_SIZE,) -> (9,), or (N, OBS_SIZE) -> (N, 9). Deterministic."""
        action, _ = self.model.predict(check_observations(observations), deterministic=True)
        return np.clip(np.asarray(action, np.float32), env_actions.LOW, env_actions.HIGH)

    def __repr__(self):
        return f"LearnedAgent({self.discipline!r}, {self.algorithm!r})"


_PLAYING_ONLY = {"learning_rate": 0.0, "lr_schedule": lambda _: 0.0, "clip_range": lambda _: 0.0}


def _check_spaces(model, form: str = "strike"):
    obs_shape = getattr(model.observation_space, "shape", None)
    act_shape = getattr(model.action_space, "shape", None)
    n = env_actions.size(form)
    if obs_shape != (OBS_SIZE,) or act_shape != (n,):
        raise ValueError(f"the model's spaces are observation {obs_shape}, action {act_shape}; a LearnedAgent "
                         f"needs ({OBS_SIZE},) and ({n},) (the flat \"shot\" mode, {form!r} actions)")


def _check_action(stored, json_path):
    """ValueError unless the sidecar's action mapping (``"action"``: its version; absent in the
    first version) is the one this build plays (``billiards_env.actions.ACTION_VERSION``)."""
    version = 1 if stored is None else stored
    if version != env_actions.ACTION_VERSION:
        raise ValueError(
            f"{json_path}: this model was trained on action version {version!r} (version 1: the elevation "
            f"component spans 0..theta_max); this build plays version {env_actions.ACTION_VERSION} (a level cue "
            f"up to {env_actions.RAISED_FROM} of the component). Retrain it (experiments.train)")


def _check_observation(stored, json_path, form: str = "strike"):
    """ValueError unless the sidecar's observation (version and groups) is the one this build observes."""
    groups = stored.get("groups") if isinstance(stored, dict) else None
    well_formed = isinstance(groups, list) and all(
        isinstance(g, list) and len(g) == 2 and isinstance(g[0], str) and isinstance(g[1], int) for g in groups)
    if well_formed and "fingerprint" in stored and stored["fingerprint"] != env_observation.fingerprint(groups):
        well_formed = False  # edited by hand: the groups are not the ones the fingerprint was made of
    if not well_formed or not isinstance(stored.get("version"), (int, str)):
        raise ValueError(f"{json_path}: malformed observation entry {stored!r}; expected "
                         f"{{\"version\": ..., \"groups\": [[name, size], ...]}}")
    current = env_observation.layout(form)
    if stored["version"] != current["version"] or groups != current["groups"]:
        raise ValueError(
            f"{json_path}: this model was trained on observation {env_observation.describe(stored)}; this build "
            f"observes {env_observation.describe(current)}. Retrain it (experiments.train) or play it with a "
            f"build that observes version {stored['version']}.")


def _jsonable(value):
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    return str(value)
