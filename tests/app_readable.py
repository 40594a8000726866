#!/usr/bin/env python3
"""Whether every heatmap on screen reads from the back of the room, from the app's state
file (--state-out): each heatmap's "labels" (its axis labels and figures as drawn) and,
in focus, its "view". Prints one line per problem and exits 1 when there is any.

  app_readable.py STATE.json [--focus-stage NAME]

Problems:
- an axis label cut with "…" where turned whole it would fit: a label whose whole length
  is at most 12 font sizes and a third of the matrix's side (at least 2.5 font sizes),
  or a turned one at most a third longer (drawn in type down to 75 %), must be drawn
  whole (the app's rule, app/views/matrix_labels.h), the pointer's and the lesson's always;
- labels hidden where a line of text fits the cells (turned, for the columns);
- a number or label laid over two lines (its rectangle taller than 1.5 lines);
- the focus matrix (NAME) using less than half of the smaller side of its view while its
  cells are below the largest the focus view draws (400 px at 1x);
- numbers left out of cells that hold them: a heatmap that asks for values, whose cells
  are as wide as a number needs in its font (the state's values.need_px) and a line tall;
- in focus (presenter mode), compare cards that take neither the view's width nor its
  height: their heatmaps must span 95 % of the view's width or 30 % of its height (the
  rest is titles, legends and labels; five cards of 6 x 6 weights spanned 25 % before
  a row of cards shared its row labels, 37 % after).
"""
import json
import sys

EMS = 12.0
MIN_EMS = 2.5
MIN_TYPE = 0.75
FOCUS_MAX_CELL = 400.0


def problems(s, focus_stage=None):
    out = []
    scale = s.get("ui_scale", 1.0)
    for name, h in s["heatmaps"].items():
        if not h.get("visible"):
            continue
        x0, y0, x1, y1 = h["rect"]
        heat_w, heat_h = x1 - x0, y1 - y0
        cell_w, cell_h = h["cell"]
        lab = h.get("labels", {})
        font = lab.get("font_px", 0.0)
        for axis, across, cell in (("rows", heat_w, cell_h), ("cols", heat_h, cell_w)):
            a = lab.get(axis)
            if not a or not a["present"]:
                continue
            # The room (matrix_labels.h): up to 12 font sizes where that is at most a third of
            # the side, at least 2.5; a turned column label may be drawn down to 75 % before
            # it is cut.
            allowed = max(MIN_EMS * font, min(EMS * font, across / 3.0))
            if axis == "cols" and a["turned"]:
                allowed /= MIN_TYPE
            for l in a["labels"]:
                if l["as"] == "shortened" and (l["full_px"] <= allowed + 0.5 or l["hot"]):
                    out.append(f"{name}: {axis} label {l['text']!r} shortened though {l['full_px']:.0f} px "
                               f"whole fits ({allowed:.0f} px allowed{', emphasised' if l['hot'] else ''})")
                if axis == "cols" and l["as"] == "shortened" and not a["turned"] and cell >= font:
                    out.append(f"{name}: column label {l['text']!r} shortened flat where turned it fits")
                r = l["rect"]
                thick = (r[2] - r[0]) if a["turned"] else (r[3] - r[1])
                if font and thick > 1.5 * font * 1.3:
                    out.append(f"{name}: {axis} label {l['text']!r} over two lines: {r}")
            # A line of text is about 1.2 font sizes: hidden labels where one fits.
            if a["hidden"] and font and cell >= 1.2 * font:
                out.append(f"{name}: {a['hidden']} {axis} labels hidden in {cell:.0f} px cells "
                           f"({font:.0f} px font)")
        v = h.get("values")
        if v and not v["shown"] and font and cell_w >= v["need_px"] and cell_h >= 1.2 * font:
            out.append(f"{name}: no numbers in {cell_w:.0f} x {cell_h:.0f} px cells that hold them "
                       f"({v['need_px']:.0f} px needed)")
        for f in lab.get("figures", []):
            r = f["rect"]
            if r[3] - r[1] > 1.5 * f["line_h"]:
                out.append(f"{name}: {f['text']!r} laid over lines: {r[3] - r[1]:.0f} px tall, "
                           f"line {f['line_h']:.0f}")
    if focus_stage and focus_stage in s["heatmaps"]:
        h = s["heatmaps"][focus_stage]
        v = h.get("view")
        x0, y0, x1, y1 = h["rect"]
        if v is not None:  # drawn by the focus view (the pipeline's cards have none)
            side = min(v[2] - v[0], v[3] - v[1])
            used = max(x1 - x0, y1 - y0)
            capped = min(h["cell"]) >= FOCUS_MAX_CELL * scale - 1
            if used < 0.5 * side and not capped:
                out.append(f"{focus_stage}: the focus matrix uses {used:.0f} px of its view's {side:.0f} px "
                           f"(cells {h['cell']})")
    cards = [h["rect"] for name, h in s["heatmaps"].items() if name.startswith("compare/") and h.get("visible")]
    if s.get("focus") and cards and s.get("viewport"):
        vx0, vy0, vx1, vy1 = s["viewport"]
        across = max(r[2] for r in cards) - min(r[0] for r in cards)
        down = max(r[3] for r in cards) - min(r[1] for r in cards)
        if across < 0.95 * (vx1 - vx0) and down < 0.3 * (vy1 - vy0):
            out.append(f"compare cards span {across:.0f} x {down:.0f} px of a {vx1 - vx0:.0f} x {vy1 - vy0:.0f} px view")
    return out


def main():
    state = json.load(open(sys.argv[1]))
    focus = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--focus-stage" else None
    found = problems(state, focus)
    for p in found:
        print(p)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
