"""Shot files: one JSON format for a layout and the strikes played from it, which the commands that
show, map or reconstruct shots all read and write (the format: docs/shotfile.md).

A file names its discipline, the three balls' centres (metres, table coordinates), the cue ball
and the shooter, one or more strikes (the fields of ``physics.Shot``, each with an optional label
and source), and optionally the execution noise (a scale or a player profile), notes and
provenance; keys a command adds of its own (a report) are kept in ``ShotFile.extra``.

``read`` refuses what a command would trip on later and says what and where: not JSON, another
format or version, an unknown discipline (listing the valid ids), a layout that is not legal on the
discipline's table (``billiards_env.params.check_layout``: off the table, overlapping, on the pin),
a cue ball that is not a shooter's, a strike that is not finite or outside the cue's range
(``physics.Shot``, ``physics.strike.check_limits``), an unknown noise profile. ``write`` runs the
same checks on what it is given before anything is written, so a written file always reads back.
``parse_strike`` reads the command line's strikes, positional or named, with the same checks.

It lives in ``agents`` (docs/design.md, "Layers"): its checks need the discipline table
(``rules``), the table and layout checks of ``billiards_env`` and the noise profiles of
``agents.base``, and it builds the game state the planners and robustness maps start from; the
commands of ``experiments`` only read and write it.
"""
from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import sys
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

import physics
import rules
from agents.base import NOISE_PROFILES, noise_scale
from agents.states import state_from_layout
from billiards_env.params import check_layout, setup
from physics.strike import FIELDS, check_limits

FORMAT = "carom-billiards shot"
VERSION = 1
KEYS = ("format", "version", "discipline", "layout", "cue_ball", "player", "strikes", "noise", "notes", "provenance")
STRIKE_KEYS = FIELDS + ("label", "source")
REQUIRED = ("V0", "phi")  # a strike's fields that have no default; theta, a and b default to 0
STRIKE_SYNTAX = ("V0,PHI,THETA,A,B (five numbers: cue speed m/s, aim and elevation in degrees, tip offsets in "
                 "fractions of R) or named v0=...,phi=...[,theta=...,a=...,b=...] (theta, a, b default to 0)")


class ShotFileError(ValueError):
    """A shot file or a strike that cannot be used, with what is wrong and where."""


@dataclasses.dataclass(frozen=True)
class Strike:
    """One strike: the fields of ``physics.Shot`` (V0 m/s; phi, theta degrees; a, b fractions of R)
    as floats, an optional label (for pages and plots) and source (where it came from: "given",
    "map", "search", "played", ...)."""

    V0: float
    phi: float
    theta: float = 0.0
    a: float = 0.0
    b: float = 0.0
    label: Optional[str] = None
    source: Optional[str] = None

    @property
    def shot(self) -> physics.Shot:
        return physics.Shot(self.V0, self.phi, self.theta, self.a, self.b)

    @classmethod
    def of(cls, shot: physics.Shot, label: Optional[str] = None, source: Optional[str] = None) -> "Strike":
        """The strike of a ``physics.Shot`` with scalar fields."""
        V0, phi, theta, a, b = (float(np.asarray(getattr(shot, f))) for f in FIELDS)
        return cls(V0, phi, theta, a, b, label, source)


@dataclasses.dataclass(frozen=True)
class ShotFile:
    """A shot file as read (every field checked). layout: the three centres ((x, y), ...) in metres
    in the discipline's ball order; cue_ball: the ball the shooter strikes; player: who shoots (0
    or 1); noise: a scale >= 0 or a profile name, as ``--noise`` takes it (None: not given)."""

    discipline: str
    layout: tuple
    cue_ball: int
    player: int
    strikes: tuple
    noise: Union[float, str, None] = None
    notes: Optional[str] = None
    provenance: Optional[dict] = None
    extra: dict = dataclasses.field(default_factory=dict)

    @property
    def positions(self) -> np.ndarray:
        """(3, 2) the balls' centres (m)."""
        return np.asarray(self.layout, np.float64)

    @property
    def shots(self) -> list:
        """The strikes as ``physics.Shot`` (scalar fields)."""
        return [s.shot for s in self.strikes]

    @property
    def noise_scale(self) -> Optional[float]:
        """The noise as a scale (a profile's name resolved), or None."""
        return None if self.noise is None else noise_scale(self.noise)

    def game(self):
        """(ruleset, physics parameters, ``rules.GameState`` in play from the layout, the player to shoot)."""
        ruleset, params = setup(self.discipline)
        return ruleset, params, state_from_layout(ruleset, self.positions, params, self.player)

    def to_dict(self) -> dict:
        """The file's JSON object (``from_dict`` reads it back)."""
        data: dict[str, Any] = dict(format=FORMAT, version=VERSION, discipline=self.discipline,
                                    layout=[list(p) for p in self.layout], cue_ball=self.cue_ball, player=self.player,
                                    strikes=[_strike_dict(s) for s in self.strikes])
        for name in ("noise", "notes", "provenance"):
            if getattr(self, name) is not None:
                data[name] = getattr(self, name)
        return {**data, **self.extra}


