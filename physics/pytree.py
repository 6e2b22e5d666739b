"""Pytree dataclasses, public: the helpers every package uses to declare its state and parameters.

``pytree_dataclass`` makes a frozen dataclass a JAX pytree (fields are leaves; fields declared with
``static_field()`` are compile-time metadata), ``replace`` is ``dataclasses.replace`` for them, and
``strong_types`` takes the weak types out of arguments before a compiled call.
The rules, environments and agents declare their pytrees with these, so that every pytree of the
project follows one convention.
"""
from physics._pytree import pytree_dataclass, replace, static_field, strong_types

__all__ = ["pytree_dataclass", "replace", "static_field", "strong_types"]
