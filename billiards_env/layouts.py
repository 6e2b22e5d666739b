"""Stored layout sets: fixed legal layouts per discipline, so that figures compare across runs.

``LAYOUT_SETS`` names where innings may start: "random" (drawn at run time from a seed,
``rules.random_layout``) or a stored set such as "bench-v1": for each discipline 1,000 layouts
drawn once by ``experiments.bench_layouts`` from a fixed seed and shipped as package data
(``layout_sets/<set>/<discipline>.npz``, beside a ``manifest.json`` holding each file's sha256,
its count, the seed and the command that made it). A stored set never changes; a new draw is a
new set name.

A file holds, in tenths of a millimetre (int32): ``positions`` (n, 3, 2), the three ball centres
in the order of ``rules.GameState.positions``; ``table`` (2,), the length and width of the
physics table they were drawn on; ``pin`` (2,), the Hungarian pin standing on the centre spot
(Hungarian sets only); and as int8 ``player`` (n,), who shoots (0, as in ``agents.states``), and
``cue_ball`` (n,), his cue ball (his own ball, C-3.4; the red, H-3.1). The layouts are those of
``rules.random_layout`` rounded to 0.1 mm: the balls at least 5 mm (less the rounding) clear of
each other, the cushions and the pin, so nothing is frozen (O-3).

``load(name, discipline)`` reads a file after checking its sha256 against the manifest (ValueError
for an altered file, FileNotFoundError for a missing one); ``states`` builds the games in play
from them the way ``agents.states`` builds its random ones (``rules.game_from_layout``). The
discipline is named, since ``Rules`` hold no id and several rows share their words. ``root``
points the functions at another folder of sets (a copy, in the tests).
"""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import NamedTuple, Optional

import jax
import jax.numpy as jnp
import numpy as np

import rules
from physics.params import Params
from rules import GameState, Rules

LAYOUT_SETS = ("random", "bench-v1")  # "random": drawn at run time; the others stored
STORED = LAYOUT_SETS[1:]
ROOT = Path(__file__).resolve().parent / "layout_sets"
MANIFEST = "manifest.json"
SCALE = 10_000  # stored units per metre: tenths of a millimetre


class Layouts(NamedTuple):
    """One discipline's layouts of a set, in metres: ``positions`` (n, 3, 2), ``player`` and
    ``cue_ball`` (n,), ``table`` (2,) length and width, ``pin`` (2,) or None (carom)."""

    name: str
    discipline: str
    positions: np.ndarray
    player: np.ndarray
    cue_ball: np.ndarray
    table: np.ndarray
    pin: Optional[np.ndarray]


def to_units(metres) -> np.ndarray:
    """Metres as the int32 tenths of a millimetre a file holds."""
    return np.rint(np.asarray(metres, np.float64) * SCALE).astype(np.int32)


def from_units(units) -> np.ndarray:
    """Stored tenths of a millimetre as float64 metres."""
    return np.asarray(units, np.float64) / SCALE


def rounded(layouts: Layouts) -> Layouts:
    """The layouts as a file holds them (every length rounded to 0.1 mm): what ``load`` returns
    after ``write``."""
    def back(x):
        return None if x is None else from_units(to_units(x))
    return layouts._replace(positions=back(layouts.positions), table=back(layouts.table), pin=back(layouts.pin))


def _set_folder(name: str, root: Optional[Path]) -> Path:
    if name == "random":
        raise ValueError(f"the 'random' layouts are drawn at run time from the seed, not stored; "
                         f"stored sets: {', '.join(STORED)}")
    if name not in STORED:
        raise ValueError(f"unknown layout set {name!r}; valid sets: {', '.join(LAYOUT_SETS)}")
    return Path(ROOT if root is None else root) / name


def manifest(name: str, root: Optional[Path] = None) -> dict:
    """The manifest of a stored set: the seed, the command and per file its sha256 and count."""
    path = _set_folder(name, root) / MANIFEST
    if not path.is_file():
        raise FileNotFoundError(f"layout set {name!r} has no manifest at {path}: its files are package data "
                                "of billiards_env, reinstall the package")
    return json.loads(path.read_text(encoding="utf-8"))


