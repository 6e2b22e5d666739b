"""What the commands share: their first step, argparse helpers, result files, plot labels.

Every command's ``main`` begins with ``begin()``: it keeps compiled programs in JAX's persistent
cache (``physics.use_compilation_cache``: ``~/.cache/carom-billiards/jax``, ``CAROM_JAX_CACHE=DIR``
elsewhere, ``off`` for none), so that a second run loads its programs instead of compiling them.
The library the commands drive lives in the packages: agent specs in ``agents.specs``, the rollout
engine in ``agents.arena``, intervals in ``agents.stats``, a discipline's rules and physics in
``billiards_env.setup``.
"""
from __future__ import annotations

import argparse
import csv
import importlib
import os
import platform
import sys

import jax

import physics
import rules
from agents.arena import BATCH, SEARCH_SHOTS
from agents.base import NOISE_PROFILES, noise_scale
from billiards_env import setup


def begin() -> None:
    """A command's first step (before its arguments are read): JAX's persistent compilation cache
    on (``physics.use_compilation_cache``)."""
    physics.use_compilation_cache()


# The optional packages the commands import, and the extra of pyproject.toml that installs each
# (``pip install -e ".[all]"`` installs them all).
EXTRAS = {"optax": "jax", "gymnax": "jax", "stable_baselines3": "rl", "torch": "rl", "pettingzoo": "rl"}


def need(module: str, extra: str | None = None, what: str = "this command"):
    """The optional package ``module`` imported (a dotted name imports that submodule); if it is not
    installed, SystemExit with a message naming the package and the extra that installs it
    (``extra``, by default the one ``EXTRAS`` names), instead of a traceback."""
    extra = extra or EXTRAS.get(module.split(".")[0], "all")
    try:
        return importlib.import_module(module)
    except ImportError as error:
        missing = getattr(error, "name", None) or module
        raise SystemExit(f"{what} needs {missing}, which is not installed here ({error}): install every "
                         f'command\'s dependencies with pip install -e ".[all]" (or the {extra!r} extra '
                         f'alone: pip install -e ".[{extra}]")') from None


# --- arguments ---------------------------------------------------------------------------------

def noise_arg(text: str) -> float:
    """argparse type of ``--noise``: a scale >= 0 (1: the standard noise) or a player profile's
    name (``agents.NOISE_PROFILES``)."""
    try:
        return noise_scale(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


NOISE_HELP = f"execution-noise scale (0: exact, 1: the standard noise) or a player profile: {', '.join(NOISE_PROFILES)}"


def discipline_arg(text: str) -> str:
    """argparse type of ``--discipline``: an id of the discipline table as it stands when the
    arguments are read (the seven, and the variants ``rules.register_discipline`` added), or
    ``MODULE:ID``: import MODULE, which registers its variants, and take its ID."""
    module, colon, name = text.rpartition(":")
    if colon:
        try:
            importlib.import_module(module)
        except ImportError as err:
            raise argparse.ArgumentTypeError(f"cannot import {module!r} for discipline {text!r}: {err}") from None
    try:
        return rules.disciplines.get(name).id
    except ValueError as err:
        raise argparse.ArgumentTypeError(f"{err} (or MODULE:ID, a module that registers ID)") from None


DISCIPLINE_HELP = ("a discipline id: " + ", ".join(rules.DISCIPLINES) + ", a variant registered with "
                   "rules.register_discipline, or MODULE:ID (MODULE registers the variant ID when imported)")


def add_discipline_argument(parser, default: str = "three_cushion"):
    """``--discipline`` as every command takes it (``discipline_arg``)."""
    parser.add_argument("--discipline", default=default, type=discipline_arg, metavar="DISCIPLINE",
                        help=DISCIPLINE_HELP)


def add_run_arguments(parser, out: str, batch: int = BATCH):
    """The options every playing command shares: batch, search chunk, seed, results folder, progress."""
    parser.add_argument("--batch", type=int, default=batch, help="rows per simulation call (padded)")
    parser.add_argument("--search-shots", type=int, default=SEARCH_SHOTS,
                        help="simulated shots per search planning call, its exact screen counted, at most "
                             "(bounds memory and time per call)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=out, help="results folder")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")


def parse_rule_options(items) -> dict:
    """``["scoring_mode=2", "pure_carom_limit=false"]`` -> {scoring_mode: 2, pure_carom_limit: False}."""
    options: dict[str, bool | int | float] = {}
    for item in items or ():
        name, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"rule option {item!r} is not NAME=VALUE")
        text = value.strip().lower()
        if text in ("true", "false"):
            options[name.strip()] = text == "true"
        else:
            try:
                number = float(text)
            except ValueError:
                raise ValueError(f"rule option {name.strip()} needs a number or true/false, got {value!r}") from None
            options[name.strip()] = int(number) if number == int(number) and "." not in text else number
    return options


def parse_variant(text: str) -> tuple[str, dict]:
    """``"two:cushions_required=2,distance=20"`` -> ("two", {cushions_required: 2, distance: 20}):
    a rule variant's label and its rule options (``parse_rule_options``); ValueError when the
    label is missing."""
    name, colon, rest = text.partition(":")
    if not colon or not name.strip():
        raise ValueError(f"a variant is NAME:OPTION=VALUE,... (e.g. two:cushions_required=2), got {text!r}")
    return name.strip(), parse_rule_options([item for item in rest.split(",") if item.strip()])


AS_WRITTEN = "as written"  # the label of the rules without a variant's options
VARIANT_HELP = ("a rule variant under the label NAME: rule options of rules.make_rules, e.g. "
                "two:cushions_required=2 (three-cushion played to two cushions)")


def check_variants(texts, discipline: str, **base) -> list[tuple[str, dict]]:
    """``--variant`` texts -> [(label, options)] (``parse_variant``), each checked to make rules
    of ``discipline`` with the options ``base`` under it (``billiards_env.setup``: an unknown option
    is refused with the valid ones), the labels different from each other and from
    ``AS_WRITTEN``. ValueError saying which otherwise."""
    variants = [parse_variant(text) for text in texts]
    for label, options in variants:
        try:
            setup(discipline, **{**base, **options})
        except ValueError as e:
            raise ValueError(f"variant {label!r}: {e}") from None
    labels = [label for label, _ in variants]
    if len(set(labels)) < len(labels) or AS_WRITTEN in labels:
        raise ValueError(f"variant labels must differ from each other and from {AS_WRITTEN!r}, got {labels}")
    return variants


# --- names -------------------------------------------------------------------------------------

def ball_names(ruleset) -> tuple:
    """Ball names by index: white, yellow, red (C-3.4) or red, white, yellow (H-3.1)."""
    return ("red", "white", "yellow") if ruleset.is_hungarian else ("white", "yellow", "red")


def short_label(label: str, width: int = 26) -> str:
    """A plot label: a learned agent by its model's file name, anything long cut to ``width``."""
    if label.startswith("learned:"):
        label = "learned:" + os.path.splitext(os.path.basename(label[len("learned:"):]))[0]
    return label if len(label) <= width else label[: width - 1] + "\u2026"


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
