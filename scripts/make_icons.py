"""Draws the app's icons (issue 15, "Offline"): two playing cards and a check mark, the referee's
verdict. One drawing, written as SVG and as PNGs (plain zlib, no imaging library needed):

    python scripts/make_icons.py

writes referee/web/static/icon.svg, icon-192.png, icon-512.png (rounded square, transparent
corners), icon-maskable-512.png (full bleed, the drawing inside the 80 % safe zone) and
apple-touch-icon.png (180 px, full bleed: iOS fills transparency with black). Run it again only
when the drawing changes; the files are committed.
"""
from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

STATIC = Path(__file__).resolve().parents[1] / "referee" / "web" / "static"

BACKGROUND = "#20242c"  # the pages' top bar (app.css --top-bg)
BACK_CARD = "#8cbcf5"   # the accent of the dark colours
FRONT_CARD = "#ffffff"
CHECK = "#0b5cad"       # the accent of the light colours
SIZE = 512              # the drawing's own units
CORNER = 96             # the rounded square of the "any" icon
# cards: centre, half width, half height, corner radius, turn in degrees
BACK = ((288, 244), (98, 138), 22, 14)
FRONT = ((228, 266), (98, 138), 22, -8)
TICK = [(-44, 4), (-10, 40), (50, -38)]  # the check mark, in the front card's own frame
TICK_WIDTH = 30


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def _turn(x: float, y: float, degrees: float) -> tuple[float, float]:
    a = math.radians(degrees)
    return x * math.cos(a) - y * math.sin(a), x * math.sin(a) + y * math.cos(a)


def _box(px: float, py: float, centre, half, radius: float, degrees: float = 0.0) -> float:
    """Signed distance from a point to a turned rounded rectangle (negative inside)."""
    x, y = _turn(px - centre[0], py - centre[1], -degrees)
    qx, qy = abs(x) - half[0] + radius, abs(y) - half[1] + radius
    return math.hypot(max(qx, 0.0), max(qy, 0.0)) + min(max(qx, qy), 0.0) - radius


def _segment(px, py, a, b) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(px - ax - t * dx, py - ay - t * dy)


def _tick_points() -> list[tuple[float, float]]:
    (cx, cy), _, _, degrees = FRONT
    return [(cx + x, cy + y) for x, y in (_turn(px, py, degrees) for px, py in TICK)]


def _shapes(full_bleed: bool):
    """(distance function, colour) from the bottom up, in drawing units."""
    points = _tick_points()
    background = ((lambda x, y: -1.0) if full_bleed else
                  (lambda x, y: _box(x, y, (SIZE / 2, SIZE / 2), (SIZE / 2, SIZE / 2), CORNER)))
    return [
        (background, BACKGROUND),
        (lambda x, y: _box(x, y, *BACK), BACK_CARD),
        (lambda x, y: _box(x, y, *FRONT), FRONT_CARD),
        (lambda x, y: min(_segment(x, y, a, b) for a, b in zip(points, points[1:])) - TICK_WIDTH / 2, CHECK),
    ]


def render(pixels: int, full_bleed: bool, scale: float = 1.0) -> bytes:
    """RGBA rows; ``scale`` shrinks the drawing about the centre (the maskable icon's safe zone)."""
    unit = SIZE / pixels / scale  # drawing units per pixel
    shapes = [(fn, _rgb(colour)) for fn, colour in _shapes(full_bleed)]
    rows = bytearray()
    for j in range(pixels):
        rows.append(0)  # PNG filter: none
        for i in range(pixels):
            x = SIZE / 2 + ((i + 0.5) * SIZE / pixels - SIZE / 2) / scale
            y = SIZE / 2 + ((j + 0.5) * SIZE / pixels - SIZE / 2) / scale
            r = g = b = 0.0
            alpha = 0.0
            for fn, (cr, cg, cb) in shapes:
                cover = max(0.0, min(1.0, 0.5 - fn(x, y) / unit))  # analytic anti-aliasing
                if cover:
                    r, g, b = r + (cr - r) * cover, g + (cg - g) * cover, b + (cb - b) * cover
                    alpha = alpha + (1 - alpha) * cover
            rows += bytes((round(r), round(g), round(b), round(alpha * 255)))
    return bytes(rows)


def png(pixels: int, rows: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", pixels, pixels, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def svg() -> str:
    def card(shape, colour):
        (cx, cy), (hw, hh), radius, degrees = shape
        return (f'<rect x="{cx - hw}" y="{cy - hh}" width="{2 * hw}" height="{2 * hh}" rx="{radius}" '
                f'fill="{colour}" transform="rotate({degrees} {cx} {cy})"/>')

    tick = " ".join(f"{x:.1f},{y:.1f}" for x, y in _tick_points())
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {SIZE} {SIZE}">'
            f'<rect width="{SIZE}" height="{SIZE}" rx="{CORNER}" fill="{BACKGROUND}"/>'
            f'{card(BACK, BACK_CARD)}{card(FRONT, FRONT_CARD)}'
            f'<polyline points="{tick}" fill="none" stroke="{CHECK}" stroke-width="{TICK_WIDTH}" '
            f'stroke-linecap="round" stroke-linejoin="round"/></svg>\n')


def main() -> None:
    (STATIC / "icon.svg").write_text(svg(), encoding="utf-8")
    for name, pixels, full_bleed, scale in [("icon-192.png", 192, False, 1.0), ("icon-512.png", 512, False, 1.0),
                                            ("icon-maskable-512.png", 512, True, 0.78),
                                            ("apple-touch-icon.png", 180, True, 0.86)]:
        (STATIC / name).write_bytes(png(pixels, render(pixels, full_bleed, scale)))
        print("wrote", STATIC / name)


if __name__ == "__main__":
    main()
