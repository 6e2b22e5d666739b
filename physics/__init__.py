"""Event-based, JAX-vectorised carom billiards physics. Knows no rules.

The library computes in float64: importing it turns on JAX's 64-bit mode (see README,
"Precision"). Float32 still works when the inputs and parameters are float32.
"""
import jax

jax.config.update("jax_enable_x64", True)

from physics.events import Cushion, EventKind, EventLog, Motion, ShotResult, Status  # noqa: E402
from physics.params import Params, default_params  # noqa: E402
from physics.table import Table  # noqa: E402
from physics.replay import event_list, positions_at  # noqa: E402
from physics.simulate import simulate, simulate_batch  # noqa: E402
from physics.strike import Shot  # noqa: E402

__all__ = [
    "Cushion", "EventKind", "EventLog", "Motion", "Params", "Shot", "ShotResult", "Status",
    "Table", "default_params", "event_list", "positions_at", "simulate", "simulate_batch",
]
