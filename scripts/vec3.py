# SPDX-License-Identifier: GPL-3.0-or-later
"""Small 3-vector helpers shared by the mesh generators (make_rock.py, make_icosahedron.py)."""


def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))
