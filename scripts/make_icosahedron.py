#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes models/meshes/icosahedron.obj and models/meshes/icosahedron.stl (binary): the regular
icosahedron with circumradius 1 (units: m when used unscaled), vertices (0, ±1, ±φ), (±1, ±φ, 0),
(±φ, 0, ±1) divided by √(1 + φ²), φ = (1 + √5)/2, 20 triangles counter-clockwise seen from outside.

The OBJ has every coordinate in the shortest form that reads back as the same double (Python's
repr); the STL stores float32 as the format requires. Usage: python3 scripts/make_icosahedron.py
"""
import math
import os
import struct

from vec3 import cross, dot, sub

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "models", "meshes")

PHI = (1 + math.sqrt(5)) / 2
S = 1 / math.sqrt(1 + PHI * PHI)
VERTICES = [(-1, PHI, 0), (1, PHI, 0), (-1, -PHI, 0), (1, -PHI, 0),
            (0, -1, PHI), (0, 1, PHI), (0, -1, -PHI), (0, 1, -PHI),
            (PHI, 0, -1), (PHI, 0, 1), (-PHI, 0, -1), (-PHI, 0, 1)]
VERTICES = [tuple(c * S for c in v) for v in VERTICES]
FACES = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11),
         (1, 5, 9), (5, 11, 4), (11, 10, 2), (10, 7, 6), (7, 1, 8),
         (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8), (3, 8, 9),
         (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]




def normal(face):
    a, b, c = (VERTICES[i] for i in face)
    n = cross(sub(b, a), sub(c, a))
    length = math.sqrt(dot(n, n))
    return tuple(x / length for x in n)


def main():
    # Outward and counter-clockwise: the normal points away from the centre.
    for f in FACES:
        assert dot(normal(f), VERTICES[f[0]]) > 0, f
    with open(os.path.join(OUT, "icosahedron.obj"), "w", encoding="ascii") as out:
        out.write("# SPDX-License-Identifier: GPL-3.0-or-later\n")
        out.write("# Regular icosahedron, circumradius 1 (scripts/make_icosahedron.py): 12 vertices, 20 faces.\n")
        for v in VERTICES:
            out.write("v %s %s %s\n" % tuple(repr(float(c)) for c in v))
        for f in FACES:
            out.write("f %d %d %d\n" % tuple(i + 1 for i in f))
    with open(os.path.join(OUT, "icosahedron.stl"), "wb") as out:
        header = b"icosahedron, circumradius 1, GPL-3.0-or-later (scripts/make_icosahedron.py)"
        out.write(header.ljust(80, b" "))
        out.write(struct.pack("<I", len(FACES)))
        for f in FACES:
            out.write(struct.pack("<3f", *normal(f)))
            for i in f:
                out.write(struct.pack("<3f", *VERTICES[i]))
            out.write(struct.pack("<H", 0))


if __name__ == "__main__":
    main()
