"""Figures of the "What is attention?" page: the foveated scene, the budget bars, the reading text.

Why the picture's maths lives here and not in attention_core: sharp-centre / blurred-periphery
is image processing for the eye, not a number the learner reads or a step of attention. It is
plain NumPy (no drawing library), tested in tests/test_intuition.py. The numbers the page
*does* show — the budget and the reading weights — come from attention_core.intuition
(softmax), and the builders below only draw them.

    >>> img = scene()
    >>> img.shape, img.dtype
    ((400, 720, 3), dtype('uint8'))
"""

from __future__ import annotations

import base64
import html
import io
from functools import lru_cache

import numpy as np
import plotly.graph_objects as go

from attention_core.arrays import frozen

from .figures import click_targets, figure
from .safe import escape_label

HEIGHT, WIDTH = 400, 720


def _disk(yy, xx, cy, cx, r):
    return (yy - cy) ** 2 + (xx - cx) ** 2 <= r * r


def _ellipse(yy, xx, cy, cx, ry, rx):
    return ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0


def _triangle(yy, xx, p0, p1, p2):
    """Pixels inside the triangle with corners (x, y) p0, p1, p2."""

    def side(a, b):
        return (xx - b[0]) * (a[1] - b[1]) - (a[0] - b[0]) * (yy - b[1])

    d1, d2, d3 = side(p0, p1), side(p1, p2), side(p2, p0)
    neg = (d1 < 0) | (d2 < 0) | (d3 < 0)
    pos = (d1 > 0) | (d2 > 0) | (d3 > 0)
    return ~(neg & pos)


