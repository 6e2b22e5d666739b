"""Pytree dataclasses, public: the helpers every package uses to declare its state and parameters.

``pytree_dataclass`` makes a frozen dataclass a JAX pytree (fields are leaves; fields declared with
``static_field()`` are compile-time metadata), and ``replace`` is ``dataclasses.replace`` for them.
The rules, environments and agents declare their pytrees with these, so that every pytree of the
project follows one convention.
"""
from physics._pytree import pytree_dataclass, replace, static_field

__all__ = ["pytree_dataclass", "replace", "static_field"]
