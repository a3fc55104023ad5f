"""The score chart: each player's total after every round, as a small inline SVG.

Drawn on the server from the public state (no script, no external asset). Colours come from
the stylesheet (classes ``s0``..``s7``) and each line also has its own marker shape, so the
chart does not rely on colour alone; the score sheet next to it is the accessible table.
"""
from __future__ import annotations

from flask_babel import gettext as _
from markupsafe import Markup, escape

WIDTH, HEIGHT = 320, 180
LEFT, RIGHT, TOP, BOTTOM = 34, 8, 10, 24
SHAPES = ("circle", "square", "triangle", "diamond")


def series(view: dict) -> tuple[list[str], list[list[int]]]:
    """Players and their totals: before round 1, then after each round."""
    players = list(view.get("players") or [])
    rounds = [r for r in view.get("rounds") or [] if isinstance(r.get("totals"), dict)]
    if not rounds:
        return players, []
    first = rounds[0]
    start = [_num(first["totals"].get(p)) - _num((first.get("scores") or {}).get(p)) for p in players]
    lines = [[start[i]] + [_num(r["totals"].get(p)) for r in rounds] for i, p in enumerate(players)]
    return players, lines


def _num(value) -> int:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def _marker(shape: str, x: float, y: float, cls: str) -> str:
    if shape == "circle":
        return f'<circle class="{cls}" cx="{x:.1f}" cy="{y:.1f}" r="3"/>'
    if shape == "square":
        return f'<rect class="{cls}" x="{x - 3:.1f}" y="{y - 3:.1f}" width="6" height="6"/>'
    if shape == "triangle":
        return f'<path class="{cls}" d="M{x:.1f} {y - 3.5:.1f}L{x + 3.5:.1f} {y + 3:.1f}L{x - 3.5:.1f} {y + 3:.1f}Z"/>'
    return f'<path class="{cls}" d="M{x:.1f} {y - 4:.1f}L{x + 4:.1f} {y:.1f}L{x:.1f} {y + 4:.1f}L{x - 4:.1f} {y:.1f}Z"/>'


def score_chart(view: dict, title=None, chart_id: str = "chart-title") -> Markup | None:
    """``title(totals)``: the chart's name from the last totals ("Ann 3; Bob 1"), by default the
    totals after each round; ``chart_id``: the id of its name, one per chart on a page."""
    players, lines = series(view)
    if not lines:
        return None
    points = len(lines[0])
    values = [v for line in lines for v in line]
    lo, hi = min(values + [0]), max(values + [1])
    span = hi - lo or 1
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(i: int) -> float:
        return LEFT + (plot_w * i / (points - 1) if points > 1 else plot_w / 2)

    def y(v: float) -> float:
        return TOP + plot_h * (hi - v) / span

    totals = "; ".join(f"{p} {line[-1]}" for p, line in zip(players, lines))
    name = title(totals) if title else _("Totals after each round: %(totals)s", totals=totals)
    out = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
           f'aria-labelledby="{escape(chart_id)}" xmlns="http://www.w3.org/2000/svg">',
           # an f-string, not str + Markup: that would escape the <title> tag itself (the chart unnamed)
           f'<title id="{escape(chart_id)}">{escape(name)}</title>']
    # grid: the low and high values and zero
    for v in sorted({lo, hi, 0}):
        out.append(f'<line class="grid" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}"/>')
        out.append(f'<text class="axis" x="{LEFT - 4}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
    step = max(1, (points - 1) // 10)
    for i in range(0, points, step):
        out.append(f'<text class="axis" x="{x(i):.1f}" y="{HEIGHT - 6}" text-anchor="middle">{i}</text>')
    for n, (player, line) in enumerate(zip(players, lines)):
        cls = f"s{n % 8}"
        path = " ".join(f"{'M' if i == 0 else 'L'}{x(i):.1f} {y(v):.1f}" for i, v in enumerate(line))
        out.append(f'<g><title>{escape(player)}: {", ".join(map(str, line))}</title>'
                   f'<path class="line {cls}" d="{path}"/>')
        shape = SHAPES[n % len(SHAPES)]
        out.extend(_marker(shape, x(i), y(v), f"dot {cls}") for i, v in enumerate(line))
        out.append("</g>")
    out.append("</svg>")
    legend = ['<ul class="legend">']
    for n, player in enumerate(players):
        shape = SHAPES[n % len(SHAPES)]
        legend.append(f'<li><svg class="key" viewBox="0 0 12 12" aria-hidden="true">'
                      f'{_marker(shape, 6, 6, f"dot s{n % 8}")}</svg>{escape(player)}</li>')
    legend.append("</ul>")
    return Markup("".join(out) + "".join(legend))
