"""The collision models, one registry per interaction: name -> ``Model`` (docs/physics.md section 2).

``BALL_BALL_MODELS`` and ``CUSHION_MODELS`` are the only lists of models: ``physics.default_params``
accepts exactly their names (``ball_ball=``, ``cushion=``), the simulator calls the function of
the name in ``Params`` (a static field, so the choice costs nothing at run time), and the model
tests run over every entry. Adding a model is one entry here, or one ``register`` call from
outside the package. The ball-pin impact has one model and no choice in ``Params``, so it has no
registry (``physics.collide.ball_pin``).

Signatures (arrays of one ball, or one pair; ``normal`` is a (2,) unit vector), the Protocols
``BallBallResolve`` and ``CushionResolve`` that mypy checks every entry and ``register`` call against
(``Model`` is generic in its function); ``register`` also refuses a function that cannot take them:
  ball-ball: ``resolve(v1, w1, v2, w2, normal, params) -> (v1, w1, v2, w2)``, normal from ball 1
    to ball 2; velocities (2,), spins (3,).
  cushion:   ``resolve(v, w, normal, params) -> (v, w)``, normal from the ball's centre to the
    cushion.
The simulator passes the arguments by position. A model returns bodies that are not approaching
unchanged, never adds kinetic energy, and can be traced (jit, vmap): nothing in it may branch on
array values in Python.
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Generic, Literal, Mapping, Protocol, TypeVar, overload

import jax

from physics.collide import ball_ball, cushion_graded, cushion_han2005, cushion_mathavan2010


# ``params`` is a ``physics.Params``, typed Any here: physics.params imports this registry, and the
# layers' import check counts an import made only for the type checker as a circle.


class BallBallResolve(Protocol):
    """A ball-ball model's ``resolve``: velocities (2,) and spins (3,) of both balls after the
    impact, ``normal`` (2,) the unit vector from ball 1's centre to ball 2's."""

    def __call__(self, v1: jax.Array, w1: jax.Array, v2: jax.Array, w2: jax.Array, normal: jax.Array,
                 params: Any, /) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]: ...


class CushionResolve(Protocol):
    """A cushion model's ``resolve``: the ball's velocity (2,) and spin (3,) after the impact,
    ``normal`` (2,) the unit vector from the ball's centre to the cushion."""

    def __call__(self, v: jax.Array, w: jax.Array, normal: jax.Array, params: Any, /
                 ) -> tuple[jax.Array, jax.Array]: ...


ResolveT = TypeVar("ResolveT", bound=Callable[..., Any])
# How many arrays (before the params) each interaction's resolve takes, by position.
_ARITY = {"ball_ball": 6, "cushion": 4}


@dataclass(frozen=True)
class Model(Generic[ResolveT]):
    """One collision model: its function (a ``BallBallResolve`` or a ``CushionResolve``), the
    published source it follows, what it does."""

    resolve: ResolveT
    reference: str
    description: str


BALL_BALL_MODELS: dict[str, Model[BallBallResolve]] = {
    "frictional": Model(
        ball_ball.frictional,
        "D. Alciatore, technical proof TP A-14, ball-ball friction against slip speed (2004)",
        "restitution e_b and throw: friction u_b(v) = a + b exp(-c v) at the contact"),
    "frictionless": Model(
        ball_ball.frictionless,
        "W. Leckie, M. Greenspan, An event-based pool physics simulator, ACG 11 (2005)",
        "restitution e_b only; with e_b = 1 equal balls exchange normal velocities"),
    "frictional_bed": Model(
        ball_ball.frictional_bed,
        "D. Alciatore, TP A-14 (2004) throw; the cloth's friction under a ball the impact presses into the bed, "
        "derived here (docs/physics.md section 2)",
        "frictional, and the cloth's sliding friction u_s on the bed's share of the impulse between the balls"),
}

CUSHION_MODELS: dict[str, Model[CushionResolve]] = {
    "han2005": Model(
        cushion_han2005.resolve,
        "I. Han, Dynamics in carom and three cushion billiards, J. Mech. Sci. Technol. 19(4) (2005)",
        "closed form: one impulse at the 37 mm nose, restitution e_c, friction f_c; the cloth's friction "
        "f_bed under the ball during it (0: Han's model)"),
    "mathavan2010": Model(
        cushion_mathavan2010.resolve,
        "S. Mathavan, M. R. Jackson, R. M. Parkin, Proc. IMechE Part C 224(9), 1863-1873 (2010)",
        "the impact integrated in the normal impulse, friction at the nose and at the bed"),
    "graded": Model(
        cushion_graded.resolve,
        "I. Han (2005) impulse; restitution by normal speed and friction by incidence fitted to tracked match "
        "rebounds (erdo100/3cushiontool, 20221225_2_Match_Ersin_Cemal), docs/physics.md section 2",
        "han2005 with e_c - e_c_slope (v_n - 1 m/s) and f_c + f_c_slope (sin a - sin 45 deg)"),
}

