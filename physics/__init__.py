"""Event-based, JAX-vectorised carom billiards physics. Knows no rules.

Precision: the library computes in float64, so ``import physics`` turns on JAX's 64-bit mode for
the whole process (``physics.enable_x64()``), unless the ``JAX_ENABLE_X64`` environment variable
states the user's own choice: ``JAX_ENABLE_X64=0`` keeps JAX's 32-bit default, and then the
default parameters are float32 (``physics.precision``; README, "Precision"). Float32 also works
in 64-bit mode when the inputs and parameters are float32 (``default_params(dtype="float32")``).

Public modules besides this one: ``physics.api`` (the simulation as pure functions, for use
inside a caller's ``jit``) and ``physics.pytree`` (the pytree dataclass helpers).
"""
from physics.precision import enable_x64, enable_x64_unless_chosen

enable_x64_unless_chosen()

from physics.events import Cushion, EventKind, EventLog, Motion, ShotResult, Status  # noqa: E402
from physics.params import CALIBRATIONS, Params, default_params  # noqa: E402
from physics.table import Table  # noqa: E402
from physics.replay import event_list, positions_at, positions_at_batch  # noqa: E402
from physics.simulate import simulate, simulate_batch  # noqa: E402
from physics.api import simulate_fn, simulate_jit, simulate_pool_fn, simulate_pool_jit  # noqa: E402
from physics.strike import Shot  # noqa: E402
from physics.cache import use_compilation_cache  # noqa: E402

__all__ = [
    "CALIBRATIONS", "Cushion", "EventKind", "EventLog", "Motion", "Params", "Shot", "ShotResult", "Status",
    "Table", "default_params", "event_list", "positions_at", "positions_at_batch", "simulate", "simulate_batch",
    "simulate_fn", "simulate_jit", "simulate_pool_fn", "simulate_pool_jit", "enable_x64",
    "use_compilation_cache",
]
