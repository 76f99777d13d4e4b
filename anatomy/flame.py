"""A flame graph (SVG) of collapsed stacks, each frame colored by its layer.

Root at the bottom, callers below callees, a frame's width its share of the samples; hovering a
frame shows its name, layer and share (an SVG <title>). Self-contained: no script, no font file.
"""
from __future__ import annotations

import html

from anatomy.layers import Rules, layer_of_frame

COLORS = {"server": "#e8833a", "framework": "#4c9be8", "app": "#5cb85c", "driver": "#b05cc6", "json": "#e8c53a",
          None: "#c9c9c9"}
WIDTH, ROW, MIN_PX = 1200, 16, 0.8


def _tree(stacks: list[tuple[list[str], float]]) -> dict:
    root: dict = {"n": 0.0, "kids": {}}
    for frames, count in stacks:
        node = root
        node["n"] += count
        for frame in frames:
            node = node["kids"].setdefault(frame, {"n": 0.0, "kids": {}})
            node["n"] += count
    return root


def _depth(node: dict) -> int:
    return 1 + max((_depth(k) for k in node["kids"].values()), default=0)


def svg(stacks: list[tuple[list[str], float]], rules: Rules, title: str) -> str:
    root = _tree(stacks)
    total = root["n"] or 1.0
    height = (min(_depth(root), 80) + 2) * ROW
    scale = WIDTH / total
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
           f'viewBox="0 0 {WIDTH} {height}" font-family="monospace" font-size="11">',
           f'<text x="4" y="12">{html.escape(title)}</text>']

    def draw(node: dict, x: float, level: int) -> None:
        for frame, kid in sorted(node["kids"].items()):
            w = kid["n"] * scale
            if w >= MIN_PX and level < 80:
                y = height - (level + 1) * ROW
                layer = layer_of_frame(frame, rules)
                tip = f"{frame} [{layer or 'stdlib/runtime'}] {100 * kid['n'] / total:.1f}%"
                out.append(f'<g><title>{html.escape(tip)}</title><rect x="{x:.1f}" y="{y}" width="{w:.1f}" '
                           f'height="{ROW - 1}" fill="{COLORS.get(layer, COLORS[None])}" rx="1"/>')
                chars = int(w / 6.6)
                if chars >= 3:
                    label = frame if len(frame) <= chars else frame[:chars - 2] + ".."
                    out.append(f'<text x="{x + 2:.1f}" y="{y + ROW - 4}">{html.escape(label)}</text>')
                out.append("</g>")
                draw(kid, x, level + 1)
            x += w

    draw(root, 0.0, 0)
    legend = "  ".join(f"{name}" for name in ("server", "framework", "app", "driver", "json"))
    out.append(f'<text x="{WIDTH - 8}" y="12" text-anchor="end">colors: {legend}, grey stdlib/runtime</text>')
    out.append("</svg>")
    return "\n".join(out)
