#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes models/meshes/rock.obj: a low-poly convex rock about 0.2 m across (units: m).

Points at random directions on a squashed ellipsoid (semi-axes 0.1, 0.08, 0.06 m) with radii
varied by ±20 %, from a fixed seed; the rock is their convex hull (brute force: with points in
general position every hull face is a triangle through three of them). Only hull vertices are
written, shifted so that the centroid of the solid rock is the origin (then the body frame of a
body made of the rock is its centre of mass), and rounded to 0.1 µm; the script checks that the
rounded rock is still strictly convex with 14 to 20 vertices. Usage: python3 scripts/make_rock.py
"""
import itertools
import math
import os
import random

from vec3 import cross, dot, sub

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "models", "meshes", "rock.obj")
SEED = 16
POINTS = 20
SEMI_AXES = (0.1, 0.08, 0.06)
DIGITS = 7  # rounding of the written coordinates [m]




def hull(points, margin):
    """Triangles (i, j, k), counter-clockwise seen from outside, with every other point more than
    `margin` below their plane; None when some four points are (nearly) coplanar."""
    faces = []
    for i, j, k in itertools.combinations(range(len(points)), 3):
        n = cross(sub(points[j], points[i]), sub(points[k], points[i]))
        length = math.sqrt(dot(n, n))
        if length == 0:
            return None
        n = tuple(x / length for x in n)
        side = [dot(n, sub(p, points[i])) for m, p in enumerate(points) if m not in (i, j, k)]
        if all(s < -margin for s in side):
            faces.append((i, j, k))
        elif all(s > margin for s in side):
            faces.append((i, k, j))
        elif all(s < margin for s in side) or all(s > -margin for s in side):
            return None  # a fourth point (nearly) on the plane of a hull face
    return faces


def centroid(points, faces):
    """Centroid of the solid polyhedron (tetrahedra from the first point)."""
    o = points[0]
    volume, moment = 0.0, [0.0, 0.0, 0.0]
    for i, j, k in faces:
        a, b, c = sub(points[i], o), sub(points[j], o), sub(points[k], o)
        v = dot(a, cross(b, c)) / 6
        volume += v
        for d in range(3):
            moment[d] += v * (a[d] + b[d] + c[d]) / 4
    return tuple(o[d] + moment[d] / volume for d in range(3))


def main():
    rng = random.Random(SEED)
    while True:
        points = []
        for _ in range(POINTS):
            z = rng.uniform(-1, 1)
            t = rng.uniform(0, 2 * math.pi)
            r = math.sqrt(1 - z * z) * rng.uniform(0.8, 1.2)
            d = (r * math.cos(t), r * math.sin(t), z * rng.uniform(0.8, 1.2))
            points.append(tuple(s * x for s, x in zip(SEMI_AXES, d)))
        faces = hull(points, 1e-4)
        if faces is None:
            continue
        used = sorted({i for f in faces for i in f})
        if not 14 <= len(used) <= 20:
            continue
        points = [points[i] for i in used]
        c = centroid(points, hull(points, 1e-4))
        points = [tuple(round(x - cx, DIGITS) for x, cx in zip(p, c)) for p in points]
        faces = hull(points, 1e-4)
        if faces is None or len({i for f in faces for i in f}) != len(points):
            continue
        break
    span = [max(p[d] for p in points) - min(p[d] for p in points) for d in range(3)]
    with open(OUT, "w", encoding="ascii") as out:
        out.write("# SPDX-License-Identifier: GPL-3.0-or-later\n")
        out.write("# A low-poly convex rock (scripts/make_rock.py, seed %d): %d vertices, %d faces,\n" % (SEED, len(points), len(faces)))
        out.write("# %.3f x %.3f x %.3f m, centroid of the solid at the origin.\n" % tuple(span))
        for p in points:
            out.write("v %s %s %s\n" % tuple(format(x, ".7f").rstrip("0").rstrip(".") if x != 0 else "0" for x in p))
        for f in sorted(faces):
            out.write("f %d %d %d\n" % tuple(i + 1 for i in f))
    print("rock.obj: %d vertices, %d faces, %.3f x %.3f x %.3f m" % (len(points), len(faces), *span))


if __name__ == "__main__":
    main()
