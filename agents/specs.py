"""Agents named by a spec string, as on the commands' ``--agents``: parse, build, load.

``parse_agent_spec(text)`` checks a spec before any work; ``make_agent(spec, noise, discipline=)``
builds its planner for play under execution noise of scale ``noise``; ``AgentSpecError`` (a
ValueError) says what is allowed when a spec is malformed or its model cannot be loaded::

    random                              uniform random strikes (options: v_min, v_max, max_offset)
    geometric                           ghost-ball and mirror lines (no options)
    search                              search planned for the evaluation's execution noise:
                                        ``SearchAgent()`` without noise, ``SearchAgent.for_noise``
                                        with it
    search:candidates=512,trials=4      the same with ``agents.SearchConfig`` fields replaced
    learned:PATH                        ``agents.learned.LearnedAgent.load(PATH)`` (an SB3 .zip), or
                                        ``agents.jax_policy.JaxPolicyAgent.load(PATH)`` (a JAX .npz)
    policy                              the discipline's shipped success model for the evaluation's
                                        noise (``agents.policy.PolicyAgent``): no simulation
    guided                              the search, its round-1 candidates rated by that model
                                        (``agents.guided.GuidedAgent``), 1024 simulated shots
    guided:shots=8192,explore=0.25      the same with its budget (a power of two, 256 to 65536) or
                                        options replaced (``GUIDED_OPTIONS``)
    plugin:MODULE.CLASS                 a planner class of any importable module, made with no
                                        arguments (or ``noise=``): docs/agents.md section 7

``search`` and ``guided`` also take ``leave=value``: position play with the discipline's shipped
leave value (``agents.leave``); ``search:safety=W`` (defensive play, ``SearchConfig.safety``) loads
it too. The shipped models are read from ``agents/models``. Any spec may
end in ``@NOISE``, that player's own execution noise, a scale or a profile name
(``agents.base.NOISE_PROFILES``): ``search@club``, ``geometric@0.5`` (``split_noise``); the
agent plans and plays under it, and its label stays the whole text.
"""
from __future__ import annotations

import dataclasses
import importlib
import inspect
import os
from typing import Any, Callable

from agents.base import NOISE_PROFILES, Planner, noise_scale
from agents.geometric import GeometricAgent
from agents.guided import BUDGETS, GuidedAgent
from agents.jax_policy import JaxPolicyAgent, checkpoint_paths
from agents.leave import LeaveValue
from agents.policy import PolicyAgent
from agents.store import MODELS_DIR
from agents.random_agent import RandomAgent
from agents.search import SearchAgent, SearchConfig

AGENT_KINDS = ("random", "geometric", "search", "learned", "rl", "policy", "guided", "plugin")
SPEC_HELP = ("agent specs: random, geometric, search, search:OPTION=VALUE,... (agents.SearchConfig "
             "fields, e.g. search:candidates=512,trials=4), learned:PATH, rl (the discipline's shipped "
             "reinforcement-learning policy), policy, guided, "
             "guided:OPTION=VALUE,... (shots, explore, random_fraction, position_weight, lanes; "
             "e.g. guided:shots=8192); search and guided take leave=value (position play with the "
             "discipline's shipped leave value, agents.leave), e.g. search:leave=value; "
             "plugin:MODULE.CLASS (a planner class of an importable module, e.g. "
             "plugin:agents.plugin_example.NearestBall); any spec may end in @NOISE, that player's own "
             f"execution noise, a scale or a profile ({', '.join(NOISE_PROFILES)}), e.g. search@club")
RANDOM_OPTIONS = ("v_min", "v_max", "max_offset")
GUIDED_OPTIONS: dict[str, Any] = dict(shots=int, explore=float, random_fraction=float, position_weight=float,
                                      lanes=int)
"""Options of the guided agent: its simulated shots per decision, the exploring share of its
round-1 candidates, and the ``agents.SearchConfig`` fields that keep their meaning."""
LEAVE_CHOICES = ("value", "none")


