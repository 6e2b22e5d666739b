"""Table geometry: the playing area and its named spots (docs/physics.md section 7; rules H-1.1, H-1.4).

Coordinates: metres, x along the long side, origin at the corner of the playing area where the
BOTTOM (head) and RIGHT cushions meet. The playing area is measured between cushion noses.
"""
from __future__ import annotations

import jax.numpy as jnp

from physics._pytree import pytree_dataclass, static_field

TABLE_KINDS = ("match", "hungarian")


@pytree_dataclass
class Table:
    """A pocketless table.

    Attributes:
      length, width: () float, playing area between cushion noses (m).
      head_string_offset: () float, carom starting spots beside the head spot (m), docs/physics.md section 7.
      spot_spacing: () float, Hungarian spot spacing centre to centre (m), rule H-1.4 (72-74 mm).
      base_spot_fraction: () float, Hungarian base spots as a fraction of the length from each short
        cushion: 1/5 by default (open point O-8), 1/4 for the traditional quarter points.
      face_depth: () float, horizontal depth of the cushion's upper face, from the nose back to the
        rail (m), docs/physics.md section 5.
      rail_height: () float, height of the wooden rail's top above the bed (m); the cushion's upper
        face rises from the nose to it.
      rail_width: () float, width of the rail's top, from the cushion to the table's outer edge (m).
      kind: "match" (carom, 2.84 x 1.42 m) or "hungarian" (1:2, rule H-1.1).
    """

    length: jnp.ndarray
    width: jnp.ndarray
    head_string_offset: jnp.ndarray
    spot_spacing: jnp.ndarray
    base_spot_fraction: jnp.ndarray
    face_depth: jnp.ndarray
    rail_height: jnp.ndarray
    rail_width: jnp.ndarray
    kind: str = static_field(default="match")

    # Carom spots (docs/physics.md section 7).
    @property
    def centre(self):
        """() -> (2,): the centre spot."""
        return jnp.stack([self.length / 2, self.width / 2])

    @property
    def top_spot(self):
        """(2,): on the long axis, a quarter of the length from the TOP cushion."""
        return jnp.stack([0.75 * self.length, self.width / 2])

    @property
    def head_spot(self):
        """(2,): on the long axis, a quarter of the length from the BOTTOM cushion."""
        return jnp.stack([0.25 * self.length, self.width / 2])

    @property
    def head_string_spots(self):
        """(3, 2): the head-string spots, right of centre, centre, left of centre (rule C-2.1)."""
        x = 0.25 * self.length
        y = self.width / 2
        d = self.head_string_offset
        return jnp.stack([jnp.stack([x, y - d]), jnp.stack([x, y]), jnp.stack([x, y + d])])

    # Hungarian spots (rule H-1.4).
    @property
    def base_spots(self):
        """(2, 2): the two outermost long-axis spots ("alappont"), bottom end first."""
        x = self.base_spot_fraction * self.length
        y = self.width / 2
        return jnp.stack([jnp.stack([x, y]), jnp.stack([self.length - x, y])])

    @property
    def long_axis_spots(self):
        """(7, 2): the seven long-axis spots, from the bottom base spot to the top one."""
        c = self.centre
        s = self.spot_spacing
        inner = jnp.stack([c + jnp.stack([k * s, 0.0 * s]) for k in (-2, -1, 0, 1, 2)])
        base = self.base_spots
        return jnp.concatenate([base[:1], inner, base[1:]])

    @property
    def cross_axis_spots(self):
        """(3, 2): the centre and the cross-axis spots beside it, right first."""
        c = self.centre
        s = self.spot_spacing
        return jnp.stack([c + jnp.stack([0.0 * s, k * s]) for k in (-1, 0, 1)])

    @property
    def spots(self):
        """(9, 2): the nine Hungarian spots: the seven long-axis ones, then the two cross-axis ones."""
        cross = self.cross_axis_spots
        return jnp.concatenate([self.long_axis_spots, cross[::2]])


def make_table(kind: str, dtype, **sizes) -> Table:
    """The default table of a kind: "match" (2.84 x 1.42 m) or "hungarian" (2.10 x 1.05 m)."""
    if kind not in TABLE_KINDS:
        raise ValueError(f"unknown table {kind!r}; valid tables: {', '.join(TABLE_KINDS)}")
    # Hungarian default: 2.10 x 1.05 m, inside rule H-1.1's 1:2 range (1.70-2.12 m long).
    length, width = (2.84, 1.42) if kind == "match" else (2.10, 1.05)
    values = dict(
        length=length,
        width=width,
        head_string_offset=0.1826,  # 7 3/16 in, docs/physics.md section 7
        spot_spacing=0.073,  # rule H-1.4: 72-74 mm centre to centre
        base_spot_fraction=0.2,  # open point O-8
        # Cushion and rail (docs/physics.md section 5): the rules give only the nose height (H-1.1).
        face_depth=0.032,  # a carom cushion rubber's top, about 1 1/4 in across
        rail_height=0.045,  # the rail top, flush with the back of the cushion's upper face
        rail_width=0.125 if kind == "match" else 0.10,  # a match table's frame; a lighter Hungarian one
    )
    values.update(sizes)
    return Table(kind=kind, **{k: jnp.asarray(v, dtype) for k, v in values.items()})
