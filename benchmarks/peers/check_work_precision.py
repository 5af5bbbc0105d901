#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""CTest check of `mechstudio-peers --work-precision --quick` (issue 33).

Runs the double pendulum with our VI and our RK4 at dt 0.01 and 0.005 (1 s), and the box drop with
midpoint-gc (which refuses contacts). Checks: the header; every double-pendulum row `ok` with a
finite cost, trajectory and energy error; the VI's trajectory error falls 3-5x when dt halves
(second order against the dt = 1e-5 reference); the box-drop row `refused` with a reason; the
incline (turned level for the peers, gravity tilted): our VI keeps the box within 1e-6 m of the
plane, at rest where tan 20° < mu (slide_error < 1e-6 m) and sliding 1/2 g (sin - mu cos) t^2 within
1e-4 m of 0.29 m where it is not.
Usage: check_work_precision.py PATH/TO/mechstudio-peers
"""
import csv
import io
import math
import subprocess
import sys

HEADER = ["scenario", "engine", "integrator", "dt", "us_per_sim_second", "trajectory_error_1s [m]",
          "energy_error_max [J]", "closure_max [m]", "penetration_max [m]", "penetration_rest [m]",
          "rebound [m]", "slide_error [m]", "repetitions", "cost_spread", "status", "note"]


def run(peers, scenario, engines):
    p = subprocess.run([peers, "--work-precision", "--quick", f"--filter={scenario}", f"--engines={engines}"],
                       capture_output=True, text=True, check=False)
    if p.returncode != 0:
        sys.exit(f"mechstudio-peers exited with {p.returncode}\n{p.stdout}\n{p.stderr}")
    rows = list(csv.reader(io.StringIO(p.stdout)))
    if rows[0] != HEADER:
        sys.exit(f"unexpected header {rows[0]}")
    return [dict(zip(HEADER, r)) for r in rows[1:]]


def main():
    peers = sys.argv[1]
    rows = run(peers, "double-pendulum", "ours:vi,ours:rk4")
    if len(rows) != 4:
        sys.exit(f"expected 4 double-pendulum rows, got {len(rows)}: {rows}")
    vi = {}
    for r in rows:
        if r["status"] != "ok":
            sys.exit(f"a double-pendulum run is not ok: {r}")
        for key in ("us_per_sim_second", "trajectory_error_1s [m]", "energy_error_max [J]"):
            v = float(r[key])
            if not (math.isfinite(v) and v >= 0):
                sys.exit(f"{key} is not a finite non-negative number: {r}")
        if r["integrator"] == "vi":
            vi[float(r["dt"])] = float(r["trajectory_error_1s [m]"])
    ratio = vi[0.01] / vi[0.005]
    print(f"VI trajectory error at 1 s: {vi[0.01]:.3g} m at dt 0.01, {vi[0.005]:.3g} m at 0.005 (ratio {ratio:.2f})")
    if not 3 <= ratio <= 5:
        sys.exit("the VI's trajectory error does not fall 3-5x when dt halves")
    rows = run(peers, "box-drop", "ours:midpoint-gc")
    if len(rows) != 2 or any(r["status"] != "refused" or not r["note"] for r in rows):
        sys.exit(f"midpoint-gc on the box drop is not refused with a reason: {rows}")
    print("refused:", rows[0]["note"])
    for scenario, bound in (("incline/stick", 1e-6), ("incline/slide", 1e-4)):
        rows = run(peers, scenario, "ours:vi")
        for r in rows:
            slide, pen = float(r["slide_error [m]"]), float(r["penetration_max [m]"])
            print(f"{scenario} dt {r['dt']}: slide error {slide:.3g} m, penetration {pen:.3g} m")
            if r["status"] != "ok" or not (slide <= bound and pen <= 1e-6):
                sys.exit(f"{scenario}: slide error above {bound} m or penetration above 1e-6 m: {r}")


if __name__ == "__main__":
    main()