@lru_cache(maxsize=1)
def scene() -> np.ndarray:
    """A small countryside picture full of fine detail (bricks, panes, leaves, grass, a cat),
    drawn with NumPy masks; shape (400, 720, 3), uint8, read-only. Deterministic (seed 7)."""
    rng = np.random.default_rng(7)
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float64)  # (H, W) each
    img = np.zeros((HEIGHT, WIDTH, 3))  # (H, W, 3) floats in [0, 1]
    sky_t = (yy / 280.0)[..., None]  # (H, W, 1)
    img[:] = (1 - sky_t) * np.array([0.45, 0.68, 0.92]) + sky_t * np.array([0.86, 0.93, 0.98])

    def paint(mask, colour):
        img[mask] = colour

    halo = np.exp(-(((yy - 70) ** 2 + (xx - 630) ** 2) / (2 * 55.0**2)))[..., None]  # (H, W, 1)
    img[:] = img * (1 - 0.5 * halo) + 0.5 * halo * np.array([1.0, 0.95, 0.7])
    paint(_disk(yy, xx, 70, 630, 34), (1.0, 0.84, 0.25))
    for cy, cx, ry, rx in (
        (60, 150, 18, 46),
        (48, 185, 22, 34),
        (62, 215, 15, 36),
        (95, 420, 14, 40),
        (86, 448, 18, 30),
        (97, 478, 12, 30),
    ):
        paint(_ellipse(yy, xx, cy, cx, ry, rx), (0.98, 0.98, 1.0))
    hills = 235 + 18 * np.sin(xx / 95.0) + 10 * np.sin(xx / 37.0 + 1.0)  # (H, W)
    paint(yy > hills, (0.47, 0.66, 0.52))
    ground = yy > 282
    grass = np.array([0.36, 0.62, 0.27]) + rng.normal(0, 0.06, (HEIGHT, WIDTH, 1))  # (H, W, 3) blades
    img[ground] = np.clip(grass[ground], 0, 1)
    flowers = ground & (yy < HEIGHT - 2) & (rng.random((HEIGHT, WIDTH)) < 0.004)
    for colour, share in (((0.95, 0.3, 0.4), 0.4), ((1.0, 0.9, 0.3), 0.35), ((0.95, 0.95, 1.0), 0.25)):
        pick = flowers & (rng.random((HEIGHT, WIDTH)) < share)
        for dy, dx in ((0, 0), (1, 0), (0, 1), (1, 1)):
            img[np.roll(np.roll(pick, dy, 0), dx, 1)] = colour
        flowers &= ~pick

    # The house: bricks, a tiled roof, a door and two windows with panes.
    wall = (xx >= 90) & (xx <= 270) & (yy >= 170) & (yy <= 300)
    paint(wall, (0.78, 0.42, 0.30))
    row = ((yy - 170) // 10).astype(int)
    mortar = wall & (((yy - 170) % 10 < 1.5) | (((xx - 90 + 11 * (row % 2)) % 22) < 1.5))
    paint(mortar, (0.92, 0.86, 0.78))
    paint((xx >= 236) & (xx <= 252) & (yy >= 112) & (yy <= 150), (0.40, 0.36, 0.35))  # chimney
    roof = _triangle(yy, xx, (68, 172), (292, 172), (180, 100))
    paint(roof, (0.45, 0.16, 0.14))
    paint(roof & ((yy - 100) % 9 < 1.6), (0.30, 0.10, 0.09))
    paint((xx >= 160) & (xx <= 200) & (yy >= 232) & (yy <= 300), (0.33, 0.22, 0.15))
    paint(_disk(yy, xx, 268, 193, 3), (0.95, 0.8, 0.3))
    for x0 in (108, 218):
        frame = (xx >= x0) & (xx <= x0 + 36) & (yy >= 195) & (yy <= 235)
        paint(frame, (0.97, 0.97, 0.95))
        glass = (xx >= x0 + 3) & (xx <= x0 + 33) & (yy >= 198) & (yy <= 232)
        paint(glass, (0.55, 0.75, 0.9))
        paint(glass & ((np.abs(xx - (x0 + 18)) < 1.5) | (np.abs(yy - 215) < 1.5)), (0.97, 0.97, 0.95))

    # The tree: trunk and a crown of leafy disks.
    paint((xx >= 362) & (xx <= 380) & (yy >= 200) & (yy <= 300), (0.42, 0.28, 0.16))
    crown = np.zeros((HEIGHT, WIDTH), bool)
    for cy, cx, r in ((165, 371, 48), (190, 335, 34), (192, 408, 36), (130, 360, 30), (140, 395, 28)):
        crown |= _disk(yy, xx, cy, cx, r)
    leaves = np.array([0.20, 0.45, 0.20]) + rng.normal(0, 0.07, (HEIGHT, WIDTH, 1)) * np.array([0.6, 1.0, 0.6])
    img[crown] = np.clip(leaves[crown], 0, 1)
    apples = crown & (rng.random((HEIGHT, WIDTH)) < 0.002)
    for dy, dx in ((0, 0), (1, 0), (0, 1), (1, 1), (-1, 0), (0, -1)):
        img[np.roll(np.roll(apples, dy, 0), dx, 1)] = (0.85, 0.12, 0.1)

    # A white picket fence along the front.
    for x0 in range(0, WIDTH, 18):
        paint((xx >= x0) & (xx <= x0 + 9) & (yy >= 312) & (yy <= 352), (0.96, 0.96, 0.93))
        paint(_triangle(yy, xx, (x0, 312), (x0 + 9, 312), (x0 + 4.5, 304)), (0.96, 0.96, 0.93))
    paint((yy >= 322) & (yy <= 327), (0.90, 0.90, 0.86))
    paint((yy >= 340) & (yy <= 345), (0.90, 0.90, 0.86))

    # The cat, sitting on the grass in front of the fence: body, head, ears, tail, eyes, whiskers.
    fur = (0.22, 0.21, 0.24)
    paint(_ellipse(yy, xx, 362, 560, 26, 20), fur)
    paint(_disk(yy, xx, 326, 560, 15), fur)
    paint(_triangle(yy, xx, (547, 320), (556, 314), (549, 302)), fur)
    paint(_triangle(yy, xx, (573, 320), (564, 314), (571, 302)), fur)
    tail = (np.abs(np.hypot(yy - 366, xx - 580) - 18) < 3.4) & (xx > 578) & (yy < 384)
    paint(tail, fur)
    for ex in (554, 566):
        paint(_ellipse(yy, xx, 324, ex, 3.2, 2.6), (0.95, 0.85, 0.2))
        paint(_ellipse(yy, xx, 324, ex, 2.6, 0.9), (0.05, 0.05, 0.05))
    paint(_triangle(yy, xx, (558, 330), (562, 330), (560, 333)), (0.9, 0.55, 0.6))
    for side in (-1, 1):
        for dy in (-2, 1, 4):
            xs = np.arange(8, 24)
            ys = np.round(332 + dy + (xs - 8) * 0.12 * dy).astype(int)
            img[ys, 560 + side * xs] = (0.9, 0.9, 0.9)

    return frozen(np.round(np.clip(img, 0, 1) * 255).astype(np.uint8), dtype=None, copy=False)  # (H, W, 3)


def _box_blur(x: np.ndarray, radius: int, axis: int) -> np.ndarray:
    """Mean over a window of 2·radius+1 pixels along ``axis`` (edges repeated), via cumsum."""
    pad = [(0, 0)] * x.ndim
    pad[axis] = (radius + 1, radius)
    c = np.cumsum(np.pad(x, pad, mode="edge"), axis=axis)
    n = x.shape[axis]
    upper = np.take(c, np.arange(2 * radius + 1, 2 * radius + 1 + n), axis=axis)
    lower = np.take(c, np.arange(0, n), axis=axis)
    return (upper - lower) / (2 * radius + 1)


def blur(img: np.ndarray, radius: int = 7, passes: int = 3) -> np.ndarray:
    """A soft blur (three box blurs ≈ a Gaussian), float output of the same shape."""
    out = np.asarray(img, dtype=np.float64)  # (H, W, C)
    for _ in range(passes):
        out = _box_blur(_box_blur(out, radius, 0), radius, 1)
    return out


def focus_mask(shape: tuple[int, int], cx: float, cy: float, radius: float) -> np.ndarray:
    """1 inside the focus circle (centre cx, cy in pixels), fading smoothly to 0 by twice its
    radius; shape (H, W)."""
    yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]]  # (H, W)
    d = np.hypot(xx - cx, yy - cy)  # (H, W)
    t = np.clip((d - radius) / max(radius, 1.0), 0.0, 1.0)
    return 1.0 - t * t * (3 - 2 * t)  # smoothstep from 1 to 0


