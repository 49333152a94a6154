"""Bar charts of a table's statistics as inline SVG, chosen by the columns a statistic has.

A statistic with columns ``*_positions`` (outcomes per level, per remoteness)
is drawn as stacked bars over its first column; one with a ``positions``
column (Grundy values, kinds of values, scores) as bars over the columns
before it. Anything else is shown as a table only. The choice is by columns,
as queries/*.sql say what they need, so no kind of game is named here.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape

from markupsafe import Markup

from tablebase.games.drawing import OUTCOME_COLOURS
from tablebase.lazy import pa

OTHER = ["#6366f1", "#0ea5e9", "#a855f7", "#eab308", "#14b8a6"]
WIDTH, HEIGHT, MARGIN = 640, 220, 44
MAX_BARS = 400  # more categories than this are shown in the table only


def chart_of(table: pa.Table) -> Markup | None:
    """The chart of one statistic, or None if its columns do not make one."""
    names = table.column_names
    if table.num_rows < 2 or table.num_rows > MAX_BARS:
        return None
    rows = table.to_pylist()
    parts = [n for n in names if n.endswith("_positions") or n == "draws"]
    if parts:
        series = [(_series_name(n), [r[n] or 0 for r in rows]) for n in parts]
        return stacked_bars([str(r[names[0]]) for r in rows], series, names[0])
    if "positions" in names and names.index("positions") > 0:
        label = names[: names.index("positions")]
        categories = [" / ".join(str(r[n]) for n in label) for r in rows]
        return stacked_bars(categories, [("positions", [r["positions"] or 0 for r in rows])], " / ".join(label))
    return None


def _series_name(column: str) -> str:
    prefix = column[: -len("_positions")] if column.endswith("_positions") else column
    return prefix.upper() if len(prefix) == 1 else prefix


def stacked_bars(categories: list[str], series: list[tuple[str, list[float]]], axis: str) -> Markup:
    """Bars of ``categories``, each a stack of ``series`` (name, one value per category), with a legend."""
    plot_w, plot_h = WIDTH - 2 * MARGIN, HEIGHT - 2 * MARGIN
    totals = [sum(s[1][i] for s in series) for i in range(len(categories))]
    top = max(max(totals, default=0), 1)
    step = plot_w / max(len(categories), 1)
    bar = max(step * 0.8, 0.5)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="{WIDTH}" height="{HEIGHT}" '
           f'viewBox="0 0 {WIDTH} {HEIGHT}" role="img">']
    base_y = MARGIN + plot_h
    out.append(f'<line x1="{MARGIN}" y1="{base_y}" x2="{MARGIN + plot_w}" y2="{base_y}" stroke="#374151"/>')
    for tick in (0, top / 2, top):
        y = base_y - plot_h * tick / top
        out.append(f'<text x="{MARGIN - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{_short(tick)}</text>')
    colours = _colours([name for name, _ in series])
    labelled = max(1, len(categories) // 16)  # at most about 16 labels under the bars
    for i, category in enumerate(categories):
        x = MARGIN + i * step + (step - bar) / 2
        y = base_y
        for (name, values), colour in zip(series, colours):
            h = plot_h * values[i] / top
            if h > 0:
                y -= h
                out.append(f'<rect x="{x:.2f}" y="{y:.2f}" width="{bar:.2f}" height="{h:.2f}" fill="{colour}">'
                           f"<title>{escape(f'{axis} {category}: {values[i]:,} {name}')}</title></rect>")
        if i % labelled == 0:
            out.append(f'<text x="{x + bar / 2:.1f}" y="{base_y + 14}" font-size="10" text-anchor="middle">'
                       f"{escape(_clip(category))}</text>")
    out.append(f'<text x="{MARGIN + plot_w / 2}" y="{HEIGHT - 8}" font-size="11" text-anchor="middle">'
               f"{escape(axis)}</text>")
    if len(series) > 1:
        for j, ((name, _), colour) in enumerate(zip(series, colours)):
            x = MARGIN + j * 90
            out.append(f'<rect x="{x}" y="10" width="10" height="10" fill="{colour}"/>'
                       f'<text x="{x + 14}" y="19" font-size="11">{escape(name)}</text>')
    out.append("</svg>")
    return Markup("".join(out))


def _colours(names: list[str]) -> list[str]:
    return [OUTCOME_COLOURS.get(n, OTHER[i % len(OTHER)]) for i, n in enumerate(names)]


def _short(x: float) -> str:
    for size, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= size:
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
