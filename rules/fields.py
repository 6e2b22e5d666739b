"""Consecutive caroms in a restricted field or anchor (rules C-11.2, C-12.3, C-12.4, C-12.6) and
the referee's position announcements (C-12.10, C-14.1).

A "carom in a zone" is a carom played while both object balls lie in that zone. The state keeps
the zone being counted and how many such caroms in a row were made without an object ball
leaving it. The ``field_limit``-th one must drive an object ball out (it may come straight back:
leaving resets the count, C-11.2, C-12.3 b). "Left" is judged from the ball's centre at every
logged event and at rest; a ball that leaves and returns between two events without any event
(a massé curve) is not seen (documented limit of reading the log).
"""
from __future__ import annotations

from typing import NamedTuple

import jax.numpy as jnp

from rules import geometry, log
from rules.codes import PositionCall


class ZoneCount(NamedTuple):
    """zone: () int32 the zone counted (-1 none); before: () int32 caroms already made in it;
    limited: () bool this carom must drive a ball out; left: () bool an object ball left it."""

    zone: jnp.ndarray
    before: jnp.ndarray
    limited: jnp.ndarray
    left: jnp.ndarray


def common_zones(zone_lines, positions, objects, tol):
    """(n_zones,) bool: zones holding every object ball (lines count inside: C-11.5, C-12.9)."""
    inside = geometry.inside(zone_lines, positions, tol)  # (balls, zones)
    return jnp.all(inside | ~objects[:, None], axis=0)


def resolve(common, tracked, count):
    """The zone to count in and the caroms already made: ((), ()) int32.

    Keeps counting the tracked zone while it still holds both object balls; else the first zone
    holding both (a ball on a line is in both fields: open point, we take the lower index), count 0.
    """
    n = common.shape[0]
    keep = (tracked >= 0) & common[jnp.clip(tracked, 0, n - 1)]
    first = jnp.where(jnp.any(common), jnp.argmax(common), -1)
    zone = jnp.where(keep, tracked, first).astype(jnp.int32)
    return zone, jnp.where(keep, count, 0).astype(jnp.int32)


def count_shot(ruleset, zone_lines, tracked, count, start_positions, objects, shot) -> ZoneCount:
    """Judge one shot against one family of zones (fields or anchors)."""
    n = zone_lines.shape[0]
    tol = ruleset.line_tolerance
    common = common_zones(zone_lines, start_positions, objects, tol)
    zone, before = resolve(common, tracked, count)
    zone = jnp.where(ruleset.restricted_fields, zone, -1)
    lines = zone_lines[jnp.clip(zone, 0, n - 1)]
    rows, used = log.positions_during(shot)
    out = ~geometry.inside(lines[None], rows, tol)[..., 0]  # (rows, balls)
    left = (zone >= 0) & jnp.any(out & used[:, None] & objects[None, :])
    limited = (zone >= 0) & (before + 1 >= ruleset.field_limit)
    return ZoneCount(zone, before, limited, left)


def after_carom(zc: ZoneCount):
    """The (zone, count) to keep after a counted carom: reset once an object ball left."""
    reset = (zc.zone < 0) | zc.left
    return jnp.where(reset, -1, zc.zone).astype(jnp.int32), jnp.where(reset, 0, zc.before + 1).astype(jnp.int32)


def announce(ruleset, fields, anchors, positions, objects, field_zone, field_count, anchor_zone, anchor_count):
    """(field call, anchor call): () int32 ``PositionCall``s for the layout before the next shot.

    "entré" when both object balls lie in one field (anchor), "dedans" when they lie there for the
    second time in a row of caroms, "à cheval" when they share an anchor but not a field (they lie
    on the two sides of its line). Open point: the documents name the calls but not their meaning;
    this follows the referees' usage.
    """
    tol = ruleset.line_tolerance
    none = jnp.asarray(PositionCall.NONE, jnp.int32)

    def call(zone_lines, tracked, count):
        common = common_zones(zone_lines, positions, objects, tol)
        zone, before = resolve(common, tracked, count)
        value = jnp.where(before >= 1, PositionCall.DEDANS, PositionCall.ENTRE)
        return jnp.where(zone >= 0, value, PositionCall.NONE).astype(jnp.int32), zone >= 0

    field_call, in_field = call(fields, field_zone, field_count)
    anchor_call, in_anchor = call(anchors, anchor_zone, anchor_count)
    field_call = jnp.where(~in_field & in_anchor, PositionCall.A_CHEVAL, field_call).astype(jnp.int32)
    on = ruleset.restricted_fields
    return jnp.where(on, field_call, none), jnp.where(on, anchor_call, none)
