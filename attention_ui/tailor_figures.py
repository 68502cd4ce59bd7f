"""Drawing a shirt from its attribute vector (attention_core.tailor.ATTRIBUTES) as an SVG.

``shirt_svg(attributes)`` draws exactly the 12 numbers it is given — it computes nothing
about attention. Every attribute shows: the body colour, the pattern colour, how strongly the
plaid and the stripes are printed (their opacity), the silk sheen (a light gradient), the
linen weave (a noise texture), the sleeve length and the waist taper (the outline). The SVG
contains no text at all, so no learner or catalog text can ever end up inside it; show it
with ``st.image(svg)``, which embeds it as an isolated image.

The drawn values are written with enough digits to be read back exactly (tests parse the
SVG and compare it with Σ_j α̂_j v_j).

    >>> svg = shirt_svg([1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1, 0])
    >>> 'id="body" fill="rgb(100.0000%,0.0000%,0.0000%)"' in svg
    True
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .figures import figure
from .safe import escape_label

N_ATTRIBUTES = 12
SHEEN_MAX = 0.85  # opacity of the sheen layer when sheen = 1
TEXTURE_MAX = 0.55  # opacity of the weave layer when texture = 1
PLAID_MAX = 0.75  # opacity of the plaid layer when plaid = 1
STRIPES_MAX = 0.85  # opacity of the stripe layer when stripes = 1


def _rgb(r: float, g: float, b: float) -> str:
    return f"rgb({100 * r:.4f}%,{100 * g:.4f}%,{100 * b:.4f}%)"


def _lerp(a, b, s):
    return tuple(x + (y - x) * s for x, y in zip(a, b))


def _pts(points) -> str:
    return " ".join(f"{x:.6f},{y:.6f}" for x, y in points)  # precise enough to read back


def shirt_outline(sleeve: float, taper: float) -> tuple[list, list, list]:
    """The shirt's body polygon and its two sleeve polygons, in a 240 × 260 box.

    ``sleeve`` 0 … 1 moves the cuff from above the elbow to the wrist; ``taper`` 0 … 1 pulls
    the waist in from straight to fitted.
    """
    waist_in = 16.0 * taper
    body = [
        (98, 26),
        (72, 36),
        (62, 48),
        (70, 100),
        (76 + waist_in, 160),
        (70, 236),
        (120, 242),
        (170, 236),
        (164 - waist_in, 160),
        (170, 100),
        (178, 48),
        (168, 36),
        (142, 26),
    ]
    shoulder, armpit = np.array([64.0, 42.0]), np.array([72.0, 100.0])
    outer_end = np.array(_lerp((36.0, 118.0), (16.0, 214.0), sleeve))
    direction = (outer_end - shoulder) / np.linalg.norm(outer_end - shoulder)
    inward = np.array([-direction[1], direction[0]])
    if inward[0] < 0:
        inward = -inward
    cuff = 30.0 - 6.0 * sleeve  # a long sleeve narrows to its cuff
    inner_end = outer_end + cuff * inward
    left = [tuple(shoulder), tuple(outer_end), tuple(inner_end), tuple(armpit)]
    right = [(240 - x, y) for x, y in left]
    return body, left, right


def shirt_svg(attributes, *, size: int = 240) -> str:
    """An SVG picture of the shirt described by ``attributes`` (shape (12,), values in [0, 1]).

    The order is attention_core.tailor.ATTRIBUTES: red, green, blue, accent_red,
    accent_green, accent_blue, plaid, stripes, sheen, texture, sleeve, taper. Values
    outside [0, 1] are clipped (a convex blend of valid samples never leaves it).
    """
    a = np.clip(np.asarray(attributes, dtype=np.float64), 0.0, 1.0)  # (12,)
    if a.shape != (N_ATTRIBUTES,):
        raise ValueError(f"a shirt has {N_ATTRIBUTES} attributes, got shape {a.shape}")
    r, g, b, ar, ag, ab, plaid, stripes, sheen, texture, sleeve, taper = (float(x) for x in a)
    body, left, right = shirt_outline(sleeve, taper)
    base, accent = _rgb(r, g, b), _rgb(ar, ag, ab)
    line = _rgb(0.55 * r, 0.55 * g, 0.55 * b)
    shapes = f'<polygon points="{_pts(left)}"/><polygon points="{_pts(right)}"/><polygon points="{_pts(body)}"/>'
    height = round(size * 260 / 240)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 240 260" width="{size}" height="{height}">'
        "<defs>"
        f'<clipPath id="shape">{shapes}</clipPath>'
        '<pattern id="stripe-tile" patternUnits="userSpaceOnUse" width="14" height="14">'
        f'<rect x="0" y="0" width="5" height="14" fill="{accent}"/></pattern>'
        '<pattern id="plaid-tile" patternUnits="userSpaceOnUse" width="36" height="36">'
        f'<rect x="0" y="0" width="12" height="36" fill="{accent}" fill-opacity="0.55"/>'
        f'<rect x="0" y="0" width="36" height="12" fill="{accent}" fill-opacity="0.55"/>'
        f'<rect x="22" y="0" width="2" height="36" fill="{accent}"/>'
        f'<rect x="0" y="22" width="36" height="2" fill="{accent}"/></pattern>'
        '<linearGradient id="sheen-light" x1="0" y1="0" x2="1" y2="1">'
        '<stop offset="0" stop-color="white" stop-opacity="0"/>'
        '<stop offset="0.38" stop-color="white" stop-opacity="0.9"/>'
        '<stop offset="0.5" stop-color="white" stop-opacity="0.15"/>'
        '<stop offset="0.68" stop-color="white" stop-opacity="0.7"/>'
        '<stop offset="1" stop-color="white" stop-opacity="0"/></linearGradient>'
        '<filter id="weave" x="0" y="0" width="100%" height="100%">'
        '<feTurbulence type="fractalNoise" baseFrequency="0.9 0.12" numOctaves="2" seed="3"/>'
        '<feColorMatrix type="matrix" values="0 0 0 0 0.25  0 0 0 0 0.2  0 0 0 0 0.15  0 0 0 -1.6 1.2"/>'
        "</filter></defs>"
        '<g id="garment">'
        f'<polygon id="sleeve-left" points="{_pts(left)}" fill="{base}"/>'
        f'<polygon id="sleeve-right" points="{_pts(right)}" fill="{base}"/>'
        f'<polygon id="body" fill="{base}" points="{_pts(body)}"/></g>'
        '<g clip-path="url(#shape)">'
        f'<rect id="stripes" x="0" y="0" width="240" height="260"'
        f' fill="url(#stripe-tile)" opacity="{STRIPES_MAX * stripes:.6f}"/>'
        f'<rect id="plaid" x="0" y="0" width="240" height="260"'
        f' fill="url(#plaid-tile)" opacity="{PLAID_MAX * plaid:.6f}"/>'
        f'<rect id="texture" x="0" y="0" width="240" height="260"'
        f' filter="url(#weave)" opacity="{TEXTURE_MAX * texture:.6f}"/>'
        f'<rect id="sheen" x="0" y="0" width="240" height="260"'
        f' fill="url(#sheen-light)" opacity="{SHEEN_MAX * sheen:.6f}"/>'
        "</g>"
        f'<g fill="none" stroke="{line}" stroke-width="2" stroke-linejoin="round">'
        f'<polygon points="{_pts(left)}"/><polygon points="{_pts(right)}"/><polygon points="{_pts(body)}"/>'
        '<line x1="120" y1="40" x2="120" y2="240"/></g>'
        f'<g fill="{base}" stroke="{line}" stroke-width="2" stroke-linejoin="round">'
        '<polygon points="98,26 120,44 106,60 92,34"/><polygon points="142,26 120,44 134,60 148,34"/></g>'
        f'<g fill="{line}">'
        + "".join(f'<circle cx="124" cy="{y}" r="2.6"/>' for y in (66, 104, 142, 180, 218))
        + "</g></svg>"
    )


def horizontal_bars(
    labels: list[str],
    values,
    *,
    title: str,
    colour: str,
    percent: bool = False,
    highlight: int | None = None,
    height: int = 360,
) -> go.Figure:
    """Horizontal bars, one per label (top to bottom), each value printed at the bar's end
    (as a percentage when ``percent``; the bars' x stay the raw values). ``highlight`` draws
    one bar (the best match) in a stronger colour.

    >>> horizontal_bars(["shirt 1", "shirt 2"], [0.6, 0.4], title="α̂", colour="#e0a100", percent=True).data[0].text
    ('60.0 %', '40.0 %')
    """
    values = np.asarray(values, dtype=np.float64)  # (n,)
    text = [f"{100 * v:.1f} %" if percent else f"{v:.2f}" for v in values]
    colours = [colour] * len(values)
    if highlight is not None and 0 <= highlight < len(values):
        colours[highlight] = "#c2410c"
    bar = {
        "type": "bar",
        "y": list(range(len(labels))),
        "x": values,
        "orientation": "h",
        "marker": {"color": colours},
        "text": text,
        "textposition": "outside",
        "textfont": {"size": 15},
        "cliponaxis": False,
        "hovertemplate": "%{x:.4f}<extra></extra>",
    }
    top = float(values.max()) if values.size and values.max() > 0 else 1.0
    bottom = min(0.0, float(values.min())) if values.size else 0.0
    return figure(
        [bar],
        title=title,
        height=height,
        margin={"l": 10, "r": 30, "t": 56, "b": 10},
        showlegend=False,
        bargap=0.28,
        yaxis={
            "tickvals": list(range(len(labels))),
            "ticktext": [escape_label(x) for x in labels],
            "autorange": "reversed",
            "tickfont": {"size": 14},
        },
        xaxis={
            "range": [bottom * 1.3, top * 1.28],
            "showticklabels": False,
            "showgrid": False,
            "zeroline": True,
            "zerolinecolor": "#999",
        },
    )