class AgentSpecError(ValueError):
    """A malformed agent spec; the message lists what is allowed."""


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: kind, its options text (the learned agent's path, the plug-in's
    ``MODULE.CLASS``), the whole text (the player's label), and the player's own execution noise
    (``@NOISE``; None: the evaluation's)."""

    kind: str
    options: str
    text: str
    noise: float | None = None


# --- options -----------------------------------------------------------------------------------

def _number(name: str, value: str, kind):
    text = value.strip()
    try:
        if kind is int:
            number = float(text)
            if number != int(number):
                raise ValueError
            return int(number)
        return float(text)
    except ValueError:
        raise AgentSpecError(f"option {name} needs {'an integer' if kind is int else 'a number'}, "
                             f"got {value!r}") from None


def _options(text: str, allowed: dict, what: str) -> dict:
    """``a=1,b=2`` -> {a: 1, b: 2.0} with the types of ``allowed`` (name -> int, float or
    'int_or_none')."""
    changes: dict[str, Any] = {}
    for item in text.split(","):
        if not item.strip():
            continue
        name, eq, value = item.partition("=")
        name = name.strip()
        if not eq:
            raise AgentSpecError(f"{what} option {item!r} is not NAME=VALUE; valid names: {', '.join(allowed)}")
        if name not in allowed:
            raise AgentSpecError(f"unknown {what} option {name!r}; valid: {', '.join(allowed)}")
        kind = allowed[name]
        if kind == "int_or_none":
            changes[name] = None if value.strip().lower() == "none" else _number(name, value, int)
        else:
            changes[name] = _number(name, value, kind)
    return changes


def split_leave(text: str) -> tuple[str, bool]:
    """(the options without ``leave=...``, whether ``leave=value`` was asked for); AgentSpecError
    for any other leave setting."""
    rest, leave = [], False
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        name, _, value = item.partition("=")
        if name.strip() != "leave":
            rest.append(item)
            continue
        if value.strip() not in LEAVE_CHOICES:
            raise AgentSpecError(f"leave must be one of {', '.join(LEAVE_CHOICES)} (value: the discipline's shipped "
                                 f"leave value, agents.leave), got {value.strip()!r}")
        leave = value.strip() == "value"
    return ",".join(rest), leave


def _search_fields() -> dict:
    types: dict[str, Any] = {}
    for f in dataclasses.fields(SearchConfig):
        default = getattr(SearchConfig(), f.name)
        types[f.name] = "int_or_none" if default is None else float if isinstance(default, float) else int
    return types


def parse_config(text: str, base: SearchConfig) -> SearchConfig:
    """``candidates=512,trials=8`` -> ``base`` (an ``agents.SearchConfig``) with those fields
    replaced; ``AgentSpecError`` for unknown names or bad values."""
    changes = _options(text or "", _search_fields(), "search")
    try:
        return dataclasses.replace(base, **changes)
    except ValueError as e:
        raise AgentSpecError(f"bad search options {text!r}: {e}") from None


def _guided_options(text: str) -> dict:
    """The guided agent's options (``GUIDED_OPTIONS``), its budget checked: AgentSpecError listing
    the budgets allowed."""
    options = _options(text, GUIDED_OPTIONS, "guided")
    if options.get("shots", BUDGETS[0]) not in BUDGETS:
        raise AgentSpecError(f"guided option shots={options['shots']} cannot be split into the search's rounds; "
                             f"allowed: {', '.join(map(str, BUDGETS))} simulated shots per decision")
    return options


# --- specs -------------------------------------------------------------------------------------

def split_noise(text: str) -> tuple[str, float | None]:
    """(the spec without its ``@NOISE`` end, that noise's scale or None): ``search@club`` ->
    ("search", 4.9), ``geometric@0.5`` -> ("geometric", 0.5), ``search`` -> ("search", None).
    AgentSpecError when what follows the last ``@`` is neither a scale >= 0 nor a profile name,
    but for a learned agent, whose path may hold an ``@`` of its own (then kept whole)."""
    head, at, tail = text.rpartition("@")
    if not at:
        return text, None
    try:
        return head.strip(), noise_scale(tail.strip())
    except ValueError as e:
        if text.strip().startswith("learned:"):
            return text, None
        raise AgentSpecError(f"bad player noise in spec {text!r}: {e}") from None


def parse_agent_spec(text: str) -> AgentSpec:
    """``kind[:options][@NOISE]`` -> ``AgentSpec``; ``AgentSpecError`` listing the valid specs."""
    if not isinstance(text, str) or not text.strip():
        raise AgentSpecError(f"empty agent spec; {SPEC_HELP}")
    text = text.strip()
    body, noise = split_noise(text)
    kind, _, rest = body.partition(":")
    kind = kind.strip()
    if kind not in AGENT_KINDS:
        raise AgentSpecError(f"unknown agent {kind!r} in spec {text!r}; valid kinds: "
                             f"{', '.join(AGENT_KINDS)} ({SPEC_HELP})")
    if kind == "learned":
        if not rest.strip():
            raise AgentSpecError(f"learned agents need a path: learned:PATH, got {text!r}")
        return AgentSpec(kind, rest.strip(), text, noise)
    if kind in ("geometric", "policy", "rl") and rest.strip():
        raise AgentSpecError(f"the {kind} agent takes no options, got {text!r}")
    # Check the options now, so that a bad spec fails before any work.
    if kind == "random":
        _options(rest, {n: float for n in RANDOM_OPTIONS}, "random")
    if kind == "search":
        _options(split_leave(rest)[0], _search_fields(), "search")
    if kind == "guided":
        _guided_options(split_leave(rest)[0])
    if kind == "plugin":
        plugin_class(rest.strip())
    return AgentSpec(kind, rest.strip(), text, noise)


def make_agent(spec: str | AgentSpec, noise: float = 0.0, exact: SearchConfig | None = None,
               noisy: SearchConfig | None = None, discipline: str | None = None):
    """A planner for an agent spec (a string or ``AgentSpec``), for play under execution noise of
    scale ``noise``: the search plans for exact execution without noise (base config ``exact``,
    default ``SearchAgent().config``) and for that noise with it (``noisy``, default
    ``SearchAgent.for_noise(noise).config``); the spec's options are applied on top. ``policy``,
    ``guided`` and ``leave=value`` load the shipped models of ``discipline``. A spec's own noise
    (``@NOISE``) replaces ``noise``."""
    spec = parse_agent_spec(spec) if isinstance(spec, str) else spec
    noise = noise if spec.noise is None else spec.noise
    if spec.kind == "random":
        options = _options(spec.options, {n: float for n in RANDOM_OPTIONS}, "random")
        try:
            return RandomAgent(**options)
        except ValueError as e:
            raise AgentSpecError(f"bad random options {spec.options!r}: {e}") from None
    if spec.kind == "geometric":
        return GeometricAgent()
    if spec.kind == "search":
        if noise > 0:
            base = noisy if noisy is not None else SearchAgent.for_noise(noise).config
        else:
            base = exact if exact is not None else SearchAgent().config
        text, leave = split_leave(spec.options)
        config = parse_config(text, base)
        leave = leave or config.safety > 0  # defensive play reads the opponent's prospects off the leave value
        return SearchAgent(config, leave=load_leave(discipline, noise) if leave else None)
    if spec.kind == "policy":
        return load_policy(discipline, noise)
    if spec.kind == "rl":
        return load_rl(discipline)
    if spec.kind == "guided":
        return load_guided(discipline, noise, spec.options)
    if spec.kind == "plugin":
        return make_plugin(spec.options, noise)
    return load_learned(spec.options)


def check_discipline(agent, label: str, discipline: str) -> None:
    """AgentSpecError if ``agent`` was trained for another discipline (learned agents say which)."""
    trained = getattr(agent, "discipline", None)
    if trained is not None and trained != discipline:
        raise AgentSpecError(f"agent {label} was trained on {trained}, not {discipline}")


def agent_budget(agent) -> str:
    """A short description of an agent's budget (the search's simulated shots per decision)."""
    if callable(getattr(agent, "budget", None)):  # planners that describe their own (agents.success)
        return agent.budget()
    config = getattr(agent, "config", None)
    return config.describe() if config is not None and hasattr(config, "describe") else ""


# --- plug-in agents ------------------------------------------------------------------------------

PLUGIN_FORM = "plugin:MODULE.CLASS (e.g. plugin:agents.plugin_example.NearestBall)"
PLAN_BATCH = "plan_batch(ruleset, states, params, keys)"


def plugin_class(name: str) -> type:
    """The class a plug-in spec names (``MODULE.CLASS``, the module importable), checked to have
    a ``plan_batch`` of its own; AgentSpecError naming what is missing."""
    module_name, _, class_name = name.rpartition(".")
    if not module_name or not class_name.isidentifier():
        raise AgentSpecError(f"plug-in agents are named {PLUGIN_FORM}, got plugin:{name}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise AgentSpecError(f"plug-in module {module_name!r} cannot be imported ({e}); {PLUGIN_FORM}") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type):
        what = "has no" if cls is None else "has no class"
        raise AgentSpecError(f"plug-in module {module_name!r} {what} {class_name!r}")
    method = getattr(cls, "plan_batch", None)
    if not callable(method) or method is Planner.plan_batch:
        raise AgentSpecError(f"plug-in {name} has no method {PLAN_BATCH}, the planner interface "
                             "(agents.base.Planner)")
    return cls


def make_plugin(name: str, noise: float = 0.0):
    """The plug-in planner ``MODULE.CLASS`` (``plugin_class``) made with no arguments, or with
    ``noise=noise`` when its constructor takes that keyword; AgentSpecError when it needs other
    arguments or its ``plan_batch`` does not take (ruleset, states, params, keys)."""
    cls = plugin_class(name)
    signature = inspect.signature(cls)
    kwargs = dict(noise=noise) if "noise" in signature.parameters else {}
    try:
        signature.bind(**kwargs)
    except TypeError as e:
        raise AgentSpecError(f"plug-in {name} must be made with no arguments (or noise=...): {e}") from None
    agent = cls(**kwargs)
    try:
        inspect.signature(agent.plan_batch).bind(None, None, None, None)
    except TypeError as e:
        raise AgentSpecError(f"plug-in {name}'s plan_batch must take (ruleset, states, params, keys): {e}") from None
    return agent


# --- shipped and saved models ------------------------------------------------------------------

def _for_discipline(discipline: str | None, who: str, action: str, load: Callable[[str], Any]):
    """``load(discipline)``, for what needs the discipline's shipped model: AgentSpecError when no
    discipline is given (``who`` needs it), or with the loader's reason when it refuses (``action``
    failed)."""
    if discipline is None:
        raise AgentSpecError(f"{who} needs the discipline it plays (make_agent(..., discipline=...))")
    try:
        return load(discipline)
    except ValueError as e:
        raise AgentSpecError(f"cannot {action}: {e}") from None


def load_leave(discipline: str | None, noise: float = 0.0) -> LeaveValue:
    """``agents.leave.LeaveValue`` of the discipline for the noise nearest ``noise``;
    AgentSpecError naming the disciplines that have one when this one has none."""
    return _for_discipline(discipline, "leave=value", "load the leave value",
                           lambda d: LeaveValue.for_discipline(d, noise))


def load_policy(discipline: str | None, noise: float = 0.0) -> PolicyAgent:
    """``agents.policy.PolicyAgent`` of the discipline for the execution noise ``noise`` (its model
    for the nearest noise); AgentSpecError naming the disciplines that have a shipped model when
    this one has none."""
    return _for_discipline(discipline, "the policy agent", "load the policy",
                           lambda d: PolicyAgent.for_discipline(d, noise))


def rl_path(discipline: str) -> str:
    """Where the discipline's shipped reinforcement-learning policy lies (a JAX checkpoint, no suffix)."""
    return os.path.join(MODELS_DIR, f"{discipline}_rl")


def load_rl(discipline: str | None) -> JaxPolicyAgent:
    """The discipline's shipped reinforcement-learning policy (``rl_path``, trained by
    ``experiments.train``; the command is in its sidecar); AgentSpecError naming the disciplines
    that have one when this one has none."""
    def load(d):
        path = rl_path(d)
        if not os.path.isfile(path + ".npz"):
            have = sorted(name[:-7] for name in os.listdir(MODELS_DIR) if name.endswith("_rl.npz"))
            raise ValueError(f"no shipped RL policy for {d}; shipped for: {', '.join(have) or 'none'}")
        return JaxPolicyAgent.load(path)

    return _for_discipline(discipline, "the rl agent", "load the RL policy", load)


def load_guided(discipline: str | None, noise: float = 0.0, options: str = "") -> GuidedAgent:
    """``agents.guided.GuidedAgent`` of the discipline (its shipped model for the noise nearest
    ``noise``, guiding a search planned for ``noise``) with the spec's options; AgentSpecError as
    ``load_policy``."""
    text, leave = split_leave(options)
    changes = _guided_options(text)
    value = load_leave(discipline, noise) if leave else None
    return _for_discipline(discipline, "the guided agent", "make the guided agent",
                           lambda d: GuidedAgent.for_discipline(d, noise, leave=value, **changes))


def load_learned(path: str):
    """A saved learned policy: a JAX checkpoint (``PATH.npz`` beside its sidecar, ``experiments.train
    --backend jax``) by ``agents.jax_policy.JaxPolicyAgent.load``, else a Stable-Baselines3 model by
    ``agents.learned.LearnedAgent.load``. That module is looked up when asked for, so that an
    installation without it (or without the packages it needs to load a model, the 'rl' extra)
    gets an AgentSpecError saying so."""
    if path.endswith(".npz") or os.path.isfile(checkpoint_paths(path)[0]):
        try:
            return JaxPolicyAgent.load(path)
        except (ValueError, OSError) as e:
            raise AgentSpecError(f"cannot load the JAX policy {path!r}: {e}") from None
    try:
        module = importlib.import_module("agents.learned")
    except ModuleNotFoundError as e:
        if e.name in ("agents.learned", "agents"):
            raise AgentSpecError("learned:PATH needs the module agents/learned.py (LearnedAgent.load), "
                                 "which this installation does not have") from None
        raise AgentSpecError(f"agents.learned could not be imported: a package it needs is missing "
                             f"({e.name}); install the 'rl' extra") from None
    if not hasattr(module, "LearnedAgent"):
        raise AgentSpecError("agents.learned has no LearnedAgent")
    try:
        return module.LearnedAgent.load(path)
    except (ValueError, ImportError, OSError) as e:
        raise AgentSpecError(f"cannot load the learned agent {path!r}: {e}") from None


__all__ = [
    "AGENT_KINDS", "SPEC_HELP", "RANDOM_OPTIONS", "GUIDED_OPTIONS", "LEAVE_CHOICES", "AgentSpecError", "AgentSpec",
    "parse_agent_spec", "parse_config", "split_leave", "split_noise", "plugin_class", "make_plugin", "make_agent",
    "check_discipline", "agent_budget", "rl_path", "PLUGIN_FORM", "load_rl", "load_leave", "load_policy",
    "load_guided", "load_learned",
]