_REGISTRIES: dict[str, dict[str, Model[Any]]] = {"ball_ball": BALL_BALL_MODELS, "cushion": CUSHION_MODELS}
_BUILT_IN = {kind: frozenset(models) for kind, models in _REGISTRIES.items()}
# Every model a name has stood for: jit caches compiled shots by the name (a static field), so a
# name must never come to mean another function within one process.
_EVER = {(kind, name): model for kind, models in _REGISTRIES.items() for name, model in models.items()}


def _registry(interaction: str) -> dict[str, Model[Any]]:
    if interaction not in _REGISTRIES:
        raise ValueError(f"interaction must be one of {', '.join(_REGISTRIES)}, not {interaction!r}")
    return _REGISTRIES[interaction]


def models(interaction: str) -> Mapping[str, Model[Any]]:
    """A read-only view of one registry ("ball_ball" or "cushion"): name -> ``Model``."""
    return MappingProxyType(_registry(interaction))


def ball_ball_models() -> Mapping[str, Model[BallBallResolve]]:
    """The ball-ball models by name (read-only view of ``BALL_BALL_MODELS``)."""
    return MappingProxyType(BALL_BALL_MODELS)


def cushion_models() -> Mapping[str, Model[CushionResolve]]:
    """The ball-cushion models by name (read-only view of ``CUSHION_MODELS``)."""
    return MappingProxyType(CUSHION_MODELS)


@overload
def register(interaction: Literal["ball_ball"], name: str, model: Model[BallBallResolve]) -> None: ...


@overload
def register(interaction: Literal["cushion"], name: str, model: Model[CushionResolve]) -> None: ...


def register(interaction: str, name: str, model: Model[Any]) -> None:
    """Add ``model`` to the registry of ``interaction`` under ``name``.

    ValueError when the name is taken, or was used by another model earlier in this process
    (compiled shots are cached by name); TypeError when ``model`` is not a ``Model``, or its
    ``resolve`` cannot take the interaction's arguments by position (``BallBallResolve``,
    ``CushionResolve``; mypy checks the whole signature where ``interaction`` is a literal).
    """
    registry = _registry(interaction)
    if not isinstance(name, str) or not name:
        raise TypeError(f"name must be a non-empty str, not {name!r}")
    if not isinstance(model, Model) or not callable(model.resolve):
        raise TypeError(f"model must be a physics.collide.Model with a callable resolve, not {model!r}")
    _check_arity(interaction, model.resolve)
    if name in registry:
        raise ValueError(f"name {name!r} is already a {interaction} model; unregister it first or choose another")
    earlier = _EVER.get((interaction, name))
    if earlier is not None and earlier != model:
        raise ValueError(f"name {name!r} stood for another {interaction} model earlier in this process "
                         f"(compiled shots are cached by name); choose another name")
    _EVER[(interaction, name)] = model
    registry[name] = model


def _check_arity(interaction: str, resolve: Callable[..., Any]) -> None:
    """TypeError unless ``resolve`` can be called with the interaction's arguments by position."""
    try:
        signature = inspect.signature(resolve)
    except (TypeError, ValueError):  # no signature to read (some built-in callables): the call will tell
        return
    count = _ARITY[interaction]
    try:
        signature.bind(*range(count))
    except TypeError as err:
        wanted = {"ball_ball": "resolve(v1, w1, v2, w2, normal, params) -> (v1, w1, v2, w2)",
                  "cushion": "resolve(v, w, normal, params) -> (v, w)"}[interaction]
        raise TypeError(f"a {interaction} model's resolve must take {count} arguments by position, "
                        f"{wanted}; {getattr(resolve, '__name__', resolve)!r}{signature} cannot ({err})") from None


def unregister(interaction: str, name: str) -> None:
    """Remove a model added with ``register`` (ValueError for a built-in or an unknown name)."""
    registry = _registry(interaction)
    if name in _BUILT_IN[interaction]:
        raise ValueError(f"{name!r} is a built-in {interaction} model and cannot be unregistered")
    if name not in registry:
        raise ValueError(f"no {interaction} model named {name!r}; registered: {', '.join(registry)}")
    del registry[name]


__all__ = ["Model", "BallBallResolve", "CushionResolve", "BALL_BALL_MODELS", "CUSHION_MODELS", "models",
           "ball_ball_models", "cushion_models", "register", "unregister"]