@lru_cache(maxsize=1)
def _coarse_scene() -> np.ndarray:
    return blur(scene(), 7)


def foveated_scene(fx: float, fy: float, radius: float) -> np.ndarray:
    """``foveate(scene(), fx, fy, radius)``, reusing the scene's blur (it does not depend on
    the focus), so moving the focus costs one blend."""
    return foveate(scene(), fx, fy, radius, coarse=_coarse_scene())


def foveate(
    img: np.ndarray,
    fx: float,
    fy: float,
    radius: float,
    *,
    blur_radius: int = 7,
    desaturate: float = 0.45,
    coarse: np.ndarray | None = None,
) -> np.ndarray:
    """What the eye takes in while fixating (fx, fy), given as fractions 0…1 of the width and
    height: sharp inside the focus, blurred and paler in colour outside. uint8, same shape.

    >>> img = scene()
    >>> out = foveate(img, 0.5, 0.5, 60)
    >>> bool((out[200, 360] == img[200, 360]).all())   # the centre of the focus is untouched
    True
    """
    img = np.asarray(img)
    h, w = img.shape[:2]
    if coarse is None:
        coarse = blur(img, blur_radius)  # (H, W, 3)
    grey = coarse.mean(axis=-1, keepdims=True)  # (H, W, 1)
    coarse = (1 - desaturate) * coarse + desaturate * grey
    m = focus_mask((h, w), fx * (w - 1), fy * (h - 1), radius)[..., None]  # (H, W, 1)
    out = m * img + (1 - m) * coarse  # (H, W, 3)
    return np.round(np.clip(out, 0, 255)).astype(np.uint8)


CLICK_GRID = 24
"""px between the invisible click targets over the picture: 30 × 17 of them. Every target is an
SVG element Chromium draws on each visit (a grid four times as dense cost it several times the
drawing time; docs/benchmarks.md); a click lands at most 17 px from one, within Plotly's 20 px
hover distance, and the focus moves in steps of 3 % of the picture (the sliders move it by 1 %)."""


