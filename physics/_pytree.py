"""Frozen dataclasses registered as JAX pytrees.

Numeric fields are pytree leaves (so they can be traced, vmapped and differentiated); fields
declared with ``static_field()`` are compile-time metadata (model names, capacities), part of the
treedef, so changing them recompiles instead of silently branching on traced values.
"""
from __future__ import annotations

import dataclasses
from typing import TypeVar

import jax
import jax.numpy as jnp
import numpy as np
from typing_extensions import dataclass_transform

T = TypeVar("T")


def static_field(**kwargs):
    """A dataclass field that is pytree metadata, not a leaf."""
    return dataclasses.field(metadata={"static": True}, **kwargs)


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, static_field))
def pytree_dataclass(cls: type[T]) -> type[T]:
    """Make ``cls`` a frozen dataclass and register it with JAX (type checkers see a dataclass)."""
    cls = dataclasses.dataclass(frozen=True)(cls)
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    meta = [f.name for f in fields if f.metadata.get("static", False)]
    data = [f.name for f in fields if not f.metadata.get("static", False)]
    return jax.tree_util.register_dataclass(cls, data_fields=data, meta_fields=meta)


def replace(obj, **changes):
    """``dataclasses.replace`` for our pytree dataclasses."""
    return dataclasses.replace(obj, **changes)


def strong_type(x, float_dtype):
    """``x`` not weakly typed: a Python number becomes a NumPy one of ``float_dtype`` (a float),
    int32 (an int) or bool, and a weakly typed JAX array takes the same dtypes; anything else is
    returned as it is. (A NumPy number travels with the rest of a compiled call's arguments.)"""
    if isinstance(x, bool):
        return np.asarray(x)
    if isinstance(x, int):
        return np.asarray(x, np.int32)
    if isinstance(x, float):
        return np.asarray(x, float_dtype)
    if getattr(x, "weak_type", False):
        kind = jnp.dtype(x.dtype).kind
        return jnp.asarray(x, float_dtype if kind == "f" else jnp.int32 if kind in "iu" else x.dtype)
    return x


def strong_types(tree, float_dtype):
    """``tree`` with no weakly typed number (``strong_type`` on every leaf). A compiled function
    sees a weak type as a type of its own, so a caller who passes ``0.5`` once and an array once
    would compile it twice; entry points pass their arguments through this first."""
    return jax.tree_util.tree_map(lambda x: strong_type(x, float_dtype), tree)
