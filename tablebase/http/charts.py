"""Bar charts of a table's statistics as inline SVG, chosen by the columns a statistic has.

A statistic whose query says how (``-- chart: temperature by level``) is drawn
so; one with ``*_positions`` columns as stacked bars over its first column; one
with a ``positions`` column as bars over the columns before it; anything else
as a table only (``chart_of``). The choice is by columns, as queries/*.sql say
what they need, so no kind of game is named here.
"""

from __future__ import annotations

import math
from typing import Any
from xml.sax.saxutils import escape

from markupsafe import Markup

from tablebase.games.shapes import OUTCOME_COLOURS
from tablebase.lazy import pa

OTHER = ["#6366f1", "#0ea5e9", "#a855f7", "#eab308", "#14b8a6"]
WIDTH, HEIGHT, MARGIN = 640, 220, 44
LEFT = 58  # room for the values and the name of the upright axis
MAX_BARS = 400  # more categories than this are shown in the table only
CHAR_PX = 6.2  # the width of a character of a label at 10 px, about
SLANT_GAP = 15  # pixels between slanted labels, along the axis


def chart_of(table: pa.Table, chart: str = "") -> Markup | None:
    """The chart of one statistic (``chart``: its query's "Y by X", if it says), or None if its columns do not
    make one."""
    names = table.column_names
    if table.num_rows < 2 or table.num_rows > MAX_BARS:
        return None
    rows = table.to_pylist()
    figure, _, over = chart.partition(" by ")
    if figure in names and over in names:
        values = [r[figure] for r in rows]
        tips = [", ".join(f"{n} {_tip(r[n])}" for n in names) for r in rows]
        return bars([str(r[over]) for r in rows], [("", [v or 0 for v in values])], over, figure, tips)
    parts = [n for n in names if n.endswith("_positions") or n == "draws"]
    if parts:
        series = [(_series_name(n), [r[n] or 0 for r in rows]) for n in parts]
        return bars([str(r[names[0]]) for r in rows], series, names[0], "positions")
    if "positions" in names and names.index("positions") > 0:
        label = names[: names.index("positions")]
        categories = [" / ".join(str(r[n]) for n in label) for r in rows]
        return bars(categories, [("positions", [r["positions"] or 0 for r in rows])], " / ".join(label), "positions")
    return None


def _series_name(column: str) -> str:
    prefix = column[: -len("_positions")] if column.endswith("_positions") else column
    return prefix.upper() if len(prefix) == 1 else prefix


def bars(categories: list[str], series: list[tuple[str, list[float]]], axis: str, upright: str,
         tips: list[str] | None = None) -> Markup:
    """Bars of ``categories``, each a stack of ``series`` (name, one value per category; a legend where there
    are several), over the axis named ``axis``, their heights counted in ``upright``; ``tips``: what each bar
    says when pointed at (by default its category and values). Values below zero go down from zero. The
    labels under the bars are as many as fit side by side, or, where one is wider than a bar, slanted, the
    chart growing to hold them."""
    plot_w, plot_h = WIDTH - LEFT - MARGIN, HEIGHT - 2 * MARGIN
    totals = [sum(max(s[1][i], 0) for s in series) for i in range(len(categories))]
    lows = [sum(min(s[1][i], 0) for s in series) for i in range(len(categories))]
    top, bottom = max(max(totals, default=0), 0), min(min(lows, default=0), 0)
    if top == bottom:
        top = 1
    step = plot_w / max(len(categories), 1)
    bar = max(step * 0.8, 0.5)
    widest = max((len(_clip(c)) for c in categories), default=0) * CHAR_PX
    slanted = widest + 4 > step
    stride = max(1, math.ceil(SLANT_GAP / step)) if slanted else 1
    below = widest * 0.72 + 16 if slanted else 18  # room under the axis for the labels
    height = MARGIN + plot_h + below + 20
    zero_y = MARGIN + plot_h * top / (top - bottom)

    def y_of(value: float) -> float:
        return zero_y - plot_h * value / (top - bottom)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" height="{height:.0f}" '
           f'viewBox="0 0 {WIDTH} {height:.0f}" role="img">']
    base_y = MARGIN + plot_h
    for tick in sorted({bottom, 0, top} | ({top / 2} if top > -bottom else {bottom / 2})):
        y = y_of(tick)
        out.append(f'<text x="{LEFT - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{_short(tick)}</text>')
    out.append(f'<line x1="{LEFT}" y1="{zero_y:.1f}" x2="{LEFT + plot_w}" y2="{zero_y:.1f}" stroke="#374151"/>')
    out.append(f'<text transform="translate(14 {MARGIN + plot_h / 2:.0f}) rotate(-90)" font-size="11" '
               f'text-anchor="middle" class="axis-upright">{escape(upright)}</text>')
    colours = _colours([name for name, _ in series])
    for i, category in enumerate(categories):
        x = LEFT + i * step + (step - bar) / 2
        up, down = zero_y, zero_y
        tip = tips[i] if tips else f"{axis} {category}: " + ", ".join(
            f"{values[i]:,} {name or upright}" for name, values in series)
        for (name, values), colour in zip(series, colours):
            h = plot_h * abs(values[i]) / (top - bottom)
            if h <= 0:
                continue
            if values[i] > 0:
                up -= h
                y = up
            else:
                y, down = down, down + h
            out.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{bar:.2f}" height="{h:.2f}" fill="{colour}">'
                       f"<title>{escape(tip)}</title></rect>")
        if i % stride == 0:
            centre = x + bar / 2
            if slanted:
                out.append(f'<text transform="translate({centre:.1f} {base_y + 10}) rotate(-45)" font-size="10" '
                           f'text-anchor="end" class="label">{escape(_clip(category))}</text>')
            else:
                out.append(f'<text x="{centre:.1f}" y="{base_y + 14}" font-size="10" text-anchor="middle" '
                           f'class="label">{escape(_clip(category))}</text>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{height - 8:.0f}" font-size="11" text-anchor="middle" '
               f'class="axis">{escape(axis)}</text>')
    if len(series) > 1:
        for j, ((name, _), colour) in enumerate(zip(series, colours)):
            x = LEFT + j * 90
            out.append(f'<rect x="{x}" y="10" width="10" height="10" fill="{colour}"/>'
                       f'<text x="{x + 14}" y="19" font-size="11">{escape(name)}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def _tip(value: Any) -> str:
    return cell(value) if value is not None else "–"


def _colours(names: list[str]) -> list[str]:
    return [OUTCOME_COLOURS.get(n, OTHER[i % len(OTHER)]) for i, n in enumerate(names)]


def _short(x: float) -> str:
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= size:
            return f"{x / size:.3g}{suffix}"
    return f"{x:.3g}"


def _clip(text: str, most: int = 14) -> str:
    return text if len(text) <= most else text[: most - 1] + "…"


def cell(value: Any) -> str:
    """A figure as the tables of the pages show it."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return str(value)