def load(name: str, discipline: str, root: Optional[Path] = None) -> Layouts:
    """One discipline's layouts of the stored set ``name``, its sha256 checked against the manifest."""
    files = manifest(name, root)["files"]
    file = f"{discipline}.npz"
    if file not in files:
        known = ", ".join(f.removesuffix(".npz") for f in files)
        raise ValueError(f"layout set {name!r} has no layouts of {discipline!r}; its disciplines: {known}")
    path = _set_folder(name, root) / file
    if not path.is_file():
        raise FileNotFoundError(f"layout set {name!r} is missing {path}, which its manifest lists")
    data = path.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != files[file]["sha256"]:
        raise ValueError(f"{path} was altered: its sha256 {digest} is not the manifest's {files[file]['sha256']}; "
                         f"a stored set never changes (restore the file, or make a new set)")
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return Layouts(name, discipline, from_units(z["positions"]), z["player"].astype(np.int32),
                       z["cue_ball"].astype(np.int32), from_units(z["table"]),
                       from_units(z["pin"]) if "pin" in z.files else None)


def _write_npz(path: Path, arrays: dict) -> None:
    """An uncompressed .npz whose bytes depend on the arrays only (no time stamps), so that the
    same draw gives the same sha256."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
        for key, value in arrays.items():
            buffer = io.BytesIO()
            np.lib.format.write_array(buffer, np.ascontiguousarray(value), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.create_system = 3
            archive.writestr(info, buffer.getvalue())


def write(name: str, sets: dict[str, Layouts], info: dict, root: Optional[Path] = None,
          file_info: Optional[dict[str, dict]] = None) -> dict:
    """Write a stored set: one file per discipline of ``sets`` and the manifest: ``info`` (the
    seed, the command, what else made the set), and per file its discipline, count, sha256 and
    ``file_info[discipline]``. Returns the manifest."""
    folder = _set_folder(name, root)
    folder.mkdir(parents=True, exist_ok=True)
    files = {}
    for discipline, layouts in sets.items():
        arrays = dict(positions=to_units(layouts.positions), player=layouts.player.astype(np.int8),
                      cue_ball=layouts.cue_ball.astype(np.int8), table=to_units(layouts.table))
        if layouts.pin is not None:
            arrays["pin"] = to_units(layouts.pin)
        path = folder / f"{discipline}.npz"
        _write_npz(path, arrays)
        files[path.name] = dict(discipline=discipline, count=len(layouts.positions),
                                **(file_info or {}).get(discipline, {}),
                                sha256=hashlib.sha256(path.read_bytes()).hexdigest())
    out = dict(set=name, **info, files=files)
    (folder / MANIFEST).write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return out


_games = jax.jit(jax.vmap(rules.game_from_layout, in_axes=(None, 0, None, 0)))


def states_of(layouts: Layouts, ruleset: Rules, params: Params, n: int, offset: int = 0) -> GameState:
    """Games in play from layouts ``offset`` to ``offset + n`` (stacked), their player to shoot, as
    ``agents.states`` builds them; ValueError for more layouts than the set holds, or rules or a
    table other than those of the layouts' discipline."""
    count = len(layouts.positions)
    if n < 0 or offset < 0 or offset + n > count:
        raise ValueError(f"layout set {layouts.name!r} holds {count} layouts of {layouts.discipline}; "
                         f"asked for {n} from layout {offset}")
    family = rules.disciplines.get(layouts.discipline).family
    if ruleset.family != family:
        raise ValueError(f"the layouts of {layouts.discipline} are for the {family} family's rules, "
                         f"not {ruleset.family}")
    table = np.array([float(params.table.length), float(params.table.width)])
    if np.any(np.abs(table - layouts.table) > 1 / SCALE):
        raise ValueError(f"the layouts of {layouts.discipline} lie on a {layouts.table[0]} x {layouts.table[1]} m "
                         f"table, not this {table[0]} x {table[1]} m one")
    part = slice(offset, offset + n)
    return _games(ruleset, jnp.asarray(layouts.positions[part]), params, jnp.asarray(layouts.player[part]))


def states(name: str, discipline: str, ruleset: Rules, params: Params, n: int, offset: int = 0,
           root: Optional[Path] = None) -> GameState:
    """n games in play from the stored set ``name``'s layouts of ``discipline``, from ``offset``."""
    return states_of(load(name, discipline, root), ruleset, params, n, offset)


__all__ = ["LAYOUT_SETS", "STORED", "Layouts", "load", "manifest", "states", "states_of", "write", "rounded"]