def focus_picture(img: np.ndarray, *, title: str = "") -> go.Figure:
    """The picture as a Plotly figure that reports clicks: the image (as a compact JPEG) under
    an invisible grid of markers every CLICK_GRID pixels. Clicking selects the nearest marker,
    and st.plotly_chart(on_select=...) hands its (x, y) in pixels to the page."""
    from PIL import Image  # Pillow comes with Streamlit (pinned in requirements.txt)

    img = np.asarray(img, dtype=np.uint8)  # (H, W, 3)
    h, w = img.shape[:2]
    buffer = io.BytesIO()
    Image.fromarray(img).save(buffer, format="JPEG", quality=88)
    source = "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode()
    xs, ys = np.meshgrid(np.arange(CLICK_GRID // 2, w, CLICK_GRID), np.arange(CLICK_GRID // 2, h, CLICK_GRID))
    picture = {"type": "image", "source": source, "hoverinfo": "skip"}
    targets = click_targets(xs.ravel(), ys.ravel(), size=CLICK_GRID)
    return figure(
        [picture, targets],
        title=title or None,
        margin={"l": 0, "r": 0, "t": 0, "b": 0},
        height=h,
        clickmode="event+select",
        dragmode=False,
        hovermode="closest",
        xaxis={"visible": False, "range": [-0.5, w - 0.5], "fixedrange": True},
        yaxis={"visible": False, "range": [h - 0.5, -0.5], "fixedrange": True, "scaleanchor": "x"},
    )


def allocation_bars(items: list[str], amounts, *, title: str, colour: str, y_max: float, unit: str = "") -> go.Figure:
    """One bar per item, its amount printed on the bar; the same y range for both charts."""
    amounts = np.asarray(amounts, dtype=np.float64)  # (n,)
    bar = {
        "type": "bar",
        "x": list(range(len(items))),
        "y": amounts,
        "marker": {"color": colour},
        "text": [f"{a:.1f}{unit}" for a in amounts],
        "textposition": "outside",
        "textfont": {"size": 15},
        "hovertemplate": "%{y:.2f}<extra></extra>",
        "cliponaxis": False,
    }
    return figure(
        [bar],
        title=title,
        height=340,
        margin={"l": 10, "r": 10, "t": 56, "b": 10},
        showlegend=False,
        bargap=0.3,
        xaxis={
            "tickvals": list(range(len(items))),
            "ticktext": [escape_label(i) for i in items],
            "tickfont": {"size": 15},
        },
        yaxis={"range": [0, y_max], "showticklabels": False, "showgrid": False},
    )


def reading_html(units: list[tuple[str, float | None]], weights) -> str:
    """The reading text as HTML: each word's opacity and highlight grow with its weight.

    ``units`` are (text, score-or-None) pairs; ``weights`` the softmax weights (NaN for
    spaces and punctuation). Text is HTML-escaped; the weight is in ``data-weight``.

    >>> reading_html([("a", 0.0), (" ", None), ("<b>", 1.0)], [0.25, float("nan"), 0.75])[:60]
    '<div class="reading" style="font-size:1.55rem;line-height:2.'
    """
    weights = np.asarray(weights, dtype=np.float64)  # (n_units,)
    finite = weights[np.isfinite(weights)]
    top = float(finite.max()) if finite.size else 1.0
    parts = []
    for (text, _score), w in zip(units, weights):
        safe = html.escape(text)
        if not np.isfinite(w):
            parts.append(f'<span style="opacity:0.35">{safe}</span>')
            continue
        rel = w / top if top > 0 else 1.0
        opacity = 0.18 + 0.82 * rel
        bold = 700 if rel > 0.55 else 400
        glow = (
            f"background:rgba(255,196,0,{0.55 * rel * rel:.3f});border-radius:0.25em;padding:0 0.1em;"
            if rel > 0.3
            else ""
        )
        parts.append(
            f'<span data-weight="{w:.6f}" style="opacity:{opacity:.3f};font-weight:{bold};{glow}">{safe}</span>'
        )
    return (
        '<div class="reading" style="font-size:1.55rem;line-height:2.1;padding:0.6rem 1rem;'
        'border-left:4px solid #f0b400;background:#fffdf5">' + "".join(parts) + "</div>"
    )