def _strike_dict(strike: Strike) -> dict:
    data: dict[str, Any] = {f: getattr(strike, f) for f in FIELDS}
    return {**data, **{k: getattr(strike, k) for k in ("label", "source") if getattr(strike, k) is not None}}


# --- checks ------------------------------------------------------------------------------------

def _number(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ShotFileError(f"{name} must be a number, got {value!r}")
    return float(value)


def _text(value, name: str) -> Optional[str]:
    if value is not None and not isinstance(value, str):
        raise ShotFileError(f"{name} must be a string, got {value!r}")
    return value


def make_shot(fields: Mapping[str, float], params=None) -> physics.Shot:
    """A ``physics.Shot`` from named fields (V0 and phi required, theta, a, b 0 when left out),
    checked as the simulation checks it: finite, V0 >= 0, theta in [0, 90), and with ``params``
    within the cue's range (``params.cue.max_speed``, ``max_offset``). ShotFileError otherwise."""
    missing = [f for f in REQUIRED if f not in fields]
    if missing:
        raise ShotFileError(f"a strike needs {' and '.join(REQUIRED)}; {', '.join(missing)} missing")
    unknown = sorted(set(fields) - set(FIELDS))
    if unknown:
        raise ShotFileError(f"unknown strike field(s) {', '.join(unknown)}; valid: {', '.join(FIELDS)}")
    try:
        shot = physics.Shot(**{f: float(v) for f, v in fields.items()})
        if params is not None:
            check_limits(shot, params)
    except ValueError as err:
        raise ShotFileError(str(err)) from None
    return shot


def parse_strike(text: str, params=None) -> physics.Shot:
    """A strike from the command line: positional ``V0,PHI,THETA,A,B`` (all five) or named
    ``v0=3,phi=80,b=0.1`` (any order, names in any case; V0 and phi required), checked by
    ``make_shot``. ShotFileError naming the text and both syntaxes otherwise."""
    if not isinstance(text, str):
        raise TypeError(f"a strike must be given as text, got {type(text).__name__}")
    parts = [p.strip() for p in text.split(",")]
    named = ["=" in p for p in parts]
    fields: dict[str, float] = {}
    try:
        if any(named):
            if not all(named):
                raise ShotFileError("mixes named and positional fields")
            by_lower = {f.lower(): f for f in FIELDS}
            for part in parts:
                name, _, value = (s.strip() for s in part.partition("="))
                field = by_lower.get(name.lower())
                if field is None:
                    raise ShotFileError(f"names an unknown field {name!r} (valid: {', '.join(FIELDS)})")
                if field in fields:
                    raise ShotFileError(f"gives {field} twice")
                fields[field] = float(value)
        elif len(parts) != len(FIELDS):
            raise ShotFileError(f"has {len(parts)} field{'s' * (len(parts) != 1)}, not {len(FIELDS)}")
        else:
            fields = dict(zip(FIELDS, (float(p) for p in parts)))
    except ValueError as err:  # float() of a word, or a check above
        reason = str(err) if isinstance(err, ShotFileError) else "holds something that is not a number"
        raise ShotFileError(f"strike {text!r} {reason}; a strike is {STRIKE_SYNTAX}") from None
    try:
        return make_shot(fields, params)
    except ShotFileError as err:
        raise ShotFileError(f"strike {text!r}: {err}") from None


def _strike(value, params) -> Strike:
    if not isinstance(value, dict):
        raise ShotFileError(f"must be an object with {', '.join(FIELDS)}, got {value!r}")
    unknown = sorted(set(value) - set(STRIKE_KEYS))
    if unknown:
        raise ShotFileError(f"unknown key(s) {', '.join(unknown)}; valid: {', '.join(STRIKE_KEYS)}")
    fields = {f: _number(value[f], f) for f in FIELDS if f in value}
    shot = make_shot(fields, params)
    return Strike.of(shot, _text(value.get("label"), "label"), _text(value.get("source"), "source"))


def _layout(value, params, ruleset) -> tuple:
    shape_ok = isinstance(value, list) and len(value) == 3 and all(isinstance(p, list) and len(p) == 2 for p in value)
    if not shape_ok:
        raise ShotFileError(f"layout must be three [x, y] ball centres in metres, got {value!r}")
    array = np.array([[_number(x, "a layout coordinate") for x in p] for p in value])
    try:
        check_layout(array, params, ruleset)
    except ValueError as err:
        raise ShotFileError(str(err)) from None
    return tuple((float(x), float(y)) for x, y in array)


def _shooter(cue_ball, player, ruleset) -> tuple[int, int]:
    """(cue_ball, player), checked against the discipline: each player's cue ball (C-3.4, H-3.1)."""
    balls = {p: int(np.asarray(rules.cue_ball_of(ruleset, p))) for p in (0, 1)}
    for name, value in (("cue_ball", cue_ball), ("player", player)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ShotFileError(f"{name} must be an integer, got {value!r}")
    if player is not None and player not in balls:
        raise ShotFileError(f"player must be 0 or 1, got {player}")
    if cue_ball is None:
        player = 0 if player is None else player
        return balls[player], player
    allowed = sorted(set(balls.values()))
    if cue_ball not in allowed:
        raise ShotFileError(f"cue_ball must be a shooter's ball in this discipline, one of {allowed}, got {cue_ball}")
    if player is None:
        player = min(p for p, b in balls.items() if b == cue_ball)
    if balls[player] != cue_ball:
        raise ShotFileError(f"player {player} strikes ball {balls[player]} in this discipline, not cue_ball {cue_ball}")
    return cue_ball, player


def _noise(value):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise ShotFileError(f"noise must be a scale >= 0 or a profile name ({', '.join(NOISE_PROFILES)}), "
                            f"got {value!r}")
    if isinstance(value, str) and value not in NOISE_PROFILES:
        raise ShotFileError(f"unknown noise profile {value!r}; valid: {', '.join(NOISE_PROFILES)} (or a scale >= 0)")
    try:
        noise_scale(value)
    except ValueError as err:
        raise ShotFileError(str(err)) from None
    return value


def _provenance(value) -> Optional[dict]:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ShotFileError(f"provenance must be an object (command, seed, ...), got {value!r}")
    _text(value.get("command"), "provenance.command")
    seed = value.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ShotFileError(f"provenance.seed must be an integer, got {seed!r}")
    return value


def _at(where: str, part: str, check, *args):
    """``check(*args)``, its ShotFileError prefixed with where it happened."""
    try:
        return check(*args)
    except ShotFileError as err:
        raise ShotFileError(f"{where}: {part}: {err}") from None


def from_dict(data, where: str = "shot file") -> ShotFile:
    """A ``ShotFile`` from a file's JSON object, every field checked; ShotFileError naming
    ``where`` (the path) and the field otherwise."""
    if not isinstance(data, dict):
        raise ShotFileError(f"{where}: a shot file is a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise ShotFileError(f"{where}: not a shot file: its format is {data.get('format')!r}, not {FORMAT!r}")
    version = data.get("version")
    if version != VERSION or isinstance(version, bool):
        newer = isinstance(version, int) and not isinstance(version, bool) and version > VERSION
        raise ShotFileError(f"{where}: shot file version {version!r}; this reader knows version {VERSION}"
                            + (" (the file is newer than this code)" if newer else ""))
    missing = [k for k in ("discipline", "layout", "strikes") if k not in data]
    if missing:
        raise ShotFileError(f"{where}: missing {', '.join(missing)}")
    try:
        discipline = rules.disciplines.get(data["discipline"]).id
    except ValueError as err:
        raise ShotFileError(f"{where}: discipline: {err}") from None
    ruleset, params = setup(discipline)
    layout = _at(where, "layout", _layout, data["layout"], params, ruleset)
    cue_ball, player = _at(where, "cue_ball", _shooter, data.get("cue_ball"), data.get("player"), ruleset)
    strikes = data["strikes"]
    if not isinstance(strikes, list) or not strikes:
        raise ShotFileError(f"{where}: strikes must be a non-empty list of strikes, got {strikes!r}")
    checked = tuple(_at(where, f"strikes[{i}]", _strike, s, params) for i, s in enumerate(strikes))
    return ShotFile(discipline, layout, cue_ball, player, checked, _at(where, "noise", _noise, data.get("noise")),
                    _at(where, "notes", _text, data.get("notes"), "notes"),
                    _at(where, "provenance", _provenance, data.get("provenance")),
                    {k: v for k, v in data.items() if k not in KEYS})


def read(path) -> ShotFile:
    """The shot file at ``path``, checked (``from_dict``); ShotFileError saying what is wrong."""
    where = os.fspath(path)
    try:
        with open(where, encoding="utf-8") as f:
            text = f.read()
    except OSError as err:
        raise ShotFileError(f"{where}: cannot read it: {err.strerror or err}") from None
    except UnicodeDecodeError:
        raise ShotFileError(f"{where}: not JSON (not even text); a shot file is a JSON object") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ShotFileError(f"{where}: not JSON ({err.msg} at line {err.lineno} column {err.colno}); a shot file "
                            f"is a JSON object with \"format\": {json.dumps(FORMAT)}") from None
    return from_dict(data, where)


def write(path, discipline: str, layout, strikes: Sequence, *, cue_ball: Optional[int] = None,
          player: Optional[int] = None, noise=None, notes: Optional[str] = None, provenance: Optional[dict] = None,
          extra: Optional[dict] = None) -> ShotFile:
    """Write a shot file to ``path`` (folders made as needed) and return it as read back. strikes:
    ``Strike`` s or ``physics.Shot`` s with scalar fields; layout: (3, 2) metres; cue_ball and
    player default to player 0 and his ball; extra: keys of the writer's own (a report), none of
    the format's. Checked as ``read`` checks (ShotFileError) before anything is written."""
    if not isinstance(strikes, (list, tuple)) or not strikes:
        raise ShotFileError(f"strikes must be a non-empty list of Strike or physics.Shot, got {strikes!r}")
    clash = sorted(set(extra or {}) & set(KEYS))
    if clash:
        raise ShotFileError(f"extra keys {', '.join(clash)} are the format's own")
    data: dict[str, Any] = dict(format=FORMAT, version=VERSION, discipline=discipline,
                                layout=np.asarray(layout, np.float64).tolist(), cue_ball=cue_ball, player=player,
                                strikes=[_strike_dict(s if isinstance(s, Strike) else Strike.of(s)) for s in strikes],
                                noise=noise, notes=notes, provenance=provenance)
    data = {k: v for k, v in data.items() if v is not None}
    checked = from_dict(json.loads(_dumps({**data, **(extra or {})})), os.fspath(path))
    folder = os.path.dirname(os.fspath(path))
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(_dumps(checked.to_dict()))
    return checked


def provenance(module: str, argv: Optional[Sequence[str]] = None, **more) -> dict:
    """The provenance a command writes: its command line (``python -m module`` and ``argv``, by
    default this process's arguments) and ``more`` (its seed, ...)."""
    words = ["python", "-m", module, *(sys.argv[1:] if argv is None else argv)]
    return dict(command=shlex.join(words), **more)


# A list of numbers as ``json.dumps(indent=1)`` writes it, one number a line (a raw newline never
# occurs inside a JSON string, so only the document's structure matches).
_NUMBER_LIST = re.compile(r"\[\n\s*([-+.\deE]+(?:,\n\s*[-+.\deE]+)*)\n\s*\]")


def _dumps(data: dict) -> str:
    """Indented JSON, each list of numbers (a ball's centre) on one line."""
    try:
        text = json.dumps(data, indent=1, allow_nan=False, default=_jsonable)
    except ValueError as err:  # NaN or inf in a value the format does not check (extra, provenance)
        raise ShotFileError(f"cannot write a shot file: {err}") from None
    return _NUMBER_LIST.sub(lambda m: "[" + ", ".join(re.split(r",\n\s*", m.group(1))) + "]", text)


def _jsonable(value):
    """NumPy and JAX numbers and arrays as JSON numbers and lists (for a writer's extra keys)."""
    array = np.asarray(value)
    if array.dtype.kind in "biuf":
        return array.item() if array.ndim == 0 else array.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")

