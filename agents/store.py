"""Saved models and their sidecars: where the shipped ones live, how their files are named and found.

Every saved model is two files side by side: its data (a .npz of layers, ``agents.nets``, or a
Stable-Baselines3 .zip) and a JSON sidecar saying what it is (format, version, what it was trained
on). ``read_sidecar`` reads a sidecar after checking that both files exist and that its format
and version are the ones the reader expects; each kind of model then checks the rest of it.

The shipped models are in ``MODELS_DIR`` (``agents/models``), named by discipline and by the
execution noise they play for (``model_paths``): ``<name>.npz`` and ``<name>.json`` for exact
play, ``<name>_noise<scale>.*`` for noise of that scale (``<name>``: a discipline for its success
model, ``agents.policy``; ``<discipline>_leave`` for its leave value, ``agents.leave``).
``noise_variants`` lists the scales a name has both files for, ``nearest_scale`` picks the one a
player loads, ``shipped_disciplines`` lists the disciplines with a success model.

    scale = nearest_scale(noise_variants("three_cushion"), noise=1.0)
    npz_path, json_path = model_paths("three_cushion", MODELS_DIR, scale)
    meta = read_sidecar("success model", (npz_path, "layers", "a model is a .npz"), json_path, fmt, 1)
"""
from __future__ import annotations

import json
import os

import rules

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def model_paths(name: str, folder: str = MODELS_DIR, noise: float = 0.0) -> tuple[str, str]:
    """(the layers' .npz, the .json sidecar) of the model ``name`` (a discipline, or a discipline
    and a suffix) for execution noise of scale ``noise`` in ``folder``: ``<name>.*`` for exact
    play, ``<name>_noise<scale>.*``."""
    stem = name if noise == 0 else f"{name}_noise{noise:g}"
    return os.path.join(folder, f"{stem}.npz"), os.path.join(folder, f"{stem}.json")


def _exists(paths) -> bool:
    return all(os.path.isfile(p) for p in paths)


def shipped_disciplines(folder: str = MODELS_DIR) -> tuple[str, ...]:
    """The disciplines with a model for exact play (both files) in ``folder``, sorted."""
    if not os.path.isdir(folder):
        return ()
    names = (f[:-5] for f in os.listdir(folder) if f.endswith(".json"))  # other models share the folder
    return tuple(sorted(n for n in names if n in rules.disciplines.TABLE and _exists(model_paths(n, folder))))


def noise_variants(name: str, folder: str = MODELS_DIR) -> tuple[float, ...]:
    """The execution-noise scales the model ``name`` has both files for (0: exact play), sorted."""
    prefix = f"{name}_noise"
    scales = [0.0] if _exists(model_paths(name, folder)) else []
    for f in os.listdir(folder) if os.path.isdir(folder) else ():
        if f.startswith(prefix) and f.endswith(".json"):
            try:
                scale = float(f[len(prefix):-5])
            except ValueError:
                continue
            if scale > 0 and _exists(model_paths(name, folder, scale)):
                scales.append(scale)
    return tuple(sorted(scales))


def nearest_scale(scales, noise: float) -> float:
    """The scale of ``scales`` (not empty) nearest ``noise``; of two as near, the smaller."""
    return min(scales, key=lambda s: (abs(s - noise), s))


def read_sidecar(kind: str, data: tuple[str, str, str], json_path: str, fmt: str, version: int) -> dict:
    """A saved model's sidecar, read after checking that both its files exist (``data``: the
    data file's path, what it holds, how it is saved) and that its format and version are
    ``fmt`` and ``version``. ValueError naming the file and what is wrong."""
    for p, what in ((data[0], data[1]), (json_path, "sidecar")):
        if not os.path.isfile(p):
            raise ValueError(f"no {kind} {what} at {p} ({data[2]} and a .json side by side)")
    try:
        with open(json_path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ValueError(f"malformed {kind} sidecar {json_path}: {error}") from None
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        raise ValueError(f"{json_path} is not a {kind} sidecar (expected \"format\": \"{fmt}\")")
    if meta.get("version") != version:
        raise ValueError(f"{json_path}: sidecar version {meta.get('version')!r}, this code reads {version}")
    return meta


__all__ = ["MODELS_DIR", "model_paths", "noise_variants", "nearest_scale", "shipped_disciplines", "read_sidecar"]
