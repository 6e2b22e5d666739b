"""The small MLPs of the learned agents, and their .npz files.

A network is a plain JAX pytree: a list of (W, b) layers, W (inputs, outputs) and b (outputs,),
float32. ``mlp_apply`` runs it (GELU between layers, a linear last layer); ``mlp_init`` makes one
for given layer widths; ``ensemble`` merges several into one whose output is their mean.

The file format: ``save_layers`` writes the layers to a compressed .npz under the keys "i/W" and
"i/b" (i = 0, 1, ...) and returns the layer widths, which the model's JSON sidecar records;
``read_layers`` reads them back and checks their shapes against those widths. The sidecars
themselves, and where the shipped models live, are ``agents.store``'s.

    net = mlp_init(jax.random.PRNGKey(0), [17, 128, 128, 1])
    y = mlp_apply(net, x)                    # x (..., 17) -> (..., 1)
    sizes = save_layers(net, "value.npz")    # [17, 128, 128, 1]
    net = read_layers("value.npz", sizes)
"""
from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def mlp_init(key, sizes):
    """[(W, b), ...] for layer widths ``sizes`` (He-scaled normal weights, zero biases)."""
    keys = jax.random.split(key, len(sizes) - 1)
    return [(jax.random.normal(k, (m, n), jnp.float32) * jnp.sqrt(2.0 / m), jnp.zeros((n,), jnp.float32))
            for k, m, n in zip(keys, sizes[:-1], sizes[1:])]


def mlp_apply(net, x):
    """The MLP on x (..., sizes[0]): GELU between layers, a linear last layer."""
    x = x.astype(jnp.float32)
    for W, b in net[:-1]:
        x = jax.nn.gelu(x @ W + b)
    W, b = net[-1]
    return x @ W + b


def save_layers(net, path: str) -> list[int]:
    """Write the layers [(W, b), ...] to the .npz ``path`` (float32, keys "i/W", "i/b"; compressed,
    as the blocks off the diagonal of an ``ensemble`` are zeros); returns the layer widths, as a
    sidecar records them."""
    arrays: dict[str, Any] = {f"{i}/{name}": np.asarray(a, np.float32)
                              for i, layer in enumerate(net) for name, a in zip("Wb", layer)}
    with open(path, "wb") as f:
        np.savez_compressed(f, **arrays)
    return [int(np.shape(net[0][0])[0])] + [int(np.shape(W)[1]) for W, _ in net]


def read_layers(path: str, sizes) -> list:
    """The layers of the .npz ``path`` (``save_layers``); ValueError unless their shapes are the
    widths ``sizes`` of its sidecar."""
    if not isinstance(sizes, list) or len(sizes) < 2:
        raise ValueError(f"{path}: the sidecar has no layer sizes")
    with np.load(path) as arrays:
        net = [(arrays[f"{i}/W"], arrays[f"{i}/b"]) for i in range(len(sizes) - 1)]
    shapes = [tuple(np.shape(W)) for W, _ in net]
    if shapes != list(zip(sizes[:-1], sizes[1:])):
        raise ValueError(f"{path}: layer shapes {shapes} do not match the sidecar's sizes {sizes}")
    return net


def ensemble(nets) -> list:
    """One MLP whose output is the mean of the outputs of ``nets`` (MLPs of one depth, one input
    width and one output width): the members side by side, their first layers concatenated, the
    hidden ones block-diagonal, the last ones stacked and averaged. It is saved, loaded and applied
    as any model (``mlp_apply``), so a shipped policy may be an ensemble of runs (for a class head,
    the mean of the logits: the normalised geometric mean of the members' class probabilities).
    ValueError if the members' shapes differ in depth, inputs or outputs."""
    nets = [[(np.asarray(W, np.float32), np.asarray(b, np.float32)) for W, b in net] for net in nets]
    if not nets:
        raise ValueError("ensemble: no networks given")
    ends = {(len(net), net[0][0].shape[0], net[-1][0].shape[1]) for net in nets}
    if len(ends) > 1:
        raise ValueError(f"ensemble: the networks differ in (layers, inputs, outputs): {sorted(ends)}; "
                         "only networks of one depth, input width and output width can be averaged")
    depth, n = len(nets[0]), len(nets)
    if depth == 1:  # linear models: the mean of the maps
        return [tuple(jnp.asarray(np.mean([net[0][k] for net in nets], 0)) for k in (0, 1))]
    merged = [(np.concatenate([net[0][0] for net in nets], 1), np.concatenate([net[0][1] for net in nets]))]
    merged += [(jax.scipy.linalg.block_diag(*[net[i][0] for net in nets]), np.concatenate([net[i][1] for net in nets]))
               for i in range(1, depth - 1)]
    merged.append((np.concatenate([net[-1][0] for net in nets], 0) / n, np.mean([net[-1][1] for net in nets], 0)))
    return [(jnp.asarray(W), jnp.asarray(b)) for W, b in merged]


__all__ = ["mlp_init", "mlp_apply", "save_layers", "read_layers", "ensemble"]
