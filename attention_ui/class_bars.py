"""The class's answers as bars: an HTML table, one row per option, one column per round.

The numbers come ready-made (``class_questions.tally``: each bar's count and share); this
module only lays them out. HTML rather than a Plotly chart: the projector's view is redrawn
every second while a class answers, and a table of a few rows costs the browser nothing to
lay out again, prints, and reads aloud in a screen reader row by row. Every label is escaped
here; the words come in already translated.

Before the teacher reveals the answer every bar has one colour (the bars must not give the
answer away); after it, the right answer's bars are green and marked, the others orange.

>>> from attention_core.class_questions import tally
>>> html = bars_html([("Round 1", tally("order", 1, {"right": 3, "wrong_at:5": 1}))],
...                  {"right": "Right <order>", "wrong_at:5": "Slip at 5"}, revealed=False)
>>> "75 %" in html and "Right &lt;order&gt;" in html and "al-right" not in html
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from attention_core.class_questions import Tally

CSS = """<style>
.al-class-bars { border-collapse: collapse; width: 100%; font-size: 1rem; }
.al-class-bars th, .al-class-bars td { padding: 0.25rem 0.4rem; vertical-align: middle; text-align: left; }
.al-class-bars thead th { font-weight: 600; font-size: 0.85em; opacity: 0.8;
  border-bottom: 1px solid rgba(128,128,128,0.4); }
.al-class-bars tbody th { font-weight: 500; min-width: 5.5em; overflow-wrap: normal; word-break: keep-all; }
.al-class-bars .al-track { background: rgba(128,128,128,0.16); border-radius: 4px; height: 1.3em; min-width: 2rem; }
.al-class-bars .al-fill { display: block; height: 100%; border-radius: 4px; background: #0072B2; }
.al-class-bars tr.al-right .al-fill { background: #009E73; }
.al-class-bars tr.al-wrong .al-fill { background: #E69F00; }
.al-class-bars tr.al-right th { color: #007a5a; font-weight: 700; }
.al-class-bars .al-num { white-space: nowrap; font-variant-numeric: tabular-nums; width: 1%; }
.al-class-bars .al-num small { opacity: 0.7; }
.al-class-bars.al-big { font-size: 1.2rem; }
.al-class-bars.al-big.al-two { font-size: 0.95rem; }
.al-bars-box { overflow-x: auto; }
.al-class-bars thead th { text-align: left; }
@media (prefers-color-scheme: dark) { .al-class-bars tr.al-right th { color: #3ddc97; } }
</style>"""
"""The bars' style sheet: a constant, never built from input."""

RIGHT_MARK = "✓"


def bar_cells(share: float, count: int) -> str:
    """One round's cells of a row: the bar (its width the share) and the share and count.

    >>> print(bar_cells(0.5, 3).replace("</td>", "</td>\\n"))
    <td><div class="al-track"><span class="al-fill" style="width:50.0%"></span></div></td>
    <td class="al-num">50 % <small>(3)</small></td>
    <BLANKLINE>
    """
    width = f"{100.0 * max(0.0, min(1.0, float(share))):.1f}%"
    return (
        f'<td><div class="al-track"><span class="al-fill" style="width:{width}"></span></div></td>'
        f'<td class="al-num">{round(100 * float(share))} % <small>({int(count)})</small></td>'
    )


def bars_html(
    rounds: Sequence[tuple[str, Tally]],
    labels: Mapping[str, str],
    *,
    revealed: bool,
    big: bool = False,
    caption: str = "",
) -> str:
    """The table of one question's bars for each of ``rounds`` ((heading, tally) pairs, the
    first round first; every tally of the same question). ``labels``: each outcome's words
    (plain text, escaped here). ``revealed`` marks the right answer; ``big`` for a projector;
    ``caption`` a line above the table (plain text)."""
    if not rounds:
        return ""
    first = rounds[0][1]
    head = "".join(f'<th colspan="2">{escape(title)}</th>' for title, _ in rounds)
    body = []
    for n, bar in enumerate(first.bars):
        kind = "" if not revealed else (' class="al-right"' if bar.right else ' class="al-wrong"')
        mark = f" {RIGHT_MARK}" if revealed and bar.right else ""
        label = escape(labels.get(bar.outcome, bar.outcome))
        cells = "".join(bar_cells(tally.bars[n].share, tally.bars[n].count) for _, tally in rounds)
        body.append(f"<tr{kind}><th>{label}{mark}</th>{cells}</tr>")
    cls = " ".join(("al-class-bars", *(("al-big",) if big else ()), *(("al-two",) if len(rounds) > 1 else ())))
    top = f"<caption>{escape(caption)}</caption>" if caption else ""
    table = f'<table class="{cls}">{top}<thead><tr><th></th>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'
    return f'<div class="al-bars-box">{table}</div>'
