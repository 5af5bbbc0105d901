#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The stability limit of the variational step on a hanging chain (docs/engine.md, "The stability
limit of long chains, and the refinement").

The step applies the constraint impulses at the knot (G(z1)^T lambda), so the stiffness of the
tension enters explicitly, as in SHAKE/RATTLE: the linearised motion has a step only for
omega * dt < 2, omega the fastest oscillation of the constrained chain. This script computes omega
for models/chain.mech hanging straight down (n rods of mass m, length l, radius r, revolute joints
about x): the chain linearised in the absolute link angles, mass matrix M = m A^T A + I_c 1 (A maps
angle rates to the rods' centre velocities) and gravity stiffness K = diag(m g l (n - j - 1/2)),
omega^2 the largest eigenvalue of K x = omega^2 M x.

  scripts/chain_stability.py [N ...] [--mass 1] [--length 1] [--radius 0.05] [--gravity 9.81]

Prints n, omega_max [rad/s] and dt_max = 2 / omega_max [s] for each N (default: 20 50 100 300 500 1000).
Compare: mechstudio-cli simulate models/chain.mech --set n=N --dt DT --csv F (column substeps > 1:
the step had no solution over DT).
"""
import argparse

import numpy as np


def omega_max(n, mass=1.0, length=1.0, radius=0.05, gravity=9.81):
    """Fastest small oscillation [rad/s] of n rods hanging straight down, jointed at their ends."""
    inertia = mass * (3 * radius * radius + length * length) / 12  # about the hinge axis, at the centre
    a = np.tril(np.full((n, n), length), -1) + np.eye(n) * (length / 2)  # centre velocity per angle rate
    m = mass * a.T @ a + inertia * np.eye(n)
    k = np.diag([mass * gravity * length * (n - j - 0.5) for j in range(n)])
    # K x = w^2 M x with M = L L^T: the symmetric L^-1 K L^-T has the same eigenvalues.
    l = np.linalg.cholesky(m)
    li = np.linalg.inv(l)
    return float(np.sqrt(np.linalg.eigvalsh(li @ k @ li.T)[-1]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("n", nargs="*", type=int, default=[20, 50, 100, 300, 500, 1000])
    ap.add_argument("--mass", type=float, default=1.0)
    ap.add_argument("--length", type=float, default=1.0)
    ap.add_argument("--radius", type=float, default=0.05)
    ap.add_argument("--gravity", type=float, default=9.81)
    a = ap.parse_args()
    if any(n < 1 for n in a.n) or min(a.mass, a.length, a.gravity) <= 0 or a.radius < 0:
        ap.error("n >= 1, mass, length and gravity > 0, radius >= 0")
    print("n,omega_max [rad/s],dt_max [s]")
    for n in a.n:
        w = omega_max(n, a.mass, a.length, a.radius, a.gravity)
        print(f"{n},{w:.4g},{2 / w:.4g}")


if __name__ == "__main__":
    main()
