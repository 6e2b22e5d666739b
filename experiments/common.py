"""Pieces shared by the evaluation scripts: interval estimates, agents named on the command
line, the discipline's table, and result files.

Agent specs (``make_agent``)::

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
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import importlib
import math
import os
import platform
import sys

import jax
import numpy as np

import physics
import rules
from agents import GeometricAgent, RandomAgent, SearchAgent, SearchConfig
from agents.base import NOISE_PROFILES, noise_scale

AGENT_KINDS = ("random", "geometric", "search", "learned", "policy", "guided")
SPEC_HELP = ("agent specs: random, geometric, search, search:OPTION=VALUE,... (agents.SearchConfig "
             "fields, e.g. search:candidates=512,trials=4), learned:PATH, policy, guided, "
             "guided:OPTION=VALUE,... (shots, explore, random_fraction, position_weight, lanes; "
             "e.g. guided:shots=8192); search and guided take leave=value (position play with the "
             "discipline's shipped leave value, agents.leave), e.g. search:leave=value")
RANDOM_OPTIONS = ("v_min", "v_max", "max_offset")
GUIDED_OPTIONS = dict(shots=int, explore=float, random_fraction=float, position_weight=float, lanes=int)
"""Options of the guided agent: its simulated shots per decision, the exploring share of its
round-1 candidates, and the ``agents.SearchConfig`` fields that keep their meaning."""


class AgentSpecError(ValueError):
    """A malformed agent spec; the message lists what is allowed."""


# --- interval estimates ------------------------------------------------------------------------

def wilson(k: int, n: int, z: float = 1.96):
    """95 % Wilson score interval of a proportion k / n: (low, high); (0, 1) when n is 0."""
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if k == 0 else max(0.0, centre - half)  # exact at the ends (no rounding past p)
    high = 1.0 if k == n else min(1.0, centre + half)
    return (low, high)


def mean_ci(x, z: float = 1.96):
    """(mean, low, high): the mean and its normal-approximation 95 % interval (NaN bounds for
    fewer than two values, all NaN for none)."""
    x = np.asarray(x, float)
    if x.size == 0:
        return (float("nan"),) * 3
    m = float(x.mean())
    half = z * float(x.std(ddof=1)) / math.sqrt(x.size) if x.size > 1 else float("nan")
    return m, m - half, m + half


def ratio_ci(numerators, denominators, z: float = 1.96):
    """(ratio, low, high): sum(numerators) / sum(denominators), with a 95 % interval by the delta
    method over the pairs (the general average: points over innings, game by game); the low end
    is kept at 0 when no numerator is negative."""
    x = np.asarray(numerators, float)
    y = np.asarray(denominators, float)
    if x.size == 0 or y.sum() <= 0:
        return (float("nan"),) * 3
    r = float(x.sum() / y.sum())
    if x.size < 2:
        return r, float("nan"), float("nan")
    resid = x - r * y
    half = z * math.sqrt(float(np.sum(resid ** 2)) / (x.size - 1) / x.size) / float(y.mean())
    floor = 0.0 if np.all(x >= 0) else -math.inf  # points over innings cannot be negative
    return r, max(floor, r - half), r + half


def bounded_mean_ci(x, floor: float = -math.inf, unit: float = 1.0, z: float = 1.96, resamples: int = 4000,
                    seed: int = 0):
    """(mean, low, high): the mean and a 95 % interval that stays inside the possible range, for a
    quantity that cannot fall below ``floor`` and comes in steps of ``unit`` (points per inning:
    floor 0, one point; shots per inning: floor 1, one shot).

    A percentile bootstrap of the mean (``resamples`` draws, seeded: the same data give the same
    interval), cut at ``floor``. When every value is the same the bootstrap has no spread, yet the
    mean is not known exactly: then the interval reaches one ``unit`` times the Wilson upper bound
    of 0 of n (the share of values that could differ by a unit and not be seen) on either side, cut
    at ``floor``; 0 scoring innings of 40 give [0, 0.088] points per inning. NaN bounds for fewer
    than two values (all NaN for none), as ``mean_ci``."""
    x = np.asarray(x, float)
    if x.size == 0:
        return (float("nan"),) * 3
    m = float(x.mean())
    if x.size < 2:
        return m, float("nan"), float("nan")
    if np.all(x == x[0]):
        half = unit * wilson(0, x.size, z)[1]
        return m, max(floor, m - half), m + half
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, x.size, (resamples, x.size))].mean(axis=1)
    tail = 100.0 * (1.0 - math.erf(z / math.sqrt(2.0))) / 2.0  # 2.5 % for z = 1.96
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return m, max(floor, float(low)), float(high)


# --- agents ------------------------------------------------------------------------------------

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
    changes = {}
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


LEAVE_CHOICES = ("value", "none")


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


def _for_discipline(discipline: str | None, who: str, action: str, load):
    """``load()``, for what needs the discipline's shipped model: AgentSpecError when no discipline
    is given (``who`` needs it), or with the loader's reason when it refuses (``action`` failed)."""
    if discipline is None:
        raise AgentSpecError(f"{who} needs the discipline it plays (make_agent(..., discipline=...))")
    try:
        return load()
    except ValueError as e:
        raise AgentSpecError(f"cannot {action}: {e}") from None


