"""Pictures of the table: a NumPy rasteriser (no display needed), a matplotlib window, and a GIF of
a shot.

``frame`` draws the rails with their diamonds, the cloth, the last shot's ball paths (thin lines
in the balls' colours), the pin while it stands or lies jammed, and the balls on top, so a ball's
centre pixel always has the ball's colour. The table's x axis (towards the TOP cushion) runs to
the right of the picture and y (towards the LEFT cushion) upwards.
"""
from __future__ import annotations

import numpy as np

# Ball colours by index (rules C-3.4: white, yellow, red; H-3.1: red, white, yellow).
WHITE, YELLOW, RED = (244, 244, 240), (242, 197, 0), (200, 16, 46)
CAROM_COLOURS = (WHITE, YELLOW, RED)
HUNGARIAN_COLOURS = (RED, WHITE, YELLOW)
CLOTH = (28, 86, 160)
HUNGARIAN_CLOTH = (24, 112, 64)
RAIL = (96, 56, 28)
DIAMOND = (236, 230, 210)
PIN = (40, 24, 12)
PIN_JAMMED = (120, 100, 90)


def ball_colours(hungarian: bool):
    return HUNGARIAN_COLOURS if hungarian else CAROM_COLOURS


class Canvas:
    """Table coordinates (m) to pixels for a picture ``width`` pixels wide (rails included)."""

    def __init__(self, length: float, table_width: float, width: int = 640, rail_fraction: float = 0.06):
        self.length, self.table_width = float(length), float(table_width)
        self.scale = width / (self.length * (1 + 2 * rail_fraction))
        self.rail = int(round(rail_fraction * self.length * self.scale))
        self.shape = (int(round(self.table_width * self.scale)) + 2 * self.rail, int(width), 3)

    def to_pixels(self, xy):
        """(..., 2) metres -> (..., 2) float pixel (column, row)."""
        xy = np.asarray(xy, dtype=float)
        col = self.rail + xy[..., 0] * self.scale
        row = self.shape[0] - self.rail - xy[..., 1] * self.scale
        return np.stack([col, row], axis=-1)


def diamonds(canvas: Canvas) -> list:
    """The diamonds' centres (m, table coordinates) in the middle of the rails: every 1/8 of the
    length on the long rails, every 1/4 of the width on the short rails."""
    L, W = canvas.length, canvas.table_width
    off = 0.5 * canvas.rail / canvas.scale
    marks = [(L * k / 8, y) for k in range(1, 8) for y in (-off, W + off)]
    return marks + [(x, W * k / 4) for k in range(1, 4) for x in (-off, L + off)]


def diamond_radius(canvas: Canvas) -> float:
    """A diamond's radius in pixels."""
    return max(1.5, 0.12 * canvas.rail)


def _disc(img, centre_px, radius_px, colour):
    c, r = centre_px
    r0, r1 = int(np.floor(r - radius_px)), int(np.ceil(r + radius_px)) + 1
    c0, c1 = int(np.floor(c - radius_px)), int(np.ceil(c + radius_px)) + 1
    r0, c0 = max(r0, 0), max(c0, 0)
    r1, c1 = min(r1, img.shape[0]), min(c1, img.shape[1])
    if r0 >= r1 or c0 >= c1:
        return
    rows, cols = np.mgrid[r0:r1, c0:c1]
    inside = (rows + 0.5 - r) ** 2 + (cols + 0.5 - c) ** 2 <= radius_px**2
    img[r0:r1, c0:c1][inside] = colour


def _polyline(img, points_px, colour):
    pts = np.asarray(points_px, dtype=float)
    if len(pts) < 2:
        return
    seg = np.diff(pts, axis=0)
    steps = np.maximum(np.ceil(np.abs(seg).max(axis=1)), 1).astype(int)
    samples = [pts[i] + np.linspace(0, 1, s + 1)[:, None] * seg[i] for i, s in enumerate(steps)]
    xy = np.concatenate(samples)
    cols = np.clip(np.floor(xy[:, 0]).astype(int), 0, img.shape[1] - 1)
    rows = np.clip(np.floor(xy[:, 1]).astype(int), 0, img.shape[0] - 1)
    img[rows, cols] = colour


