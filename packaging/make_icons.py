#!/usr/bin/python3
"""Draws attnscope's icon: the causal attention weights of a six-token sentence, each
row a softmax over the tokens so far (the lower triangle of chapter 3's mask), on a
white tile. Writes icons/attnscope.svg and icons/<N>x<N>/attnscope.png for the hicolor
theme's sizes; the PNGs are committed, this script says how they were made.

    python3 packaging/make_icons.py
"""
import math
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = [16, 24, 32, 48, 64, 128, 256]
N = 6  # tokens


def weights():
    """Row i: softmax of fixed scores over tokens 0..i (the others are masked)."""
    rows = []
    for i in range(N):
        scores = [math.cos(1.3 * i - 0.9 * j) * 2.0 for j in range(i + 1)]
        top = max(scores)
        e = [math.exp(s - top) for s in scores]
        total = sum(e)
        rows.append([x / total for x in e] + [None] * (N - i - 1))
    return rows


def colour(w):
    """White to deep blue, as the app's default colour map runs from low to high."""
    if w is None:
        return (232, 232, 238)  # masked: the app's grey
    t = 0.15 + 0.85 * w
    return tuple(int(round(255 + (c - 255) * t)) for c in (33, 84, 173))


def cell_at(size, x, y):
    """The pixel colour at (x, y) of a size x size icon, with a frame around the grid."""
    margin = size * 0.08
    grid = size - 2 * margin
    gx, gy = (x + 0.5 - margin) / grid * N, (y + 0.5 - margin) / grid * N
    if not (0 <= gx < N and 0 <= gy < N):
        return (255, 255, 255, 0) if (x < margin * 0.3 or y < margin * 0.3 or
                                      x >= size - margin * 0.3 or y >= size - margin * 0.3) else (255, 255, 255, 255)
    gap = 0.08 if size >= 32 else 0.0  # tiny sizes: no gaps, they would blur
    if gap and (gx % 1 < gap or gy % 1 < gap):
        return (255, 255, 255, 255)
    return colour(weights()[int(gy)][int(gx)]) + (255,)


def png(size):
    rows = b"".join(b"\x00" + b"".join(bytes(cell_at(size, x, y)) for x in range(size)) for y in range(size))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def svg():
    w = weights()
    cells = []
    for i in range(N):
        for j in range(N):
            r, g, b = colour(w[i][j])
            cells.append('<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="#%02x%02x%02x"/>'
                         % (8 + j * 80 / N, 8 + i * 80 / N, 80 / N - 1.2, 80 / N - 1.2, r, g, b))
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 96 96" width="96" height="96">\n'
            '<rect x="2" y="2" width="92" height="92" rx="6" fill="#ffffff"/>\n' + "\n".join(cells) + "\n</svg>\n")


def main():
    for size in SIZES:
        folder = os.path.join(HERE, "icons", "%dx%d" % (size, size))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "attnscope.png"), "wb") as f:
            f.write(png(size))
    with open(os.path.join(HERE, "icons", "attnscope.svg"), "w") as f:
        f.write(svg())


if __name__ == "__main__":
    main()
