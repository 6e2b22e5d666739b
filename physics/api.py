"""The shot simulation as pure functions, for callers that compose it inside their own ``jit``.

    simulate_fn(positions, shot, cue_ball, params, pin_position=None) -> ShotResult
    simulate_pool_fn(positions, shot, cue_ball, params, pin_position, lanes) -> ShotResult
    simulate_jit, simulate_pool_jit      # the same two, compiled (``lanes`` static)

``simulate_fn`` plays one shot: positions (n_balls, 2), the ``Shot``'s fields (), cue_ball an int,
pin_position None (no pin) or (2,). ``simulate_pool_fn`` plays a batch on ``lanes`` simulation
lanes: positions (B, n_balls, 2), the ``Shot``'s fields and cue_ball (B,), pin_position None or
(B, 2); it gives what a ``vmap`` of ``simulate_fn`` gives, faster when shots differ in length.

Unlike ``physics.simulate`` and ``physics.simulate_batch`` (which check shapes in Python, fill in
defaults and broadcast), these take every argument as given and can be traced, vmapped and
staged; what goes wrong inside them is reported in ``result.status``, since nothing can raise
under ``jit``.
"""
from physics.simulate import _simulate, _simulate_jit, _simulate_pool, _simulate_pool_jit

simulate_fn = _simulate
simulate_pool_fn = _simulate_pool
simulate_jit = _simulate_jit
simulate_pool_jit = _simulate_pool_jit

__all__ = ["simulate_fn", "simulate_pool_fn", "simulate_jit", "simulate_pool_jit"]
