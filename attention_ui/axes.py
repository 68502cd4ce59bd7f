"""Where a chart's rows, columns and bars sit, and how its column labels lie: one rule for every
builder.

Positions are the numbers a learner sees, from 1 (``notation.shown``), so a hover's "row %{y}"
names token 1 for Python's row 0. Column labels lie flat, stack (Chinese) or tilt by one rule,
``tick_labels``, decided when the figure is built from the room its builder gives them, measured
with the app's one model of text widths (``text_width``); a phone shows every
``phone_step_for``-th tilted label only.
"""

from __future__ import annotations

from .internals import TICK_FONT_PX
from .notation import shown
from .text_width import has_wide, row_px

PHONE_TILTED_LABELS = 8
"""How many tilted column labels a phone's narrow plot (about 160 to 300 px) holds apart: with more,
it shows every ``phone_step``-th label only (``Chart.phone_step``; the hover names every column)."""
MAX_TICKED_COLS = 48  # wider matrices (384 or 1536 components) label every 8th/16th/32nd/... column only


def positions(n: int) -> list[int]:
    """The coordinates of n rows, columns or bars: the numbers a learner sees, from 1.

    >>> positions(3)
    [1, 2, 3]
    """
    return [shown(k) for k in range(n)]


def ticked(n: int, step: int) -> list[int]:
    """The positions (from 1) to tick among n when there is room for every ``step``-th: the
    first, then the multiples of ``step``.

    >>> ticked(384, 64), ticked(3, 1)
    ([1, 64, 128, 192, 256, 320, 384], [1, 2, 3])
    """
    return positions(n) if step <= 1 else [shown(0), *range(step, n + 1, step)]


def phone_step_for(n_labels: int, angle) -> int:
    """Every how many column labels a phone shows: 1 (all) unless they are tilted and more than
    ``PHONE_TILTED_LABELS``, then as few as keep them apart.

    >>> phone_step_for(17, -45), phone_step_for(17, None), phone_step_for(8, -45), phone_step_for(24, -45)
    (3, 1, 1, 3)
    """
    return 1 if angle is None or n_labels <= PHONE_TILTED_LABELS else -(-n_labels // PHONE_TILTED_LABELS)


FLAT_LABELS_PX = 285
"""The room (px) for column labels lying flat (``TICK_LABEL_GAP_PX`` apart) under a heatmap in a
narrow column (``tick_labels``)."""
FULL_WIDTH_LABELS_PX = 620
"""... under a full-width bar chart (``vector_figures.key_bars``)."""
HALF_WIDTH_LABELS_PX = 170
"""... under a half-width (or narrower) heatmap (``multihead_figures.attention_map``)."""
FEW_LABELS = 8
"""Up to this many column labels Plotly decides alone: flat where they fit, tilted by itself where not."""
TICK_LABEL_GAP_PX = 6
"""The space counted between two flat column labels (half of it between stacked ones)."""
STACKED_ROOM = 1.5
"""Labels stacked as index over token may fill this many times the room of flat ones."""


def tick_labels(labels: list[str], room: float, stack_cjk: bool = True) -> tuple[list[str], int | None]:
    """The app's one rule for column labels: their texts and angle, decided when the figure is
    built from the ``room`` (px) its builder gives them (``FLAT_LABELS_PX``, ``HALF_WIDTH_LABELS_PX``,
    ``FULL_WIDTH_LABELS_PX``). None (Plotly's "auto") when they are few (``FEW_LABELS``) or fit
    side by side: flat, and tilted by Plotly in a chart too narrow for that, as on a phone. Else
    labels with CJK characters become two lines ("i: token" -> index over token), which keeps
    Chinese characters and words horizontal and readable (``stack_cjk``); other long labels are
    tilted by 45°.

    >>> tick_labels(["0: 我", "1: 爱"], FLAT_LABELS_PX)
    (['0: 我', '1: 爱'], None)
    >>> tick_labels([f"{i}: 字" for i in range(14)], FLAT_LABELS_PX)[0][10]
    '10<br>字'
    >>> [tick_labels([f"{i}: because" for i in range(10)], room)[1] for room in (170, 620)]
    [-45, None]
    """
    if len(labels) <= FEW_LABELS or row_px(labels, TICK_FONT_PX, TICK_LABEL_GAP_PX) <= room:
        return labels, None
    if not stack_cjk or not any(has_wide(label) for label in labels):
        return labels, -45  # Latin labels read well tilted; CJK tilted is hard to read
    stacked = [label.replace(": ", "<br>", 1) for label in labels]
    if row_px(stacked, TICK_FONT_PX, TICK_LABEL_GAP_PX / 2) <= room * STACKED_ROOM:
        return stacked, None
    return labels, -45
