#!/usr/bin/env python3
"""Checks on the app's screenshots, for the app_*.test.sh scripts (stdlib only).

  app_png.py nonblank FILE.png              exit 0 if the image has many colours
  app_png.py pixel FILE.png X Y             print "r g b"
  app_png.py colormap MAP VALUE LO HI       print the 8-bit colour shaders/heatmap.frag gives VALUE
  app_png.py cell STATE.json HEATMAP ROW COL   print the pixel centre "x y" of a cell
  app_png.py masked FILE.png X0 Y0 X1 Y1    exit 0 if the box shows the masked stripes
"""
import json
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
COLORMAPS = os.path.join(HERE, "..", "shaders", "colormaps.txt")


def read_png(path):
    """(width, height, rows of (r, g, b) tuples) for 8-bit RGB or RGBA PNGs."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "only 8-bit RGB(A)"
            channels = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        ftype, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i]
            c = prev[i - channels] if i >= channels else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def load_maps():
    maps = {}
    with open(COLORMAPS) as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            name, pos, r, g, b = line.split()
            maps.setdefault(name, []).append((float(pos), (float(r), float(g), float(b))))
    return maps


def colormap(name, value, lo, hi):
    """The shader's colour for a value, as 8-bit RGB (see shaders/heatmap.frag)."""
    stops = load_maps()[name]
    if name == "diverging":
        m = max(abs(lo), abs(hi))
        t = 0.5 + 0.5 * value / m if m > 0 else 0.5
    else:
        t = (value - lo) / (hi - lo) if hi > lo else 0.0
    t = min(max(t, 0.0), 1.0)
    rgb = stops[-1][1]
    for (p0, c0), (p1, c1) in zip(stops, stops[1:]):
        if t <= p1:
            f = (t - p0) / (p1 - p0)
            rgb = tuple(a + (b - a) * f for a, b in zip(c0, c1))
            break
    return tuple(int(round(c * 255)) for c in rgb)


def main(argv):
    cmd = argv[1]
    if cmd == "nonblank":
        _, _, rows = read_png(argv[2])
        colours = {px for row in rows[::4] for px in row[::4]}
        print(len(colours), "colours")
        return 0 if len(colours) > 50 else 1
    if cmd == "pixel":
        _, _, rows = read_png(argv[2])
        print(*rows[int(argv[4])][int(argv[3])])
        return 0
    if cmd == "colormap":
        print(*colormap(argv[2], float(argv[3]), float(argv[4]), float(argv[5])))
        return 0
    if cmd == "cell":
        with open(argv[2]) as f:
            h = json.load(f)["heatmaps"][argv[3]]
        x0, y0 = h["rect"][0], h["rect"][1]
        cw, ch = h["cell"]
        print(int(x0 + cw * (int(argv[5]) + 0.5)), int(y0 + ch * (int(argv[4]) + 0.5)))
        return 0
    if cmd == "masked":
        _, _, rows = read_png(argv[2])
        x0, y0, x1, y1 = (int(float(v)) for v in argv[3:7])
        maps = load_maps()["masked"]
        want = {tuple(int(round(c * 255)) for c in rgb) for _, rgb in maps}
        seen = {rows[y][x] for y in range(y0 + 2, y1 - 2) for x in range(x0 + 2, x1 - 2)}
        near = lambda a, b: all(abs(p - q) <= 2 for p, q in zip(a, b))
        # Both stripe colours and nothing else: a pattern, not a value's colour.
        ok = all(any(near(s, w) for s in seen) for w in want) and all(any(near(s, w) for w in want) for s in seen)
        if ok:
            print("masked")
        else:  # what the box shows instead, commonest first, so that a log says what covered it
            from collections import Counter
            counts = Counter(rows[y][x] for y in range(y0 + 2, y1 - 2) for x in range(x0 + 2, x1 - 2))
            print("not masked: %d colours, commonest %s" % (len(seen), counts.most_common(4)))
        return 0 if ok else 1
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