def load_leave(discipline: str | None, noise: float = 0.0):
    """``agents.leave.LeaveValue`` of the discipline for the noise nearest ``noise``;
    AgentSpecError naming the disciplines that have one when this one has none."""
    from agents.leave import LeaveValue

    return _for_discipline(discipline, "leave=value", "load the leave value",
                           lambda: LeaveValue.for_discipline(discipline, noise))


def _search_fields() -> dict:
    types = {}
    for f in dataclasses.fields(SearchConfig):
        default = getattr(SearchConfig(), f.name)
        types[f.name] = "int_or_none" if default is None else float if isinstance(default, float) else int
    return types


def parse_config(text: str, base):
    """``candidates=512,trials=8`` -> ``base`` (an ``agents.SearchConfig``) with those fields
    replaced; ``AgentSpecError`` for unknown names or bad values."""
    changes = _options(text or "", _search_fields(), "search")
    try:
        return dataclasses.replace(base, **changes)
    except ValueError as e:
        raise AgentSpecError(f"bad search options {text!r}: {e}") from None


@dataclasses.dataclass(frozen=True)
class AgentSpec:
    """A parsed agent spec: kind, its options text (or the learned agent's path), the text."""

    kind: str
    options: str
    text: str


def parse_agent_spec(text: str) -> AgentSpec:
    """``kind[:options]`` -> ``AgentSpec``; ``AgentSpecError`` listing the valid specs."""
    if not isinstance(text, str) or not text.strip():
        raise AgentSpecError(f"empty agent spec; {SPEC_HELP}")
    text = text.strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip()
    if kind not in AGENT_KINDS:
        raise AgentSpecError(f"unknown agent {kind!r} in spec {text!r}; valid kinds: "
                             f"{', '.join(AGENT_KINDS)} ({SPEC_HELP})")
    if kind == "learned":
        if not rest.strip():
            raise AgentSpecError(f"learned agents need a path: learned:PATH, got {text!r}")
        return AgentSpec(kind, rest.strip(), text)
    if kind in ("geometric", "policy") and rest.strip():
        raise AgentSpecError(f"the {kind} agent takes no options, got {text!r}")
    # Check the options now, so that a bad spec fails before any work.
    if kind == "random":
        _options(rest, {n: float for n in RANDOM_OPTIONS}, "random")
    if kind == "search":
        _options(split_leave(rest)[0], _search_fields(), "search")
    if kind == "guided":
        _guided_options(split_leave(rest)[0])
    return AgentSpec(kind, rest.strip(), text)


def _guided_options(text: str) -> dict:
    """The guided agent's options (``GUIDED_OPTIONS``), its budget checked: AgentSpecError listing
    the budgets allowed."""
    from agents.guided import BUDGETS

    options = _options(text, GUIDED_OPTIONS, "guided")
    if options.get("shots", BUDGETS[0]) not in BUDGETS:
        raise AgentSpecError(f"guided option shots={options['shots']} cannot be split into the search's rounds; "
                             f"allowed: {', '.join(map(str, BUDGETS))} simulated shots per decision")
    return options