def frame(positions, physics_params, hungarian: bool = False, pin=None, pin_jammed: bool = False,
          paths=None, on_table=None, width: int = 640) -> np.ndarray:
    """(H, W, 3) uint8 picture.

    positions: (3, 2) ball centres (m). pin: (2,) where the pin stands (or lies jammed), or None.
    paths: (T, 3, 2) ball positions along the last shot, or None. on_table: (3,) bool, balls to draw.
    """
    table = physics_params.table
    canvas = Canvas(float(table.length), float(table.width), width)
    img = np.empty(canvas.shape, np.uint8)
    img[...] = RAIL
    rail = canvas.rail
    img[rail:canvas.shape[0] - rail, rail:canvas.shape[1] - rail] = HUNGARIAN_CLOTH if hungarian else CLOTH
    for m in diamonds(canvas):
        _disc(img, canvas.to_pixels(m), diamond_radius(canvas), DIAMOND)
    colours = ball_colours(hungarian)
    if paths is not None:
        cloth = np.asarray(HUNGARIAN_CLOTH if hungarian else CLOTH, float)
        for b in range(np.shape(paths)[1]):
            tone = tuple(int(v) for v in 0.35 * cloth + 0.65 * np.asarray(colours[b], float))
            _polyline(img, canvas.to_pixels(np.asarray(paths)[:, b]), tone)
    if pin is not None:
        radius = float(physics_params.pin.contact_radius) * canvas.scale
        _disc(img, canvas.to_pixels(pin), max(radius, 2.0), PIN_JAMMED if pin_jammed else PIN)
    R = float(physics_params.ball.radius) * canvas.scale
    positions = np.asarray(positions, dtype=float)
    for b in range(positions.shape[0]):
        if on_table is None or bool(np.asarray(on_table)[b]):
            _disc(img, canvas.to_pixels(positions[b]), R, colours[b])
    return img


AFTER_EVENT = np.geomspace(0.002, 1.5, 16)  # s after each event: where paths curve (sliding, swerve)


def path_times(result, samples: int = 256) -> np.ndarray:
    """Sorted times (s) at which to draw one shot's paths: ``samples`` evenly spaced, every event
    of the log (so a path passes through each cushion and ball contact exactly), and a few just
    after each event, where the paths curve while the balls slide. The count depends only on
    ``samples`` and the log's capacity (one compiled replay per log size); unused slots repeat the
    end of the shot."""
    t_end = max(float(np.asarray(result.final_time)), 1e-9)
    log_times = np.asarray(result.events.time, np.float64)
    used = np.arange(log_times.shape[-1]) < int(np.asarray(result.num_events))
    events = np.where(used, np.clip(log_times, 0.0, t_end), t_end)
    near = np.minimum(events[:, None] + AFTER_EVENT[None], t_end).ravel()
    return np.sort(np.concatenate([np.linspace(0.0, t_end, samples), events, near]))


def shot_paths(result, physics_params, samples: int = 256):
    """(T, 3, 2): the balls' positions along one shot at ``path_times`` (through every event)."""
    import physics

    return np.asarray(physics.positions_at(result, path_times(result, samples), physics_params))


def pin_fall_time(result) -> float:
    """When the pin fell in the shot (s), or inf."""
    kinds = np.asarray(result.events.kind)[: int(np.asarray(result.num_events))]
    hits = np.nonzero(kinds == 9)[0]  # physics.EventKind.PIN_DOWN
    return float(np.asarray(result.events.time)[hits[0]]) if len(hits) else float("inf")


def show(img, figure=None):
    """Show a frame in a matplotlib window (the "human" render mode). Under a non-interactive
    backend (no display) it only draws. Returns the figure to reuse."""
    import matplotlib
    import matplotlib.pyplot as plt

    if figure is None:
        figure = plt.figure("billiards", figsize=(img.shape[1] / 100, img.shape[0] / 100))
        figure.add_axes([0, 0, 1, 1]).set_axis_off()
        figure._billiards_image = figure.axes[0].imshow(img)
    else:
        figure._billiards_image.set_data(img)
    figure.canvas.draw_idle()
    backend = matplotlib.get_backend().lower()
    if not any(name in backend for name in ("agg", "pdf", "svg", "ps", "cairo", "template")):
        plt.pause(0.001)
    return figure


def save_replay(path, result, physics_params, hungarian: bool = False, pin=None, fps: int = 25,
                width: int = 480, speed: float = 1.0, max_seconds: float = 12.0) -> str:
    """Write a GIF of one shot (a ``physics.ShotResult``) to ``path``: the balls moving, their
    paths drawn behind them, the pin (at ``pin``) until it falls. Returns the path."""
    from PIL import Image

    import physics

    t_end = min(float(np.asarray(result.final_time)), max_seconds * speed)
    n = max(2, int(np.ceil(t_end / speed * fps)) + 1)
    times = np.linspace(0.0, t_end, n)
    positions = np.asarray(physics.positions_at(result, times, physics_params))
    falls = pin_fall_time(result)
    on_table = np.asarray(result.on_table)
    frames = []
    for k, t in enumerate(times):
        last = k == n - 1
        img = frame(
            positions[k], physics_params, hungarian,
            pin=pin if (pin is not None and t < falls) else None,
            paths=positions[: k + 1],
            on_table=on_table if last else None,
            width=width,
        )
        frames.append(Image.fromarray(img))
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=int(1000 / fps), loop=0)
    return str(path)