def make_agent(spec, noise: float = 0.0, exact=None, noisy=None, discipline: str | None = None):
    """A planner for an agent spec (a string or ``AgentSpec``), for play under execution noise of
    scale ``noise``: the search plans for exact execution without noise (base config ``exact``,
    default ``SearchAgent().config``) and for that noise with it (``noisy``, default
    ``SearchAgent.for_noise(noise).config``); the spec's options are applied on top. ``policy``
    loads the shipped model of ``discipline``."""
    spec = parse_agent_spec(spec) if isinstance(spec, str) else spec
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
        return SearchAgent(parse_config(text, base), leave=load_leave(discipline, noise) if leave else None)
    if spec.kind == "policy":
        return load_policy(discipline, noise)
    if spec.kind == "guided":
        return load_guided(discipline, noise, spec.options)
    return load_learned(spec.options)


def load_policy(discipline: str | None, noise: float = 0.0):
    """``agents.policy.PolicyAgent`` of the discipline for the execution noise ``noise`` (its model
    for the nearest noise); AgentSpecError naming the disciplines that have a shipped model when
    this one has none."""
    from agents.policy import PolicyAgent

    return _for_discipline(discipline, "the policy agent", "load the policy",
                           lambda: PolicyAgent.for_discipline(discipline, noise))


def load_guided(discipline: str | None, noise: float = 0.0, options: str = ""):
    """``agents.guided.GuidedAgent`` of the discipline (its shipped model for the noise nearest
    ``noise``, guiding a search planned for ``noise``) with the spec's options; AgentSpecError as
    ``load_policy``."""
    from agents.guided import GuidedAgent

    options, leave = split_leave(options)
    changes = _guided_options(options)
    value = load_leave(discipline, noise) if leave else None
    return _for_discipline(discipline, "the guided agent", "make the guided agent",
                           lambda: GuidedAgent.for_discipline(discipline, noise, leave=value, **changes))


def load_learned(path: str):
    """``agents.learned.LearnedAgent.load(path)``, imported only when a learned agent is asked for;
    a JAX checkpoint (``PATH.npz`` beside its sidecar, ``experiments.train --backend jax``) is
    read by ``agents.jax_policy.JaxPolicyAgent.load``."""
    from agents.jax_policy import JaxPolicyAgent, checkpoint_paths

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


def check_discipline(agent, label: str, discipline: str):
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


# --- disciplines -------------------------------------------------------------------------------

def begin() -> None:
    """A command's first step (before its arguments are read): JAX's persistent compilation cache
    on (``physics.use_compilation_cache``)."""
    physics.use_compilation_cache()


def noise_arg(text: str) -> float:
    """argparse type of ``--noise``: a scale >= 0 (1: the standard noise) or a player profile's
    name (``agents.NOISE_PROFILES``)."""
    try:
        return noise_scale(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


NOISE_HELP = f"execution-noise scale (0: exact, 1: the standard noise) or a player profile: {', '.join(NOISE_PROFILES)}"


def setup(discipline: str, calibration: str | None = None, **rule_options):
    """(rules, physics params) of a discipline, on the table its row of the discipline table names:
    the Hungarian game on its 1:2 table, the others on the match table (O-2); ``calibration``: the
    physics' named parameter set (``physics.CALIBRATIONS``; default: the table's own)."""
    game = rules.make_rules(discipline, **rule_options)
    return game, physics.default_params(rules.disciplines.get(discipline).table, calibration=calibration)


def ball_names(game) -> tuple:
    """Ball names by index: white, yellow, red (C-3.4) or red, white, yellow (H-3.1)."""
    return ("red", "white", "yellow") if game.is_hungarian else ("white", "yellow", "red")


# --- result files ------------------------------------------------------------------------------

def write_csv(path, rows):
    """Rows (dicts) to a CSV file with the union of their keys as columns; nothing for no rows."""
    if not rows:
        return
    names = list(dict.fromkeys(k for row in rows for k in row))
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=names)
        writer.writeheader()
        writer.writerows(rows)


def machine_info() -> dict:
    """Where figures were measured: platform, CPUs and load, library versions (torch and
    stable-baselines3 when a learned agent has loaded them)."""
    info = dict(platform=platform.platform(), processor=platform.processor() or platform.machine(),
                cpus=os.cpu_count(), load_average=[round(x, 2) for x in os.getloadavg()],
                python=platform.python_version(), jax=jax.__version__, devices=[str(d) for d in jax.devices()])
    for name in ("torch", "stable_baselines3"):
        module = sys.modules.get(name)
        if module is not None:
            info[name] = module.__version__
    if "torch" in sys.modules:
        info["torch_threads"] = sys.modules["torch"].get_num_threads()
    return info
